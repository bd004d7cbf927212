// A few DOM helpers: the page is plain TypeScript, no framework.

type Child = Node | string | null | undefined | false;

/** An element with attributes and children (strings become text, never HTML). */
export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Record<string, string> = {},
  ...children: (Child | Child[])[]
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, value);
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(typeof child === "string" ? document.createTextNode(child) : child);
  }
  return node;
}

/** A button that runs `action` when clicked. */
export function button(label: Child | Child[], action: () => void, attributes: Record<string, string> = {}): HTMLButtonElement {
  const node = el("button", { type: "button", ...attributes }, label);
  node.addEventListener("click", action);
  return node;
}

/** "cardPlayed" or "card_played" -> "card played". */
export function words(name: string): string {
  return name.replace(/_/g, " ").replace(/([a-z])([A-Z])/g, "$1 $2").toLowerCase();
}

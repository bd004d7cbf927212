// Cards as the wire writes them ("10S", "QH", "JK", a joker standing for a card "JK=7H") and
// as the page draws them: a big rank, the suit in its colour.

import { el } from "./dom";

const SUITS: Record<string, { symbol: string; name: string; red: boolean }> = {
  S: { symbol: "♠", name: "spades", red: false },
  H: { symbol: "♥", name: "hearts", red: true },
  D: { symbol: "♦", name: "diamonds", red: true },
  C: { symbol: "♣", name: "clubs", red: false },
};
const RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"];
const CARD = /^(?:JK|(?:10|[2-9AJQK])[SHDC])(?:=(?:10|[2-9AJQK])[SHDC])?$/;

/** Whether a string is a card code (a joker may say what it stands for: "JK=7H"). */
export function isCard(text: string): boolean {
  return CARD.test(text);
}

export function suitOf(card: string): string {
  return card === "JK" || card.startsWith("JK=") ? "" : card.slice(-1);
}

export function rankOf(card: string): string {
  return card.startsWith("JK") ? "JK" : card.slice(0, -1);
}

/** The card's name in words, for titles and screen readers: "10 of hearts", "joker as 7H". */
export function cardName(card: string): string {
  if (card.startsWith("JK")) {
    const as = card.split("=")[1];
    return as ? `joker as ${cardName(as)}` : "joker";
  }
  const suit = SUITS[suitOf(card)];
  return `${rankOf(card)} of ${suit ? suit.name : "?"}`;
}

/** A card face: `size` "big" (the hand), "mid" (the table) or "mini" (inside a line of text). */
export function cardFace(card: string, size: "big" | "mid" | "mini" = "mid"): HTMLElement {
  const node = el("span", { class: `card ${size}`, title: cardName(card) });
  node.dataset.card = card;
  if (card.startsWith("JK")) {
    node.classList.add("joker");
    const as = card.split("=")[1];
    node.append(el("span", { class: "rank" }, "★"), el("span", { class: "suit" }, as ? `=${as}` : "JK"));
    return node;
  }
  const suit = SUITS[suitOf(card)];
  node.classList.add(suit && suit.red ? "red" : "black", `suit-${suitOf(card)}`);
  node.append(el("span", { class: "rank" }, rankOf(card)), el("span", { class: "suit" }, suit ? suit.symbol : "?"));
  return node;
}

/** A face-down card (another seat's, the stock). */
export function cardBack(size: "mid" | "mini" = "mini"): HTMLElement {
  return el("span", { class: `card back ${size}`, title: "a face-down card" });
}

/** Sort order in a hand: by suit (spades, hearts, clubs, diamonds: colours alternate), then rank; jokers last. */
export function handOrder(a: string, b: string): number {
  const suits = "SHCD";
  const key = (card: string): number =>
    card.startsWith("JK") ? 999 : suits.indexOf(suitOf(card)) * 20 + RANKS.indexOf(rankOf(card));
  return key(a) - key(b);
}

/** Every card code anywhere in JSON-like data (a joker "JK=7H" counts as itself). */
export function cardsIn(data: unknown, found: Set<string> = new Set()): Set<string> {
  if (typeof data === "string") {
    if (isCard(data)) found.add(data);
  } else if (Array.isArray(data)) {
    for (const item of data) cardsIn(item, found);
  } else if (data && typeof data === "object") {
    for (const item of Object.values(data)) cardsIn(item, found);
  }
  return found;
}

// What each game puts on the table (the middle of the page), from the JSON of its view, and the
// line of figures under each seat (cards in hand, score). The rest of the page is the same for
// every game.

import { cardBack, cardFace } from "./cards";
import { type Namer, enumWord } from "./describe";
import { el } from "./dom";

// biome-ignore lint: the views' JSON, read field by field
type V = Record<string, any>;

export interface GameInfo {
  title: string;
  blurb: string;
  /** The seat counts the game allows (the first is the default). */
  players: number[];
  /** Teams: the seats of side s are those with seat % sides === s (Seep and four-handed All Fours). */
  sides: (players: number) => number;
}

export const GAMES: Record<string, GameInfo> = {
  seep: {
    title: "Seep",
    blurb: "The North Indian fishing game with houses: capture by value, build houses, sweep the floor.",
    players: [4],
    sides: () => 2,
  },
  contract_rummy: {
    title: "Contract Rummy",
    blurb: "Seven deals, seven contracts of sets and runs; go out first, with jokers wild.",
    players: [4, 3, 5],
    sides: (players) => players,
  },
  all_fours: {
    title: "All Fours",
    blurb: "Trinidad's trick-taking classic: high, low, jack and game, begging and kicks.",
    players: [4, 2],
    sides: () => 2,
  },
};

const n = (value: unknown): number => (typeof value === "number" ? value : Number(value ?? 0));
const list = <T>(value: unknown): T[] => (Array.isArray(value) ? (value as T[]) : []);

function pile(label: string, count: number): HTMLElement {
  return el("div", { class: "pile" }, count > 0 ? cardBack("mid") : el("span", { class: "card empty mid" }),
    el("span", { class: "label" }, `${label} ${count}`));
}

function zone(title: string, ...children: (Node | string)[]): HTMLElement {
  return el("section", { class: "zone" }, el("h3", {}, title), el("div", { class: "cards" }, ...children));
}

function chips(items: string[]): HTMLElement {
  return el("div", { class: "chips" }, ...items.map((text) => el("span", { class: "chip" }, text)));
}

/** The middle of the table. `names` names the seats and teams; `lastTrick`: All Fours' last trick won (an event). */
export function tableArea(game: string, view: V, names: Namer, lastTrick: V | null): HTMLElement {
  const seatName = names.seat;
  const sideName = names.side;
  const area = el("div", { class: `felt felt-${game}` });
  if (game === "seep") {
    const houses = list<V>(view.houses).map((house) =>
      el("div", { class: "house", title: `a house of ${n(house.value)}` },
        el("div", { class: "house-value" }, `House ${n(house.value)}`),
        ...list<V>(house.components).map((part) =>
          el("div", { class: "component" }, ...list<string>(part.cards).map((card) => cardFace(card, "mid")))),
        el("div", { class: "owners" }, list<number>(house.owners).map(seatName).join(", "))));
    area.append(
      chips([
        `Phase: ${enumWord(String(view.phase ?? ""))}`,
        view.bid !== undefined ? `Bid: ${n(view.bid)}` : "No bid yet",
        `Deal plays: ${n(view.plays)}`,
        ...list<number>(view.sweeps).map((count, side) => `${sideName(side)} sweeps: ${count}`),
        ...list<number>(view.baazis).map((count, side) => `${sideName(side)} baazis: ${count}`),
      ]),
      zone("Floor", ...list<string>(view.loose).map((card) => cardFace(card, "mid")),
        ...houses, ...(n(view.faceDown) > 0 ? [pile("face down", n(view.faceDown))] : [])),
      el("div", { class: "row" }, pile("stock", n(view.stockSize)),
        ...list<number>(view.pileSizes).map((size, side) => pile(`${sideName(side)} captured`, size))),
    );
    if (list(view.lastCapture).length) {
      area.append(zone("Last capture", ...list<string>(view.lastCapture).map((card) => cardFace(card, "mini"))));
    }
  } else if (game === "all_fours") {
    const trick = list<V>(view.trick).map((played) =>
      el("div", { class: "played" }, cardFace(String(played.card), "mid"),
        el("span", { class: "label" }, seatName(n(played.seat)))));
    area.append(
      chips([
        `Hand ${n(view.handNo)}`,
        `Phase: ${enumWord(String(view.phase ?? ""))}`,
        `Trick ${n(view.trickNo)}`,
        `Target ${n(view.targetScore)}`,
        ...list<number>(view.scores).map((score, side) => `${sideName(side)}: ${score}`),
      ]),
      el("div", { class: "row" },
        zone("Trump", view.trump ? el("span", { class: `trump suit-${view.trump}` }, suitSymbol(String(view.trump)))
          : "not yet"),
        zone("Turned up", view.turnUp ? cardFace(String(view.turnUp), "mid") : "—"),
        pile("stock", n(view.stockSize))),
      el("div", { class: "row" },
        zone("Trick", ...(trick.length ? trick : ["no card led yet"])),
        ...(lastTrick && list(lastTrick.cards).length
          ? [zone(`Last trick, to ${seatName(n(lastTrick.seat))}`,
              ...list<string>(lastTrick.cards).map((card) => cardFace(card, "mini")))]
          : [])),
    );
    const exposed = list<V>(view.exposed).flatMap((cards, seat) =>
      list<string>(cards.cards).map((card) => el("span", { class: "played" }, cardFace(card, "mini"), seatName(seat))));
    if (exposed.length) area.append(zone("Exposed", ...exposed));
  } else if (game === "contract_rummy") {
    const discard = list<string>(view.discard);
    const melds = list<V>(view.melds).map((meld, index) =>
      el("div", { class: "meld", title: `meld ${index}` },
        el("span", { class: "label" }, `${index}: ${seatName(n(meld.owner))} · ${enumWord(String(meld.kind ?? ""))}`),
        el("div", { class: "cards" }, ...list<string>(meld.cards).map((card) => cardFace(card, "mini")))));
    area.append(
      chips([
        `Deal ${n(view.deal)} of 7`,
        `Contract: ${contract(n(view.contractSets), n(view.contractRuns))}`,
        `Phase: ${enumWord(String(view.phase ?? ""))}`,
      ]),
      el("div", { class: "row" }, pile("stock", n(view.stockSize)),
        zone("Discard", discard.length ? cardFace(discard[discard.length - 1], "mid") : "empty",
          el("span", { class: "label" }, `${discard.length} in the pile`))),
      zone("Melds on the table", ...(melds.length ? melds : ["none yet"])),
    );
  }
  return area;
}

function contract(sets: number, runs: number): string {
  const part = (count: number, one: string, many: string): string =>
    count ? `${count} ${count === 1 ? one : many}` : "";
  return [part(sets, "set", "sets"), part(runs, "run", "runs")].filter(Boolean).join(" + ");
}

function suitSymbol(suit: string): string {
  return ({ S: "♠", H: "♥", D: "♦", C: "♣" } as Record<string, string>)[suit] ?? suit;
}

/** The figures under a seat's name: score, contract met, cards known to all (Contract Rummy). */
export function seatFigures(game: string, view: V, seat: number, sides: number): (Node | string)[] {
  const figures: (Node | string)[] = [];
  const scores = list<number>(view.scores);
  if (game === "contract_rummy") {
    if (scores.length) figures.push(`${scores[seat] ?? 0} pts`);
    if (list<boolean>(view.contractMet)[seat]) figures.push(el("span", { class: "badge" }, "down"));
    const known = list<V>(view.known)[seat];
    if (known && list(known.cards).length) {
      figures.push(el("span", { class: "known" }, "known: ", ...list<string>(known.cards).map((c) => cardFace(c, "mini"))));
    }
  } else if (game === "all_fours" && scores.length) {
    figures.push(`${scores[seat % sides] ?? 0} pts`);
  } else if (game === "seep") {
    const piles = list<number>(view.pileSizes);
    if (piles.length) figures.push(`${piles[seat % sides] ?? 0} captured`);
  }
  return figures;
}

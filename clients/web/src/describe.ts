// Commands and events in words, with their cards drawn: the moves' buttons and the table's log.
// Generic over the games: it reads the JSON form of the message (its oneof member's name, the
// seat, the cards, the numbers), so a new game's commands and events read well without code here.

import { cardFace, isCard } from "./cards";
import { el, words } from "./dom";

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** Events a seat does, as a person says them ("You played 4♥"); the others read as their names. */
const VERBS: Record<string, string> = {
  cardPlayed: "played",
  trickWon: "won the trick",
  stockDrawn: "drew from the stock",
  discardDrawn: "took the discard",
  discardDug: "dug into the discard pile",
  discarded: "discarded",
  contractMelded: "went down with",
  meldsAdded: "melded",
  cardLaidOff: "laid off",
  jokerSwapped: "swapped a joker",
  playerWentOut: "went out",
  bidMade: "bid",
  captured: "captured",
  thrown: "threw",
  built: "built",
  broken: "broke a house with",
  sweepScored: "swept the floor",
  stood: "stood",
  begged: "begged",
  gaveOne: "gave one",
  packRun: "ran the pack",
  cardExposed: "exposed",
};

/** Events that say nothing to a person at the table (the seed's commitment, the shuffles, clock ticks). */
const QUIET = new Set(["matchSeeded", "shuffled", "clockCharged", "clockMarked", "matchCreated"]);
/** Fields not worth a word (configurations, and the seats already named). */
const SKIP = new Set(["config", "seat", "play", "owners", "count", "placedBy"]);

/** The single member of a oneof in JSON: ["cardPlayed", {...}]. */
export function member(data: Json | undefined): [string, Json] | null {
  if (!data || typeof data !== "object" || Array.isArray(data)) return null;
  const entries = Object.entries(data);
  return entries.length === 1 ? entries[0] : null;
}

/** An enum's value in words: "CONTRACT_RUMMY_MELD_KIND_SET" -> "set", "ALL_FOURS_JACK_SCORING_HANG_JACK" -> "hang jack". */
export function enumWord(value: string): string {
  return words(value.replace(ENUM_PREFIX, ""));
}
const ENUM_PREFIX =
  /^(?:SEEP|ALL_FOURS|CONTRACT_RUMMY)_(?:MELD_KIND|BUILD_ACTION|BAAZI_REASON|AWARD_REASON|PHASE|DREW|END|JACK_SCORING|DEAL_STYLE|GAME_TIE|[A-Z]+)_/;

/** Names for seats and teams, so that a line says "Your team" and "Seat 2", not "team 0". */
export interface Namer {
  seat: (seat: number) => string;
  side: (side: number) => string;
}
/** Fields that hold a seat, and fields that hold a team (a side), in the games' events. */
const SEAT_KEYS = new Set(["owner", "dealer", "eldest", "highHolder", "lowHolder", "jackHolder", "jackTaker", "caller"]);
const SIDE_KEYS = new Set(["team", "side", "leftoverTo", "baaziWinner", "lastCaptureTeam"]);
let namer: Namer | null = null;

function parts(value: Json, key: string, out: (Node | string)[], depth: number): void {
  if (typeof value === "number" && namer && (SEAT_KEYS.has(key) || SIDE_KEYS.has(key))) {
    out.push(`${words(key)}: ${SEAT_KEYS.has(key) ? namer.seat(value) : namer.side(value)}`);
  } else if (typeof value === "string") {
    if (isCard(value)) out.push(cardFace(value, "mini"));
    else if (value) out.push(`${words(key)} ${/^[A-Z0-9_]+$/.test(value) ? enumWord(value) : value}`);
  } else if (typeof value === "number" || typeof value === "boolean") {
    if (value !== false) out.push(value === true ? words(key) : `${words(key)} ${value}`);
  } else if (Array.isArray(value)) {
    if (value.length === 0) return;
    if (value.every((item) => typeof item === "number" || (typeof item === "string" && !isCard(item)))) {
      const shown = value.map((item) => (typeof item === "string" && /^[A-Z0-9_]+$/.test(item) ? enumWord(item) : item));
      out.push(`${words(key)} ${shown.join(" · ")}`); // per seat or per side: "scores 101 · 249"
      return;
    }
    const group = el("span", { class: "group" });
    const inner: (Node | string)[] = [];
    for (const item of value) parts(item, key, inner, depth + 1);
    group.append(...inner);
    out.push(group);
  } else if (value && depth < 4) {
    for (const [name, item] of Object.entries(value)) {
      if (!SKIP.has(name)) parts(item, name === "cards" ? key : name, out, depth + 1);
    }
  }
}

/** A command as a line: its kind in words, then its cards and numbers ("capture 8♦ [5♥ 3♠]"). */
export function commandLine(command: Json): HTMLElement {
  const game = member(command);
  const inner = game ? member(game[1]) : null;
  const line = el("span", { class: "line" });
  if (!inner) return line;
  const [kind, body] = inner;
  line.append(el("b", {}, words(kind)));
  const out: (Node | string)[] = [];
  parts(body, kind, out, 0);
  namer = null;
  for (const part of out) line.append(" ", part);
  return line;
}

/** An event as a line of the log, or null for the quiet ones. `seatName` names a seat ("You", "West"). */
export function eventLine(event: Json, names: Namer): HTMLElement | null {
  const seatName = names.seat;
  namer = names;
  const game = member(event);
  const inner = game ? member(game[1]) : null;
  if (!inner || QUIET.has(inner[0])) return null;
  const [kind, body] = inner;
  const line = el("span", { class: "line" });
  const seat = body && typeof body === "object" && !Array.isArray(body) ? body.seat : undefined;
  if (typeof seat === "number") line.append(el("b", {}, seatName(seat)), " ");
  line.append(typeof seat === "number" && VERBS[kind] ? VERBS[kind] : words(kind));
  const out: (Node | string)[] = [];
  parts(body, kind, out, 0);
  namer = null;
  for (const part of out) line.append(" ", part);
  return line;
}

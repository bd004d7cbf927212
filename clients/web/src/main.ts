// The web table: a lobby (pick a game, its options and who sits where), the table (play by
// clicking legal cards and moves, or watch), and the replay of a finished match. Routes live in
// the fragment, so seat tokens never reach a server log: #/, #/play/ID/TOKEN, #/watch/ID,
// #/replay/ID[/TOKEN].

import { type DescMessage, create, toJson } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import { as, games, rememberTable, seatLink, tableNotes, tables } from "./api";
import { cardFace, cardsIn, handOrder } from "./cards";
import { type Namer, commandLine, eventLine, member } from "./describe";
import { button, el, words } from "./dom";
import { GAMES, seatFigures, tableArea } from "./games";
import { AllFoursOptionsSchema } from "./gen/cardgames/v1/all_fours_pb";
import { ContractRummyOptionsSchema } from "./gen/cardgames/v1/contract_rummy_pb";
import {
  type Command,
  CommandSchema,
  EventSchema,
  OnTimeout,
  OptionsSchema,
  type SeatStatus,
  type View,
  ViewSchema,
} from "./gen/cardgames/v1/game_service_pb";
import { SeepOptionsSchema } from "./gen/cardgames/v1/seep_pb";

// biome-ignore lint: JSON read field by field
type J = any;

const app = document.getElementById("app") as HTMLElement;
let leave: (() => void) | null = null; // stops the current page's streams

const OPTION_SCHEMAS: Record<string, DescMessage> = {
  seep: SeepOptionsSchema,
  all_fours: AllFoursOptionsSchema,
  contract_rummy: ContractRummyOptionsSchema,
};
const ONEOF: Record<string, "seep" | "allFours" | "contractRummy"> = {
  seep: "seep",
  all_fours: "allFours",
  contract_rummy: "contractRummy",
};
const BOTS = ["heuristic", "random", "ismcts"];
/** The lobby's clock choices: a limit per decision, or a bank with an increment per move. */
const CLOCKS: Record<string, { label: string; control: { initialMs?: bigint; incrementMs?: bigint; moveMs?: bigint } }> = {
  "move-30s": { label: "30 s a move", control: { moveMs: 30_000n } },
  "bank-1m": { label: "1 min + 2 s a move", control: { initialMs: 60_000n, incrementMs: 2_000n } },
  "bank-5m": { label: "5 min + 3 s a move", control: { initialMs: 300_000n, incrementMs: 3_000n } },
  "bank-15m": { label: "15 min + 10 s a move", control: { initialMs: 900_000n, incrementMs: 10_000n } },
};
const ON_TIMEOUT: Record<string, { label: string; value: OnTimeout }> = {
  bot: { label: "a bot plays for them", value: OnTimeout.BOT_PLAYS },
  forfeit: { label: "they forfeit", value: OnTimeout.FORFEIT },
  abort: { label: "the match is called off", value: OnTimeout.ABORT },
};

function route(): void {
  leave?.();
  leave = null;
  const [page, id, token] = location.hash.replace(/^#\/?/, "").split("/");
  app.replaceChildren();
  if (page === "play" && id) tablePage(id, token);
  else if (page === "watch" && id) tablePage(id, undefined);
  else if (page === "replay" && id) replayPage(id, token);
  else lobby();
  window.scrollTo(0, 0);
}

function header(title: string, ...extra: (Node | string)[]): HTMLElement {
  return el("header", { class: "top" }, el("a", { href: "#/", class: "home" }, "♠♥ cardgames"),
    el("h1", {}, title), ...extra);
}

function failure(error: unknown): string {
  if (error instanceof ConnectError) return `${Code[error.code]}: ${error.rawMessage}`;
  return String(error);
}

function toast(text: string, kind: "error" | "info" = "error"): void {
  const node = el("div", { class: `toast ${kind}`, role: "status" }, text);
  document.body.append(node);
  setTimeout(() => node.remove(), 5000);
}

// ---------------------------------------------------------------- the lobby

function optionControl(schema: DescMessage, field: DescMessage["fields"][number]): HTMLElement | null {
  const id = `opt-${field.name}`;
  let input: HTMLElement;
  if (field.fieldKind === "enum") {
    const select = el("select", { id, "data-option": field.localName, "data-kind": "enum" },
      el("option", { value: "" }, "default"));
    const prefix = field.enum.values[0]?.name.replace(/UNSPECIFIED$/, "") ?? "";
    for (const value of field.enum.values.slice(1)) {
      select.append(el("option", { value: String(value.number) }, words(value.name.replace(prefix, ""))));
    }
    input = select;
  } else if (field.fieldKind === "scalar" && field.scalar === 8 /* bool */) {
    const select = el("select", { id, "data-option": field.localName, "data-kind": "bool" },
      el("option", { value: "" }, "default"), el("option", { value: "true" }, "yes"), el("option", { value: "false" }, "no"));
    input = select;
  } else if (field.fieldKind === "scalar" && field.scalar === 5 /* int32 */) {
    input = el("input", { id, type: "number", "data-option": field.localName, "data-kind": "int", placeholder: "default" });
  } else {
    return null; // maps and lists of numbers: the defaults (the rules pages list them)
  }
  void schema;
  return el("label", { class: "option", for: id }, el("span", {}, words(field.name)), input);
}

function lobby(): void {
  let game = "seep";
  const form = el("div", { class: "lobby" });
  const gamesRow = el("div", { class: "games" });
  const seatsBox = el("div", { class: "seats-setup" });
  const optionsBox = el("details", { class: "options" });
  const playersSelect = el("select", { id: "players" });
  const clockSelect = el("select", { id: "clock" }, el("option", { value: "" }, "No clock"),
    ...Object.entries(CLOCKS).map(([key, clock]) => el("option", { value: key }, clock.label)));
  const timeoutSelect = el("select", { id: "on-timeout" },
    ...Object.entries(ON_TIMEOUT).map(([key, choice]) => el("option", { value: key }, choice.label)));
  const clockBox = el("div", { class: "clock-setup" },
    el("label", { class: "players", for: "clock" }, el("span", {}, "Clock"), clockSelect),
    el("label", { class: "players", for: "on-timeout" }, el("span", {}, "Out of time"), timeoutSelect));
  const drawClock = (): void => { timeoutSelect.disabled = clockSelect.value === ""; };
  clockSelect.addEventListener("change", drawClock);
  drawClock();

  const drawSeats = (): void => {
    const players = Number(playersSelect.value);
    seatsBox.replaceChildren(el("h2", {}, "Who sits where"));
    for (let seat = 0; seat < players; seat += 1) {
      const select = el("select", { "data-seat": String(seat), id: `seat-${seat}` },
        el("option", { value: "you" }, "You"),
        ...BOTS.map((kind) => el("option", { value: kind }, `Bot: ${kind}`)),
        el("option", { value: "person" }, "A person (share a link)"));
      select.value = seat === 0 ? "you" : "heuristic";
      seatsBox.append(el("label", { class: "seat-choice", for: `seat-${seat}` },
        el("span", {}, `Seat ${seat}`), select));
    }
  };
  const drawGame = (): void => {
    for (const card of gamesRow.children) card.classList.toggle("chosen", (card as HTMLElement).dataset.game === game);
    playersSelect.replaceChildren(...GAMES[game].players.map((count) => el("option", { value: String(count) }, `${count} players`)));
    const schema = OPTION_SCHEMAS[game];
    optionsBox.replaceChildren(el("summary", {}, `${GAMES[game].title} options (the rules' defaults unless you change them)`),
      el("div", { class: "option-grid" },
        ...schema.fields.filter((field) => field.name !== "players").map((field) => optionControl(schema, field))
          .filter((node): node is HTMLElement => node !== null)));
    drawSeats();
  };
  for (const [name, info] of Object.entries(GAMES)) {
    const card = button([el("strong", {}, info.title), el("span", {}, info.blurb)], () => { game = name; drawGame(); },
      { class: "game-card", "data-game": name });
    gamesRow.append(card);
  }
  playersSelect.addEventListener("change", drawSeats);

  const start = async (): Promise<void> => {
    const choices = [...seatsBox.querySelectorAll<HTMLSelectElement>("select[data-seat]")].map((select) => select.value);
    if (choices.filter((choice) => choice === "you").length > 1) {
      toast("Choose “You” for one seat at most.");
      return;
    }
    const values: Record<string, unknown> = {};
    for (const input of optionsBox.querySelectorAll<HTMLInputElement | HTMLSelectElement>("[data-option]")) {
      if (input.value === "") continue;
      const kind = input.dataset.kind;
      values[input.dataset.option as string] = kind === "bool" ? input.value === "true" : Number(input.value);
    }
    const schema = OPTION_SCHEMAS[game];
    const clock = CLOCKS[clockSelect.value];
    const timeControl = clock ? { ...clock.control, onTimeout: ON_TIMEOUT[timeoutSelect.value].value } : undefined;
    try {
      const made = await tables.createTable({
        game,
        players: Number(playersSelect.value),
        bots: choices.map((choice) => (BOTS.includes(choice) ? choice : "")),
        options: create(OptionsSchema, { game: { case: ONEOF[game], value: create(schema, values) } as J }),
        timeControl,
      });
      const mine = choices.indexOf("you");
      rememberTable(made.gameId, { game, bots: made.bots, tokens: made.seatTokens, mine: mine >= 0 ? mine : null });
      location.hash = mine >= 0 ? `#/play/${made.gameId}/${made.seatTokens[mine]}` : `#/watch/${made.gameId}`;
    } catch (error) {
      toast(failure(error));
    }
  };

  const goto = (kind: string): HTMLElement => {
    const input = el("input", { type: "text", placeholder: "game id", id: `${kind}-id`, autocomplete: "off" });
    return el("form", { class: "goto" }, el("label", { for: `${kind}-id` }, kind === "watch" ? "Watch a live game" : "Replay a finished game"),
      input, el("button", { type: "submit" }, kind === "watch" ? "Watch" : "Replay"));
  };
  const watchForm = goto("watch");
  const replayForm = goto("replay");
  for (const [formNode, kind] of [[watchForm, "watch"], [replayForm, "replay"]] as const) {
    formNode.addEventListener("submit", (event) => {
      event.preventDefault();
      const value = (formNode.querySelector("input") as HTMLInputElement).value.trim();
      if (value) location.hash = `#/${kind}/${value}`;
    });
  }

  form.append(
    el("h2", {}, "Pick a game"), gamesRow,
    el("label", { class: "players", for: "players" }, el("span", {}, "Players"), playersSelect),
    seatsBox, clockBox, optionsBox,
    button("Take your seat", () => void start(), { class: "primary", id: "start" }),
    el("div", { class: "elsewhere" }, watchForm, replayForm),
  );
  app.append(header("Play a card game"), form);
  drawGame();
}

// ---------------------------------------------------------------- the table

interface Seated {
  gameId: string;
  token?: string;
  view?: View;
  json: J; // the game's own view, as JSON
  commands: Command[];
  commandsAt: bigint; // the sequence the commands are valid at
  total: bigint;
  selected: string | null;
  busy: boolean;
  lastTrick: J; // All Fours: the last trick won, to show once the table is cleared
  log: HTMLElement[];
  viewAt: number; // Date.now() when the view arrived: its server time then
}

/** m:ss, or s.t under ten seconds. */
function clockText(ms: number): string {
  const left = Math.max(0, ms);
  if (left < 10_000) return `0:0${(left / 1000).toFixed(1)}`;
  const seconds = Math.floor(left / 1000);
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, "0")}`;
}

/** A seat's time left now: the view's figure, less what has passed since the view's server time. */
function clockLeft(node: HTMLElement, now: number): number {
  const remaining = Number(node.dataset.remaining);
  if (node.dataset.running !== "true") return remaining;
  // The view's server time is the moment it arrived here: the server's clock now is that plus
  // what has passed since, so a local clock set wrong does not matter.
  const serverTime = Number(node.dataset.serverTime);
  const serverNow = serverTime + (now - Number(node.dataset.viewAt));
  return serverTime + remaining - serverNow;
}

function tickClock(node: HTMLElement, now: number): void {
  const left = clockLeft(node, now);
  node.textContent = clockText(left);
  node.classList.toggle("low", node.dataset.running === "true" && left < 10_000);
}

/** A seat's clock (with a time control), and badges for a bot playing it or its player being away. */
function seatBadges(view: View, seat: number, viewAt: number, tableBot: string | undefined): (HTMLElement | string)[] {
  const status: SeatStatus | undefined = view.seats.find((entry) => entry.seat === seat) ?? view.seats[seat];
  if (!status) return [];
  const badges: (HTMLElement | string)[] = [];
  if (view.timeControl) {
    const running = status.running && !view.over;
    const clock = el("span", {
      class: `clock${running ? " running" : ""}`, "data-clock": String(seat), "data-running": String(running),
      "data-remaining": String(status.remainingMs), "data-server-time": String(view.serverTimeMs), "data-view-at": String(viewAt),
      title: running ? "time left to act" : "time in the bank",
    });
    tickClock(clock, viewAt);
    badges.push(clock);
  }
  if (status.bot) badges.push(el("span", { class: "badge bot", title: `a ${status.bot} bot plays this seat` }, "bot"));
  else if (!status.connected && !tableBot && seat !== view.seat) badges.push(el("span", { class: "badge offline", title: "not connected" }, "offline"));
  return badges;
}

function seatNamer(gameId: string, me: number | undefined): (seat: number) => string {
  const notes = tableNotes(gameId);
  return (seat: number): string => {
    if (seat === me) return "You";
    const bot = notes?.bots[seat];
    return bot ? `Seat ${seat} · ${bot} bot` : `Seat ${seat}`;
  };
}

/** Names for the seats and the teams of a match, as its viewer says them ("You", "Your team"). */
function namesFor(gameId: string, view: View | undefined, json: J): Namer & { sides: number; players: number } {
  const me = view?.seat;
  const seat = seatNamer(gameId, me);
  const players = (json.handSizes ?? []).length || Number(json.players ?? 0);
  const info = view ? GAMES[view.gameName] : undefined;
  const sides = info ? info.sides(players) : players;
  const side = (team: number): string => {
    if (sides === players) return seat(team);
    const seats = [...Array(players).keys()].filter((index) => index % sides === team);
    return me !== undefined && seats.includes(me) ? "Your team" : `Team ${seats.join("+")}`;
  };
  return { seat, side, sides, players };
}

function tablePage(gameId: string, token: string | undefined): void {
  const state: Seated = { gameId, token, json: {}, commands: [], commandsAt: -1n, total: 0n, selected: null, busy: false, lastTrick: null, log: [], viewAt: 0 };
  const stop = new AbortController();
  // The clocks tick here, from the last view: no call to the service.
  const ticker = setInterval(() => {
    const now = Date.now();
    for (const node of document.querySelectorAll<HTMLElement>(".clock[data-running=true]")) tickClock(node, now);
  }, 200);
  leave = () => { stop.abort(); clearInterval(ticker); };
  const status = el("div", { class: "status", id: "status", "aria-live": "polite" }, "Connecting…");
  const seatsRow = el("div", { class: "opponents" });
  const felt = el("div", { class: "felt-wrap" });
  const mine = el("div", { class: "mine" });
  const moves = el("div", { class: "moves", id: "moves" });
  const logList = el("ol", { class: "log", id: "log" });
  const share = el("div", { class: "share" });
  const root = el("main", { class: "table", id: "table" });
  root.append(status, seatsRow, felt, mine, moves,
    el("aside", { class: "side" }, share, el("details", { class: "log-box", open: "" }, el("summary", {}, "What happened"), logList)));
  app.append(header(token ? "Your table" : "Watching", el("span", { class: "game-id", title: "the game's id" }, gameId)), root);

  const notes = tableNotes(gameId);
  if (notes) {
    const people = notes.tokens.map((seatToken, seat) => ({ seatToken, seat }))
      .filter(({ seatToken, seat }) => seatToken && seat !== notes.mine);
    if (people.length) {
      share.append(el("h3", {}, "Seats for people: send each their own link"),
        ...people.map(({ seatToken, seat }) => {
          const link = seatLink(gameId, seatToken);
          return el("div", { class: "link" }, el("span", {}, `Seat ${seat}`),
            el("input", { type: "text", readonly: "", value: link, "aria-label": `link for seat ${seat}` }),
            button("Copy", () => void navigator.clipboard?.writeText(link).then(() => toast("Copied", "info"))));
        }));
    }
    share.append(el("p", {}, "Spectators: ", el("a", { href: `#/watch/${gameId}` }, "watch link")));
  }

  const draw = (): void => {
    const view = state.view;
    if (!view) return;
    const me = view.seat;
    const names = namesFor(gameId, view, state.json);
    const name = names.seat;
    const { players, sides } = names;
    const hands: number[] = (state.json.handSizes ?? []).map(Number);
    root.dataset.sequence = String(view.sequence);
    root.dataset.over = String(view.over);
    root.dataset.game = view.gameName;
    const toAct = view.toAct;
    const myTurn = me !== undefined && toAct.includes(me) && !view.over;
    root.classList.toggle("my-turn", myTurn);
    document.title = `${myTurn ? "● Your turn · " : view.over ? "Over · " : ""}${info(view.gameName)} · cardgames`;
    if (view.over) {
      status.replaceChildren(el("strong", {}, "The match is over. "), el("a", { href: `#/replay/${gameId}${token ? `/${token}` : ""}`, id: "open-replay" }, "Open the replay"), " · ", el("a", { href: "#/" }, "New game"));
      status.className = "status over";
    } else if (myTurn) {
      status.replaceChildren(el("strong", {}, "Your turn"), " — click a highlighted card or a move.");
      status.className = "status your-turn";
    } else {
      status.replaceChildren(toAct.length ? `Waiting for ${toAct.map(name).join(", ")}…` : "…");
      status.className = "status";
    }
    // The seats around the table, starting after mine.
    const order = [...Array(players).keys()];
    const start = me === undefined ? 0 : me + 1;
    const others = order.map((index) => (start + index) % players).filter((seat) => seat !== me);
    seatsRow.replaceChildren(...others.map((seat) => {
      const count = hands[seat] ?? 0;
      const acting = toAct.includes(seat) && !view.over;
      const box = el("div", { class: `seat${acting ? " acting" : ""}`, "data-seat": String(seat) },
        el("div", { class: "name" }, name(seat), Number(state.json.dealer) === seat && state.json.dealer !== undefined ? el("span", { class: "dealer", title: "dealer" }, "D") : "",
          ...seatBadges(view, seat, state.viewAt, notes?.bots[seat])),
        el("div", { class: "backs", title: `${count} cards` }, el("span", { class: "card back mini" }), `× ${count}`),
        el("div", { class: "figures" }, ...seatFigures(view.gameName, state.json, seat, sides)));
      return box;
    }));
    felt.replaceChildren(tableArea(view.gameName, state.json, names, state.lastTrick));
    // My hand and my moves.
    mine.replaceChildren();
    moves.replaceChildren();
    if (me === undefined) return;
    const hand = [...(state.json.hand ?? [])].sort(handOrder) as string[];
    const current = state.commandsAt === view.sequence && myTurn;
    const commandJson = current ? state.commands.map((command) => toJson(CommandSchema, command) as J) : [];
    const usable = new Set<string>();
    commandJson.forEach((command) => { for (const card of cardsIn(command)) usable.add(card); });
    if (state.selected && !usable.has(state.selected)) state.selected = null;
    const handRow = el("div", { class: "hand", id: "hand" });
    for (const card of hand) {
      const face = cardFace(card, "big");
      if (usable.has(card)) {
        face.classList.add("legal");
        face.tabIndex = 0;
        face.setAttribute("role", "button");
        const pick = (): void => choose(card);
        face.addEventListener("click", pick);
        face.addEventListener("keydown", (event) => { if (event.key === "Enter" || event.key === " ") pick(); });
      } else if (current) {
        face.classList.add("idle");
      }
      if (card === state.selected) face.classList.add("selected");
      handRow.append(face);
    }
    mine.append(el("div", { class: `seat me${myTurn ? " acting" : ""}` },
      el("div", { class: "name" }, "You", ` (seat ${me})`, Number(state.json.dealer) === me && state.json.dealer !== undefined ? el("span", { class: "dealer", title: "dealer" }, "D") : "",
        ...seatBadges(view, me, state.viewAt, undefined)),
      el("div", { class: "figures" }, ...seatFigures(view.gameName, state.json, me, sides))), handRow);
    if (!current) return;
    const shown = commandJson.map((json, index) => ({ json, index }))
      .filter(({ json }) => (state.selected ? cardsIn(json).has(state.selected) : !hand.some((card) => cardsIn(json).has(card))));
    const heading = state.selected
      ? el("span", {}, "Moves with ", cardFace(state.selected, "mini"), " ", button("show all", () => { state.selected = null; draw(); }, { class: "link-button" }))
      : shown.length ? "Your moves" : "Click a highlighted card";
    moves.append(el("h3", {}, heading));
    const limit = 60;
    const list = el("div", { class: "move-list" });
    for (const { json, index } of shown.slice(0, limit)) {
      list.append(button(commandLine(json), () => void submit(state.commands[index]), { class: "move" }));
    }
    if (shown.length > limit) list.append(el("p", {}, `and ${shown.length - limit} more…`));
    if (state.total > BigInt(state.commands.length)) list.append(el("p", {}, `(${state.commands.length} of ${state.total} moves listed)`));
    moves.append(list);
  };

  const choose = (card: string): void => {
    const matching = state.commands.filter((command) => cardsIn(toJson(CommandSchema, command)).has(card));
    if (matching.length === 1) {
      void submit(matching[0]);
      return;
    }
    state.selected = state.selected === card ? null : card;
    draw();
  };

  const submit = async (command: Command): Promise<void> => {
    if (state.busy || !state.view) return;
    state.busy = true;
    root.classList.add("busy");
    try {
      await games.submitCommand({ gameId, command, expectedSequence: state.commandsAt }, as(token));
      state.selected = null;
      state.commands = [];
    } catch (error) {
      if (!(error instanceof ConnectError && error.code === Code.Aborted)) toast(failure(error));
      await refreshCommands();
    } finally {
      state.busy = false;
      root.classList.remove("busy");
      draw();
    }
  };

  const refreshCommands = async (): Promise<void> => {
    const view = state.view;
    if (!token || !view || view.seat === undefined || !view.toAct.includes(view.seat) || view.over) return;
    const commands: Command[] = [];
    let at = -1n;
    let total = 0n;
    for (let page = 0; page < 5; page += 1) { // up to 5,000 moves: more than any hand offers but a crowded Seep floor
      const listed = await games.listLegalCommands({ gameId, offset: BigInt(commands.length), pageSize: 1000 }, as(token, stop.signal));
      if (at >= 0n && listed.sequence !== at) return; // the match moved on: the next view asks again
      at = listed.sequence;
      total = listed.total;
      commands.push(...listed.commands);
      if (!listed.commands.length || BigInt(commands.length) >= total) break;
    }
    if (state.view && at === state.view.sequence) {
      state.commands = commands;
      state.commandsAt = at;
      state.total = total;
    }
  };

  const addLog = (entries: J[]): void => {
    const names = namesFor(gameId, state.view, state.json);
    for (const entry of entries) {
      const kind = member(member(entry.event)?.[1] ?? null);
      if (kind && kind[0] === "trickWon") state.lastTrick = kind[1];
      if (kind && kind[0] === "handStarted") state.lastTrick = null; // a new deal: the old trick's cards are dealt again
      const line = eventLine(entry.event ?? {}, names);
      if (line) logList.prepend(el("li", { "data-sequence": String(entry.sequence ?? "") }, line));
    }
    while (logList.children.length > 200) logList.lastElementChild?.remove();
  };

  const follow = async (): Promise<void> => {
    let after = 0n; // from the first event: the log shows the whole match
    for (let attempt = 0; !stop.signal.aborted; attempt += 1) {
      try {
        for await (const message of games.watch({ gameId, afterSequence: after }, as(token, stop.signal))) {
          attempt = 0;
          after = message.sequence;
          if (!message.view) continue;
          state.view = message.view;
          state.viewAt = Date.now();
          state.json = gameJson(message.view);
          addLog(message.events.map((entry) => ({ sequence: String(entry.sequence), event: entry.event ? toJson(EventSchema, entry.event) : {} })));
          await refreshCommands();
          draw();
          if (message.view.over) return;
        }
        if (state.view?.over) return;
      } catch (error) {
        if (stop.signal.aborted) return;
        if (error instanceof ConnectError && [Code.NotFound, Code.PermissionDenied, Code.InvalidArgument].includes(error.code)) {
          status.replaceChildren(failure(error), " — ", el("a", { href: "#/" }, "back to the lobby"));
          return;
        }
        status.textContent = `Reconnecting… (${failure(error)})`;
      }
      await new Promise((resolve) => setTimeout(resolve, Math.min(5000, 250 * 2 ** attempt)));
    }
  };
  void follow();
}

/** The game's own part of a view, as JSON (the member of the `game` oneof). */
function gameJson(view: View): J {
  const value = view.game.value;
  if (!value || !view.game.case) return {};
  const whole = toJson(ViewSchema, view) as J;
  return whole[view.game.case] ?? {};
}

function info(game: string): string {
  return GAMES[game]?.title ?? game;
}

// ---------------------------------------------------------------- the replay

function replayPage(gameId: string, token: string | undefined): void {
  const stop = new AbortController();
  leave = () => stop.abort();
  const root = el("main", { class: "replay", id: "replay" });
  const slider = el("input", { type: "range", min: "1", max: "1", value: "1", id: "slider", "aria-label": "step" });
  const stepLabel = el("span", { id: "step-no" }, "");
  const current = el("div", { class: "current-event", id: "current-event" });
  const felt = el("div", { class: "felt-wrap" });
  const handRow = el("div", { class: "hand" });
  let last = 1;
  let entries: J[] = [];
  const views = new Map<number, View>();
  const show = async (sequence: number): Promise<void> => {
    let view = views.get(sequence);
    if (!view) {
      const response = await games.getView({ gameId, sequence: BigInt(sequence) }, as(token, stop.signal));
      view = response.view as View;
      views.set(sequence, view);
    }
    if (Number(slider.value) !== sequence) return;
    const json = gameJson(view);
    const names = namesFor(gameId, view, json);
    stepLabel.textContent = `Event ${sequence} of ${last}`;
    const entry = entries.find((item) => Number(item.sequence) === sequence);
    current.replaceChildren(entry ? (eventLine(entry.event ?? {}, names) ?? words("(a shuffle)")) : "");
    felt.replaceChildren(tableArea(view.gameName, json, names, null));
    handRow.replaceChildren(...[...(json.hand ?? [])].sort(handOrder).map((card: string) => cardFace(card, "big")));
  };
  const step = (delta: number): void => {
    slider.value = String(Math.min(last, Math.max(1, Number(slider.value) + delta)));
    void show(Number(slider.value)).catch((error) => toast(failure(error)));
  };
  slider.addEventListener("input", () => step(0));
  document.addEventListener("keydown", (event) => {
    if (!document.getElementById("replay")) return;
    if (event.key === "ArrowLeft") step(-1);
    if (event.key === "ArrowRight") step(1);
  }, { signal: stop.signal });
  root.append(
    el("div", { class: "controls" }, button("◀", () => step(-1), { id: "prev", "aria-label": "previous event" }), slider,
      button("▶", () => step(1), { id: "next", "aria-label": "next event" }), stepLabel),
    current, felt, handRow,
  );
  app.append(header(token ? "Replay (your seat)" : "Replay", el("span", { class: "game-id" }, gameId)), root);
  void (async () => {
    try {
      const log = await games.getLog({ gameId }, as(token, stop.signal));
      last = Number(log.sequence);
      entries = log.events.map((entry) => ({ sequence: String(entry.sequence), event: entry.event ? toJson(EventSchema, entry.event) : {} }));
      slider.max = String(last);
      slider.value = String(last);
      await show(last);
    } catch (error) {
      root.replaceChildren(el("p", { class: "status" }, failure(error), " — ", el("a", { href: "#/" }, "back to the lobby")));
    }
  })();
}

window.addEventListener("hashchange", route);
route();

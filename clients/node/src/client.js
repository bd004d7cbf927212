// A Node.js client of the cardgames service: GameService, BotService and TournamentService.
//
// The stubs are built at run time from the project's .proto files (protos/cardgames/v1) with
// @grpc/proto-loader, so they never drift from the contract. Messages are plain objects as
// proto-loader gives them (field names as in the .proto, enums as their names, a oneof's
// chosen member named by the oneof: `command.game === "all_fours"`).
//
// A bot needs three calls, all here: `decisions(gameId, seatToken)` (one message per decision
// of the seat: its view, its legal commands, its clock), `submit(gameId, seatToken, command,
// sequence)` (send one of the legal commands back as it came) and, in a tournament,
// `register` (with the entrant's credential, which `createTournament` returned once to the
// tournament's creator) and `assignments`. `playSeat` and `playTournament` run the whole loop.
//
// A table with people (docs/integrators.md): `createGame({game, time_control: {move_ms, on_timeout:
// "ON_TIMEOUT_BOT_PLAYS", bot: "BOT_STRENGTH_RANDOM"}})` returns the seats' tokens and an
// `owner_token`; `watch(gameId, token, {presence: true})` streams views whose `seats` hold each
// seat's clock (`remainingAt` ticks it without polling) and presence; `resign`, `abort`,
// `handOver` and `reissueToken` are the seat's lifecycle (the owner token for another seat).

import { fileURLToPath } from "node:url";
import path from "node:path";
import grpc from "@grpc/grpc-js";
import protoLoader from "@grpc/proto-loader";

export const TOKEN_METADATA = "cardgames-token";
export const PROTOS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../protos");
const FILES = ["game_service.proto", "bots.proto", "tournament.proto"].map((name) => `cardgames/v1/${name}`);

let loaded = null;

/** The cardgames.v1 package (service constructors and message types), loaded once. */
export function protos() {
  if (loaded === null) {
    const definition = protoLoader.loadSync(FILES, {
      includeDirs: [PROTOS],
      keepCase: true,
      longs: Number,
      enums: String,
      defaults: true,
      oneofs: true,
    });
    loaded = grpc.loadPackageDefinition(definition).cardgames.v1;
  }
  return loaded;
}

function auth(token) {
  const metadata = new grpc.Metadata();
  if (token) metadata.set(TOKEN_METADATA, token);
  return metadata;
}

function unary(client, method, request, token) {
  return new Promise((resolve, reject) => {
    client[method](request, auth(token), (error, response) => (error ? reject(error) : resolve(response)));
  });
}

/** The `reason` of a refused call (google.rpc.ErrorInfo in the status details), else the code's name. */
export function errorReason(error) {
  const details = error?.metadata?.get?.("grpc-status-details-bin")?.[0];
  if (details) {
    // ErrorInfo.reason is the first string field of the first detail: read it without a protobuf runtime.
    const text = details.toString("latin1");
    const match = text.match(/([A-Z][A-Z_]{2,})\x12\tcardgames/);
    if (match) return match[1];
  }
  return Object.keys(grpc.status).find((name) => grpc.status[name] === error?.code) ?? "UNKNOWN";
}

export class CardgamesClient {
  constructor(address, credentials = grpc.credentials.createInsecure()) {
    const v1 = protos();
    this.games = new v1.GameService(address, credentials);
    this.bots = new v1.BotService(address, credentials);
    this.tournaments = new v1.TournamentService(address, credentials);
  }

  close() {
    this.games.close();
    this.bots.close();
    this.tournaments.close();
  }

  createGame(request) {
    return unary(this.games, "CreateGame", request);
  }

  getView(gameId, token) {
    return unary(this.games, "GetView", { game_id: gameId }, token);
  }

  /**
   * A page of the seat's legal commands: `pageSize` (0: 1,000; at most 10,000) from index `offset`,
   * with `total`, the number in all, and the `sequence` they hold at. The order never changes at
   * a sequence, so `legalCommands(gameId, token, i, 1)` is the command at index `i`.
   */
  legalCommands(gameId, token, offset = 0, pageSize = 0) {
    return unary(this.games, "ListLegalCommands", { game_id: gameId, offset, page_size: pageSize }, token);
  }

  submit(gameId, token, command, expectedSequence) {
    return unary(this.games, "SubmitCommand", { game_id: gameId, command, expected_sequence: expectedSequence }, token);
  }

  /**
   * The match as the token's seat (or a spectator) sees it: the view, then every batch of events with
   * the view after it. `afterSequence` resumes; `presence` also sends who came or went.
   */
  watch(gameId, token, { afterSequence, presence = false } = {}) {
    const request = { game_id: gameId, presence };
    if (afterSequence !== undefined) request.after_sequence = afterSequence;
    return this.games.Watch(request, auth(token));
  }

  /** The token's seat resigns: the match ends, the seat and its side rank last. */
  resign(gameId, token) {
    return unary(this.games, "Resign", { game_id: gameId }, token);
  }

  /** Call the match off before any seat played (a seat's token or the owner token; PLAY_BEGAN after). */
  abort(gameId, token) {
    return unary(this.games, "Abort", { game_id: gameId }, token);
  }

  /**
   * Hand a seat to a built-in bot ("BOT_STRENGTH_RANDOM", "_HEURISTIC", "_SEARCH"), or back to its
   * player (bot unset). A seat's token for its own seat (`seat` undefined), the owner token for any.
   */
  handOver(gameId, token, { seat, bot } = {}) {
    const request = { game_id: gameId, bot: bot ?? "BOT_STRENGTH_UNSPECIFIED" };
    if (seat !== undefined) request.seat = seat;
    return unary(this.games, "HandOver", request, token);
  }

  /** A new token for `seat` (the owner token): resolves with `{seat_token}`; the old one stops working. */
  reissueToken(gameId, ownerToken, seat) {
    return unary(this.games, "ReissueToken", { game_id: gameId, seat }, ownerToken);
  }

  /** The stream of a seat's decisions (BotService.Decisions). */
  decisions(gameId, token, afterSequence) {
    const request = { game_id: gameId };
    if (afterSequence !== undefined) request.after_sequence = afterSequence;
    return this.bots.Decisions(request, auth(token));
  }

  createTournament(request) {
    return unary(this.tournaments, "CreateTournament", request);
  }

  /** Register a remote entrant with its credential: resolves with `{entrant_token}` (PERMISSION_DENIED without). */
  register(tournamentId, name, credential) {
    return unary(this.tournaments, "RegisterEntrant", { tournament_id: tournamentId, name, credential });
  }

  assignments(tournamentId, entrantToken) {
    return this.tournaments.Assignments({ tournament_id: tournamentId }, auth(entrantToken));
  }

  standings(tournamentId) {
    return unary(this.tournaments, "GetStandings", { tournament_id: tournamentId });
  }

  /** Settings, seed commitment (the seed once over) and every match (its game id once its deal is over). */
  getTournament(tournamentId) {
    return unary(this.tournaments, "GetTournament", { tournament_id: tournamentId });
  }
}

/**
 * Play a seat until the match is over; `choose(decision)` returns one of `decision.legal_commands`
 * (or its index: any index below `decision.legal_total`). Resolves with the outcome (per seat, 0 for the winners). A refused command is
 * chosen again (up to three times); a lost connection is resumed after the last sequence seen.
 */
export async function playSeat(client, gameId, token, choose) {
  let last;
  for (;;) {
    try {
      for await (const decision of client.decisions(gameId, token, last)) {
        last = Number(decision.sequence);
        if (decision.view.over) return decision.outcome;
        await decide(client, gameId, token, decision, choose);
      }
      return [];
    } catch (error) {
      if (error.code !== grpc.status.UNAVAILABLE) throw error;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
}

async function decide(client, gameId, token, decision, choose) {
  for (let attempt = 0; attempt < 3; attempt += 1) {
    let command = await choose(decision);
    if (typeof command === "number" && command >= decision.legal_commands.length) {
      // an index below legal_total, past the listed page: the service gives that command
      command = (await client.legalCommands(gameId, token, command, 1)).commands[0];
    } else if (typeof command === "number") {
      command = decision.legal_commands[command];
    }
    try {
      await client.submit(gameId, token, command, decision.sequence);
      return;
    } catch (error) {
      const reason = errorReason(error);
      if (["STALE_SEQUENCE", "DEADLINE_PASSED", "GAME_OVER"].includes(reason)) return;
      decision = { ...decision, rejected: { reason, message: error.details } };
    }
  }
}

/**
 * Register as `name` with its `credential`, then play every seat the tournament assigns, until it
 * ends. A lost connection is followed again (a restarted server sends the open assignments again);
 * a bot started again after a crash registers again and is assigned its unfinished matches.
 */
export async function playTournament(client, tournamentId, name, choose, credential) {
  const { entrant_token: entrantToken } = await client.register(tournamentId, name, credential);
  const playing = new Map();
  for (;;) {
    try {
      for await (const assignment of client.assignments(tournamentId, entrantToken)) {
        const key = `${assignment.match_no}/${assignment.seat}`;
        if (!playing.has(key)) playing.set(key, playSeat(client, assignment.game_id, assignment.seat_token, choose));
      }
      break;
    } catch (error) {
      if (error.code !== grpc.status.UNAVAILABLE) throw error;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
  return Promise.all(playing.values());
}

/**
 * The random bot: any listed legal command, with equal chance. A decision lists the first 1,000
 * commands when there are more (`decision.legal_total`, as on a crowded Seep floor); to choose
 * among all of them, pick an index below `legal_total` and fetch it with `client.legalCommands`.
 */
export function randomChoice(decision) {
  return Math.floor(Math.random() * decision.legal_commands.length);
}

/**
 * A seat's time left at `nowMs` (Unix ms) from a view's `seats[i]` and its `server_time_ms`: a clock
 * that ticks with no polling (a seat whose clock does not run keeps its `remaining_ms`).
 */
export function remainingAt(status, serverTimeMs, nowMs = Date.now()) {
  if (!status.running) return Number(status.remaining_ms);
  return Math.max(0, Number(status.remaining_ms) - Math.max(0, nowMs - Number(serverTimeMs)));
}

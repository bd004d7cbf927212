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
//
// Refusals (src/retry.js): a call refused with RESOURCE_EXHAUSTED and a retry hint (RetryInfo or the
// grpc-retry-pushback-ms trailer: too many calls, or the service past its capacity) did nothing; every
// unary call is sent again after the hint (jittered upwards), at most `retry.refusals` times in a row
// and within `retry.timeoutMs`, then the last refusal is thrown (`error.refusals`, `error.retryAfterMs`).
// `submit` is resent only with its expected sequence (which makes a second copy impossible to apply).
// `playSeat`, `playTournament` and `follow` reopen a refused stream the same way. A RESOURCE_EXHAUSTED
// without a hint is never resent.

import { fileURLToPath } from "node:url";
import path from "node:path";
import grpc from "@grpc/grpc-js";
import protoLoader from "@grpc/proto-loader";
import { errorInfo, Refusals, RETRY, sleep } from "./retry.js";

export { retryHint, Refusals, RETRY } from "./retry.js";

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

function once(client, method, request, token) {
  return new Promise((resolve, reject) => {
    client[method](request, auth(token), (error, response) => (error ? reject(error) : resolve(response)));
  });
}

/** One unary call, sent again after each refusal with a retry hint (`resend`: false, never). */
async function unary(client, method, request, token, { retry = RETRY, resend = true } = {}) {
  const refusals = new Refusals(retry);
  for (;;) {
    try {
      return await once(client, method, request, token);
    } catch (error) {
      const pause = resend ? refusals.pause(error) : null;
      if (pause === null) throw error;
      await sleep(pause);
    }
  }
}

/** The `reason` of a refused call (google.rpc.ErrorInfo in the status details), else the code's name. */
export function errorReason(error) {
  return errorInfo(error)?.reason || (Object.keys(grpc.status).find((name) => grpc.status[name] === error?.code) ?? "UNKNOWN");
}

export class CardgamesClient {
  /** `retry`: the bounds on resending refused calls, `{refusals, timeoutMs, jitter}` (see src/retry.js). */
  constructor(address, credentials = grpc.credentials.createInsecure(), { retry = RETRY } = {}) {
    const v1 = protos();
    this.retry = { ...RETRY, ...retry };
    this.games = new v1.GameService(address, credentials);
    this.bots = new v1.BotService(address, credentials);
    this.tournaments = new v1.TournamentService(address, credentials);
  }

  /** A unary call with this client's retry bounds. */
  call(service, method, request, token, resend = true) {
    return unary(service, method, request, token, { retry: this.retry, resend });
  }

  close() {
    this.games.close();
    this.bots.close();
    this.tournaments.close();
  }

  createGame(request) {
    return this.call(this.games, "CreateGame", request);
  }

  getView(gameId, token) {
    return this.call(this.games, "GetView", { game_id: gameId }, token);
  }

  /**
   * A page of the seat's legal commands: `pageSize` (0: 1,000; at most 10,000) from index `offset`,
   * with `total`, the number in all, and the `sequence` they hold at. The order never changes at
   * a sequence, so `legalCommands(gameId, token, i, 1)` is the command at index `i`.
   */
  legalCommands(gameId, token, offset = 0, pageSize = 0) {
    return this.call(this.games, "ListLegalCommands", { game_id: gameId, offset, page_size: pageSize }, token);
  }

  /** Send a command; a refusal with a retry hint is resent only with `expectedSequence` (never applied twice). */
  submit(gameId, token, command, expectedSequence) {
    const request = { game_id: gameId, command, expected_sequence: expectedSequence };
    return this.call(this.games, "SubmitCommand", request, token, expectedSequence !== undefined && expectedSequence !== null);
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

  /**
   * The updates of `watch` as an async iterator that survives refusals: an opening refused with a retry
   * hint, or a connection lost (UNAVAILABLE), is opened again after the last sequence it delivered, so
   * nothing is missed or repeated. It ends with the match.
   */
  async *follow(gameId, token, { afterSequence, presence = false } = {}) {
    let last = afterSequence;
    const refusals = new Refusals(this.retry);
    for (;;) {
      const call = this.watch(gameId, token, { afterSequence: last, presence });
      try {
        for await (const update of call) {
          refusals.reset();
          last = Number(update.sequence);
          yield update;
          if (update.view?.over) return;
        }
        return;
      } catch (error) {
        await reopen(error, refusals);
      } finally {
        call.cancel();
      }
    }
  }

  /** The token's seat resigns: the match ends, the seat and its side rank last. */
  resign(gameId, token) {
    return this.call(this.games, "Resign", { game_id: gameId }, token);
  }

  /** Call the match off before any seat played (a seat's token or the owner token; PLAY_BEGAN after). */
  abort(gameId, token) {
    return this.call(this.games, "Abort", { game_id: gameId }, token);
  }

  /**
   * Hand a seat to a built-in bot ("BOT_STRENGTH_RANDOM", "_HEURISTIC", "_SEARCH"), or back to its
   * player (bot unset). A seat's token for its own seat (`seat` undefined), the owner token for any.
   */
  handOver(gameId, token, { seat, bot } = {}) {
    const request = { game_id: gameId, bot: bot ?? "BOT_STRENGTH_UNSPECIFIED" };
    if (seat !== undefined) request.seat = seat;
    return this.call(this.games, "HandOver", request, token);
  }

  /** A new token for `seat` (the owner token): resolves with `{seat_token}`; the old one stops working. */
  reissueToken(gameId, ownerToken, seat) {
    return this.call(this.games, "ReissueToken", { game_id: gameId, seat }, ownerToken);
  }

  /** The stream of a seat's decisions (BotService.Decisions). */
  decisions(gameId, token, afterSequence) {
    const request = { game_id: gameId };
    if (afterSequence !== undefined) request.after_sequence = afterSequence;
    return this.bots.Decisions(request, auth(token));
  }

  createTournament(request) {
    return this.call(this.tournaments, "CreateTournament", request);
  }

  /** Register a remote entrant with its credential: resolves with `{entrant_token}` (PERMISSION_DENIED without). */
  register(tournamentId, name, credential) {
    return this.call(this.tournaments, "RegisterEntrant", { tournament_id: tournamentId, name, credential });
  }

  assignments(tournamentId, entrantToken) {
    return this.tournaments.Assignments({ tournament_id: tournamentId }, auth(entrantToken));
  }

  standings(tournamentId) {
    return this.call(this.tournaments, "GetStandings", { tournament_id: tournamentId });
  }

  /** Settings, seed commitment (the seed once over) and every match (its game id once its deal is over). */
  getTournament(tournamentId) {
    return this.call(this.tournaments, "GetTournament", { tournament_id: tournamentId });
  }
}

/**
 * Play a seat until the match is over; `choose(decision)` returns one of `decision.legal_commands`
 * (or its index: any index below `decision.legal_total`). Resolves with the outcome (per seat, 0 for the winners). A refused command is
 * chosen again (up to three times); a lost connection is resumed after the last sequence seen.
 */
export async function playSeat(client, gameId, token, choose) {
  let last;
  const refusals = new Refusals(client.retry);
  for (;;) {
    try {
      for await (const decision of client.decisions(gameId, token, last)) {
        refusals.reset();
        last = Number(decision.sequence);
        if (decision.view.over) return decision.outcome;
        await decide(client, gameId, token, decision, choose);
      }
      return [];
    } catch (error) {
      await reopen(error, refusals);
    }
  }
}

/** Wait before opening a stream again: the refusal's hint (jittered), or 500 ms after a lost connection; else throw. */
async function reopen(error, refusals) {
  const pause = refusals.pause(error);
  if (pause !== null) await sleep(pause);
  else if (error.code === grpc.status.UNAVAILABLE) await sleep(500);
  else throw error;
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
      // refused past the retry bounds (client.submit resent it meanwhile): the clock decides
      if (["STALE_SEQUENCE", "DEADLINE_PASSED", "GAME_OVER"].includes(reason) || error.refusals) return;
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
  const refusals = new Refusals(client.retry);
  for (;;) {
    try {
      for await (const assignment of client.assignments(tournamentId, entrantToken)) {
        refusals.reset();
        const key = `${assignment.match_no}/${assignment.seat}`;
        if (!playing.has(key)) playing.set(key, playSeat(client, assignment.game_id, assignment.seat_token, choose));
      }
      break;
    } catch (error) {
      await reopen(error, refusals);
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

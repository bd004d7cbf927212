// Refusals with a retry hint: the hint read from a real status, resends bounded and jittered, and a match,
// a watch and a tournament played through a server that refuses every call twice before it goes through.
// CARDGAMES_REFUSING_SERVER=HOST:PORT is that server (tests/remote_bots/test_node.py starts it in front of
// the service, with a 20 ms hint, and checks afterwards that no call came back before its hint).
import { test } from "node:test";
import assert from "node:assert/strict";
import grpc from "@grpc/grpc-js";
import { CardgamesClient, playSeat, playTournament, randomChoice, Refusals, retryHint } from "../src/client.js";

const refusing = process.env.CARDGAMES_REFUSING_SERVER;
const HINT_MS = 20;

// A protobuf encoder just big enough for google.rpc.Status with Any details.
const varint = (value) => {
  const bytes = [];
  do {
    bytes.push((value % 128) | (value >= 128 ? 0x80 : 0));
    value = Math.floor(value / 128);
  } while (value > 0);
  return Buffer.from(bytes);
};
const field = (number, bytes) => Buffer.concat([varint(number * 8 + 2), varint(bytes.length), bytes]);
const number = (n, value) => Buffer.concat([varint(n * 8), varint(value)]);
const any = (type, value) => field(3, Buffer.concat([field(1, Buffer.from(`type.googleapis.com/${type}`)), field(2, value)]));

function refusal({ retryInfoMs, pushback, code = grpc.status.RESOURCE_EXHAUSTED } = {}) {
  const metadata = new grpc.Metadata();
  const details = [number(1, code)];
  if (retryInfoMs !== undefined) {
    const duration = Buffer.concat([number(1, Math.floor(retryInfoMs / 1000)), number(2, (retryInfoMs % 1000) * 1e6)]);
    details.push(any("google.rpc.RetryInfo", field(1, duration)));
  }
  metadata.set("grpc-status-details-bin", Buffer.concat(details));
  if (pushback !== undefined) metadata.set("grpc-retry-pushback-ms", pushback);
  return Object.assign(new Error("refused"), { code, metadata });
}

test("the hint: RetryInfo first, then the pushback trailer; none, or a negative pushback, is no hint", () => {
  assert.equal(retryHint(refusal({ retryInfoMs: 1250, pushback: "5000" })), 1250);
  assert.equal(retryHint(refusal({ pushback: "300" })), 300);
  assert.equal(retryHint(refusal({})), null);
  assert.equal(retryHint(refusal({ pushback: "-1" })), null);
  assert.equal(retryHint(refusal({ retryInfoMs: 100, code: grpc.status.UNAVAILABLE })), null);
});

test("resends wait at least the hint, spread over [hint, 1.5 x hint], and stop after the bound", () => {
  const pauses = Array.from({ length: 50 }, () => new Refusals({ refusals: 3 }).pause(refusal({ pushback: "100" })));
  assert.ok(pauses.every((pause) => pause > 100 && pause <= 152), pauses.join());
  assert.ok(Math.max(...pauses) - Math.min(...pauses) > 10, pauses.join());
  const refusals = new Refusals({ refusals: 3 });
  const error = refusal({ pushback: "10" });
  assert.deepEqual([1, 2, 3, 4].map(() => refusals.pause(error) !== null), [true, true, true, false]);
  assert.equal(error.refusals, 4);
  assert.equal(new Refusals({ timeoutMs: 50 }).pause(refusal({ pushback: "100" })), null);
});

test("a match and a watch through a server that refuses every call twice", { skip: !refusing && "CARDGAMES_REFUSING_SERVER is not set" }, async () => {
  const client = new CardgamesClient(refusing);
  try {
    const began = Date.now();
    const created = await client.createGame({ game: "all_fours", players: 2 });
    assert.ok(Date.now() - began >= 2 * HINT_MS); // two refusals, each waited out
    const watching = (async () => {
      const updates = [];
      for await (const update of client.follow(created.game_id)) updates.push(update);
      return updates;
    })();
    const outcomes = await Promise.all(created.seat_tokens.map((token) => playSeat(client, created.game_id, token, randomChoice)));
    assert.deepEqual(outcomes[0], outcomes[1]);
    const updates = await watching;
    assert.ok(updates.at(-1).view.over);
  } finally {
    client.close();
  }
});

test("refusals past the bound, and a command without its sequence, are thrown", { skip: !refusing && "CARDGAMES_REFUSING_SERVER is not set" }, async () => {
  const patient = new CardgamesClient(refusing);
  const impatient = new CardgamesClient(refusing, undefined, { retry: { refusals: 1 } });
  try {
    const created = await patient.createGame({ game: "all_fours", players: 2 });
    await assert.rejects(impatient.getView(created.game_id, created.seat_tokens[0]), (error) => {
      assert.equal(error.code, grpc.status.RESOURCE_EXHAUSTED);
      assert.equal(error.refusals, 2);
      assert.equal(error.retryAfterMs, HINT_MS);
      return true;
    });
    const { view } = await patient.getView(created.game_id); // (not the refused call again: a spectator's)
    const token = created.seat_tokens[view.to_act[0]];
    const { commands } = await patient.legalCommands(created.game_id, token);
    await assert.rejects(patient.submit(created.game_id, token, commands[0]), (error) => error.code === grpc.status.RESOURCE_EXHAUSTED);
  } finally {
    patient.close();
    impatient.close();
  }
});

test("a tournament through a server that refuses every call twice", { skip: !refusing && "CARDGAMES_REFUSING_SERVER is not set" }, async () => {
  const client = new CardgamesClient(refusing);
  try {
    const created = await client.createTournament({
      game: "all_fours", entrants: ["node", "random"], players: 2, matches: 2, trusted: true,
      clock: { move_ms: 10000, bank_ms: 20000, on_timeout: "forfeit" },
    });
    await playTournament(client, created.tournament_id, "node", randomChoice, created.credentials[0].credential);
    const { standings } = await client.standings(created.tournament_id);
    assert.equal(standings.finished, true);
    assert.equal(standings.played, 2);
    assert.ok(standings.rows.every((row) => row.timeouts === 0 && row.forfeits === 0));
  } finally {
    client.close();
  }
});

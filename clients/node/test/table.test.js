// A table with people, from Node: a clocked game, its clocks, presence and the seat lifecycle.
// Needs a running service: CARDGAMES_SERVER=HOST:PORT (tests/remote_bots/test_node.py starts one).
import { test } from "node:test";
import assert from "node:assert/strict";
import { CardgamesClient, errorReason, remainingAt } from "../src/client.js";

const server = process.env.CARDGAMES_SERVER;

test("a clock ticks from a view with no polling", () => {
  const status = { running: true, remaining_ms: 5000 };
  assert.equal(remainingAt(status, 1000, 3000), 3000);
  assert.equal(remainingAt(status, 1000, 9000), 0);
  assert.equal(remainingAt({ running: false, remaining_ms: 7000 }, 1000, 9000), 7000);
});

test("a clocked game, presence, hand-over, a new token, resignation", { skip: !server && "CARDGAMES_SERVER is not set" }, async () => {
  const client = new CardgamesClient(server);
  try {
    const created = await client.createGame({
      game: "seep",
      time_control: { initial_ms: 60000, move_ms: 30000, on_timeout: "ON_TIMEOUT_FORFEIT", bot: "BOT_STRENGTH_RANDOM" },
    });
    assert.ok(created.owner_token);
    const { view } = await client.getView(created.game_id);
    assert.equal(view.time_control.on_timeout, "ON_TIMEOUT_FORFEIT");
    const seat = view.to_act[0];
    assert.ok(view.seats[seat].running && view.seats[seat].remaining_ms <= 30000);
    // a spectator hears seat 1 come
    const spectator = client.watch(created.game_id, undefined, { presence: true });
    const messages = spectator[Symbol.asyncIterator]();
    await messages.next();
    const player = client.watch(created.game_id, created.seat_tokens[1]);
    const came = await messages.next();
    assert.deepEqual(came.value.presence.map((change) => [change.seat, change.connected]), [[1, true]]);
    for (const stream of [player, spectator]) {
      stream.on("error", () => {}); // CANCELLED: we close them
      stream.cancel();
    }
    // the owner hands seat 0 to a bot and reissues seat 2's token
    await client.handOver(created.game_id, created.owner_token, { seat: 0, bot: "BOT_STRENGTH_RANDOM" });
    const { seat_token: fresh } = await client.reissueToken(created.game_id, created.owner_token, 2);
    await assert.rejects(client.getView(created.game_id, created.seat_tokens[2]), (error) => errorReason(error) === "TOKEN_INVALID");
    assert.equal((await client.getView(created.game_id, fresh)).view.seat, 2);
    await client.resign(created.game_id, created.seat_tokens[3]);
    assert.equal((await client.getView(created.game_id)).view.over, true);
    await assert.rejects(client.abort(created.game_id, created.owner_token), (error) => errorReason(error) === "GAME_OVER");
  } finally {
    client.close();
  }
});

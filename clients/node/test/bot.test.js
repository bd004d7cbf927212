// End-to-end: the Node bot plays against the Python service's built-in bots.
// Needs a running service: CARDGAMES_SERVER=HOST:PORT (tests/remote_bots/test_node.py starts one).
import { test } from "node:test";
import assert from "node:assert/strict";
import grpc from "@grpc/grpc-js";
import { CardgamesClient, errorReason, playSeat, playTournament, protos, randomChoice } from "../src/client.js";

const server = process.env.CARDGAMES_SERVER;

test("the contract loads from the project's protos", () => {
  const v1 = protos();
  assert.equal(typeof v1.GameService, "function");
  assert.equal(typeof v1.BotService, "function");
  assert.equal(typeof v1.TournamentService, "function");
});

test("a full tournament against a Python built-in bot", { skip: !server && "CARDGAMES_SERVER is not set" }, async () => {
  const client = new CardgamesClient(server);
  try {
    const created = await client.createTournament({
      game: "all_fours", entrants: ["node", "random"], players: 2, matches: 2, duplicate: true, trusted: true,
      clock: { move_ms: 10000, bank_ms: 10000, on_timeout: "forfeit" },
    });
    assert.equal(created.matches, 2);
    assert.deepEqual(created.credentials.map((entry) => entry.name), ["node"]);
    await playTournament(client, created.tournament_id, "node", randomChoice, created.credentials[0].credential);
    const { standings } = await client.standings(created.tournament_id);
    assert.equal(standings.finished, true);
    assert.equal(standings.played, 2);
    for (const row of standings.rows) {
      assert.equal(row.timeouts, 0);
      assert.equal(row.forfeits, 0);
    }
    // The seed committed at creation is shown at the end; each match's game id too.
    const { tournament } = await client.getTournament(created.tournament_id);
    assert.equal(tournament.seed_commitment, created.seed_commitment);
    assert.equal(tournament.seed.length, 64);
    assert.ok(tournament.matches.every((match) => match.status === "finished" && match.game_id));
  } finally {
    client.close();
  }
});

test("registering takes the entrant's own credential", { skip: !server && "CARDGAMES_SERVER is not set" }, async () => {
  const client = new CardgamesClient(server);
  try {
    const created = await client.createTournament({ game: "all_fours", entrants: ["alice", "bob", "random"], players: 2 });
    const credential = Object.fromEntries(created.credentials.map((entry) => [entry.name, entry.credential]));
    for (const given of [undefined, "", credential.bob]) {
      await assert.rejects(client.register(created.tournament_id, "alice", given), (error) => {
        assert.equal(error.code, grpc.status.PERMISSION_DENIED);
        return ["CREDENTIAL_REQUIRED", "CREDENTIAL_INVALID"].includes(errorReason(error));
      });
    }
    const { entrant_token: token } = await client.register(created.tournament_id, "alice", credential.alice);
    assert.ok(token.length >= 32);
  } finally {
    client.close();
  }
});

test("one match seat by seat, with typed refusals", { skip: !server && "CARDGAMES_SERVER is not set" }, async () => {
  const client = new CardgamesClient(server);
  try {
    const created = await client.createGame({ game: "all_fours", players: 2 });
    const [first, second] = created.seat_tokens;
    // A command out of turn is refused with a reason.
    const view = (await client.getView(created.game_id)).view;
    const idle = view.to_act[0] === 0 ? second : first;
    const someone = view.to_act[0] === 0 ? first : second;
    const decisions = client.decisions(created.game_id, someone);
    const [decision] = await (async () => { for await (const d of decisions) return [d]; })();
    decisions.cancel();
    // The decision lists every command here (a few); a page of one is the first of them.
    assert.equal(decision.legal_total, decision.legal_commands.length);
    const page = await client.legalCommands(created.game_id, someone, 0, 1);
    assert.equal(page.total, decision.legal_total);
    assert.deepEqual(page.commands, decision.legal_commands.slice(0, 1));
    await assert.rejects(
      client.submit(created.game_id, idle, decision.legal_commands[0], decision.sequence),
      (error) => errorReason(error) === "NOT_YOUR_TURN",
    );
    const outcomes = await Promise.all([
      playSeat(client, created.game_id, first, randomChoice),
      playSeat(client, created.game_id, second, randomChoice),
    ]);
    assert.deepEqual(outcomes[0], outcomes[1]);
    assert.deepEqual([...outcomes[0]].sort(), [0, 1]);
  } finally {
    client.close();
  }
});

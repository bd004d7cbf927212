// Vectors of docs/log-format.md and docs/shuffle.md: `node --test clients/verifier-js/`.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";

import {
  canonical, canonicalOrder, commitment, entryObject, genesis, link, readLog, salt, shuffleSeed, shuffled,
  Unreadable,
} from "./verify.mjs";

const ZERO = Buffer.alloc(32);
const PACK = ["S", "H", "D", "C"].flatMap((suit) =>
  ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"].map((rank) => rank + suit));
const textSeed = (text) => createHash("sha256").update(text, "utf8").digest();

test("canonical encoding: sorted keys, no spaces, JSON.stringify strings", () => {
  const value = { type: "play", card: "10H", z: [1, -2, null, true], a: "é\"\\\n\u0001" };
  assert.equal(canonical(value), '{"a":"é\\"\\\\\\n\\u0001","card":"10H","type":"play","z":[1,-2,null,true]}');
  assert.throws(() => canonical({ x: 1.5 }), Unreadable);
});

const HEADER = {
  format: "cardgames-log", version: 1, game: "all_fours", rules_version: "1",
  game_id: "00000000-0000-4000-8000-000000000000", players: 4, config: { players: 4, target_score: 14 },
  dealer: null, stacked: 0, seed_commitment: commitment("00".repeat(32)), seed_given: false, seat_commitments: null,
};

test("chain vectors", () => {
  assert.equal(commitment("00".repeat(32)), "66687aadf862bd776c8fc18b8e9f8e20089714856ee233b3902a591d0d5f2925");
  const g = genesis(HEADER);
  assert.equal(g.toString("hex"), "f541474ce6ed7f11b2d0e5032ff5c22edbf52159eb0ad73f984fad1f0d81f9e8");
  assert.equal(salt(ZERO, 1).toString("hex"), "06a9195917880e50a81663108f375358378d141fdf1584e638e59ce88e5fd5cc");
  const h1 = link(g, salt(ZERO, 1), entryObject({ seq: 1, event: { type: "match_created", players: 4 } }));
  assert.equal(h1.toString("hex"), "df88c5637a80286faa4e5f011759d7d47332f2d26f613dd30104d621ecddfcb4");
  const play = { type: "play", card: "AS" };
  const h2 = link(h1, salt(ZERO, 2), entryObject({ seq: 2, seat: 0, command: play, event: play, hash: "x" }));
  assert.equal(h2.toString("hex"), "2dd0e35eceb311b0a3cbab91e716b5a29fec8eb7d993e699e39efeca89393d83");
});

test("shuffle seed from the server seed and the seats' entropy", () => {
  assert.equal(shuffleSeed("00".repeat(32), null), "00".repeat(32));
  assert.equal(shuffleSeed("00".repeat(32), ["11".repeat(32), "22".repeat(32)]),
    "48b1cf9eaf05759dff39e432212f5b9d1ed85dfff1ed74055ebccf63798d5798");
});

test("docs/shuffle.md vectors", () => {
  assert.equal(shuffled(PACK, textSeed("0"), 0).join(" "),
    "JH 6S 5S 7C JS 6D QS 10C JD QH 8S 9D 10H 3C 5D AS KS 10S 6H 2D 7D AH 7H 4S 5C 10D 4C 6C 8D 8C " +
    "2S KH 3H QC 4H KC QD 9S 5H 3S 4D KD 9H 9C AC 2H 2C 8H 3D 7S JC AD");
  assert.equal(shuffled(PACK, textSeed("cardgames"), 0).join(" "),
    "KC 10H 4H QS KD 8H QD AS 9H AH JS 8S 7D 7S AD 10S 6D KH 9D 6C JD 3C 4C 3S JH 5H 8D 6S 5S JC 7H " +
    "2C 9S AC 7C 4S 5C 2S 5D 4D QH 10C 3D 8C 2D 10D KS 3H QC 6H 9C 2H");
  assert.equal(shuffled([0, 1, 2, 3, 4, 5, 6, 7, 8, 9], ZERO, 0).join(" "), "6 2 7 9 5 0 1 4 8 3");
});

test("canonical order: pack order, two packs side by side, jokers last", () => {
  assert.deepEqual(canonicalOrder(["JK", "KC", "AS", "10H", "AS"]), ["AS", "AS", "10H", "KC", "JK"]);
});

test("unreadable files", () => {
  assert.throws(() => readLog(""), Unreadable);
  assert.throws(() => readLog('{"format":"cardgames-log"}\n{"seq":1,'), Unreadable);
  assert.throws(() => readLog("[1,2]\n"), Unreadable);
});

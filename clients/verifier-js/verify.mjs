#!/usr/bin/env node
// An independent verifier of a cardgames audit log's hash chain, seed commitments and
// shuffles (docs/log-format.md, docs/shuffle.md). Node 20, no third-party packages.
// It does not re-run the game's rules (that is `cardgames verify`); it checks what a log
// proves by cryptography alone: nothing was changed, added, removed or reordered, the
// revealed seeds are the committed ones, and every shuffle follows from them.
//
//   node verify.mjs FILE.ndjson
//
// Exit 0 with one summary line; 1 with "FAIL <where>: <what>" for the first thing wrong;
// 2 when the file cannot be read as a log.

import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";

export const FORMAT = "cardgames-log";
export const VERSION = 1;
const SALT_DOMAIN = Buffer.from("cardgames/log/salt", "utf8");
const SEED_DOMAIN = Buffer.from("cardgames/seed", "utf8");
const HEX32 = /^[0-9a-f]{64}$/;

export class Failure extends Error {
  constructor(where, message) {
    super(`${where}: ${message}`);
    this.where = where;
  }
}

export class Unreadable extends Error {}

// ---------------------------------------------------------------------------
// Canonical encoding: JSON with object keys sorted, no whitespace, integers only, UTF-8.

export function canonical(value) {
  if (value === null || typeof value === "boolean") return JSON.stringify(value);
  if (typeof value === "number") {
    if (!Number.isSafeInteger(value)) throw new Unreadable(`not an integer the format allows: ${value}`);
    return JSON.stringify(value);
  }
  if (typeof value === "string") return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  const keys = Object.keys(value).sort();
  return `{${keys.map((key) => `${JSON.stringify(key)}:${canonical(value[key])}`).join(",")}}`;
}

export function sha256(...parts) {
  const hash = createHash("sha256");
  for (const part of parts) hash.update(part);
  return hash.digest();
}

const utf8 = (text) => Buffer.from(text, "utf8");
const hex = (text) => Buffer.from(text, "hex");

function u64be(n) {
  const bytes = Buffer.alloc(8);
  bytes.writeBigUInt64BE(BigInt(n));
  return bytes;
}

// ---------------------------------------------------------------------------
// The chain.

export function genesis(header) {
  const copy = { ...header };
  delete copy.genesis;
  return sha256(utf8(canonical(copy)));
}

export function salt(seed, seq) {
  return sha256(SALT_DOMAIN, seed, u64be(seq));
}

export function entryObject(line) {
  const data = { seq: line.seq, event: line.event };
  if ("command" in line) {
    data.seat = line.seat;
    data.command = line.command;
  }
  return data;
}

export function link(previous, saltBytes, entry) {
  return sha256(previous, saltBytes, utf8(canonical(entry)));
}

// ---------------------------------------------------------------------------
// Seeds and the shuffle (docs/shuffle.md).

export function commitment(valueHex) {
  return sha256(hex(valueHex)).toString("hex");
}

export function shuffleSeed(serverSeed, entropies) {
  if (entropies === null) return serverSeed;
  return sha256(SEED_DOMAIN, hex(serverSeed), ...entropies.map(hex)).toString("hex");
}

const RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"];
const SUITS = ["S", "H", "D", "C"];
const PACK_INDEX = new Map();
SUITS.forEach((suit, s) => RANKS.forEach((rank, r) => PACK_INDEX.set(rank + suit, s * 13 + r)));

export function canonicalOrder(cards) {
  const index = (card) => (PACK_INDEX.has(card) ? PACK_INDEX.get(card) : 52);
  return cards
    .map((card, position) => [index(card), position, card])
    .sort((a, b) => a[0] - b[0] || a[1] - b[1])
    .map(([, , card]) => card);
}

function* words(seed, shuffleNo) {
  for (let counter = 0; ; counter += 1) {
    const block = sha256(seed, u64be(shuffleNo), u64be(counter));
    for (let offset = 0; offset < 32; offset += 4) yield block.readUInt32BE(offset);
  }
}

export function shuffled(items, seed, shuffleNo) {
  if (seed.length !== 32) throw new Error("a shuffle seed is 32 bytes");
  const order = [...items];
  const stream = words(seed, shuffleNo);
  for (let i = order.length - 1; i > 0; i -= 1) {
    const n = i + 1;
    const limit = 2 ** 32 - (2 ** 32 % n);
    let word = stream.next().value;
    while (word >= limit) word = stream.next().value;
    const j = word % n;
    [order[i], order[j]] = [order[j], order[i]];
  }
  return order;
}

// ---------------------------------------------------------------------------
// Reading and verifying a log.

export function readLog(text) {
  const log = { header: null, entries: [], reveal: null, head: "" };
  const lines = text.split("\n");
  lines.forEach((raw, index) => {
    if (!raw.trim()) return;
    let item;
    try {
      item = JSON.parse(raw);
    } catch (error) {
      throw new Unreadable(`line ${index + 1}: not JSON (${error.message})`);
    }
    if (item === null || typeof item !== "object" || Array.isArray(item)) {
      throw new Unreadable(`line ${index + 1}: a log line is a JSON object`);
    }
    if (log.header === null) {
      if (!("format" in item)) throw new Unreadable("the first line is not a log header: not a cardgames log");
      log.header = item;
    } else if (log.reveal !== null) {
      throw new Unreadable(`line ${index + 1}: a line after the reveal line`);
    } else if ("reveal" in item) {
      log.reveal = item.reveal;
      log.head = item.head;
    } else {
      log.entries.push(item);
    }
  });
  if (log.header === null) throw new Unreadable("the file is empty: no log header");
  return log;
}

const same = (a, b) => a.length === b.length && a.every((item, index) => item === b[index]);

export function verify(log) {
  const { header, entries, reveal } = log;
  if (header.format !== FORMAT) throw new Unreadable(`not a cardgames log (format ${JSON.stringify(header.format)})`);
  if (header.version !== VERSION) {
    throw new Unreadable(`unsupported log format version ${JSON.stringify(header.version)} (this verifier reads ${VERSION})`);
  }
  if (genesis(header).toString("hex") !== header.genesis) {
    throw new Failure("header", "its genesis is not the hash of the header");
  }
  if (reveal === null) throw new Failure("reveal", "the log has no reveal line: the match had not ended, or the file is cut short");
  if (!HEX32.test(reveal.seed ?? "") || commitment(reveal.seed) !== header.seed_commitment) {
    throw new Failure("reveal", "the revealed server seed does not hash to the header's seed_commitment");
  }
  const entropies = reveal.seat_entropy ?? null;
  const commitments = header.seat_commitments ?? null;
  if ((entropies === null) !== (commitments === null)) {
    throw new Failure("reveal", "seat_entropy must be given exactly when the header has seat_commitments");
  }
  if (entropies !== null) {
    if (entropies.length !== commitments.length) throw new Failure("reveal", "one entropy per seat");
    entropies.forEach((entropy, seat) => {
      if (!HEX32.test(entropy) || commitment(entropy) !== commitments[seat]) {
        throw new Failure("reveal", `the entropy of seat ${seat} does not hash to its commitment`);
      }
    });
  }
  const serverSeed = hex(reveal.seed);
  const seedHex = shuffleSeed(reveal.seed, entropies);
  const seed = hex(seedHex);
  let previous = genesis(header);
  let decks = [];
  let shuffles = 0;
  let stacked = 0;
  entries.forEach((line, index) => {
    const seq = index + 1;
    const where = `seq ${seq}`;
    if (line.seq !== seq) {
      throw new Failure(where, `expected seq ${seq}, the log has seq ${JSON.stringify(line.seq)} here`);
    }
    if (line.redacted) throw new Failure(where, "the entry is redacted: verifying needs the full log");
    previous = link(previous, salt(serverSeed, seq), entryObject(line));
    if (previous.toString("hex") !== line.hash) {
      throw new Failure(where, "the hash does not follow the chain: this entry (or the header) was changed, or one was removed or moved");
    }
    const event = line.event ?? {};
    if (event.type === "match_seeded") {
      if (event.seed !== seedHex) throw new Failure(where, "the match was seeded with another seed than the revealed one");
      if (event.commitment !== commitment(seedHex)) throw new Failure(where, "the match_seeded commitment is not the hash of its seed");
      if ((event.decks ?? []).length !== header.stacked) throw new Failure(where, "the stacked orders do not match the header");
      decks = event.decks ?? [];
    } else if (event.type === "shuffled") {
      if (event.shuffle_no !== shuffles) throw new Failure(where, `shuffle number ${event.shuffle_no}, expected ${shuffles}`);
      const order = event.order ?? [];
      const expected = shuffles < decks.length ? decks[shuffles] : shuffled(canonicalOrder(order), seed, shuffles);
      if (!same(expected, order)) {
        const source = shuffles < decks.length ? "stacked order" : "shuffle of the revealed seed";
        throw new Failure(where, `shuffle ${shuffles} is not the ${source}`);
      }
      if (shuffles < decks.length) stacked += 1;
      shuffles += 1;
    }
  });
  if (previous.toString("hex") !== log.head) throw new Failure("reveal", "its head is not the hash of the last entry");
  return { game: header.game, gameId: header.game_id, events: entries.length, shuffles, stacked, head: log.head };
}

export function summary(result) {
  const stacked = result.stacked ? `, ${result.stacked} stacked` : "";
  return `OK ${result.game} ${result.gameId}: ${result.events} events, chain and seeds hold, ` +
    `${result.shuffles - result.stacked} shuffles recomputed${stacked}; head ${result.head}`;
}

function main(argv) {
  if (argv.length !== 1) {
    process.stderr.write("usage: node verify.mjs FILE.ndjson\n");
    return 2;
  }
  let text;
  try {
    text = readFileSync(argv[0], "utf8");
  } catch (error) {
    process.stderr.write(`verify.mjs: cannot read ${argv[0]}: ${error.message}\n`);
    return 2;
  }
  try {
    process.stdout.write(`${summary(verify(readLog(text)))}\n`);
    return 0;
  } catch (error) {
    if (error instanceof Failure) {
      process.stderr.write(`FAIL ${error.message}\n`);
      return 1;
    }
    if (error instanceof Unreadable) {
      process.stderr.write(`verify.mjs: ${argv[0]}: ${error.message}\n`);
      return 2;
    }
    process.stderr.write(`verify.mjs: ${argv[0]}: not a readable log (${error.message})\n`);
    return 2;
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  process.exitCode = main(process.argv.slice(2));
}

#!/usr/bin/env node
// The random bot in Node.js:
//   node src/bot.js --server HOST:PORT --game-id ID --token SEAT_TOKEN
//   node src/bot.js --server HOST:PORT --tournament ID --name NAME --credential CREDENTIAL
// (or the credential in CARDGAMES_CREDENTIAL, which keeps it out of the process list)
import { parseArgs } from "node:util";
import { CardgamesClient, playSeat, playTournament, randomChoice } from "./client.js";

const { values } = parseArgs({
  options: {
    server: { type: "string", default: "127.0.0.1:50051" },
    "game-id": { type: "string" },
    token: { type: "string" },
    tournament: { type: "string" },
    name: { type: "string", default: "node" },
    credential: { type: "string", default: process.env.CARDGAMES_CREDENTIAL },
  },
});
const client = new CardgamesClient(values.server);
try {
  if (values.tournament) {
    await playTournament(client, values.tournament, values.name, randomChoice, values.credential);
    console.error("tournament over");
  } else {
    const outcome = await playSeat(client, values["game-id"], values.token, randomChoice);
    console.error(`match over: outcome ${JSON.stringify(outcome)}`);
  }
} finally {
  client.close();
}

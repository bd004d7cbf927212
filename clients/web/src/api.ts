// The service over Connect (JSON) from this page's own origin, and what the page remembers
// about the tables it created (in sessionStorage: the seats' bots and the people's links).

import { createClient } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-web";
import { GameService } from "./gen/cardgames/v1/game_service_pb";
import { TableService } from "./gen/cardgames/v1/table_pb";

const transport = createConnectTransport({ baseUrl: location.origin, useBinaryFormat: false });

export const games = createClient(GameService, transport);
export const tables = createClient(TableService, transport);

/** The call options that act for a seat (its token in the `cardgames-token` header), or as a spectator. */
export function as(token: string | undefined, signal?: AbortSignal): { headers: Record<string, string>; signal?: AbortSignal } {
  return { headers: token ? { "cardgames-token": token } : {}, signal };
}

/** What the creator of a table knows about it: who plays each seat, and the people's tokens. */
export interface TableNotes {
  game: string;
  bots: string[];
  tokens: string[];
  mine: number | null;
}

export function rememberTable(gameId: string, notes: TableNotes): void {
  sessionStorage.setItem(`table:${gameId}`, JSON.stringify(notes));
}

export function tableNotes(gameId: string): TableNotes | null {
  const text = sessionStorage.getItem(`table:${gameId}`);
  return text ? (JSON.parse(text) as TableNotes) : null;
}

/** The link that seats a person: the token stays in the fragment, which no request carries. */
export function seatLink(gameId: string, token: string): string {
  return `${location.origin}/#/play/${gameId}/${token}`;
}

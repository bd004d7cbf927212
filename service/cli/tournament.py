"""``cardgames tournament --game GAME --entrants random,heuristic,ismcts[,...]``: a headless tournament.

Entrants are built-in bots (``random``, ``heuristic``, ``ismcts``, or ``NAME=KIND`` for a
second bot of one kind, ``NAME=ismcts:ITERATIONS`` for a search budget) or remote bots (any
other name): with a remote entrant the command also serves GameService, BotService and
TournamentService on ``--listen``, prints each remote entrant's credential (once: the store
keeps only its hash) and waits for the remote entrants to register with them
(docs/bot-authors.md). The tournament is event-sourced in the store: stop it at any point
and run ``cardgames tournament --resume ID`` (same ``--store``) to go on where it stopped.
A progress bar shows the live results, then the standings and the crosstable (and the SPRT
for two entrants); ``--json`` prints the same as JSON instead.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import signal
import sys
from typing import Any
from uuid import UUID

import msgspec
import typer
from rich.console import Console, Group
from rich.live import Live
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from cardgames.engine.core.registry import known_games
from cardgames.service.cli.help import GameName
from cardgames.service.cli.output import print_whole
from cardgames.service.clocks import ClockKeeper
from cardgames.service.games import Games, ServiceError
from cardgames.service.store import ENV_STORE, EventStore, StoreError
from cardgames.service.tournament.log import ClockOptions, TournamentLog, TournamentNotFound
from cardgames.service.tournament.manager import TournamentNotFoundError, Tournaments, parse_entrants
from cardgames.service.tournament.standings import Standings, standings

DEFAULT_LISTEN = "127.0.0.1:50051"
#: Seconds the served remote entrants get, once the tournament is over, to read the end of their
#: streams and hang up: stopped at once, their connections would be cut (a GOAWAY "Cancelling all
#: calls" that gRPC logs on their side).
STOP_GRACE = 2.0


def parse_options(pairs: list[str]) -> dict[str, Any]:
    """``KEY=VALUE`` pairs; a value that reads as JSON is that JSON value, else the string."""
    options: dict[str, Any] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise typer.BadParameter(f"an option is KEY=VALUE, got {pair!r}")
        try:
            options[key.strip()] = json.loads(value)
        except json.JSONDecodeError:
            options[key.strip()] = value
    return options


def standings_table(table: Standings, *, limit: int | None = None) -> Table:
    out = Table(title=f"{table.game}: {table.played}/{table.total} matches", title_justify="left")
    for column in ("#", "entrant", "M", "W", "D", "L", "pts", "score", "mu", "sigma", "ordinal", "F/T"):
        out.add_column(column, justify="left" if column == "entrant" else "right", no_wrap=True)
    for row in table.rows[:limit]:
        name = row.name if row.bot == row.name else f"{row.name} ({row.bot or 'remote'})"
        out.add_row(
            str(row.rank), name, str(row.matches), str(row.wins), str(row.draws), str(row.losses),
            f"{row.points:g}", f"{100 * row.score:.1f}%", f"{row.mu:.1f}", f"{row.sigma:.1f}",
            f"{row.ordinal:.1f}", f"{row.forfeits}/{row.timeouts}",
        )
    return out


def crosstable(table: Standings) -> Table:
    names = [row.name for row in table.rows]
    out = Table(title="crosstable (wins-draws-losses of the row against the column)", title_justify="left")
    out.add_column("")
    for name in names:
        out.add_column(name, justify="center")
    for a in names:
        cells = ["-" if a == b else "{}-{}-{}".format(*table.crosstable[a][b]) for b in names]
        out.add_row(a, *cells)
    return out


def sprt_line(table: Standings) -> str | None:
    test = table.sprt
    if test is None:
        return None
    first, second = next(iter(table.crosstable)), next(iter(next(iter(table.crosstable.values()))))
    verdict = {"H1": f"{first} is stronger (H1)", "H0": f"not {test.elo1:g} Elo stronger (H0)",
               "continue": "no decision yet"}[test.decision]
    return (f"SPRT {first} vs {second}, elo0={test.elo0:g} elo1={test.elo1:g} ({test.model}): "
            f"{test.wins}-{test.draws}-{test.losses}, LLR {test.llr:.2f} in ({test.lower:.2f}, {test.upper:.2f}): "
            f"{verdict}")


def tournament_command(
    game: GameName | None = typer.Option(
        None, "--game", metavar="GAME", help=f"The game: {', '.join(known_games())}."
    ),
    entrants: str | None = typer.Option(
        None, "--entrants",
        help="Comma-separated: random, heuristic, ismcts, NAME=KIND, NAME=ismcts:ITERATIONS, or the NAME of a "
             "remote entrant.",
    ),
    matches: int | None = typer.Option(None, "--matches", help="Matches per table (default: one seat rotation)."),
    duplicate: bool = typer.Option(False, "--duplicate", help="Replay each deal with the seats rotated."),
    trusted: bool = typer.Option(
        False, "--trusted",
        help="With --duplicate and remote entrants: let the same entrants play every rotation of a deal (else a "
             "deal's rotations go to different entrants, which takes sides x sides entrants).",
    ),
    json_output: bool = typer.Option(False, "--json", help="Print the standings as JSON (no progress bar)."),
    players: int | None = typer.Option(None, "--players", help="Seats per match (default: the game's)."),
    option: list[str] = typer.Option([], "--option", metavar="KEY=VALUE", help="A game option (repeatable)."),
    seed: str | None = typer.Option(None, "--seed", help="64 hex digits (default: a random one)."),
    parallel: int = typer.Option(1, "--parallel", help="Matches played at once."),
    store: str | None = typer.Option(
        None, "--store", help=f"Where the tournament is kept (default: ${ENV_STORE}, else ./data/cardgames.sqlite)."
    ),
    resume: str | None = typer.Option(None, "--resume", help="Go on with this tournament (its id)."),
    listen: str = typer.Option(DEFAULT_LISTEN, "--listen", help="Where remote entrants connect (HOST:PORT)."),
    move_ms: int | None = typer.Option(None, "--move-ms", help="Clock: time per decision (default: no clock)."),
    bank_ms: int = typer.Option(0, "--bank-ms", help="Clock: time bank per seat."),
    on_timeout: str = typer.Option("forfeit", "--on-timeout", help="Clock: forfeit or auto_move."),
    reconnect_ms: int | None = typer.Option(None, "--reconnect-ms", help="Clock: how long a gone bot is waited for."),
    elo0: float = typer.Option(0.0, "--elo0", help="SPRT: H0's Elo difference."),
    elo1: float = typer.Option(10.0, "--elo1", help="SPRT: H1's Elo difference."),
) -> None:
    """Run a tournament between built-in and remote bots: progress, standings, crosstable (or --json)."""
    if resume is None and (game is None or entrants is None):
        raise typer.BadParameter("give --game and --entrants (or --resume ID)")
    names = [name for name in (entrants or "").split(",") if name.strip()]
    clock = None
    if move_ms is not None:
        clock = ClockOptions(move_ms=move_ms, bank_ms=bank_ms, on_timeout=on_timeout, reconnect_ms=reconnect_ms)
    settings = {
        "game": None if game is None else str(game), "entrants": names, "players": players,
        "options": parse_options(option),
        "matches": matches, "duplicate": duplicate, "seed": seed, "clock": clock, "parallel": parallel,
        "trusted": trusted,
    }
    err = Console(stderr=True)
    try:
        event_store = EventStore.from_url(store)
    except StoreError as error:
        err.print(f"cardgames tournament: {error}")
        raise typer.Exit(code=2) from error
    try:
        table = asyncio.run(_run(event_store, settings, resume, listen, json_output, err, (elo0, elo1)))
    except ServiceError as error:
        err.print(f"cardgames tournament: {error.reason}: {error.message}")
        raise typer.Exit(code=2) from error
    except OSError as error:
        err.print(f"cardgames tournament: {error}")
        raise typer.Exit(code=2) from error
    if table is None:
        raise typer.Exit(code=130)
    if json_output:
        sys.stdout.write(json.dumps(msgspec.to_builtins(table), indent=2) + "\n")
    else:
        out = Console()
        print_whole(out, standings_table(table))
        print_whole(out, crosstable(table))
        line = sprt_line(table)
        if line:
            out.print(line)
        if table.seed:
            out.print(f"seed {table.seed} (sha256: {table.seed_commitment}, the commitment shown at the start)",
                      highlight=False)


async def _run(
    store: EventStore, settings: dict[str, Any], resume: str | None, listen: str, quiet: bool, err: Console,
    bounds: tuple[float, float],
) -> Standings | None:
    if resume is None:
        remote = any(entrant.remote for entrant in parse_entrants(settings["entrants"]))
    else:
        try:
            created = TournamentLog(store).load(UUID(resume)).created
        except (TournamentNotFound, ValueError) as error:
            raise TournamentNotFoundError(f"no tournament {resume!r} in {store.describe()}") from error
        remote = any(entrant.remote for entrant in created.entrants)
    games = Games(store)
    server = None
    if remote:
        from cardgames.service.server import start  # serves remote entrants (and resumed ones) next to the runner

        server = await start(listen, games=games)
        assert server.bots is not None
        tournaments = server.bots.tournaments
    else:
        await games.open()
        tournaments = Tournaments(games, clocks=ClockKeeper(games))
    stopping = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError):
            loop.add_signal_handler(signum, stopping.set)
    try:
        credentials: dict[str, str] = {}
        if resume is None:
            made = await tournaments.create(**settings)
            tournament_id, credentials = made.tournament_id, made.credentials
        else:
            tournament_id = resume
            await tournaments.state(tournament_id)
            tournaments.start(tournament_id)
        commitment = (await tournaments.state(tournament_id)).created.seed_commitment
        err.print(f"tournament {tournament_id} ({store.describe()}); resume with: "
                  f"cardgames tournament --resume {tournament_id} --store ...", highlight=False)
        if commitment:
            err.print(f"seed commitment {commitment} (the seed is shown when the tournament is over)",
                      highlight=False)
        for name, credential in credentials.items():  # shown once: the store keeps only its hash
            err.print(f"credential for {name}: {credential}", highlight=False)
        if server is not None:
            state = await tournaments.state(tournament_id)
            waiting = [e.name for e in state.created.entrants if e.remote and e.name not in state.registered]
            if waiting:
                host = listen.rsplit(":", 1)[0]
                err.print(f"waiting for {', '.join(waiting)} to register at {host}:{server.port}", highlight=False)
        follow = asyncio.create_task(_follow(tournaments, tournament_id, quiet, err))
        stop = asyncio.create_task(stopping.wait())
        done, _ = await asyncio.wait({follow, stop}, return_when=asyncio.FIRST_COMPLETED)
        if stop in done:
            follow.cancel()
            err.print("stopped: resume with --resume " + tournament_id)
            return None
        stop.cancel()
        await tournaments.wait(tournament_id)
        return standings(await tournaments.state(tournament_id), elo0=bounds[0], elo1=bounds[1])
    finally:
        if server is not None:
            await server.stop(STOP_GRACE)
        else:
            await tournaments.close()
            if tournaments.clocks is not None:
                await tournaments.clocks.close()
            await games.close()


async def _follow(tournaments: Tournaments, tournament_id: str, quiet: bool, err: Console) -> None:
    if quiet:
        async for _ in tournaments.watch(tournament_id):
            pass
        return
    progress = Progress(
        TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
        console=err,
    )
    task = progress.add_task("matches", total=None)
    with Live(Group(progress), console=err, refresh_per_second=8, transient=True) as live:
        async for table in tournaments.watch(tournament_id):
            progress.update(task, total=table.total, completed=table.played)
            live.update(Group(progress, standings_table(table, limit=8)))

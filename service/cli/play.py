"""``cardgames play GAME``: a whole match between built-in bots, through the real service.

The command starts the gRPC server in this process (127.0.0.1, a free port, an in-memory
store unless ``--store`` names one), creates the match with the seed, and runs one bot per
seat through the Python client, each holding only its own seat's token: ``--bots`` names
their kinds (engine/bots: ``random``, ``heuristic``, the default, and ``ismcts``), one for
every seat or one per seat. A random seat is a :class:`cardgames.clients.bots.RandomBot`; the others
are :class:`PolicyBot`, the engine/bots policy fed the seat's view and legal commands as the
service sends them. A spectator's watch drives the progress line. Once the match is over it
reads the whole log (everything shows then), prints one line per event through the game's
``describe`` (and the public view through its ``floor_text``, when it has one, after each
command's first event: Seep's floor after each play), then the game's ``score_sheet`` as a
table (a row per deal, the totals, each side's place), and with ``--log`` writes the match's
audit log as NDJSON (docs/log-format.md: the writer ``cardgames export`` uses too), which
``cardgames verify`` checks.

Nothing here is specific to a game: the game is reached through the engine registry.
"""

from __future__ import annotations

import asyncio
import json
import secrets
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgspec
import typer
from rich.console import Console
from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn
from rich.table import Table
from rich.text import Text

from cardgames.clients import Accepted, CardgamesError, GameClient, View
from cardgames.clients.bots import RandomBot
from cardgames.clients.bots.random_bot import OnAccepted
from cardgames.clients.client import SeatHandle
from cardgames.clients.models import Update
from cardgames.engine.bots.policy import Observer
from cardgames.engine.core.protocol import GameRules, OptionsError
from cardgames.engine.core.registry import UnknownGame, get_game
from cardgames.engine.core.score_sheet import ScoreSheet
from cardgames.engine.core.shuffle import seed_from_text
from cardgames.service.audit.export import fetch as fetch_audit_log
from cardgames.service.audit.logfile import AuditLog, write_log_file
from cardgames.service.cli.help import GameName
from cardgames.service.cli.output import print_whole
from cardgames.service.server import start
from cardgames.service.store import EventStore, StoreError
from cardgames.service.tournament.manager import InvalidTournament, check_bot
from cardgames.service.tournament.players import decision_rng, policy_for

#: The bot of every seat unless ``--bots`` says otherwise (engine/bots' rules-of-thumb player).
DEFAULT_BOT = "heuristic"


@dataclass
class Match:
    """A finished match: what the service said, and what the bots did."""

    game: str
    game_id: str
    seed: str
    start_sequence: int
    events: list[tuple[int, Any]]  # (sequence, the engine's event struct), the whole log
    final: View  # the spectator's final view
    options: Mapping[str, Any]
    players: int | None
    commands: dict[int, int] = field(default_factory=dict)  # first sequence of a command's events -> seat
    elapsed: float = 0.0
    audit: AuditLog | None = None  # the audit log (docs/log-format.md)


class PolicyBot(RandomBot):
    """A seat played by a built-in engine/bots policy through the Python client.

    It holds only its seat's token: the policy is given the seat's view and legal commands as
    the service sends them (converted to the engine's structs), and a policy with a memory (the
    search bot) is shown every view of the seat's watch. It thinks in a worker thread, so the
    in-process server goes on answering meanwhile. Each decision's randomness comes from the
    match's seed, the seat and the sequence (as in tournaments), so a seeded match replays.
    """

    def __init__(self, seat: SeatHandle, rules: GameRules, policy: Any, *, seed: str, number: int,
                 on_accepted: OnAccepted | None = None) -> None:
        self.rules = rules
        self.policy = policy
        self.match_seed = seed
        self.number = number
        observe = policy.observe if isinstance(policy, Observer) else None

        def on_update(update: Update) -> None:
            if observe is not None:
                observe(self._engine_view(update.view))

        super().__init__(seat, on_accepted=on_accepted, on_update=on_update)

    def _engine_view(self, view: View) -> Any:
        return msgspec.convert(view.data, self.rules.View)

    async def decide(self, view: View, commands: list[dict[str, Any]]) -> dict[str, Any]:
        legal = [msgspec.convert(command, self.rules.Command) for command in commands]
        rng = decision_rng(self.match_seed, self.number, view.sequence)
        choice = await asyncio.to_thread(self.policy.choose, self._engine_view(view), legal, rng)
        return dict(msgspec.to_builtins(choice))


def parse_bots(text: str, seats: int) -> list[str]:
    """``--bots``: one kind for every seat, or a comma-separated kind per seat."""
    kinds = [kind.strip() for kind in text.split(",")]
    if len(kinds) == 1:
        kinds *= seats
    if len(kinds) != seats:
        raise typer.BadParameter(
            f"give one bot kind for every seat or one per seat ({seats}), got {len(kinds)}: {text!r}",
            param_hint="--bots",
        )
    for seat, kind in enumerate(kinds):
        try:
            check_bot(f"seat {seat}", kind)
        except InvalidTournament as error:
            raise typer.BadParameter(str(error), param_hint="--bots") from error
    return kinds


def bots_text(kinds: Sequence[str]) -> str:
    """``bots: heuristic at every seat`` or ``bots: seat 0 heuristic, seat 1 random, ...``."""
    if len(set(kinds)) == 1:
        return f"bots: {kinds[0]} at every seat"
    return "bots: " + ", ".join(f"seat {seat} {kind}" for seat, kind in enumerate(kinds))


def options_text(options: Mapping[str, Any]) -> str:
    """The options given, ``KEY=VALUE`` (the game's defaults for the rest)."""
    given = ", ".join(f"{key}={json.dumps(value)}" for key, value in options.items())
    return given or "the game's defaults"


class _Progress:
    """A transient progress line on stderr: events, commands, the latest line of the account."""

    def __init__(self, rules: GameRules, quiet: bool) -> None:
        self.rules = rules
        self.commands = 0
        self.events = 0
        self.latest = ""
        self.display = Progress(
            SpinnerColumn(),
            TextColumn("{task.description}"),
            TimeElapsedColumn(),
            console=Console(stderr=True),
            transient=True,
            disable=quiet,
        )
        self.task = self.display.add_task("starting")

    def refresh(self) -> None:
        text = f"{self.rules.NAME}: {self.commands} commands, {self.events} events  {self.latest}"
        self.display.update(self.task, description=text[:160])


def parse_options(pairs: Sequence[str]) -> dict[str, Any]:
    """``KEY=VALUE`` pairs; a VALUE that parses as JSON is taken as such, else as a string."""
    options: dict[str, Any] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise typer.BadParameter(f"expected KEY=VALUE, got {pair!r}", param_hint="--option")
        try:
            options[key] = json.loads(value)
        except json.JSONDecodeError:
            options[key] = value
    return options


def match_seed(seed: str | None) -> str:
    """The match's seed in hex: ``SHA-256`` of the text given (docs/shuffle.md), else a fresh random one."""
    if seed is None:
        return secrets.token_hex(32)
    return seed_from_text(seed).hex()


def decode(rules: GameRules, event: Mapping[str, Any]) -> Any:
    """The engine's event struct for a FORMAT.md-shaped event read from the wire."""
    return msgspec.convert(event, rules.Event)


async def run_match(
    rules: GameRules,
    *,
    seed: str,
    players: int | None = None,
    options: Mapping[str, Any] | None = None,
    store: EventStore | None = None,
    progress: _Progress | None = None,
    bots: Sequence[str] | None = None,
) -> Match:
    """Serve in-process, create the match, play it with one bot per seat (``bots``: their kinds,
    heuristic by default), read its log."""
    running = await start("127.0.0.1:0", store if store is not None else EventStore.from_url("memory:"))
    started = time.perf_counter()
    try:
        async with GameClient(f"127.0.0.1:{running.port}") as client:
            created = await client.create_game(rules.NAME, options=options, players=players, seed=seed)
            commands: dict[int, int] = {}

            def accepted_by(seat: int) -> Any:
                def record(command: Mapping[str, Any], accepted: Accepted) -> None:
                    if accepted.events:
                        commands[accepted.events[0].sequence] = seat
                    if progress is not None:
                        progress.commands += 1

                return record

            kinds = list(bots) if bots is not None else [DEFAULT_BOT] * len(created.tokens)
            config = rules.make_config(dict(options or {}), players)
            players_bots: list[RandomBot] = []
            for seat, (token, kind) in enumerate(zip(created.tokens, kinds, strict=True)):
                handle = client.seat(created.game_id, token, game=rules.NAME)
                if kind == "random":
                    players_bots.append(RandomBot(handle, seed=f"{seed}:{seat}", on_accepted=accepted_by(seat)))
                else:
                    players_bots.append(PolicyBot(handle, rules, policy_for(rules.NAME, kind, config), seed=seed,
                                                  number=seat, on_accepted=accepted_by(seat)))
            spectator = client.spectator(created.game_id, game=rules.NAME)
            async with asyncio.TaskGroup() as group:  # a failing bot stops the others
                watching = group.create_task(_follow(spectator.watch(), rules, progress))
                for bot in players_bots:
                    group.create_task(bot.run())
            final = watching.result()
            elapsed = time.perf_counter() - started
            log = await spectator.log()
            audit = await fetch_audit_log(client, created.game_id)
    finally:
        await running.stop(grace=1.0)
    events = [(entry.sequence, decode(rules, entry.event)) for entry in log.events]
    return Match(rules.NAME, created.game_id, seed, created.sequence, events, final, dict(options or {}), players,
                 commands, elapsed, audit)


async def _follow(updates: Any, rules: GameRules, progress: _Progress | None) -> View:
    """Follow the spectator's watch to its end, feeding the progress line; the final view."""
    final: View | None = None
    async for update in updates:
        final = update.view
        if progress is not None:
            progress.events = update.sequence
            for entry in reversed(update.events):
                line = rules.describe(decode(rules, entry.event))
                if line:
                    progress.latest = line
                    break
            progress.refresh()
    assert final is not None
    return final


def _place(place: int) -> str:
    return {1: "1st", 2: "2nd", 3: "3rd"}.get(place, f"{place}th")


def score_table(sheet: ScoreSheet, places: Sequence[int]) -> Table:
    """The score sheet as a table: a row per deal, the totals, then each side's place (0 best)."""
    table = Table(title=sheet.title, title_justify="left", show_footer=False)
    table.add_column(sheet.unit, justify="right", style="dim")
    for side in sheet.sides:
        table.add_column(side.name, justify="right")
    notes = sheet.note and any(row.note for row in sheet.rows)
    if notes:
        table.add_column(sheet.note)
    for row in sheet.rows:
        table.add_row(row.label, *row.cells, *([row.note] if notes else []))
    table.add_section()
    table.add_row(sheet.total_label, *sheet.totals, *([""] if notes else []), style="bold")
    side_places = [places[side.seats[0]] for side in sheet.sides]
    table.add_row("place", *(_place(place + 1) + (" (winner)" if place == 0 else "") for place in side_places),
                  *([""] if notes else []), style="bold green")
    return table


def render(console: Console, rules: GameRules, match: Match, *, account: bool) -> str | None:
    """Print the account (unless not wanted), the result line and the score sheet; the result line."""
    result = None
    config = rules.make_config(dict(match.options), match.players)
    state = rules.initial(config)
    # a game's one-line picture of the table, shown after each command's first event (Seep: the floor)
    after_play = rules.TRAITS.floor_text if account else None
    for sequence, event in match.events:
        state = rules.evolve(state, event)
        line = rules.describe(event)
        if not line:
            continue
        result = line
        if account:
            style = "bold" if sequence in match.commands else ""
            console.print(Text(f"{sequence:>5}  ", style="dim") + Text(line, style=style))
            if after_play is not None and sequence in match.commands:
                picture = after_play(rules.view(state, None))
                if picture:
                    console.print(Text(f"{'':>7}{picture}", style="dim"))
    console.rule("Final score")
    if result:
        console.print(Text(result, style="bold green"))
    print_whole(console, score_table(rules.score_sheet(event for _, event in match.events), rules.outcome(state)))
    return result


def play_command(
    game: GameName = typer.Argument(..., help="The game to play.", show_default=False),
    seed: str | None = typer.Option(
        None, "--seed", help="Any text (the seed is its SHA-256, docs/shuffle.md); default: a random seed."
    ),
    players: int | None = typer.Option(None, "--players", help="The number of players (default: the game's)."),
    log: Path | None = typer.Option(None, "--log", help="Write the match's full event log here as NDJSON."),
    option: list[str] = typer.Option(
        [], "--option", "-o", metavar="KEY=VALUE",
        help="A rules option (VALUE as JSON, else a string); repeatable.",
    ),
    store: str = typer.Option("memory:", "--store", help="Where the service keeps the match (a store URL)."),
    bots: str = typer.Option(
        DEFAULT_BOT, "--bots",
        help="The bots: one kind for every seat, or one per seat, comma-separated (random, heuristic, ismcts, "
             "ismcts:ITERATIONS), e.g. heuristic,random,heuristic,random.",
    ),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="Print only the result, not every event."),
) -> None:
    """Play a whole match between built-in bots through the gRPC service, and print it."""
    console = Console(highlight=False, soft_wrap=True)
    game = str(game)
    try:
        rules = get_game(game)
    except (UnknownGame, ModuleNotFoundError) as error:
        typer.echo(f"cardgames play: unknown or unavailable game {game!r} ({error})", err=True)
        raise typer.Exit(code=2) from error
    options = parse_options(option)
    try:
        config = rules.make_config(dict(options), players)
        event_store = EventStore.from_url(store)
    except (OptionsError, StoreError) as error:
        typer.echo(f"cardgames play: {error}", err=True)
        raise typer.Exit(code=2) from error
    kinds = parse_bots(bots, config.players)
    seed_text = match_seed(seed)
    progress = _Progress(rules, quiet or not console.is_terminal)
    try:
        with progress.display:
            match = asyncio.run(
                run_match(rules, seed=seed_text, players=players, options=options, store=event_store,
                          progress=progress, bots=kinds)
            )
    except* CardgamesError as group:
        first = group.exceptions[0]
        reason = first.reason if isinstance(first, CardgamesError) else ""
        typer.echo(f"cardgames play: {first}", err=True)
        raise typer.Exit(code=2 if reason.startswith("INVALID") else 1) from None
    origin = f"--seed {seed}" if seed is not None else "random"
    console.print(Text(f"{rules.TITLE}: game {match.game_id}, seed {match.seed} ({origin})", style="bold"))
    console.print(Text(f"{bots_text(kinds)}; options: {options_text(options)}", style="dim"))
    render(console, rules, match, account=not quiet)
    commands = len(match.commands)
    console.print(
        f"{commands} commands, {len(match.events)} events in {match.elapsed:.2f} s "
        f"({commands / match.elapsed if match.elapsed else 0:.0f} commands/s through gRPC)"
    )
    if log is not None:
        assert match.audit is not None
        write_log_file(log, match.audit)
        console.print(f"Event log: {log} ({len(match.events)} lines of NDJSON)")

"""A game's last listing of legal commands, so that ``decide`` can trust what it just listed.

A playout (or a bot) asks ``legal_commands`` and sends one of the listed commands back
for the very same state. The games that keep a :class:`LastListing` apply such a command
without checking it again: ``legal_commands`` lists exactly the commands ``decide``
accepts (each game's listing tests hold the two together), and states and commands are
immutable values, so an equal command is just as legal and takes effect in the same way.
Any other command (another state object, another seat, a command not listed) goes through
every check. A lazy :class:`cardgames.engine.core.lazy_listing.Listing` is asked the same way
(:meth:`~cardgames.engine.core.lazy_listing.Listing.holds`), without making its commands.
"""

from __future__ import annotations

from typing import Any

from cardgames.engine.core.lazy_listing import Listing


class LastListing:
    """The last (state, seat, commands) a game listed. Replaced as one tuple, so that a
    reader sees one listing's parts together."""

    def __init__(self) -> None:
        self._last: tuple[object, int, list[Any] | Listing] = (None, -1, [])

    def remember(self, state: object, seat: int, commands: list[Any] | Listing) -> None:
        self._last = (state, seat, commands)

    def holds(self, state: object, seat: int, command: object) -> bool:
        """Whether ``command`` was listed for this very state object and seat.

        The listed object itself (what a playout sends back) is looked for by identity
        first, a pointer comparison per command (``list.__contains__`` would compare the
        fields of every command before it); then an equal command."""
        last_state, last_seat, commands = self._last
        if last_state is not state or last_seat != seat:
            return False
        if not isinstance(commands, list):
            return commands.holds(command)
        for listed in commands:
            if listed is command:
                return True
        return command in commands

"""A listing of legal commands whose large families are made one command at a time.

On a crowded floor a game can have tens of thousands of legal commands that differ only
in how loose cards are grouped. A playout lists them to pick one: making every command
object would cost more than the rest of the playout. A game may then answer
``legal_commands`` with a :class:`Listing`: an immutable sequence of parts, each a list
of ready commands or a :class:`Family` that knows its length, makes the command at an
index and finds a command's index. ``len``, indexing (``random.choice``), ``in`` and
``index`` cost a walk each; a run of consecutive commands (:meth:`Listing.page`, a slice) costs
one walk per family it touches; iterating makes every command, as a list would have.

The order is the order the eager list would have had, so a seeded bot picks the same
commands either way. A command once made at an index is kept: the same index gives the
same object, which :class:`cardgames.engine.core.listing.LastListing` recognises by identity first.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterator, Sequence
from typing import Any, Protocol, overload


class Family(Protocol):
    """Commands of one shape (say, one card's captures), counted rather than made."""

    def __len__(self) -> int: ...

    def at(self, index: int) -> Any:
        """The command at ``index`` (0 <= index < len)."""
        ...

    def index_of(self, command: object) -> int:
        """Where ``command`` stands in the family, or -1 when it is not one of them."""
        ...

    def commands(self) -> list[Any]:
        """Every command of the family, made, in order."""
        ...

    def page(self, start: int, stop: int) -> list[Any]:
        """The commands at ``start`` up to ``stop`` (0 <= start <= stop <= len), made in order by one
        walk, not by a walk per command."""
        ...


class Listing(Sequence[Any]):
    """Legal commands as parts: lists of ready commands and families made on demand."""

    __slots__ = ("_length", "_made", "_parts", "_starts")

    def __init__(self, parts: Sequence[list[Any] | Family]) -> None:
        self._parts = [part for part in parts if len(part)]
        self._starts: list[int] = []
        length = 0
        for part in self._parts:
            self._starts.append(length)
            length += len(part)
        self._length = length
        self._made: dict[int, Any] = {}

    def __len__(self) -> int:
        return self._length

    @overload
    def __getitem__(self, index: int) -> Any: ...

    @overload
    def __getitem__(self, index: slice) -> list[Any]: ...

    def __getitem__(self, index: int | slice) -> Any:
        if isinstance(index, slice):
            start, stop, step = index.indices(self._length)
            if step == 1:
                return self.page(start, stop)
            return [self[at] for at in range(start, stop, step)]
        if index < 0:
            index += self._length
        if not 0 <= index < self._length:
            raise IndexError("legal command index out of range")
        made = self._made.get(index)
        if made is not None:
            return made
        at = bisect_right(self._starts, index) - 1
        part = self._parts[at]
        offset = index - self._starts[at]
        if isinstance(part, list):
            return part[offset]
        made = self._made[index] = part.at(offset)
        return made

    def page(self, start: int, stop: int) -> list[Any]:
        """The commands at ``start`` up to ``stop`` (clipped to the listing), as ``self[start:stop]``
        gives them, but each family's made in one walk (:meth:`Family.page`): a page of a crowded
        Seep floor's builds costs its commands and two walks, not a walk per command. A command
        already made at its index is the same object again; the others are not kept (as in
        iterating: a page of commands goes on the wire, ``decide`` finds them by equality)."""
        start, stop = max(start, 0), min(stop, self._length)
        out: list[Any] = []
        if start >= stop:
            return out
        parts, starts = self._parts, self._starts
        at = bisect_right(starts, start) - 1
        first = start
        while start < stop:
            part, base = parts[at], starts[at]
            end = min(stop - base, len(part))
            out += part[start - base:end] if isinstance(part, list) else part.page(start - base, end)
            start = base + end
            at += 1
        made = self._made
        if made:
            for index, command in made.items():
                if first <= index < stop:
                    out[index - first] = command
        return out

    def __iter__(self) -> Iterator[Any]:
        for part in self._parts:
            yield from part if isinstance(part, list) else part.commands()

    def __contains__(self, command: object) -> bool:
        return self._find(command) >= 0

    def index(self, command: Any, start: int = 0, stop: int | None = None) -> int:
        found = self._find(command)
        if found < 0 or found < start or (stop is not None and found >= stop):
            raise ValueError(f"{command!r} is not a legal command here")
        return found

    def count(self, command: Any) -> int:
        return 1 if self._find(command) >= 0 else 0  # the commands of a listing are distinct

    def _find(self, command: object) -> int:
        for start, part in zip(self._starts, self._parts, strict=True):
            if isinstance(part, list):
                found = index_in(part, command)
                if found >= 0:
                    return start + found
            else:
                found = part.index_of(command)
                if found >= 0:
                    return start + found
        return -1

    def spread(self, at_most: int) -> list[Any]:
        """About ``at_most`` commands evenly spaced within each part, in order; every part keeps
        one at least (a family of one card's captures is never left out for another's builds)."""
        chosen: list[Any] = []
        for start, part in zip(self._starts, self._parts, strict=True):
            size = len(part)
            take = min(size, max(1, at_most * size // self._length))
            chosen.extend(self[start + i * size // take] for i in range(take))
        return chosen

    def holds(self, command: object) -> bool:
        """Whether ``command`` is listed: the very objects handed out are looked for by identity
        first (a pointer comparison each), then an equal command by a walk per family."""
        for part in self._parts:
            if isinstance(part, list):
                for listed in part:
                    if listed is command:
                        return True
        for made in self._made.values():
            if made is command:
                return True
        return self._find(command) >= 0

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, (Listing, list, tuple)):
            return NotImplemented
        return len(other) == self._length and all(a == b for a, b in zip(self, other, strict=True))

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        kinds = ", ".join(f"{len(part)} listed" if isinstance(part, list) else f"{len(part)} in {type(part).__name__}"
                          for part in self._parts)
        return f"Listing({self._length} commands: {kinds})"


def index_in(items: list[Any], item: object) -> int:
    """Where ``item`` first stands in ``items``, or -1 (one scan, where ``in`` then ``index`` make two)."""
    try:
        return items.index(item)
    except ValueError:
        return -1


def page(commands: Sequence[Any], start: int, stop: int) -> list[Any]:
    """``commands[start:stop]`` as a list: of a :class:`Listing`, made in one walk per family."""
    if isinstance(commands, Listing):
        return commands.page(start, stop)
    return list(commands[start:stop])


def spread(commands: Sequence[Any], at_most: int) -> Sequence[Any]:
    """``commands`` when there are ``at_most`` or fewer; else about that many of them, evenly
    spaced (within each part of a :class:`Listing`), in order. For a player that scores the
    commands it may send: a crowded floor can list billions of groupings."""
    length = len(commands)
    if length <= at_most:
        return commands
    if isinstance(commands, Listing):
        return commands.spread(at_most)
    return [commands[i * length // at_most] for i in range(at_most)]

"""The search bot: single-observer information-set Monte Carlo tree search (SO-ISMCTS).

Every iteration samples one *determinization*: a full state built by the game's
``determinize`` from the public config and the seat's view only, with the cards the
seat cannot see dealt at random. The iteration then walks one shared tree (nodes are
keyed by command, so statistics from different determinizations add up), expands one
new command, plays on at random or with the game's heuristic (the game's
``search_rollout`` chooses, random by default) until the current
episode ends (the game's ``search_episode``, e.g. the hand) or ``horizon`` plies are
played (a game may set ``search_horizon``), and credits every command on the path
with the reward of the seat that chose it (``search_reward``; partners share their
side's reward). Below the root, selection is UCB1 over the commands legal in this
determinization, counting how often each was available (Cowling, Powley and
Whitehouse 2012). Of a position with more than ``MOVES_AT_MOST`` commands (a crowded Seep
floor), the tree considers that many, spread over the listing.

The root has two modes. ``paired`` (the default) tries every root command on the same
determinization and the same rollout seed, so the commands are compared on the same
hidden cards (common random numbers, as in determinized Monte Carlo). With an
``anchor`` (the default: the game's heuristic) it keeps the anchor's command unless
another is better on the paired samples at the level ``alpha`` (shared among the
commands, so noise among many commands does not pick a worse one); without, it picks
the best mean reward. ``ucb`` treats the root like any node and picks the most visited.

The policy never sees the true state: its inputs are the view, the legal commands
and the rng (``tests/bots/test_hidden_information.py`` proves the choice does not
change when the hidden cards do). The budget is a number of iterations (rollouts)
and/or a time limit; the time limit needs a ``clock`` from the caller, so the engine
itself reads no clock.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Hashable, Sequence
from statistics import NormalDist
from typing import Any

from cardgames.engine.bots.policy import BotRules, Policy, Ranker, bot_rules
from cardgames.engine.core.lazy_listing import spread
from cardgames.engine.core.protocol import GameRules, Rejection
from cardgames.engine.core.registry import get_game

#: A rollout longer than this many commands is a bug of the game's episode key.
MAX_ROLLOUT = 10_000
#: The most commands of one position the tree considers, at the root and below: that many spread
#: over the listing (:func:`cardgames.engine.core.lazy_listing.spread`) when there are more. A crowded Seep
#: floor lists tens of thousands of groupings, and billions under the option to throw any card.
MOVES_AT_MOST = 2_000


class _Node:
    """The statistics of one command from its parent: visits, summed reward of its chooser, availability."""

    __slots__ = ("avail", "children", "total", "visits")

    def __init__(self) -> None:
        self.children: dict[Any, _Node] = {}
        self.visits = 0
        self.total = 0.0
        self.avail = 0


def _visits(root: _Node, command: Any) -> int:
    child = root.children.get(command)
    return 0 if child is None else child.visits


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values) if values else -math.inf


class SearchError(RuntimeError):
    """The game refused a command its own legal_commands offered during the search."""


class ISMCTSPolicy:
    """Information-set MCTS under an iteration and/or time budget (see the module docstring)."""

    def __init__(
        self,
        game: str,
        config: Any,
        *,
        iterations: int | None = 200,
        time_limit: float | None = None,
        clock: Callable[[], float] | None = None,
        exploration: float = 1.0,
        rollout: str | None = None,
        root: str = "paired",
        horizon: int | None = None,
        anchor: str | None = "heuristic",
        alpha: float = 0.1,
        candidates: int | None = None,
    ) -> None:
        if iterations is None and time_limit is None:
            raise ValueError("give an iteration budget, a time limit, or both")
        if time_limit is not None and clock is None:
            raise ValueError("a time limit needs a clock (the engine reads none itself)")
        if root not in ("paired", "ucb"):
            raise ValueError(f"root must be 'paired' or 'ucb', got {root!r}")
        if anchor not in (None, "heuristic"):
            raise ValueError(f"anchor must be 'heuristic' or None, got {anchor!r}")
        self.game: GameRules = get_game(game)
        self.rules: BotRules = bot_rules(game)
        if rollout is None:  # the game's choice (its bots' search_rollout: random play by default)
            rollout = self.rules.search_rollout
        if rollout not in ("random", "heuristic"):
            raise ValueError(f"rollout must be 'random' or 'heuristic', got {rollout!r}")
        self.config = config
        self.iterations = iterations
        self.time_limit = time_limit
        self.clock = clock
        self.exploration = exploration
        self.root = root
        #: plies searched beyond the root before the reward is read (None: to the episode's end)
        self.horizon: int | None = horizon if horizon is not None else self.rules.search_horizon
        self._limit = MAX_ROLLOUT if self.horizon is None else self.horizon
        heuristic = self.rules.heuristic_policy(config)
        self.rollout_policy: Policy | None = heuristic if rollout == "heuristic" else None
        #: the paired root keeps this policy's choice unless another command is better (see ``_improve``)
        self.anchor: Policy | None = heuristic if anchor == "heuristic" and root == "paired" else None
        self.alpha = alpha
        #: with an anchor that ranks commands (``rank(view, legal)``), only its best few are searched
        self.candidates: int | None = (
            candidates if candidates is not None else self.rules.search_candidates
        )
        #: iterations run by the last ``choose`` (for budgets and reports)
        self.last_iterations = 0
        #: per seat, what it remembers of the views it was shown (``observe``)
        self._memory: dict[int, Any] = {}

    def observe(self, view: Any) -> None:
        """Remember what ``view`` shows (the arena shows every seat its view after every command)."""
        seat = view.viewer
        if seat is not None:
            self._memory[seat] = self.rules.remember(self._memory.get(seat), view)

    def reset(self) -> None:
        """Forget everything: a new match begins."""
        self._memory.clear()

    def __getstate__(self) -> dict[str, Any]:
        """What a copy in another process needs (a service decides in worker processes): everything,
        memory included, but the game's modules, which go by the game's name."""
        state = dict(self.__dict__)
        state["game"] = self.game.NAME
        del state["rules"]
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        name = state["game"]
        self.__dict__.update(state)
        self.game = get_game(name)
        self.rules = bot_rules(name)

    def choose(self, view: Any, legal: Sequence[Any], rng: random.Random) -> Any:
        if len(legal) == 1:
            self.last_iterations = 0
            return legal[0]
        legal = spread(legal, MOVES_AT_MOST)
        root = _Node()
        seat: int = view.viewer
        memory = self._memory.get(seat)
        deadline = None if self.time_limit is None or self.clock is None else self.clock() + self.time_limit
        done = 0
        if self.root != "paired":
            while self.iterations is None or done < self.iterations:
                if done and deadline is not None and self.clock is not None and self.clock() >= deadline:
                    break
                state = self.rules.determinize(self.config, view, rng, memory)
                self._iterate(root, state, seat, set(legal), rng)
                done += 1
            self.last_iterations = done
            return max(legal, key=lambda command: _visits(root, command))
        anchor = None
        if self.anchor is not None:
            if self.candidates is not None and isinstance(self.anchor, Ranker):
                legal = self.anchor.rank(view, legal)[: self.candidates]
                anchor = legal[0]
                if len(legal) == 1:
                    return anchor
            else:
                anchor = self.anchor.choose(view, legal, rng)
        samples: dict[Any, list[float]] = {command: [] for command in legal}
        while self.iterations is None or done < self.iterations:
            if done and deadline is not None and self.clock is not None and self.clock() >= deadline:
                break
            state = self.rules.determinize(self.config, view, rng, memory)
            # every root command on the same determinization and rollout seed: paired comparisons
            seed = rng.getrandbits(64)
            for command in legal:
                samples[command].append(self._iterate(root, state, seat, {command}, random.Random(seed)))
            done += len(legal)
        self.last_iterations = done
        if anchor is None:
            return max(legal, key=lambda command: _mean(samples[command]))
        return self._improve(anchor, legal, samples)

    def _improve(self, anchor: Any, legal: Sequence[Any], samples: dict[Any, list[float]]) -> Any:
        """The anchor's command, unless another's paired advantage over it is significant.

        Each other command is compared with the anchor on the same determinizations (a
        one-sided test on the paired differences); the level is ``alpha`` shared among
        the commands compared (Bonferroni), so that with many commands a lucky one
        rarely displaces a sound choice. Among the significant ones, the largest lower
        bound wins.
        """
        base = samples[anchor]
        others = len(legal) - 1
        z = NormalDist().inv_cdf(1 - self.alpha / others) if others else 0.0
        best, best_bound = anchor, 0.0
        for command in legal:
            if command == anchor:
                continue
            gains = [mine - theirs for mine, theirs in zip(samples[command], base, strict=True)]
            n = len(gains)
            if n < 2:
                continue
            mean = sum(gains) / n
            spread = math.sqrt(sum((gain - mean) ** 2 for gain in gains) / (n - 1) / n)
            bound = mean - z * spread
            if bound > best_bound:
                best, best_bound = command, bound
        return best

    # --- one iteration -------------------------------------------------------------------

    def _iterate(self, root: _Node, state: Any, seat: int, offered: set[Any], rng: random.Random) -> float:
        """One iteration from ``state``; the root chooser's reward."""
        game, rules = self.game, self.rules
        start = state
        episode = rules.search_episode(state)
        node = root
        path: list[tuple[_Node, int]] = []
        actor = seat
        depth = 0
        listed = spread(game.legal_commands(state, seat), MOVES_AT_MOST)
        moves: Sequence[Any] = [command for command in listed if command in offered]
        while moves:
            children = node.children
            untried = []
            for command in moves:
                child = children.get(command)
                if child is None:
                    untried.append(command)
                else:
                    child.avail += 1
            if untried:
                command = untried[rng.randrange(len(untried))]
                child = children[command] = _Node()
                child.avail = 1
                state = self._step(state, actor, command)
                path.append((child, actor))
                depth += 1
                break
            command, child = self._select(children, moves)
            state = self._step(state, actor, command)
            path.append((child, actor))
            depth += 1
            node = child
            if depth >= self._limit or game.is_over(state) or rules.search_episode(state) != episode:
                break
            actor = game.to_act(state)[0]
            moves = spread(game.legal_commands(state, actor), MOVES_AT_MOST)
        state = self._rollout(state, episode, self._limit - depth, rng)
        rewards = rules.search_reward(start, state)
        for child, chooser in path:
            child.visits += 1
            child.total += rewards[chooser]
        return rewards[seat]

    def _select(self, children: dict[Any, _Node], moves: Sequence[Any]) -> tuple[Any, _Node]:
        c = self.exploration
        best_command, best_child, best_score = None, None, -math.inf
        for command in moves:
            child = children[command]
            score = child.total / child.visits + c * math.sqrt(math.log(child.avail) / child.visits)
            if score > best_score:
                best_command, best_child, best_score = command, child, score
        assert best_child is not None
        return best_command, best_child

    def _step(self, state: Any, seat: int, command: Any) -> Any:
        events = self.game.decide(state, seat, command)
        if isinstance(events, Rejection):
            raise SearchError(f"the game refused its own legal command {command!r} from seat {seat}: {events}")
        evolve = self.game.evolve
        for event in events:
            state = evolve(state, event)
        return state

    def _rollout(self, state: Any, episode: Hashable, plies: int, rng: random.Random) -> Any:
        game, rules = self.game, self.rules
        policy = self.rollout_policy
        for _ in range(min(plies, MAX_ROLLOUT)):
            if game.is_over(state) or rules.search_episode(state) != episode:
                return state
            seat = game.to_act(state)[0]
            legal = game.legal_commands(state, seat)
            if len(legal) == 1:
                command = legal[0]
            elif policy is None:
                command = legal[int(rng.random() * len(legal))]
            else:
                command = policy.choose(game.view(state, seat), legal, rng)
            state = self._step(state, seat, command)
        if plies >= MAX_ROLLOUT:
            raise SearchError(f"a rollout ran past {MAX_ROLLOUT} commands without ending its episode")
        return state

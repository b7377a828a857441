"""Money for ``--budget-usd``: what a game cost, and whether the next game may start.

A game's cost is the sum of ``cost_usd`` over every LLM call recorded in it, both seats (the
same records the transcripts' totals are checked against; a tournament line's per-seat totals
sum them). A call of a model without a price
has ``cost_usd`` null: then the game's cost is unknown and no budget can be kept, so a run with
``--budget-usd`` refuses, naming the model, (a) at the start when an LLM seat's model has no
price in the table (``DUEL_PRICES`` can add one), (b) at the start when games of earlier runs
in the folder have an unknown cost, and (c) at the first finished game with an unknown cost,
before starting another. Without ``--budget-usd`` unpriced models play as before.

The rule: a game starts only if the money spent so far, plus what the games in flight are
expected to cost, plus the expected cost of this game, stays within the budget. The expected
cost of a game is the mean cost of the finished games of its group (a prompt variant in
grading, the pairing in a tournament), earlier runs' games included. A group with no finished
game yet is expected to cost what the costliest group costs on average, or, before any game has
finished at all, is unknown: then it starts only while the money spent and expected in flight is
under the budget, and a group whose first game is in flight starts no second one until that game
has finished (so the first games start one per group at most). When a game does not fit but
others are in flight, nothing starts until one of them finishes (its real cost may leave room);
when none are in flight, the run starts no more games and says so.
Money already spent by games in the folder (from earlier runs) counts, and is stated as such; a
later run with a larger budget resumes where this one stopped. Calls of a game cut short by a
kill were paid for but are not counted: that game is played again from the start.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from dataclasses import dataclass, field
from typing import Any

from duel.accounting.games import llm_totals
from duel.accounting.prices import cost
from duel.accounting.totals import combine
from duel.errors import UsageError
from duel.records import GameSummary
from duel.runs.schedule import Gate


@dataclass(frozen=True)
class GameCost:
    usd: float | None  # None: some call's model has no price
    unpriced: tuple[str, ...] = ()  # those models

    @staticmethod
    def of_moves(details: Iterable[dict[str, Any]]) -> GameCost:
        """The cost of a game from its moves' details (both seats)."""
        details = list(details)
        totals = llm_totals(details)
        if totals is None:
            return GameCost(0.0)
        if totals["cost_usd"] is not None:
            return GameCost(totals["cost_usd"])
        models = {str(call.get("model", "?")) for d in details
                  for call in (d.get("llm") or {}).get("calls", [])
                  if call.get("cost_usd") is None}
        return GameCost(None, tuple(sorted(models)))

    @staticmethod
    def of_game(game: GameSummary) -> GameCost:
        """The cost of a tournament game from its seats' LLM totals. A line has no model names:
        an unknown cost names the LLM specs; an LLM game recorded without totals (by a duel
        older than them) has an unknown cost."""
        llm = tuple(filter(is_llm, game.specs))
        if not llm:
            return GameCost(0.0)
        per_seat = [t for t in (game.totals or {}).values() if t]
        usd = combine(per_seat)["cost_usd"] if per_seat else None
        return GameCost(usd) if usd is not None else GameCost(None, llm)


def is_llm(spec: str) -> bool:
    """Whether an agent spec is an LLM's (whose games cost money)."""
    return spec.startswith("llm:")


def unpriced_model(agent: Any) -> str | None:
    """The model of an LLM agent if the price table has no price for it."""
    if not is_llm(str(getattr(agent, "spec", ""))):
        return None
    from duel.agents.llm.agent import LLMAgent  # loaded only where there is an LLM seat
    from duel.agents.llm.providers.registry import capabilities

    if isinstance(agent, LLMAgent):
        if capabilities(agent.provider).bills_itself:
            return None  # it states each call's cost (OpenRouter's usage.cost)
        model = agent.provider.model
        if cost(model, 0, 0, 0) is None:
            return model
    return None


def price_hint(models: Iterable[str]) -> str:
    """The one line that says how to give the price of models the table lacks."""
    example = ", ".join(f'"{m}": {{"input": USD, "output": USD}}' for m in models)
    return (f"give its price per million tokens with DUEL_PRICES=prices.json holding "
            f"{{{example}}} (see duel prices)")


def _no_price(models: Iterable[str], where: str) -> UsageError:
    names = sorted(set(models)) or ["?"]
    return UsageError(f"--budget-usd: model {', '.join(names)} has no price ({where}), so no "
                      f"budget can be kept; {price_hint(names)}, or run without --budget-usd")


@dataclass
class _Group:
    costs: list[float] = field(default_factory=list)
    in_flight: int = 0

    @property
    def mean(self) -> float | None:
        return sum(self.costs) / len(self.costs) if self.costs else None


class Budget:
    """The money of one run: games of earlier runs, games of this run, games in flight.
    `limit` None keeps the accounts (the progress bar shows them) without stopping anything."""

    def __init__(self, limit: float | None, folder: str = "", unit: str = "game") -> None:
        if limit is not None and not limit >= 0:
            raise UsageError(f"--budget-usd must be a number of dollars >= 0, got {limit}")
        self.limit = limit
        self.folder = folder
        self.unit = unit  # what the run starts: "game", or "answer" in a position run
        self.earlier_usd = self.run_usd = 0.0
        self.earlier_games = self.run_games = 0
        self.unknown = 0  # games of unknown cost, without a budget
        self.stopped = False
        self.stopped_for: float | None = None  # the next game's expected cost at the stop
        self._groups: dict[Hashable, _Group] = {}

    def check_agents(self, agents: Iterable[Any]) -> None:
        """Refuse a budget over an agent whose model has no price, before anything starts."""
        if self.limit is None:
            return
        models = [m for m in map(unpriced_model, agents) if m is not None]
        if models:
            raise _no_price(models, "not in the price table")

    def _group(self, group: Hashable) -> _Group:
        return self._groups.setdefault(group, _Group())

    def add_earlier(self, group: Hashable, game: GameCost) -> None:
        """A finished game found in the folder, from an earlier run."""
        if game.usd is None:
            if self.limit is not None:
                raise _no_price(game.unpriced, f"{self.unit}s of earlier runs in {self.folder}")
            self.unknown += 1
            return
        self.earlier_usd += game.usd
        self.earlier_games += 1
        self._group(group).costs.append(game.usd)

    def started(self, group: Hashable) -> None:
        self._group(group).in_flight += 1

    def finished(self, group: Hashable, game: GameCost) -> None:
        """A game of this run has finished. Raises UsageError for an unknown cost under a
        budget: the caller stops starting games."""
        g = self._group(group)
        g.in_flight -= 1
        if game.usd is None:
            if self.limit is not None:
                raise _no_price(game.unpriced, f"a {self.unit} of this run recorded calls "
                                "without a price")
            self.unknown += 1
            return
        self.run_usd += game.usd
        self.run_games += 1
        g.costs.append(game.usd)

    @property
    def spent(self) -> float:
        return self.earlier_usd + self.run_usd

    def expected(self, group: Hashable) -> float | None:
        """The expected cost of a game of `group` (None: unknown, nothing has finished)."""
        own = self._group(group).mean
        if own is not None:
            return own
        means = [m for g in self._groups.values() if (m := g.mean) is not None]
        return max(means) if means else None

    def gate(self, group: Hashable) -> Gate:
        """May a game of `group` start now?"""
        if self.limit is None:
            return Gate.START
        mine = self._group(group)
        if mine.mean is None and mine.in_flight:
            return Gate.LATER  # its first game's cost is not known yet
        in_flight = sum(g.in_flight for g in self._groups.values())
        committed = self.spent + sum(g.in_flight * (self.expected(k) or 0.0)
                                     for k, g in self._groups.items())
        expected = self.expected(group)
        fits = committed < self.limit if expected is None else committed + expected <= self.limit
        if fits:
            return Gate.START
        if in_flight:
            return Gate.HOLD  # the games in flight may cost less than expected
        self.stopped, self.stopped_for = True, expected
        return Gate.STOP

    def money(self) -> str:
        """The progress bar's figure."""
        spent = f"${self.spent:.4f}" + ("+?" if self.unknown else "")
        return spent + (f" of ${self.limit:.2f}" if self.limit is not None else "") + " spent"

    def _spent_line(self) -> str:
        where = f"in {self.folder}" if self.folder else "resumed"
        parts = []
        if self.earlier_games:
            parts.append(f"${self.earlier_usd:.4f} by {self.earlier_games} {self.unit}s of "
                         f"earlier runs {where}")
        parts.append(f"${self.run_usd:.4f} by {self.run_games} {self.unit}s of this run")
        return f"spent ${self.spent:.4f} of the ${self.limit:.2f} budget ({', '.join(parts)})"

    def summary(self, done: int, total: int) -> str | None:
        """What to tell the user at the end of a run with a budget (None without one)."""
        if self.limit is None:
            return None
        if not self.stopped:
            return f"Budget: {self._spent_line()}; {done} of {total} {self.unit}s done."
        expected = "unknown" if self.stopped_for is None else f"${self.stopped_for:.4f}"
        return (f"Stopped for the budget: {self._spent_line()}; the next {self.unit} was expected "
                f"to cost {expected}; {done} of {total} {self.unit}s done. Run again with the same "
                "--out and a larger --budget-usd to resume.")

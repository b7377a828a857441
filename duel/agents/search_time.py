"""How long a seat's searches took: its searched moves' decision times and iterations.

An equal-time comparison (`duel tournament --p1 mcts:time=1 --p2 mcts:time=1,native=0`) is
fair only if both sides kept their budget, so a tournament counts, for each seat of each game,
the moves its search decided (those whose details report iterations: a single legal move or an
immediate win is not searched) with the sum and the sum of squares of their wall times, the
longest, and the iterations (or simulations) run; the report gives each side's mean time per
searched move with its 95% interval, the longest, and the mean iterations.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from duel.errors import InvalidStateError


@dataclass(frozen=True)
class SearchTime:
    """A seat's searched moves: how many, their seconds' sum and sum of squares, the longest,
    and the iterations they ran."""

    moves: int = 0
    seconds: float = 0.0
    squares: float = 0.0
    longest: float = 0.0
    iterations: int = 0

    @staticmethod
    def of_records(records: Iterable[tuple[float, dict[str, Any]]]) -> SearchTime:
        """From (decision seconds, details) of one seat's moves."""
        total = SearchTime()
        for seconds, details in records:
            if not isinstance(details, dict):  # a hand-written transcript's
                continue
            done = details.get("iterations")
            if isinstance(done, int) and done > 0:
                total = total + SearchTime(1, seconds, seconds * seconds, seconds, done)
        return total

    def __add__(self, other: SearchTime) -> SearchTime:
        return SearchTime(self.moves + other.moves, self.seconds + other.seconds,
                          self.squares + other.squares, max(self.longest, other.longest),
                          self.iterations + other.iterations)

    @staticmethod
    def combine(parts: Iterable[SearchTime | None]) -> SearchTime:
        total = SearchTime()
        for part in parts:
            if part is not None:
                total = total + part
        return total

    def mean(self) -> float:
        return self.seconds / self.moves if self.moves else 0.0

    def interval(self) -> tuple[float, float]:
        """The mean's 95% interval (normal, from the sample's spread)."""
        n = self.moves
        if n < 2:
            return self.mean(), self.mean()
        var = max(0.0, (self.squares - n * self.mean() ** 2) / (n - 1))
        half = 1.96 * math.sqrt(var / n)
        return self.mean() - half, self.mean() + half

    def line(self) -> str:
        lo, hi = self.interval()
        return (f"{self.moves:,} searched moves, {self.mean():.4f} s a move (95% CI "
                f"{lo:.4f}-{hi:.4f}), at most {self.longest:.3f} s; "
                f"{self.iterations / self.moves:,.0f} iterations a move (mean)")

    def to_json(self) -> dict[str, Any]:
        return {"moves": self.moves, "seconds": round(self.seconds, 4),
                "squares": round(self.squares, 6), "longest": self.longest,
                "iterations": self.iterations}

    @staticmethod
    def from_json(obj: Any) -> SearchTime:
        """Read :meth:`to_json`'s form; InvalidStateError names a bad field."""
        if not isinstance(obj, dict):
            raise InvalidStateError("a search time must be a JSON object")
        for name, kind in (("moves", int), ("iterations", int), ("seconds", float),
                           ("squares", float), ("longest", float)):
            value = obj.get(name)
            if isinstance(value, bool) or not isinstance(value, int | float) or value < 0 \
                    or (kind is int and type(value) is not int):
                raise InvalidStateError(f"search time field {name} must be a number >= 0")
        return SearchTime(obj["moves"], float(obj["seconds"]), float(obj["squares"]),
                          float(obj["longest"]), obj["iterations"])


def search_times_json(per_seat: dict[str, SearchTime]) -> dict[str, dict[str, Any]]:
    return {player: t.to_json() for player, t in per_seat.items()}


def checked_search_times(obj: Any) -> dict[str, SearchTime] | None:
    """A game record's ``search`` field (by player "1", "2"), or None when absent."""
    if obj is None:
        return None
    if not isinstance(obj, dict) or set(obj) - {"1", "2"}:
        raise InvalidStateError('game record field search must map "1" and "2" to search times')
    return {player: SearchTime.from_json(t) for player, t in obj.items()}

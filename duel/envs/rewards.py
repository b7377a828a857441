"""The rewards a text environment gives, by name, and their weighted mix.

Scales (all from the trained seat's side):

- ``outcome``: at the end only: +1 a win, 0 a shared victory, -1 a loss (a resignation too).
- ``margin``: at the end only: a military or scientific supremacy +1 / -1; a civilian victory
  the victory-point difference / MARGIN_SCALE, clipped to [-1, 1] (a shared victory 0).
- ``quality``: each decision: minus the analyser's loss of the move played (the best move's
  value minus the played one's, in expected score, 0 to 1; duel.analysis.search), searched
  from the seat's own view at ``quality_iterations`` iterations: a dense signal that does not
  wait for the game's end. A fallback's move is judged like any move.
- ``legal``: each reply refused (malformed, illegal, unparsable...): minus LEGAL_PENALTY; a
  decision that ends in the fallback: minus FALLBACK_PENALTY more.

A mix is written ``outcome+0.5*quality+legal`` (weights default to 1).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from duel.engine import Result, Seat
from duel.errors import SpecError

NAMES = ("outcome", "margin", "quality", "legal")
MARGIN_SCALE = 30.0  # victory points that make a margin of 1 (a clear civilian win is ~10-30)
LEGAL_PENALTY = 0.1
FALLBACK_PENALTY = 0.5
_TERM = re.compile(r"^\s*(?:([0-9]*\.?[0-9]+)\s*\*\s*)?([a-z]+)\s*$")


@dataclass(frozen=True)
class Mix:
    """Named rewards and their weights."""

    weights: dict[str, float]

    @staticmethod
    def parse(text: str) -> Mix:
        """"outcome", "outcome+0.5*quality+legal"; SpecError names a bad term."""
        weights: dict[str, float] = {}
        for term in text.split("+"):
            found = _TERM.match(term)
            if found is None or found.group(2) not in NAMES:
                raise SpecError(f"reward: {term.strip()!r} is not a reward; give names of "
                                f"{', '.join(NAMES)}, each optionally weighted (0.5*quality), "
                                "joined by +")
            weights[found.group(2)] = weights.get(found.group(2), 0.0) + float(
                found.group(1) or 1.0)
        return Mix(weights)

    @property
    def needs_analyser(self) -> bool:
        return self.weights.get("quality", 0.0) != 0.0

    def total(self, parts: dict[str, float]) -> float:
        return round(sum(w * parts.get(name, 0.0) for name, w in self.weights.items()), 6)


def outcome(result: Result, seat: Seat) -> float:
    return 2.0 * result.points(seat) - 1.0


def margin(result: Result, seat: Seat) -> float:
    if result.winner is None:
        return 0.0
    if result.victory in ("military", "science", "forfeit"):
        return 1.0 if result.winner is seat else -1.0
    diff = (result.total(seat) - result.total(seat.other)) / MARGIN_SCALE
    return max(-1.0, min(1.0, diff))

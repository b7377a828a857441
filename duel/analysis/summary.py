"""Per-seat figures of an analysis: mean loss, blunders, mistakes and accuracy, by Age and kind,
and the win-chance curve.

**Loss** of a decision: the best move's value minus the played move's (the seat's expected score,
win 1, draw 1/2, loss 0), never negative. The **mean loss** is over the seat's analysed
decisions, with its standard error across decisions (their spread over the square root of n).

**Blunder**: a loss of at least :data:`BLUNDER` (0.10); **mistake**: at least :data:`MISTAKE`
(0.05) and below BLUNDER. Why these, from measurement at the default budget (README, "Move
quality"): a loss has a standard error of about 0.02 and two seeds agree on it within 0.05 for
97% of decisions, so 0.05 is the smallest loss that is more than noise and 0.10 is clearly one.
Over 8 games, losses of 0.10 or more were 0% of `mcts:iterations=1000`'s decisions, 5% of
`rule`'s and 10% of `random`'s; losses of 0.20 or more were under 2% even for random play (once
a game is decided every move is worth about the same, so expected score saturates), too rare to
tell players apart.

**Accuracy** (0-100): each decision scores ``103.1668 * exp(-4.3544 * loss) - 3.1669``, clipped
to [0, 100]: lichess's accuracy formula, which maps a drop of d percentage points of win chance to
``103.1668 * exp(-0.043544 d) - 3.1669``, with the loss in expected score as the drop. A seat's
accuracy is the mean over its decisions: 100 with no loss anywhere; a decision with loss 0.05
scores 80, 0.10 scores 64, 0.20 scores 40 and 0.50 scores 8.5.

**Win-chance curve**: a point per analysed decision, the analyser's value of the position right
after the move played (the played move's value, from the mover's side) as player 1's and player
2's expected score. Forced moves and the seats not analysed have no point: analyse both seats
(the default) for a point at every real decision of the game.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Final

from duel.engine.decisions import KINDS

from .decision import AnalysedDecision

BLUNDER: Final = 0.10
MISTAKE: Final = 0.05


def move_accuracy(loss: float) -> float:
    """The 0-100 accuracy of one decision with this loss (see the module docstring)."""
    return max(0.0, min(100.0, 103.1668 * math.exp(-4.3544 * loss) - 3.1669))


def grade(loss: float) -> str:
    """'blunder', 'mistake' or '' for a decision's loss."""
    if loss >= BLUNDER:
        return "blunder"
    if loss >= MISTAKE:
        return "mistake"
    return ""


@dataclass(frozen=True)
class Figures:
    """The figures of a set of decisions (a seat's, or those of one Age or kind)."""

    decisions: int
    mean_loss: float
    loss_se: float  # standard error of the mean loss, across decisions
    blunders: int
    mistakes: int
    accuracy: float

    @staticmethod
    def of(losses: Sequence[float]) -> Figures:
        n = len(losses)
        if n == 0:
            return Figures(0, 0.0, 0.0, 0, 0, 100.0)
        mean = sum(losses) / n
        var = sum((x - mean) ** 2 for x in losses) / (n - 1) if n > 1 else 0.0
        return Figures(n, round(mean, 4), round(math.sqrt(var / n), 4),
                       sum(1 for x in losses if grade(x) == "blunder"),
                       sum(1 for x in losses if grade(x) == "mistake"),
                       round(sum(move_accuracy(x) for x in losses) / n, 1))

    def to_json(self) -> dict[str, Any]:
        return {"decisions": self.decisions, "mean_loss": self.mean_loss,
                "loss_se": self.loss_se, "blunders": self.blunders, "mistakes": self.mistakes,
                "accuracy": self.accuracy}


def _groups(decisions: Sequence[AnalysedDecision], key: Callable[[AnalysedDecision], str],
            order: Sequence[str]) -> dict[str, dict[str, Any]]:
    """Figures per group, in `order`, for the groups that have decisions."""
    return {name: Figures.of([d.loss for d in decisions if key(d) == name]).to_json()
            for name in order if any(key(d) == name for d in decisions)}


def seat_summary(decisions: Sequence[AnalysedDecision], player: int, forced: int) -> dict[str, Any]:
    """The figures of `player`'s decisions among `decisions`, overall, by Age and by kind;
    `forced` counts the decisions skipped because only one move was legal."""
    mine = [d for d in decisions if d.player == player]
    return {
        **Figures.of([d.loss for d in mine]).to_json(),
        "forced": forced,
        "by_age": _groups(mine, lambda d: str(d.age), ("1", "2", "3")),
        "by_kind": _groups(mine, lambda d: d.kind, KINDS),
    }


def curve(decisions: Sequence[AnalysedDecision]) -> list[dict[str, Any]]:
    """The win-chance curve: for each analysed decision, the value of the position after the
    move played, for player 1 and player 2."""
    points = []
    for d in sorted(decisions, key=lambda d: d.ply):
        mover = d.played.value
        p1 = mover if d.player == 1 else round(1 - mover, 4)
        points.append({"ply": d.ply, "player": d.player, "p1": p1, "p2": round(1 - p1, 4)})
    return points

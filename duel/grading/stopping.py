"""The stopping rule during a run (--until-decided): each variant's sequential test against the
baseline over the paired per-deal differences of its finished games (duel.grading.sequential),
and which variants still need games."""

from __future__ import annotations

from duel.grading.plan import BASELINE, GradeTask, Plan, holders
from duel.grading.sequential import Verdict, decide
from duel.runs.schedule import Gate


class SequentialTests:
    """The sequential tests during a run: which variants still need games."""

    def __init__(self, plan: Plan | None, points: dict[GradeTask, float]) -> None:
        self.plan = plan
        self.points = points
        self.verdicts: dict[str, Verdict] = {}
        self._update()

    def add(self, task: GradeTask, points: float) -> None:
        self.points[task] = points
        self._update()

    def _update(self) -> None:
        if self.plan is not None:
            self.verdicts = verdicts(self.plan, self.points)

    def gate(self, variant: str) -> Gate:
        if self.plan is None:
            return Gate.START
        if all(self.verdicts[h].decided for h in holders(self.plan.names)):
            return Gate.STOP
        if variant != BASELINE and self.verdicts[variant].decided:
            return Gate.SKIP
        return Gate.START


def paired_diffs(points: dict[GradeTask, float], variant: str, seed: int,
                 deals: int) -> list[float]:
    """The per-deal differences in points (variant minus baseline, each the mean over both
    seats) for the deals seed, seed+1, ... while all four games of each have finished."""
    diffs = []
    for s in range(seed, seed + deals):
        games = [points.get(GradeTask(v, s, seat)) for v in (variant, BASELINE)
                 for seat in (1, 2)]
        if any(g is None for g in games):
            break
        a, b, c, d = (float(g or 0.0) for g in games)
        diffs.append((a + b) / 2 - (c + d) / 2)
    return diffs


def verdicts(plan: Plan, points: dict[GradeTask, float]) -> dict[str, Verdict]:
    """Each variant's sequential test over the finished games (`points` by variant, deal and
    seat)."""
    return {v: decide(plan.design, paired_diffs(points, v, plan.seed, plan.design.max_deals))
            for v in plan.names if v != BASELINE}

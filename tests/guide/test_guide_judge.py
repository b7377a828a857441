"""`duel bench guide-analyser`'s comparison on a tiny run: every setting judged on the same
decisions, figures that add up, and a second run reading the kept results back."""

from __future__ import annotations

from pathlib import Path

from duel.analysis.search import Settings
from duel.bench.guide_analyser import compare, report


def test_analysers_are_compared_on_the_same_decisions(tmp_path: Path) -> None:
    settings = [Settings(iterations=30), Settings(iterations=20, guide="default")]
    judged, diffs = compare(settings, games=2, plies=2, jobs=1, folder=tmp_path)
    assert [j.decisions for j in judged] == [4, 4]
    assert diffs[0] == (0.0, (0.0, 0.0))
    for j in judged:
        assert 0 <= j.agree <= j.decisions and 0 <= j.brier <= 1 and j.seconds > 0
    lines = report(judged, diffs, 2)
    assert "guide=default, 20 iterations" in lines[2] and "stability" in lines[2]
    kept = sorted(p.name for p in tmp_path.iterdir())
    assert sum(name.endswith(".judges.json") for name in kept) == 2
    again, _ = compare(settings, games=2, plies=2, jobs=1, folder=tmp_path)
    assert [(j.brier, j.agree, j.seconds) for j in again] == \
        [(j.brier, j.agree, j.seconds) for j in judged]  # read back, not searched again

"""Position suites for tests: recorded games analysed at a small budget, then extracted."""

from __future__ import annotations

from pathlib import Path

from helpers.recorded_games import record_game

from duel.analysis import Settings
from duel.grading.positions.extract import extract
from duel.grading.positions.suite import Suite, write

FAST = Settings(iterations=30)


def games(folder: Path) -> list[Path]:
    """Two short games with many decisions worth a choice (rule against random, and back)."""
    return [record_game(folder / "g1.jsonl", "rule", "random", seed=11),
            record_game(folder / "g2.jsonl", "random", "rule", seed=12)]


def make_suite(folder: Path, min_gap: float = 0.05, per_kind: int = 40) -> tuple[Path, Suite]:
    """A suite of the two games' positions (analysed at FAST), written to folder/suite.json."""
    folder.mkdir(parents=True, exist_ok=True)
    suite = extract([str(p) for p in games(folder)], min_gap, per_kind, FAST, jobs=1)
    return write(suite, folder / "suite.json"), suite

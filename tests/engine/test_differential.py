"""The compiled build plays exactly like the pure one: 2,000 seeded random games (every move,
every state after every move, the result) and 200 seeded MCTS decisions (the move and every
root child's visits and reward) from this process and from a subprocess running the pure
source of the same files (DUEL_PURE=1). Under the pure build both sides are pure: the test
then checks only that the digests are reproducible across processes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import differential

from duel.build import build

HELPER = Path(differential.__file__)
GAMES = 2000
DECISIONS = 200
ITERATIONS = 100


def _pure(kind: str, count: int) -> list[str]:
    done = subprocess.run([sys.executable, str(HELPER), kind, "0", str(count), str(ITERATIONS)],
                          capture_output=True, text=True, timeout=900,
                          env={**os.environ, "DUEL_PURE": "1"})
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["build"] == "pure"
    digests: list[str] = json.loads(done.stdout)["digests"]
    return digests


def _first_difference(mine: list[str], pure: list[str]) -> int | None:
    """The first seed whose digests differ (None: none). This process runs the installed
    build: CI installs the compiled one (.ci/run checks it did)."""
    assert build() in ("compiled", "pure")
    assert len(mine) == len(pure)
    return next((i for i, (a, b) in enumerate(zip(mine, pure, strict=True)) if a != b), None)


@pytest.mark.slow
def test_random_games_are_identical_in_both_builds() -> None:
    mine = differential.digests("games", 0, GAMES)
    assert _first_difference(mine, _pure("games", GAMES)) is None


@pytest.mark.slow
def test_mcts_decisions_are_identical_in_both_builds() -> None:
    mine = differential.digests("decisions", 0, DECISIONS, ITERATIONS)
    assert sum(d != "terminal" for d in mine) >= 190
    assert _first_difference(mine, _pure("decisions", DECISIONS)) is None


def test_a_difference_would_be_found() -> None:
    """The digests see a one-move change and a one-iteration change."""
    assert differential.game_digest(1) != differential.game_digest(2)
    assert (differential.decision_digest(5, ITERATIONS)
            != differential.decision_digest(5, ITERATIONS + 1))

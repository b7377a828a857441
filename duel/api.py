"""The functions of the public API that are more than a name from a module (see duel/__init__.py):
replaying a recorded game, and analysing one."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from duel.analysis.game import Analysis
    from duel.engine import GameState


def replay(path: str | Path) -> GameState:
    """Re-play the transcript at `path` through the engine, checking every recorded fact (each
    move's legality, price and view hash, and the result); the game's final state.
    TranscriptError names the first ply and field that do not match."""
    from duel.transcripts import check_result, initial_state, read
    from duel.transcripts import replay as steps

    t = read(path)
    if t.problems:
        from duel.errors import TranscriptError

        raise TranscriptError(f"{path}: {t.problems[0]}")
    final = initial_state(t)
    for step in steps(t):
        final = step.after
    check_result(t, final)
    return final


def analyse(path: str | Path, seats: Iterable[int] = (1, 2), iterations: int | None = None,
            seconds: float | None = None, seed: int = 0, jobs: int = 2,
            write: bool = True) -> Analysis:
    """Grade every decision of `seats` (player numbers) in the finished game at `path` with the
    analyser, from the view each player had: the loss per decision, blunders, accuracy, by Age
    and kind. With `write`, the sidecar `GAME.analysis.json` is written beside the transcript
    (and a fresh one made with the same settings is read back instead of searching again)."""
    from duel.analysis.game import analyse_file, analyse_transcript
    from duel.analysis.search import DEFAULT_ITERATIONS, Settings

    settings = Settings(iterations=DEFAULT_ITERATIONS if iterations is None else iterations,
                        time=0.0 if seconds is None else seconds, seed=seed)
    if write:
        return analyse_file(path, seats, settings, jobs)[0]
    return analyse_transcript(path, seats, settings, jobs)

"""`duel analyse` and `duel match --analyse`: options to settings, the run, the output."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from .game import analyse_file
from .report import render
from .search import DEFAULT_ITERATIONS, GUIDE_ITERATIONS, Settings

SEAT_CHOICES = ("1", "2", "both")


def seats_of(choice: str) -> tuple[int, ...]:
    """--seat's value as player numbers."""
    return (1, 2) if choice == "both" else (int(choice),)


def run(path: str, seat: str = "both", iterations: int | None = None, seconds: float | None = None,
        jobs: int = 2, seed: int = 0, as_json: bool = False, force: bool = False,
        guide: str | None = None) -> int:
    """Analyse `path`, write its sidecar and print the summary (or, `as_json`, the sidecar's
    JSON object alone on stdout). Progress and the sidecar's path go to stderr."""
    settings = settings_of(iterations, seconds, seed, guide)
    analysis, written = analyse_file(path, seats_of(seat), settings, jobs,
                                     progress=sys.stderr.isatty(), reuse=not force)
    if as_json:
        json.dump(analysis.to_json(), sys.stdout)
        sys.stdout.write("\n")
    else:
        print(render(analysis))
    note = "read back from" if analysis.reused else "written to"
    if not settings.deterministic:
        note += " (a --time budget: another run gives other figures)"
    print(f"Analysis {note} {written}", file=sys.stderr if as_json else sys.stdout)
    return 0


def settings_of(iterations: int | None = None, seconds: float | None = None,
                seed: int = 0, guide: str | None = None) -> Settings:
    """The settings the options ask for (None: the default budget); UsageError if bad.
    `guide`: a learned guide's model below the root (duel.guide), checked here."""
    if guide:
        from duel.guide.runtime import load_guide

        load_guide(guide)  # a missing or unreadable model fails before any work
        default = GUIDE_ITERATIONS
    else:
        default = DEFAULT_ITERATIONS
    return Settings(iterations=default if iterations is None else iterations,
                    time=0.0 if seconds is None else seconds, seed=seed, guide=guide or "")


def after_match(transcript: Path, settings: Settings, jobs: int = 2) -> None:
    """`duel match --analyse`: the finished game's analysis (both seats)."""
    analysis, written = analyse_file(transcript, (1, 2), settings, jobs,
                                     progress=sys.stderr.isatty())
    print()
    print(render(analysis))
    print(f"Analysis: {written}")

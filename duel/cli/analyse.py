"""`duel analyse` (and `duel match --analyse`): options to the analyser's settings, the run of
one transcript or many, the output."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from duel.cli.options import integer, real, seed
from duel.errors import UsageError

if TYPE_CHECKING:  # a runtime import would load numpy for `duel --help`
    from duel.analysis.search import Settings

SEAT_CHOICES = ("1", "2", "both")


def add_parsers(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from duel.analysis.search import DEFAULT_ITERATIONS, GUIDE_ITERATIONS

    p = sub.add_parser("analyse", help="grade each decision of a transcript with an MCTS "
                       "analyser (sidecar GAME.analysis.json)")
    p.add_argument("file", nargs="+", help="finished games' transcripts (several: each "
                   "analysed in turn, or with --ray each as a task of the cluster)")
    p.add_argument("--seat", choices=SEAT_CHOICES, default="both",
                   help="the player(s) whose decisions are analysed (default both)")
    p.add_argument("--ray", default=None, metavar="ADDRESS",
                   help="analyse each transcript as a task of a Ray cluster (local, auto, "
                   "ray://HOST:PORT or a head's HOST:PORT); needs the ray extra")
    budget = p.add_mutually_exclusive_group()
    budget.add_argument("--iterations", type=integer, default=None,
                        help=f"search iterations per decision (default {DEFAULT_ITERATIONS}; "
                        f"with --guide {GUIDE_ITERATIONS})")
    budget.add_argument("--time", type=real, default=None,
                        help="seconds per decision instead (not reproducible)")
    p.add_argument("--jobs", type=integer, default=2, help="processes (default 2)")
    p.add_argument("--seed", type=seed, default=0)
    p.add_argument("--json", action="store_true", help="print the analysis as one JSON object")
    p.add_argument("--force", action="store_true",
                   help="analyse again even if a fresh sidecar with these settings exists")
    p.add_argument("--guide", nargs="?", const="default", default=None, metavar="MODEL",
                   help="search below each move with the learned guide (docs/guide.md): the "
                   "shipped model, or a .onnx file")
    p.set_defaults(func=analyse)


def analyse(args: argparse.Namespace) -> int:
    if len(args.file) == 1 and args.ray is None:
        return one(args.file[0], args.seat, args.iterations, args.time, args.jobs, args.seed,
                   args.json, args.force, args.guide)
    from duel.analysis.many import run_many

    if args.json:
        raise UsageError("--json prints one transcript's analysis: give one file, no --ray")
    return run_many(args.file, seats_of(args.seat),
                    settings_of(args.iterations, args.time, args.seed, args.guide), args.jobs,
                    args.force, args.ray)


def seats_of(choice: str) -> tuple[int, ...]:
    """--seat's value as player numbers."""
    return (1, 2) if choice == "both" else (int(choice),)


def settings_of(iterations: int | None = None, seconds: float | None = None,
                seed: int = 0, guide: str | None = None) -> Settings:
    """The settings the options ask for (None: the default budget); UsageError if bad.
    `guide`: a learned guide's model below the root (duel.agents.guided), checked here."""
    from duel.analysis.search import DEFAULT_ITERATIONS, GUIDE_ITERATIONS, Settings

    if guide:
        from duel.agents.guided.runtime import load_guide

        load_guide(guide)  # a missing or unreadable model fails before any work
    default = GUIDE_ITERATIONS if guide else DEFAULT_ITERATIONS
    return Settings(iterations=default if iterations is None else iterations,
                    time=0.0 if seconds is None else seconds, seed=seed, guide=guide or "")


def one(path: str, seat: str = "both", iterations: int | None = None,
        seconds: float | None = None, jobs: int = 2, seed: int = 0, as_json: bool = False,
        force: bool = False, guide: str | None = None) -> int:
    """Analyse `path`, write its sidecar and print the summary (or, `as_json`, the sidecar's
    JSON object alone on stdout). Progress and the sidecar's path go to stderr."""
    from duel.analysis.game import analyse_file
    from duel.analysis.report import render

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


def after_match(transcript: Path, settings: Settings, jobs: int = 2) -> None:
    """`duel match --analyse`: the finished game's analysis (both seats)."""
    from duel.analysis.game import analyse_file
    from duel.analysis.report import render

    analysis, written = analyse_file(transcript, (1, 2), settings, jobs,
                                     progress=sys.stderr.isatty())
    print()
    print(render(analysis))
    print(f"Analysis: {written}")

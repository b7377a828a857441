"""The command line of position suites: ``duel positions extract|check``, ``duel grade
--positions`` and ``duel bench positions`` (duel.cli dispatches here)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from duel.errors import UsageError
from duel.numbers import integer, real, seed

from .extract import DEFAULT_MIN_GAP, DEFAULT_PER_KIND


def add_positions_parser(sub: Any) -> None:
    """`duel positions` and its subcommands, on the CLI's subparsers `sub`."""
    p = sub.add_parser("positions", help="position suites: decisions from analysed games, to "
                       "grade players on (duel grade --positions)")
    pos_sub = p.add_subparsers(dest="positions_command", required=True)
    p = pos_sub.add_parser("extract", help="collect the decisions of transcripts where the "
                           "analyser's best move beats the second-best by --min-gap")
    p.add_argument("transcripts", nargs="+", help="transcript files, or folders of them")
    p.add_argument("--out", required=True, help="the suite file to write (JSON)")
    p.add_argument("--min-gap", type=real, default=DEFAULT_MIN_GAP, metavar="G",
                   help="keep decisions whose best move is worth at least G (expected score) "
                   f"more than the second-best (default {DEFAULT_MIN_GAP})")
    p.add_argument("--per-kind", type=integer, default=DEFAULT_PER_KIND, metavar="N",
                   help=f"at most N positions per Age and decision kind (default "
                   f"{DEFAULT_PER_KIND})")
    p.add_argument("--iterations", type=integer, default=None,
                   help="analyser iterations per decision (default: a fresh sidecar as it is, "
                   "else duel analyse's default)")
    p.add_argument("--seed", type=seed, default=None,
                   help="analyser seed and the draw of positions (default 0)")
    p.add_argument("--jobs", type=integer, default=2, help="analyser processes (default 2)")
    p.set_defaults(func=extract, command_name="positions extract")
    p = pos_sub.add_parser("check", help="check a suite: its schema, and every view's legal "
                           "moves against the engine")
    p.add_argument("suite")
    p.set_defaults(func=check, command_name="positions check")


def extract(args: argparse.Namespace) -> int:
    from duel.analysis import Settings
    from duel.analysis.search import DEFAULT_ITERATIONS

    from .extract import describe
    from .extract import extract as run
    from .suite import write

    settings = None  # no analyser option: fresh sidecars are read as they are
    if args.iterations is not None or args.seed is not None:
        settings = Settings(iterations=args.iterations or DEFAULT_ITERATIONS,
                            seed=args.seed or 0)
    suite = run(args.transcripts, args.min_gap, args.per_kind, settings, args.seed or 0,
                args.jobs, progress=sys.stderr.isatty())
    print(describe(suite, write(suite, args.out)))
    return 0


def check(args: argparse.Namespace) -> int:
    from .suite import load

    suite = load(args.suite)
    kinds: dict[str, int] = {}
    for p in suite.positions:
        kinds[p.kind] = kinds.get(p.kind, 0) + 1
    print(f"{args.suite}: {len(suite.positions)} positions, every view and legal move list "
          "checked against the engine; by kind: "
          + (", ".join(f"{k} {n}" for k, n in kinds.items()) or "none"))
    return 0


def grade_positions(args: argparse.Namespace, variants: list[str]) -> int:
    """`duel grade --positions SUITE`: the variants answer the suite's positions."""
    from .grade import run
    from .report import report

    games_only = {"--opponent": args.opponent is not None, "--deals": args.deals is not None,
                  "--until-decided": args.until_decided,
                  "--look-every": args.look_every is not None, "--analyse": args.analyse,
                  "--analyse-iterations": args.analyse_iterations is not None}
    given = [flag for flag, used in games_only.items() if used]
    if given:
        raise UsageError(f"{', '.join(given)} grade games, not --positions")
    suite_path = Path(args.positions)
    out = args.out or str(suite_path.with_name(suite_path.stem + "-grade"))
    suite, outcome = run(suite_path, variants, args.model, out, jobs=args.jobs,
                         progress=not args.no_progress, budget_usd=args.budget_usd)
    md, paths = report(out, suite, str(suite_path), outcome)
    print(md)
    print("Written: " + ", ".join(str(p) for p in paths))
    return 0


def bench(args: argparse.Namespace) -> int:
    """`duel bench positions`: how many positions of a suite separate --p1 from --p2."""
    from .bench import answer_suite, separate, text
    from .suite import load

    if args.suite is None:
        raise UsageError("bench positions needs --suite SUITE (see duel positions extract)")
    suite = load(args.suite)
    p1, p2 = args.p1 or "mcts:iterations=200", args.p2 or "rule"  # --p1/--p2 shared with others
    a = answer_suite(p1, suite, args.seed, args.jobs)
    b = answer_suite(p2, suite, args.seed, args.jobs)
    print(text(separate(a, b, args.seed), p1, p2, args.suite))
    return 0

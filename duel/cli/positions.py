"""`duel positions extract|check`: position suites, decisions from analysed games to grade
players on (`duel grade --positions`, duel/cli/grade.py)."""

from __future__ import annotations

import argparse
import sys

from duel.cli.options import integer, real, seed


def add_parsers(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """`duel positions` and its subcommands."""
    from duel.grading.positions.extract import DEFAULT_MIN_GAP, DEFAULT_PER_KIND

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
    p.add_argument("--jobs", type=integer, default=2,
                   help="transcripts analysed at once, in processes (default 2)")
    p.add_argument("--ray", default=None, metavar="ADDRESS",
                   help="analyse each transcript as a task of a Ray cluster (local, auto, "
                   "ray://HOST:PORT or a head's HOST:PORT); needs the ray extra. Sidecars are "
                   "written as each comes back: a stopped run resumes")
    p.set_defaults(func=extract, command_name="positions extract")
    p = pos_sub.add_parser("export", help="a suite as a Hugging Face datasets folder: each "
                           "position's prompt, legal moves and analysed values, for training")
    p.add_argument("suite")
    p.add_argument("--out", required=True, help="the dataset's folder (positions.jsonl, "
                   "README.md)")
    p.add_argument("--prompt", default="baseline", help="the prompt variant rendered")
    p.add_argument("--harness", default="", metavar="K=V,...",
                   help="the LLM seat's harness settings rendered (e.g. names=renamed,"
                   "think=text)")
    p.set_defaults(func=export, command_name="positions export")
    p = pos_sub.add_parser("check", help="check a suite: its schema, and every view's legal "
                           "moves against the engine")
    p.add_argument("suite")
    p.set_defaults(func=check, command_name="positions check")


def extract(args: argparse.Namespace) -> int:
    from duel.analysis import Settings
    from duel.analysis.search import DEFAULT_ITERATIONS
    from duel.grading.positions.extract import describe
    from duel.grading.positions.extract import extract as run
    from duel.grading.positions.suite import write

    settings = None  # no analyser option: fresh sidecars are read as they are
    if args.iterations is not None or args.seed is not None:
        settings = Settings(iterations=args.iterations or DEFAULT_ITERATIONS,
                            seed=args.seed or 0)
    suite = run(args.transcripts, args.min_gap, args.per_kind, settings, args.seed or 0,
                args.jobs, progress=sys.stderr.isatty(), ray=args.ray)
    print(describe(suite, write(suite, args.out)))
    return 0


def export(args: argparse.Namespace) -> int:
    import time

    from duel.envs.positions import export as run
    from duel.errors import UsageError

    harness: dict[str, str] = {}
    for part in filter(None, (x.strip() for x in args.harness.split(","))):
        key, eq, value = part.partition("=")
        if not eq or not key or not value:
            raise UsageError(f"--harness: {part!r} is not KEY=VALUE")
        harness[key] = value
    start = time.perf_counter()
    path = run(args.suite, args.out, args.prompt, harness)
    n = sum(1 for _ in path.open())
    print(f"{path}: {n} positions in {time.perf_counter() - start:.1f} s; load with "
          f"datasets.load_dataset(\"json\", data_files=\"{path}\"); reward: "
          "duel.envs.positions.position_reward")
    return 0


def check(args: argparse.Namespace) -> int:
    from duel.grading.positions.suite import load

    suite = load(args.suite)
    kinds: dict[str, int] = {}
    for p in suite.positions:
        kinds[p.kind] = kinds.get(p.kind, 0) + 1
    print(f"{args.suite}: {len(suite.positions)} positions, every view and legal move list "
          "checked against the engine; by kind: "
          + (", ".join(f"{k} {n}" for k, n in kinds.items()) or "none"))
    return 0

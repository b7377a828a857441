"""The guide's commands: `duel train guide` (its options and handler) and `duel bench guide`."""

from __future__ import annotations

import argparse
import shutil
import sys
import time
from pathlib import Path
from typing import Any

from duel.errors import UsageError


def add_train_arguments(p: argparse.ArgumentParser) -> None:
    """`duel train guide`'s options (beside --out, --jobs, --seed, --hidden, --restart)."""
    from duel.cli.options import integer
    from duel.learning.guide.config import GuideConfig

    run = GuideConfig()
    g = p.add_argument_group("guide (duel train guide; docs/guide.md)")
    g.add_argument("--bootstrap-spec", default=run.bootstrap_spec,
                   help="the search whose self-play starts the run (default %(default)s)")
    g.add_argument("--bootstrap-games", type=integer, default=run.bootstrap_games,
                   help="its games (default %(default)s)")
    g.add_argument("--generations", type=integer, default=run.generations,
                   help="rounds of guided self-play and training after the bootstrap "
                   "(default %(default)s)")
    g.add_argument("--games-per-generation", type=integer, default=run.games_per_generation)
    g.add_argument("--guided-spec", default=run.guided_spec,
                   help="the guided self-play's search, guide= added (default %(default)s)")
    g.add_argument("--window", type=integer, default=run.window,
                   help="generations of games each net learns from (default %(default)s)")
    g.add_argument("--epochs", type=integer, default=run.epochs)
    g.add_argument("--depth", type=integer, default=run.depth, help="hidden layers after the first")
    g.add_argument("--eval-spec", default=run.eval_spec,
                   help="both sides' budget in those games (default %(default)s)")


def run_train(args: argparse.Namespace) -> int:
    try:
        import torch  # noqa: F401
    except ImportError as exc:
        raise UsageError(f"training needs PyTorch: pip install -e '.[train]' ({exc})") from None
    from duel.agents.spec import make_agent
    from duel.learning.guide.config import GuideConfig
    from duel.learning.guide.train import run

    make_agent(args.bootstrap_spec)  # a bad spec fails before any work
    cfg = GuideConfig(bootstrap_spec=args.bootstrap_spec, bootstrap_games=args.bootstrap_games,
                      generations=args.generations,
                      games_per_generation=args.games_per_generation,
                      guided_spec=args.guided_spec, window=args.window, epochs=args.epochs,
                      hidden=args.hidden, depth=args.depth, eval_games=run_eval_games(args),
                      eval_spec=args.eval_spec, jobs=args.jobs or 1, seed=args.seed)
    if min(cfg.bootstrap_games, cfg.epochs, cfg.window) < 1 or cfg.generations < 0 or \
            cfg.games_per_generation < 1 or cfg.eval_games < 0:
        raise UsageError("games, epochs and window must be at least 1; generations and "
                         "eval games at least 0")
    out = Path(args.out)
    if args.restart:
        # The self-play games stay: the same settings would play them again move for move.
        for path in out.glob("net*"):
            shutil.rmtree(path)
        for name in ("curve.json", "learning_curves.png"):
            (out / name).unlink(missing_ok=True)
    print(_plan(cfg), flush=True)

    def say(line: str) -> None:
        print(line, flush=True)

    start = time.perf_counter()
    curve = run(cfg, out, say)
    print(f"done in {(time.perf_counter() - start) / 60:.0f} min. model: {out / 'model.onnx'} "
          f"(play it with mcts:guide={out / 'model.onnx'}); curves: "
          f"{out / 'learning_curves.png'}; {len(curve)} nets")
    return 0


def run_eval_games(args: argparse.Namespace) -> int:
    from duel.learning.guide.config import GuideConfig

    return GuideConfig().eval_games if args.eval_games is None else int(args.eval_games)


def _plan(cfg: Any) -> str:
    """What the run will do, and how long that took on this 2-core machine."""
    guided = cfg.generations * cfg.games_per_generation
    return (f"duel train guide: {cfg.bootstrap_games} bootstrap games of {cfg.bootstrap_spec}, "
            f"then {cfg.generations} generation(s) of {cfg.games_per_generation} guided games "
            f"({guided} in all), {cfg.epochs} epochs per net, {cfg.eval_games} evaluation "
            f"games per net, {cfg.jobs} process(es). The shipped run (these defaults) took "
            f"about 4 hours on one core of this 2-core machine shared with other jobs; a "
            f"bootstrap game takes about 4 s of CPU, a guided one about 3 s (docs/guide.md). "
            f"Interrupt at any time: the same command resumes.")


def add_bench_parsers(add: Any) -> None:
    """`duel bench guide` and `duel bench guide-analyser` (registered by duel/cli/bench.py)."""
    from duel.cli.options import integer, real, seed

    q = add("guide", "the guide network's cost per evaluation on each runtime, and the guided "
            "search's simulations per second beside the ISMCTS's iterations")
    q.add_argument("--spec", default="default", help="the model (default the shipped one)")
    q.add_argument("--seconds", type=real, default=6.0, help="time per figure (default 6)")
    q.add_argument("--json", action="store_true", help="one JSON object")
    q.set_defaults(func=bench)

    q = add("guide-analyser", "today's analyser and the guided one on the same decisions: time "
            "per decision, stability over two seeds, Brier score")
    q.add_argument("--spec", default="default", help="the model (default the shipped one)")
    q.add_argument("--iterations", type=integer, default=None,
                   help="today's analyser's iterations per decision (default: its default)")
    q.add_argument("--guide-iterations", default="1000", metavar="N[,N...]",
                   help="the guided analyser's budgets (default %(default)s)")
    q.add_argument("--games", type=integer, default=200)
    q.add_argument("--plies", type=integer, default=5, help="decisions per game")
    q.add_argument("--jobs", type=integer, default=2)
    q.add_argument("--seed", type=seed, default=0)
    q.add_argument("--out", default=None, help="keep the transcripts and analyses there "
                   "(a run again computes only what is missing)")
    q.set_defaults(func=bench_analysers)


def bench(args: argparse.Namespace) -> int:
    """`duel bench guide`: the network's cost per evaluation on each runtime, and the guided
    search's simulations per second against the ISMCTS's iterations, from the same positions."""
    from duel.bench.guide import bench_guide
    from duel.cli.bench_analyser import header

    header(args)
    r = bench_guide(args.spec, args.seconds)
    if args.json:
        import json

        json.dump(r, sys.stdout)
        sys.stdout.write("\n")
        return 0
    for line in r["lines"]:
        print(line)
    return 0


def bench_analysers(args: argparse.Namespace) -> int:
    """`duel bench guide-analyser`: today's analyser and the guided one on the same decisions."""
    from duel.agents.guided.runtime import load_guide
    from duel.analysis.search import DEFAULT_ITERATIONS, Settings
    from duel.bench.guide_analyser import compare, report
    from duel.cli.bench_analyser import header

    header(args)
    model = args.spec
    load_guide(model)
    budgets = [int(x) for x in str(args.guide_iterations).split(",") if x.strip()]
    if not budgets or min(budgets) < 1:
        raise UsageError("--guide-iterations: one or more budgets, e.g. 500,1000")
    settings = [Settings(iterations=args.iterations or DEFAULT_ITERATIONS)]
    settings += [Settings(iterations=n, guide=model) for n in budgets]
    games = args.games or 200
    judged, diffs = compare(settings, games, args.plies, args.jobs, args.seed, args.out,
                            progress=sys.stderr.isatty())
    for line in report(judged, diffs, games):
        print(line)
    return 0

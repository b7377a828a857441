"""`duel bench analyse|calibration|ordering|stability|efficiency`: the analyser's figures
(duel/bench/analyser.py), registered by duel/cli/bench.py."""

from __future__ import annotations

import argparse
from typing import Any

from duel.cli.options import integer, seed


def header(args: argparse.Namespace) -> None:
    """The build a benchmark runs on, first (not with --json)."""
    from duel.build import describe

    if not getattr(args, "json", False):
        print(f"build: {describe()}", flush=True)


def add_analyser_parsers(add: Any) -> None:
    def iterations(q: argparse.ArgumentParser) -> None:
        q.add_argument("--iterations", type=integer, default=None,
                       help="the analyser's iterations per decision (default: its default)")
        q.add_argument("--jobs", type=integer, default=2)
        q.add_argument("--seed", type=seed, default=0)

    q = add("analyse", "the analyser's speed per decision")
    iterations(q)
    q.set_defaults(func=analyse)

    q = add("calibration", "is the analyser's win chance a probability (Brier, reliability)")
    iterations(q)
    q.add_argument("--games", type=integer, default=200)
    q.add_argument("--plies", type=integer, default=5, help="decisions per game")
    q.add_argument("--out", default=None, help="keep the transcripts and analyses there")
    q.add_argument("--plot", default=None, help="write the reliability plot (PNG)")
    q.set_defaults(func=calibration)

    for name, help, deals in (("ordering", "the analyser ranks known players in order", 50),
                              ("stability", "two analyser seeds agree", 2)):
        q = add(name, help)
        iterations(q)
        q.add_argument("--players", nargs="+", default=None,
                       help="agent specs, best first (default mcts:iterations=1000 rule random)")
        q.add_argument("--deals", type=integer, default=deals)
        q.add_argument("--out", default=None, help="keep the transcripts and analyses there")
        q.set_defaults(func=ordering if name == "ordering" else stability)

    q = add("efficiency", "games needed to separate two players: loss per decision vs wins")
    iterations(q)
    q.add_argument("--p1", default=None, help="(default mcts:iterations=100)")
    q.add_argument("--p2", default=None, help="(default rule)")
    q.add_argument("--games", type=integer, default=40, help="games analysed")
    q.add_argument("--win-games", type=integer, default=400,
                   help="games for the win rate (the analysed ones first)")
    q.add_argument("--out", default=None, help="keep the transcripts and analyses there")
    q.set_defaults(func=efficiency)


def analyse(args: argparse.Namespace) -> int:
    from duel.bench.analyser import bench_analyse

    header(args)
    bench_analyse(args.iterations, args.jobs, args.seed)
    return 0


def calibration(args: argparse.Namespace) -> int:
    from duel.bench.analyser import bench_calibration

    header(args)
    bench_calibration(args.games, args.plies, args.iterations, args.jobs, args.seed, args.out,
                      args.plot)
    return 0


def ordering(args: argparse.Namespace) -> int:
    from duel.bench.analyser import bench_ordering
    from duel.bench.analyser_experiments import ORDERING_PLAYERS

    header(args)
    bench_ordering(args.players or list(ORDERING_PLAYERS), args.deals, args.iterations,
                   args.jobs, args.seed, args.out)
    return 0


def stability(args: argparse.Namespace) -> int:
    from duel.bench.analyser import bench_stability
    from duel.bench.analyser_experiments import ORDERING_PLAYERS

    header(args)
    bench_stability(args.players or list(ORDERING_PLAYERS), args.deals, args.iterations,
                    args.jobs, args.seed, args.out)
    return 0


def efficiency(args: argparse.Namespace) -> int:
    from duel.bench.analyser import bench_efficiency
    from duel.bench.analyser_experiments import EFFICIENCY_PAIR

    header(args)
    bench_efficiency(args.p1 or EFFICIENCY_PAIR[0], args.p2 or EFFICIENCY_PAIR[1], args.games,
                     args.win_games, args.iterations, args.jobs, args.seed, args.out)
    return 0

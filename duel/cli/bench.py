"""`duel bench WHAT`: benchmarks, each a subcommand with its own options. Figures for closing
notes, never timed tests (the machines are shared)."""

from __future__ import annotations

import argparse
import os
from typing import Any

from duel.bench.common import figure
from duel.cli.bench_analyser import add_analyser_parsers, header
from duel.cli.options import dump, integer, real, seed
from duel.errors import UsageError


def add_parsers(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("bench", help="benchmarks (figures, not tests)")
    bench = p.add_subparsers(dest="bench_command", required=True, metavar="WHAT")

    def add(name: str, help: str) -> argparse.ArgumentParser:
        q = bench.add_parser(name, help=help)
        q.set_defaults(command_name=f"bench {name}")
        return q

    q = add("engine", "random games per second of CPU time, compiled and pure")
    q.add_argument("--seconds", type=real, default=6.0, help="time per figure (default 6)")
    q.add_argument("--json", action="store_true", help="one JSON object")
    q.set_defaults(func=engine)

    q = add("mcts", "search iterations per second, compiled and pure")
    q.add_argument("--seconds", type=real, default=6.0, help="time per figure (default 6)")
    q.add_argument("--spec", default="mcts", help="the MCTS spec measured (default mcts)")
    q.add_argument("--json", action="store_true", help="one JSON object")
    q.set_defaults(func=mcts)

    q = add("native", "the native core against the build beside it: random games/s and "
            "MCTS iterations/s, alternating rounds")
    q.add_argument("--rounds", type=integer, default=5, help="rounds of each figure (default 5)")
    q.add_argument("--seconds", type=real, default=2.0, help="CPU seconds per figure (default 2)")
    q.add_argument("--json", action="store_true", help="one JSON object")
    q.set_defaults(func=native)

    q = add("yardstick", "the native core against indjev99's public C++ engine, built from a "
            "checkout of it, in alternating rounds")
    q.add_argument("--repo", required=True, metavar="PATH",
                   help="a checkout of github.com/indjev99/7-Wonders-Duel-AI")
    q.add_argument("--rounds", type=integer, default=5, help="rounds of each figure (default 5)")
    q.add_argument("--seconds", type=real, default=2.0, help="CPU seconds per figure (default 2)")
    q.add_argument("--json", action="store_true", help="one JSON object")
    q.set_defaults(func=yardstick)

    q = add("versus-indjev99", "a duel agent against indjev99's AgentMctsBlindReveals (their "
            "C++ search, built from a checkout) at equal time, seat-swapped pairs of deals")
    q.add_argument("--repo", required=True, metavar="PATH",
                   help="a checkout of github.com/indjev99/7-Wonders-Duel-AI")
    q.add_argument("--agent", default="mcts:time=1", metavar="SPEC",
                   help="duel's agent (default mcts:time=1)")
    q.add_argument("--games", type=integer, default=40,
                   help="games, each deal twice with seats swapped (default 40)")
    q.add_argument("--time", type=real, default=1.0,
                   help="their agent's seconds per move (default 1; give duel's the same)")
    q.add_argument("--seed", type=seed, default=0, help="the first deal's seed (default 0)")
    q.add_argument("--out", default=None, metavar="FILE",
                   help="write each game's record there (JSONL, overwritten)")
    q.add_argument("--jobs", type=integer, default=1,
                   help="games at once, one core each (default 1; leave the cores idle "
                        "otherwise: both sides think against the clock)")
    q.add_argument("--json", action="store_true", help="the summary as one JSON object")
    q.set_defaults(func=versus_indjev99)

    q = add("native-analyser", "the analyser's CPU per decision, native against Python, "
            "alternating rounds")
    q.add_argument("--rounds", type=integer, default=5, help="rounds (default 5)")
    q.add_argument("--decisions", type=integer, default=6,
                   help="decisions of one game, evenly spread (default 6)")
    q.add_argument("--iterations", type=integer, default=0,
                   help="iterations per decision (default: the analyser's)")
    q.add_argument("--seed", type=seed, default=0, help="the game's seed (default 0)")
    q.add_argument("--json", action="store_true", help="one JSON object")
    q.set_defaults(func=native_analyser)

    q = add("native-guided", "the guided search's simulations/s, native tree against Python, "
            "alternating rounds")
    q.add_argument("--rounds", type=integer, default=5, help="rounds (default 5)")
    q.add_argument("--seconds", type=real, default=2.0, help="seconds per figure (default 2)")
    q.add_argument("--seed", type=seed, default=0, help="the game's seed (default 0)")
    q.add_argument("--json", action="store_true", help="one JSON object")
    q.set_defaults(func=native_guided)

    q = add("reuse", "how much of each search's tree is kept from the seat's last one")
    q.add_argument("--games", type=integer, default=10)
    q.add_argument("--time", type=real, default=1.0, help="MCTS seconds per move")
    q.add_argument("--seed", type=seed, default=0)
    q.set_defaults(func=reuse)

    q = add("strength", "MCTS against rule and random (or another server's MCTS)")
    q.add_argument("--games", type=integer, default=100, help="games per pairing")
    q.add_argument("--time", type=real, default=1.0, help="MCTS seconds per move")
    q.add_argument("--jobs", type=integer, default=2, help="games at once")
    q.add_argument("--seed", type=seed, default=0)
    q.add_argument("--baseline", default=None, metavar="URL",
                   help="a server whose MCTS the running one plays (duel serve from a "
                   "checkout of an older commit), instead of random")
    q.add_argument("--out", default=None, help="keep each pairing's games there (resumes)")
    q.set_defaults(func=strength)

    q = add("rewards", "what the training environment's rewards tell apart: two agents as "
            "its policy on the same deals")
    q.add_argument("--weak", default="mcts:iterations=50")
    q.add_argument("--strong", default="mcts:iterations=200")
    q.add_argument("--opponent", default="random")
    q.add_argument("--deals", type=integer, default=100, help="deals, each from both seats")
    q.add_argument("--quality-iterations", type=integer, default=50,
                   help="analyser iterations per decision for the quality reward")
    q.add_argument("--jobs", type=integer, default=2)
    q.add_argument("--seed", type=seed, default=0)
    q.add_argument("--json", action="store_true")
    q.set_defaults(func=rewards)

    q = add("dqn", "the learned agent against random and rule")
    q.add_argument("--games", type=integer, default=100, help="games per pairing")
    q.add_argument("--jobs", type=integer, default=2)
    q.add_argument("--seed", type=seed, default=0)
    q.add_argument("--spec", default="dqn", help="the agent measured (default the shipped one)")
    q.set_defaults(func=dqn)

    q = add("tournament", "how fast tournaments run, here or on a Ray cluster")
    q.add_argument("--p1", default="mcts:iterations=200")
    q.add_argument("--p2", default=None, help="(default --p1)")
    q.add_argument("--games", type=integer, default=20)
    q.add_argument("--jobs", type=integer, default=2)
    q.add_argument("--ray", default=None, metavar="ADDRESS",
                   help="play on this Ray cluster (e.g. local) instead of processes here")
    q.add_argument("--seed", type=seed, default=0)
    q.set_defaults(func=tournament)

    q = add("server", "the game server under bots playing whole games over HTTP")
    q.add_argument("--clients", type=integer, default=50, help="concurrent bots")
    q.add_argument("--seconds", type=real, default=6.0)
    q.add_argument("--db", default=None, help="the database (default a fresh SQLite file), "
                   "e.g. postgresql://USER@HOST:PORT/DB")
    q.add_argument("--servers", type=integer, default=1,
                   help="server processes on the --db PostgreSQL database, the bots spread "
                   "over them")
    q.set_defaults(func=server)

    add_analyser_parsers(add)
    from duel.cli.guide import add_bench_parsers

    add_bench_parsers(add)

    q = add("local", "settings of the local model on the same seeded positions")
    q.add_argument("--positions", type=integer, default=20, help="positions per candidate")
    q.add_argument("--variants", default="baseline,local,local+legal",
                   help="candidates, a prompt variant each, +legal for output constrained to "
                   "the legal moves, or default (llm:local as shipped)")
    q.add_argument("--quality-iterations", type=integer, default=2000,
                   help="MCTS iterations that judge each position's moves (0: off)")
    q.add_argument("--server-setting", action="append", default=[], metavar="KEY=VALUE",
                   help="a llama-cpp-python server setting for every candidate")
    q.add_argument("--seed", type=seed, default=0)
    q.add_argument("--out", default=None, help="append every decision to this JSONL")
    q.set_defaults(func=local)

    q = add("positions", "how many positions of a suite separate two agents at 95%%")
    q.add_argument("--suite", required=True, help="the suite answered (duel positions extract)")
    q.add_argument("--p1", default="mcts:iterations=200")
    q.add_argument("--p2", default="rule")
    q.add_argument("--jobs", type=integer, default=2)
    q.add_argument("--seed", type=seed, default=0)
    q.set_defaults(func=positions)


def _rates_line(r: dict[str, Any]) -> str:
    return (f"rates per second of process CPU time; load average {r['load_average']:.2f} on "
            f"{r['cpus']} CPUs")


def engine(args: argparse.Namespace) -> int:
    from duel.bench.engine import compare_engine

    header(args)
    r = compare_engine(args.seconds)
    if args.json:
        dump(r)
        return 0
    print(_rates_line(r))
    print(f"{r['games_per_s']:.0f} games/s, {r['moves_per_s']:.0f} moves/s "
          "(random vs random, one core, in-place play)")
    print(f"{r['apply_games_per_s']:.0f} games/s (checked apply, a new state per move)")
    if "native_games_per_s" in r:
        print(f"native core: {r['native_games_per_s']:.0f} games/s in place (duel bench native)")
    print(f"pure build of the same source: {r['pure_games_per_s']:.0f} games/s in place, "
          f"{r['pure_apply_games_per_s']:.0f} with apply; {r['speedup']:.2f}x")
    return 0


def mcts(args: argparse.Namespace) -> int:
    from duel.bench.mcts import compare_mcts

    header(args)
    r = compare_mcts(args.seconds, args.spec)
    if args.json:
        dump(r)
        return 0
    print(_rates_line(r))
    print(f"{r['iterations_per_s']:.0f} iterations/s from the start position "
          f"({args.spec}, one core; pure build {r['pure_iterations_per_s']:.0f}, "
          f"{r['speedup']:.2f}x)")
    print(f"{r['mid_age_two_iterations_per_s']:.0f} iterations/s from a mid-Age-II "
          f"position (pure build {r['pure_mid_age_two_iterations_per_s']:.0f})")
    return 0


def yardstick(args: argparse.Namespace) -> int:
    from duel.bench.yardstick import compare_yardstick

    header(args)
    r = compare_yardstick(args.repo, args.rounds, args.seconds)
    if args.json:
        dump(r)
        return 0
    print(f"indjev99/7-Wonders-Duel-AI at {r['their_commit']}, built here with g++ -O3; "
          f"{r['rounds']} alternating rounds of {r['seconds']:g} s each; load average "
          f"{r['load_average_start']:.2f} at the start, {r['load_average']:.2f} at the end")

    for what, unit in (("games", "random games per CPU second, one core"),
                       ("mcts", "search iterations per CPU second, a game's first move")):
        ours, theirs = (r[f"{side}_{what}"] for side in ("duel", "their"))
        print(f"{unit}: duel {figure(ours)}, indjev99 {figure(theirs)}; "
              f"{figure(r[what + '_ratio'], 2, 'x')}")
    return 0


def versus_indjev99(args: argparse.Namespace) -> int:
    from duel.agents.spec import make_agent
    from duel.bench.yardstick import check_checkout
    from duel.bench.yardstick.bridge import versus

    header(args)
    check_checkout(args.repo)  # before the minutes of compiling and playing
    make_agent(args.agent)  # a bad spec fails now, not after the driver is built
    if args.out:
        open(args.out, "w").close()
    r = versus(args.repo, args.agent, args.games, args.time, args.seed, args.out,
               echo=lambda line: print(line, flush=True), jobs=args.jobs)
    if args.json:
        dump(r)
        return 0
    lo, hi = r["score_ci"]
    print(f"{r['spec']} against indjev99's AgentMctsBlindReveals at {r['their_seconds']:g} s a "
          f"move: {r['games']} games, duel won {r['duel_wins']}, lost {r['their_wins']}, "
          f"{r['draws']} shared; score {100 * r['score']:.1f}% (95% CI {100 * lo:.1f}-"
          f"{100 * hi:.1f}%, Wilson)")
    print(f"seconds per move: duel {r['duel_seconds_per_move']:.3f}, indjev99 "
          f"{r['their_seconds_per_move']:.3f}; indjev99 {r['their_sims_per_move']:.0f} "
          "simulations per move")
    print(f"duel's agent: {r['fallbacks']} fallbacks, {r['forfeits']} forfeits, {r['reasks']} "
          f"re-asks; {r['flagged_games']} flagged games (a fallback or a resignation)")
    return 0


def native(args: argparse.Namespace) -> int:
    from duel.bench.native import compare_native

    header(args)
    r = compare_native(args.rounds, args.seconds)
    if args.json:
        dump(r)
        return 0
    print(_rates_line(r) + f"; {r['rounds']} alternating rounds of {r['seconds']:g} s each")

    def fig(key: str) -> str:
        return figure(r[key])

    for what, unit in (("games", "random games/s, one core"),
                       ("mcts", "MCTS iterations/s from Age I's start")):
        print(f"{unit}: native {fig(f'native_{what}')}, beside it {fig(f'python_{what}')}; "
              f"{figure(r[f'{what}_speedup'], 1, 'x')}")
    return 0


def native_analyser(args: argparse.Namespace) -> int:
    from duel.bench.native import analyser_lines, compare_analyser

    header(args)
    r = compare_analyser(args.rounds, args.decisions, args.iterations, args.seed)
    if args.json:
        dump(r)
        return 0
    print("\n".join(analyser_lines(r)))
    return 0


def native_guided(args: argparse.Namespace) -> int:
    from duel.bench.native import compare_guided

    header(args)
    r = compare_guided(args.rounds, args.seconds, args.seed)
    if args.json:
        dump(r)
        return 0

    def fig(key: str) -> str:
        return figure(r[key])

    def ratio(key: str) -> str:
        return figure(r[key], 2, "x")

    print(f"{r['build']}; load average {r['load_average']} on {r['cpus']} CPUs; "
          f"{r['rounds']} alternating rounds of {r['seconds']:g} s each")
    print(f"guided simulations/s from Age I's first decision: Python tree "
          f"{fig('python_guided')}; native tree (native=1) {fig('native_guided')}, "
          f"{ratio('native_speedup')}; with the network in C++ (native=2) "
          f"{fig('native_net_guided')}, {ratio('native_net_speedup')}")
    return 0


def reuse(args: argparse.Namespace) -> int:
    from duel.bench.mcts import bench_reuse

    header(args)
    bench_reuse(args.games, args.time, args.seed)
    return 0


def strength(args: argparse.Namespace) -> int:
    from duel.bench.strength import bench_strength

    header(args)
    bench_strength(args.games, args.time, args.jobs, args.seed, baseline=args.baseline,
                   out=args.out)
    return 0


def rewards(args: argparse.Namespace) -> int:
    import json

    from duel.bench.rewards import bench_rewards, text

    header(args)
    r = bench_rewards(args.weak, args.strong, args.opponent, args.deals,
                      args.quality_iterations, args.jobs, args.seed)
    print(json.dumps(r, indent=2) if args.json else text(r))
    return 0


def dqn(args: argparse.Namespace) -> int:
    from duel.bench.strength import bench_dqn

    header(args)
    bench_dqn(args.games, args.jobs, args.seed, args.spec)
    return 0


def tournament(args: argparse.Namespace) -> int:
    from duel.bench.strength import bench_tournament

    header(args)
    p2 = args.p2 or args.p1
    r = bench_tournament(args.p1, p2, args.games, args.jobs, args.ray, args.seed)
    where = f"Ray {args.ray}" if args.ray else "processes here"
    print(f"{args.p1} vs {p2}: {r['games']:.0f} games, {args.jobs} at once on {where}: "
          f"{r['games_per_s']:.3f} games/s (wall {r['wall']:.1f} s); one game "
          f"{r['game_s']:.2f} s (95% CI {r['game_s_lo']:.2f}-{r['game_s_hi']:.2f}, "
          f"n={r['games']:.0f})")
    return 0


def server(args: argparse.Namespace) -> int:
    from duel.bench.server import bench_server
    from server.store import shown

    header(args)
    r = bench_server(args.clients, args.seconds, args.db, args.servers)
    print(f"{shown(args.db) if args.db else 'SQLite'}, {args.servers} server(s): "
          f"{r['moves']} moves by {args.clients} clients in {r['seconds']:.1f} s: "
          f"{r['moves_per_s']:.0f} moves/s; POST move latency p50 {r['post_p50_ms']:.1f} ms, "
          f"p99 {r['post_p99_ms']:.1f} ms; GET moves p50 {r['get_p50_ms']:.1f} ms, "
          f"p99 {r['get_p99_ms']:.1f} ms; {r['games_finished']} games finished, "
          f"{r['errors']} errors; server CPU {r['server_cpu_ms_per_move']:.2f} ms per move; "
          f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs")
    return 0


def local(args: argparse.Namespace) -> int:
    from duel.bench.local import bench_local

    header(args)
    settings = {}
    for item in args.server_setting:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise UsageError(f"--server-setting takes KEY=VALUE, got {item!r}")
        settings[key] = value
    bench_local(args.variants.split(","), args.positions, args.seed, args.quality_iterations,
                settings, args.out)
    return 0


def positions(args: argparse.Namespace) -> int:
    """How many positions of a suite separate --p1 from --p2."""
    from duel.bench.positions import answer_suite, separate, text
    from duel.grading.positions.suite import load

    header(args)
    suite = load(args.suite)
    a = answer_suite(args.p1, suite, args.seed, args.jobs)
    b = answer_suite(args.p2, suite, args.seed, args.jobs)
    print(text(separate(a, b, args.seed), args.p1, args.p2, args.suite))
    return 0

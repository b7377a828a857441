"""The native core against the build it sits beside, in one process, in alternating rounds:
random games per second of CPU time on one core (deal and play, as `duel bench engine`), and
MCTS iterations per second of CPU time from Age I's start (`mcts`, native=0 against native=1).
Alternating, so that the machine's load (shared cores) falls on both alike; each round's
figures give a mean and a bootstrap 95% interval."""

from __future__ import annotations

import random
import time
from typing import Any

from duel.bench.common import _load_fields, figure, rounds_figures


def python_games(seconds: float, first_seed: int) -> tuple[float, int]:
    """`duel bench engine`'s in-place loop on the Python engine (mypyc-compiled when built):
    games per CPU second, and the games played."""
    from duel.engine import new_game
    from duel.engine.playout import random_game
    from duel.engine.pricing import PriceBook

    prices = PriceBook()
    rng = random.Random(first_seed)
    games = 0
    cpu = time.process_time()
    while time.process_time() - cpu < seconds:
        random_game(new_game(seed=first_seed + games, prices=prices), rng)
        games += 1
    return games / (time.process_time() - cpu), games


def native_games(seconds: float, first_seed: int) -> tuple[float, int]:
    """The same loop in the native core, in batches (one call plays a batch)."""
    from duel.native import random_games

    rng = random.Random(first_seed)
    games = 0
    batch = 500
    cpu = time.process_time()
    while time.process_time() - cpu < seconds:
        random_games(first_seed + games, batch, rng)
        games += batch
    return games / (time.process_time() - cpu), games


def mcts_rate(seconds: float, native: int) -> float:
    """Iterations per CPU second of `mcts` (the default spec) from Age I's start."""
    from duel.agents.mcts import MCTSAgent
    from duel.engine import InfoSet, new_game, seat_view

    agent = MCTSAgent(time=seconds, native=native)
    info = InfoSet.from_view(seat_view(new_game(0)))
    cpu = time.process_time()
    _, iterations, _ = agent.search(info, random.Random(0))
    return iterations / (time.process_time() - cpu)


def compare_native(rounds: int, seconds: float) -> dict[str, Any]:
    """`duel bench native`: `rounds` alternating rounds of each pair of figures."""
    from duel.build import describe
    from duel.native import available

    if not available():
        from duel.errors import BenchError

        raise BenchError(f"the native core is not in use: {describe()}")
    figures: dict[str, list[float]] = {"python_games": [], "native_games": [],
                                       "python_mcts": [], "native_mcts": []}
    for r in range(rounds):
        figures["python_games"].append(python_games(seconds, 1000 * r)[0])
        figures["native_games"].append(native_games(seconds, 1000 * r)[0])
        figures["python_mcts"].append(mcts_rate(seconds, 0))
        figures["native_mcts"].append(mcts_rate(seconds, 1))
    out: dict[str, Any] = {"build": describe(), "rounds": rounds, "seconds": seconds,
                           "clock": "process CPU time", **_load_fields()}
    out.update(rounds_figures(figures, {f"{what}_speedup": (f"native_{what}", f"python_{what}")
                                        for what in ("games", "mcts")}))
    return out


def analyser_positions(seed: int, count: int) -> list[tuple[dict[str, Any], list[Any], Any]]:
    """`count` decisions of a game of `mcts:iterations=300` against `rule` (seed `seed`, as
    `duel bench analyse` plays), evenly spread over the game: each as the deciding seat's view,
    its legal moves and the move played, in the view's labels (what the analyser searches
    from)."""
    from duel.agents.spec import make_agent
    from duel.engine import Perspective, new_game
    from duel.match import decide

    agents = (make_agent("mcts:iterations=300"), make_agent("rule"))
    state = new_game(seed)
    rngs = (random.Random(seed), random.Random(seed + 1))
    found = []
    while not state.is_terminal():
        legal = state.legal_moves()
        move, _, _ = decide(agents[state.current], state, rngs[state.current])
        if len(legal) > 1:
            seen = Perspective.to_move(state)
            found.append((seen.view(state), seen.moves_out(legal), seen.move_out(move)))
        state = state.apply(move)
    step = len(found) / count
    return [found[int(i * step)] for i in range(min(count, len(found)))]


def analyser_cpu(positions: list[tuple[dict[str, Any], list[Any], Any]], iterations: int,
                 native: bool) -> float:
    """The analyser's search (duel.analysis.search.evaluate, `iterations` per decision):
    process CPU seconds per decision over `positions`."""
    from duel.analysis.search import Settings, decision_seed, evaluate

    settings = Settings(iterations=iterations, native=native)
    cpu = time.process_time()
    for ply, (view, legal, played) in enumerate(positions):
        evaluate(view, legal, played, settings, random.Random(decision_seed(0, ply)))
    return (time.process_time() - cpu) / len(positions)


def compare_analyser(rounds: int, decisions: int, iterations: int = 0,
                     seed: int = 0) -> dict[str, Any]:
    """The analyser's CPU per decision, the Python search (native=False) against the native
    one, on the same `decisions` positions in alternating rounds; mean and bootstrap 95%
    interval over the rounds, and the ratio."""
    from duel.analysis.search import DEFAULT_ITERATIONS
    from duel.build import describe

    iterations = iterations or DEFAULT_ITERATIONS
    positions = analyser_positions(seed, decisions)
    figures: dict[str, list[float]] = {"python_cpu": [], "native_cpu": []}
    for _ in range(rounds):
        figures["python_cpu"].append(analyser_cpu(positions, iterations, False))
        figures["native_cpu"].append(analyser_cpu(positions, iterations, True))
    out: dict[str, Any] = {"build": describe(), "rounds": rounds, "decisions": len(positions),
                           "iterations": iterations, "clock": "process CPU time",
                           **_load_fields()}
    out.update(rounds_figures(figures, {"cpu_ratio": ("native_cpu", "python_cpu")}))
    return out


def analyser_lines(r: dict[str, Any]) -> list[str]:
    """compare_analyser's figures as printed lines (`duel bench native-analyser`)."""

    def fig(key: str) -> str:
        return figure(r[key], 4, " s")

    lo, hi = r["cpu_ratio"]["ci"]
    return [f"{r['build']}; load average {r['load_average']} on {r['cpus']} CPUs; "
            f"{r['rounds']} alternating rounds of {r['decisions']} decisions at "
            f"{r['iterations']} iterations",
            f"analyser CPU per decision: native {fig('native_cpu')}, Python "
            f"{fig('python_cpu')}; native/Python {r['cpu_ratio']['mean']:.3f} "
            f"({lo:.3f}-{hi:.3f})"]


def guided_rate(seconds: float, native: int, seed: int = 0) -> float:
    """Simulations per CPU second of the guided search (`mcts:guide=default,time=...`, its
    PUCT root) from the first decision of Age I of game `seed`."""
    from duel.agents.guided.agent import GuidedAgent
    from duel.engine import Perspective, new_game

    state = new_game(seed)
    rng = random.Random(seed)
    while state.step == 0:  # the draft, to Age I's first decision
        state.play(rng.choice(state.legal_moves()))
    seen = Perspective.to_move(state)
    agent = GuidedAgent(time=seconds, native=native, reuse=0)
    cpu = time.process_time()
    decision = agent.choose(seen.view(state), seen.moves_out(state.legal_moves()),
                            random.Random(seed))
    return int(decision.details["iterations"]) / (time.process_time() - cpu)


def compare_guided(rounds: int, seconds: float, seed: int = 0) -> dict[str, Any]:
    """The guided search's simulations per CPU second, the Python tree (native=0) against the
    native one (the network in Python for both) and the native tree with the network in C++
    (native=2), in alternating rounds; mean and bootstrap 95% interval over the rounds, and
    the ratios to the Python tree."""
    from duel.build import describe
    from duel.native import available

    if not available():
        from duel.errors import BenchError

        raise BenchError(f"the native core is not in use: {describe()}")
    guided_rate(0.2, 1, seed)  # load the model and warm both paths before measuring
    guided_rate(0.2, 0, seed)
    guided_rate(0.2, 2, seed)
    figures: dict[str, list[float]] = {"python_guided": [], "native_guided": [],
                                       "native_net_guided": []}
    for _ in range(rounds):
        figures["python_guided"].append(guided_rate(seconds, 0, seed))
        figures["native_guided"].append(guided_rate(seconds, 1, seed))
        figures["native_net_guided"].append(guided_rate(seconds, 2, seed))
    out: dict[str, Any] = {"build": describe(), "rounds": rounds, "seconds": seconds,
                           "clock": "process CPU time", **_load_fields()}
    out.update(rounds_figures(figures, {f"{name}_speedup": (f"{name}_guided", "python_guided")
                                        for name in ("native", "native_net")}))
    return out


def main(argv: list[str] | None = None) -> int:
    """`python -m duel.bench.native`: the analyser's figure (compare_analyser), printed, or
    its JSON with --json; the same as `duel bench native-analyser`. (`duel bench native`
    gives the engine's and the search's.)"""
    import argparse
    import json

    parser = argparse.ArgumentParser(prog="python -m duel.bench.native",
                                     description="the analyser's CPU per decision, native "
                                                 "against Python, alternating rounds")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--decisions", type=int, default=6)
    parser.add_argument("--iterations", type=int, default=0, help="default: the analyser's")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    r = compare_analyser(args.rounds, args.decisions, args.iterations, args.seed)
    if args.json:
        print(json.dumps(r, indent=2))
        return 0
    print("\n".join(analyser_lines(r)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

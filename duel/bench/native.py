"""The native core against the build it sits beside, in one process, in alternating rounds:
random games per second of CPU time on one core (deal and play, as `duel bench engine`), and
MCTS iterations per second of CPU time from Age I's start (`mcts`, native=0 against native=1).
Alternating, so that the machine's load (shared cores) falls on both alike; each round's
figures give a mean and a bootstrap 95% interval."""

from __future__ import annotations

import random
import time
from typing import Any

from duel.bench.common import _load_fields


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
    from duel.stats import bootstrap_ci, mean

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
    for key, values in figures.items():
        out[key] = {"mean": mean(values), "ci": bootstrap_ci(values), "values": values}
    for what in ("games", "mcts"):
        ratios = [n / p for n, p in zip(figures[f"native_{what}"], figures[f"python_{what}"],
                                         strict=True)]
        out[f"{what}_speedup"] = {"mean": mean(ratios), "ci": bootstrap_ci(ratios)}
    return out

"""`duel bench guide`: what one network evaluation costs on each runtime (numpy, onnxruntime one
position at a time, onnxruntime in batches of 16), the encoding alone, and the guided search's
simulations per second beside the ISMCTS's iterations, from the same positions.

Times are per CPU second of this process (`time.process_time`), so other jobs on the machine
count less; the runtimes alternate in rounds so that a change of load hits them alike, and each
figure is the median over rounds with its range.
"""

from __future__ import annotations

import os
import random
import statistics
import time
from typing import Any

from duel.engine import GameState, InfoSet, new_game, seat_view


def positions(n: int = 40, seed: int = 0) -> list[GameState]:
    """`n` positions of seeded games between rule agents, spread over the game."""
    from duel.agents.rule_based import RuleAgent
    from duel.match import decide

    out: list[GameState] = []
    rng = random.Random(seed)
    agent = RuleAgent()
    game = 0
    while len(out) < n:
        state = new_game(seed * 1000 + game)
        game += 1
        plies = 0
        while not state.is_terminal():
            if rng.random() < 0.08 and len(state.legal_moves()) > 1:
                out.append(state.clone())
            move, _, _ = decide(agent, state, rng)
            state.play(move)
            plies += 1
    return out[:n]


def _per_call(fn: Any, items: list[Any], seconds: float) -> float:
    """Microseconds of CPU per call of `fn` over `items`, cycling for about `seconds`."""
    calls = 0
    cpu = time.process_time()
    end = cpu + seconds
    while time.process_time() < end:
        for item in items:
            fn(item)
        calls += len(items)
    return (time.process_time() - cpu) / calls * 1e6


def bench_guide(model: str = "default", seconds: float = 6.0, rounds: int = 5) -> dict[str, Any]:
    from duel.agents.guided.agent import GuidedAgent
    from duel.agents.guided.features import encode, moves_slots
    from duel.agents.guided.runtime import NumpyGuide, OnnxGuide, model_path
    from duel.agents.mcts import MCTSAgent

    path = model_path(model)
    numpy_guide, onnx_guide = NumpyGuide(path), OnnxGuide(path)
    states = positions()
    encoded = []
    for s in states:
        idx: list[int] = []
        val: list[float] = []
        encode(s, idx, val)
        encoded.append((idx, val, moves_slots(s, s.legal_moves())))

    def enc(s: GameState) -> None:
        encode(s, [], [])

    batches = [[(i, v) for i, v, _ in encoded[k:k + 16]] for k in range(0, len(encoded), 16)]
    share = seconds / 4
    figures: dict[str, list[float]] = {"encode": [], "numpy": [], "onnx": [], "onnx_batch16": []}
    for _ in range(rounds):
        figures["encode"].append(_per_call(enc, states, share / rounds))
        figures["numpy"].append(_per_call(lambda e: numpy_guide.raw(*e), encoded,
                                          share / rounds))
        figures["onnx"].append(_per_call(lambda e: onnx_guide.raw(*e), encoded, share / rounds))
        per_batch = _per_call(onnx_guide.batch, batches, share / rounds)
        figures["onnx_batch16"].append(per_batch * len(batches) / len(encoded))
    med = {k: statistics.median(v) for k, v in figures.items()}
    rng_ = {k: (min(v), max(v)) for k, v in figures.items()}
    # Search speed from the start and from a mid-game position, both searches alike.
    from duel.bench.engine import mid_age_two

    speeds: dict[str, dict[str, float]] = {}
    for key, state in (("start", new_game(0)), ("mid_age_two", mid_age_two(0))):
        info = InfoSet.from_view(seat_view(state))
        view = seat_view(state)
        legal = state.legal_moves()
        speeds[key] = {}
        for name, runtime in (("guided_numpy", "numpy"), ("guided_onnx", "onnx")):
            agent = GuidedAgent(guide=model, iterations=100_000, time=seconds / 4, root="puct",
                                runtime=runtime, seed=0)
            agent.iterations = 0
            cpu = time.process_time()
            decision, _ = agent.analyse(view, legal, random.Random(0))
            speeds[key][name] = decision.details["iterations"] / (time.process_time() - cpu)
        mcts = MCTSAgent(time=seconds / 4)
        cpu = time.process_time()
        _, iterations, _ = mcts.search(info, random.Random(0))
        speeds[key]["mcts"] = iterations / (time.process_time() - cpu)
    faster = "numpy" if med["numpy"] <= med["onnx"] else "onnx"
    lines = [
        f"model {path} ({rounds} alternating rounds over {len(states)} positions; median "
        f"(range) of CPU microseconds per position; load average {os.getloadavg()[0]:.2f})",
        f"  encoding alone: {med['encode']:.1f} ({rng_['encode'][0]:.1f}-{rng_['encode'][1]:.1f})",
        f"  numpy, one position: {med['numpy']:.1f} ({rng_['numpy'][0]:.1f}-"
        f"{rng_['numpy'][1]:.1f})",
        f"  onnxruntime, one position: {med['onnx']:.1f} ({rng_['onnx'][0]:.1f}-"
        f"{rng_['onnx'][1]:.1f})",
        f"  onnxruntime, batches of 16: {med['onnx_batch16']:.1f} per position "
        f"({rng_['onnx_batch16'][0]:.1f}-{rng_['onnx_batch16'][1]:.1f})",
        f"  faster one position at a time: {faster}",
    ]
    for key, rate in speeds.items():
        lines.append(f"  {key}: guided search {rate['guided_numpy']:.0f} simulations/s "
                     f"(numpy), {rate['guided_onnx']:.0f} (onnxruntime); ISMCTS "
                     f"{rate['mcts']:.0f} iterations/s")
    return {"model": str(path), "encode_us": med["encode"], "numpy_us": med["numpy"],
            "onnx_us": med["onnx"], "onnx_batch16_us": med["onnx_batch16"],
            "ranges": rng_, "faster": faster, "speeds": speeds,
            "load_average": round(os.getloadavg()[0], 2), "lines": lines}

"""Benchmarks: figures for closing notes, not timed tests."""

from __future__ import annotations

import random
import time

from duel.engine import new_game


def bench_engine(seconds: float = 5.0, seed: int = 0) -> dict[str, float]:
    """Random-vs-random full games on one core, two ways: in place with the unchecked `play`
    (how search and rollouts run) and through the checked, copying `apply` (the public path)."""
    out: dict[str, float] = {}
    for mode in ("play", "apply"):
        rng = random.Random(seed)
        games = moves = 0
        start = time.perf_counter()
        while time.perf_counter() - start < seconds / 2:
            state = new_game(seed=games, rng=None)
            while not state.is_terminal():
                move = rng.choice(state.legal_moves())
                if mode == "play":
                    state.play(move)
                else:
                    state = state.apply(move)
                moves += 1
            games += 1
        elapsed = time.perf_counter() - start
        out[f"{mode}_games_per_s"] = games / elapsed
        out[f"{mode}_moves_per_s"] = moves / elapsed
    return out

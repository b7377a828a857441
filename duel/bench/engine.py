"""The engine's speed: whole random games per second of CPU time, compiled against pure."""

from __future__ import annotations

import random
import time
from typing import Any

from duel.bench.common import _load_fields, pure_figures
from duel.engine import GameState, Seat, new_game
from duel.engine.pricing import PriceBook


def bench_engine(seconds: float = 5.0, seed: int = 0) -> dict[str, float]:
    """Random-vs-random full games per second of CPU time on one core, two ways: in place
    (`duel.engine.playout`, how search and rollouts run) and through the checked, copying
    `apply` (the public path).
    The games share one price book, as a search's samples do."""
    from duel.engine.playout import random_game

    out: dict[str, float] = {}
    prices = PriceBook()
    for mode in ("play", "apply"):
        rng = random.Random(seed)
        games = moves = 0
        start = time.perf_counter()
        cpu = time.process_time()
        while time.perf_counter() - start < seconds / 2:
            state = new_game(seed=games, rng=None, prices=prices)
            if mode == "play":
                moves += random_game(state, rng)
            else:
                while not state.is_terminal():
                    state = state.apply(rng.choice(state.legal_moves()))
                    moves += 1
            games += 1
        # Per second of this process's CPU time: what one core does, even while other jobs
        # share the machine's cores (its wall-clock rate would measure their load).
        elapsed = time.process_time() - cpu
        out[f"{mode}_games_per_s"] = games / elapsed
        out[f"{mode}_moves_per_s"] = moves / elapsed
    return out


def mid_age_two(seed: int = 0) -> GameState:
    """A mid-Age-II position: a rule-vs-rule game stopped after 6 Age II cards."""
    from duel.agents.rule_based import RuleAgent
    from duel.match import agent_rng, decide

    state = new_game(seed)
    agent = RuleAgent()
    rngs = [agent_rng(seed, Seat.P1), agent_rng(seed, Seat.P2)]
    while not (state.age == 2 and state.remaining <= 14 and state.step_name == "PLAY_CARD"):
        move, _, _ = decide(agent, state, rngs[state.current])
        state = state.apply(move)
    return state


def compare_engine(seconds: float) -> dict[str, Any]:
    """`duel bench engine`: the running build's figures and the pure build's, in one run."""
    from duel.build import build
    from duel.native import available

    mine = bench_engine(seconds)
    pure = mine if build() == "pure" else pure_figures("duel.bench.engine",
                                                        f"bench_engine({seconds!r})")
    native: dict[str, Any] = {}
    if available():  # the same loop in the native core (duel bench native compares them)
        from duel.bench.native import native_games

        native["native_games_per_s"] = native_games(seconds / 2, 0)[0]
    return {"build": build(), **native, "games_per_s": mine["play_games_per_s"],
            "pure_games_per_s": pure["play_games_per_s"],
            "moves_per_s": mine["play_moves_per_s"], "pure_moves_per_s": pure["play_moves_per_s"],
            "apply_games_per_s": mine["apply_games_per_s"],
            "pure_apply_games_per_s": pure["apply_games_per_s"],
            "speedup": mine["play_games_per_s"] / pure["play_games_per_s"],
            "seconds": seconds, "clock": "process CPU time", **_load_fields()}

"""Benchmarks: figures for closing notes, not timed tests."""

from __future__ import annotations

import random
import time

from duel.engine import GameState, new_game


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


def mid_age_two(seed: int = 0) -> GameState:
    """A mid-Age-II position: a rule-vs-rule game stopped after 6 Age II cards."""
    from duel.agents.rule_based import RuleAgent
    from duel.match import agent_rng, decide

    state = new_game(seed)
    agent = RuleAgent()
    rngs = [agent_rng(seed, 0), agent_rng(seed, 1)]
    while not (state.age == 2 and state.remaining <= 14 and state.step_name == "PLAY_CARD"):
        move, _, _ = decide(agent, state, rngs[state.current])
        state = state.apply(move)
    return state


def bench_mcts(seconds: float, spec: str = "mcts") -> list[tuple[str, float]]:
    """MCTS iterations per second, single process, from the start and from mid-Age II."""
    from duel.agents.mcts import MCTSAgent
    from duel.agents.spec import make_agent
    from duel.engine import InfoSet, seat_view

    agent = make_agent(spec)
    assert isinstance(agent, MCTSAgent)
    agent.iterations = 0
    agent.time = seconds / 2
    out = []
    for label, state in (("from the start position", new_game(0)),
                         ("from a mid-Age-II position", mid_age_two(0))):
        info = InfoSet.from_view(seat_view(state))
        _, iterations, elapsed = agent.search(info, random.Random(0))
        out.append((label, iterations / elapsed))
    return out


def bench_strength(games: int, seconds: float, jobs: int, seed: int) -> None:
    """Seat-swapped pairings with win rates and 95% CIs (targets in issue 3)."""
    from duel.tournament import run

    mcts = f"mcts:time={seconds:g}"
    for a, b, target in ((mcts, "rule", 0.90), (mcts, "random", 0.99), ("rule", "random", 0.90)):
        start = time.perf_counter()
        standings = run(a, b, games, seed=seed, jobs=jobs, progress=False)
        print(standings.report(wall=time.perf_counter() - start))
        wins, _, _ = standings.counts()
        rate = wins / max(1, len(standings.games))
        print(f"  target: {a} wins at least {target:.0%}: {'met' if rate >= target else 'NOT met'}",
              flush=True)

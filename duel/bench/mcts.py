"""The search's speed (iterations per second of CPU time) and how much of its tree it keeps
between moves."""

from __future__ import annotations

import random
import time
from collections.abc import Sequence
from typing import Any

from duel.bench.common import _load_fields, pure_figures
from duel.bench.engine import mid_age_two
from duel.engine import new_game
from duel.native import available as native_available

MCTS_POSITIONS = (("start", "from the start position"),
                  ("mid_age_two", "from a mid-Age-II position"))


def bench_mcts(seconds: float, spec: str = "mcts") -> dict[str, float]:
    """MCTS iterations per second of CPU time, single process, from the start and from mid-Age
    II (keys as in MCTS_POSITIONS)."""
    from duel.agents.mcts import MCTSAgent
    from duel.agents.spec import make_agent
    from duel.engine import InfoSet, seat_view

    agent = make_agent(spec)
    assert isinstance(agent, MCTSAgent)
    agent.iterations = 0
    agent.time = seconds / 2
    out = {}
    for key, state in (("start", new_game(0)), ("mid_age_two", mid_age_two(0))):
        info = InfoSet.from_view(seat_view(state))
        cpu = time.process_time()
        _, iterations, _ = agent.search(info, random.Random(0))
        out[key] = iterations / (time.process_time() - cpu)  # per CPU second, as above
    return out


def compare_mcts(seconds: float, spec: str) -> dict[str, Any]:
    """`duel bench mcts`: iterations/s of the running build and the pure one, in one run."""
    from duel.build import build

    mine = bench_mcts(seconds, spec)
    pure = mine if build() == "pure" else pure_figures("duel.bench.mcts",
                                                        f"bench_mcts({seconds!r}, {spec!r})")
    return {"build": build(), "spec": spec,
            "iterations_per_s": mine["start"], "pure_iterations_per_s": pure["start"],
            "mid_age_two_iterations_per_s": mine["mid_age_two"],
            "pure_mid_age_two_iterations_per_s": pure["mid_age_two"],
            "speedup": mine["start"] / pure["start"], "seconds": seconds,
            "clock": "process CPU time", **_load_fields()}


def reuse_figures(games: list[list[tuple[int, int]]]) -> dict[str, Any]:
    """Tree reuse from each game's searched decisions (visits kept, new iterations): the share
    of a decision's root visits that were kept, averaged per decision, with a bootstrap CI
    over games (a game's decisions are not independent); and the share of decisions that kept
    a subtree at all."""
    from duel.stats import bootstrap_stat_ci

    def share(sample: Sequence[list[tuple[int, int]]]) -> float:
        pairs = [p for g in sample for p in g]
        return sum(k / (k + n) for k, n in pairs) / len(pairs) if pairs else 0.0

    decisions = [p for g in games for p in g]
    lo, hi = bootstrap_stat_ci(games, share)
    return {"games": len(games), "decisions": len(decisions), "kept_share": share(games),
            "kept_share_ci": (lo, hi),
            "decisions_kept": sum(1 for k, _ in decisions if k) / max(1, len(decisions))}


def bench_reuse(games: int, seconds: float, seed: int) -> dict[str, Any]:
    """`duel bench reuse`: `mcts:time=SECONDS,reuse=1` against rule (seats alternating); how much
    of each search's tree was kept from the seat's previous one (reuse is off by default)."""
    from duel.match import play_match

    spec = f"mcts:time={seconds:g},reuse=1"
    per_game = []
    for i in range(games):
        mine = i % 2
        players = (spec, "rule") if mine == 0 else ("rule", spec)
        result = play_match(*players, seed=seed + i)
        per_game.append([(int(r.details.get("reused", 0)), int(r.details["iterations"]))
                         for r in result.records
                         if r.seat.index == mine and r.details.get("top")])
    figures = reuse_figures(per_game)
    lo, hi = figures["kept_share_ci"]
    print(f"{spec} against rule, {figures['games']} games, {figures['decisions']} searched "
          f"decisions: a subtree kept in {figures['decisions_kept']:.0%} of them; visits kept "
          f"per decision {figures['kept_share']:.1%} of the root's (95% CI {lo:.1%}-{hi:.1%}, "
          f"bootstrap over games), the {'native' if native_available() else 'Python'} search")
    return figures

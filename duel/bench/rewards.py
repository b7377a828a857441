"""What the training environment's rewards tell apart: two agents play the text environment
(duel.envs.TextEnv) as its policy, on the same deals and seats against the same opponent, and
each reward's per-game totals are compared.

- the correlation of a game's summed `quality` reward with its `outcome` (pooled over both
  agents' games): how much the dense signal says about the result;
- for each reward, the games needed to tell the two agents apart: the paired difference per
  deal and seat (the stronger's reward minus the weaker's) and the units at which its 95% CI
  excludes 0 with probability 80% (duel.analysis.efficiency, the efficiency benchmark's method).

The agents play through the environment's text interface: each decision's legal moves come from
the observation, the agent chooses from the observation's view, and its move is sent as the
prompt's JSON, so the figures are the environment's own.
"""

from __future__ import annotations

import json
import math
import random
from dataclasses import dataclass
from typing import Any

REWARDS = ("outcome", "margin", "quality")


@dataclass(frozen=True)
class _Game:
    spec: str
    seed: int
    seat: int
    parts: dict[str, float]
    decisions: int
    analyser_cpu_s: float


def play(spec: str, seed: int, seat: int, opponent: str, iterations: int) -> _Game:
    """One game of `spec` as the environment's policy (a module-level function: it runs in a
    worker process)."""
    from duel.agents.spec import make_agent
    from duel.engine import Move
    from duel.envs import TextEnv

    agent = make_agent(spec)
    env = TextEnv(opponent=opponent, seat=seat, reward="outcome+margin+quality",
                  quality_iterations=iterations)
    obs = env.reset(seed=seed)
    rng = random.Random(seed)
    totals = dict.fromkeys(REWARDS, 0.0)
    cpu = 0.0
    decisions = 0
    while True:
        legal = [Move.from_json(m) for m in obs.legal]
        move = agent.choose(obs.view, legal, rng).move
        r = env.step(json.dumps(move.to_json()))
        decisions += 1
        for name in REWARDS:
            totals[name] += r.info["reward_parts"].get(name, 0.0)
        cpu += r.info.get("analysis", {}).get("cpu_s", 0.0)
        if r.done:
            return _Game(spec, seed, seat, totals, decisions, cpu)
        assert r.observation is not None
        obs = r.observation


def bench_rewards(weak: str, strong: str, opponent: str, deals: int, iterations: int,
                  jobs: int, seed: int = 0) -> dict[str, Any]:
    """Both agents on `deals` deals from both seats; the figures above, with n."""
    from duel.analysis.efficiency import separation
    from duel.util.parallel import parallel_map

    tasks = [(spec, seed + d, seat, opponent, iterations)
             for d in range(deals) for seat in (1, 2) for spec in (weak, strong)]
    games = parallel_map(_run, tasks, jobs)
    by = {(g.spec, g.seed, g.seat): g for g in games}
    out: dict[str, Any] = {"weak": weak, "strong": strong, "opponent": opponent,
                           "deals": deals, "games": len(games),
                           "quality_iterations": iterations}
    q = [g.parts["quality"] for g in games]
    o = [g.parts["outcome"] for g in games]
    out["quality_outcome_correlation"] = _pearson(q, o)
    decisions = sum(g.decisions for g in games)
    out["decisions"] = decisions
    out["analyser_cpu_s_per_decision"] = round(sum(g.analyser_cpu_s for g in games)
                                               / decisions, 4) if decisions else None
    for name in REWARDS:
        diffs = [by[(strong, s, seat)].parts[name] - by[(weak, s, seat)].parts[name]
                 for s in range(seed, seed + deals) for seat in (1, 2)]
        sep = separation(diffs)
        out[name] = {"mean_difference": round(sep.mean, 4),
                     "ci": [round(sep.ci[0], 4), round(sep.ci[1], 4)],
                     "units": sep.units, "games_needed": _games(sep.needed),
                     "games_needed_ci": [_games(sep.needed_ci[0]), _games(sep.needed_ci[1])]}
    return out


def _run(task: tuple[str, int, int, str, int]) -> _Game:
    return play(*task)


def _games(units: float) -> float | None:
    """Units (one deal and seat each, both agents playing it) as games of each agent."""
    return None if not math.isfinite(units) else round(units, 1)


def _pearson(x: list[float], y: list[float]) -> float | None:
    n = len(x)
    if n < 3:
        return None
    mx, my = sum(x) / n, sum(y) / n
    sxy = sum((a - mx) * (b - my) for a, b in zip(x, y, strict=True))
    sx = math.sqrt(sum((a - mx) ** 2 for a in x))
    sy = math.sqrt(sum((b - my) ** 2 for b in y))
    return round(sxy / (sx * sy), 4) if sx and sy else None


def text(r: dict[str, Any]) -> str:
    lines = [f"{r['strong']} vs {r['weak']} as the text environment's policy against "
             f"{r['opponent']}: {r['deals']} deals x 2 seats = {r['games']} games "
             f"({r['decisions']} decisions; quality at {r['quality_iterations']} analyser "
             f"iterations, {r['analyser_cpu_s_per_decision']} CPU s a decision)",
             f"  correlation of a game's summed quality with its outcome: "
             f"{r['quality_outcome_correlation']} (n = {r['games']} games)"]
    for name in REWARDS:
        f = r[name]
        lines.append(f"  {name}: paired difference {f['mean_difference']:+.4f} (95% CI "
                     f"{f['ci'][0]:+.4f} to {f['ci'][1]:+.4f}, n = {f['units']}); games of "
                     f"each agent needed to tell them apart: {f['games_needed']} (bootstrap "
                     f"95% CI {f['games_needed_ci'][0]} to {f['games_needed_ci'][1]})")
    return "\n".join(lines)

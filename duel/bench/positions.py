"""``duel bench positions``: how many positions of a suite separate two agents at 95%.

Both agents answer every position of the suite through their ordinary ``choose`` (the view and
the legal moves, a generator seeded from the bench seed and the position), and each answer is
scored by its loss (duel.grading.positions.suite). The per-position paired difference
d = loss(A) - loss(B) is what a position grading run tests. For n positions the test rejects
"no difference" at 95% when |z| >= 1.96, z = sum(d) / sqrt(sum(d^2)) (the paired sign-flip
statistic of duel.grading.sequential, the normal form of the permutation test the report
prints). Its power at n is
the share of 2,000 draws of n positions (with replacement, from the suite's differences) that
reject: new positions are taken to be like the suite's. The figure is the smallest n with 80%
power, with the normal-theory n = ((1.96 + 0.84) sd(d) / mean(d))^2 beside it.
"""

from __future__ import annotations

import hashlib
import math
import random
from concurrent.futures import ProcessPoolExecutor
from typing import Any, Final

from duel.agents.spec import make_agent
from duel.analysis.efficiency import bootstrap_power, units_for
from duel.grading.positions.suite import Position, Suite
from duel.stats import bootstrap_ci, mean, paired_permutation_p

SIZES: Final = (10, 20, 30, 50, 75, 100, 150, 200, 300, 400, 600, 800, 1000, 1500, 2000, 3000)
POWER: Final = 0.8
DRAWS: Final = 2000


def answer_seed(seed: int, position: str) -> int:
    digest = hashlib.sha256(f"duel-bench-positions:{seed}:{position}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


def losses(spec: str, positions: list[Position], seed: int) -> list[float]:
    """The loss of `spec`'s answer at each position (one agent, in this process)."""
    agent = make_agent(spec)
    out = []
    for pos in positions:
        decision = agent.choose(pos.view, list(pos.legal), random.Random(answer_seed(seed, pos.id)))
        out.append(pos.loss(decision.move, decision.forfeit))
    return out


def answer_suite(spec: str, suite: Suite, seed: int, jobs: int) -> list[float]:
    """`losses` over the whole suite, in its order, split over `jobs` processes."""
    positions = list(suite.positions)
    if jobs <= 1 or len(positions) < 2:
        return losses(spec, positions, seed)
    chunks = [positions[i::jobs] for i in range(jobs)]
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        parts = list(pool.map(losses, [spec] * jobs, chunks, [seed] * jobs))
    out = [0.0] * len(positions)
    for i, part in enumerate(parts):
        out[i::jobs] = part
    return out


def separate(a: list[float], b: list[float], seed: int = 0) -> dict[str, Any]:
    """The paired comparison of two agents' losses on the same positions, and the positions it
    takes to tell them apart (see the module docstring)."""
    diffs = [x - y for x, y in zip(a, b, strict=True)]
    sd = math.sqrt(sum((d - mean(diffs)) ** 2 for d in diffs) / (len(diffs) - 1)) \
        if len(diffs) > 1 else 0.0
    mu = mean(diffs)
    curve: list[tuple[int, float]] = []
    for n in SIZES:
        p = bootstrap_power(diffs, n, resamples=DRAWS, seed=seed + n, test="sign-flip") \
            if any(diffs) else 0.0
        curve.append((n, p))
        if p >= POWER + 0.1:
            break
    needed = next((n for n, p in curve if p >= POWER), None)
    lo, hi = bootstrap_ci(diffs, seed=seed)
    return {"positions": len(diffs), "mean_a": mean(a), "mean_b": mean(b),
            "ci_a": bootstrap_ci(a, seed=seed), "ci_b": bootstrap_ci(b, seed=seed),
            "mean_diff": mu, "sd_diff": sd, "diff_ci": (lo, hi),
            "p_value": paired_permutation_p(diffs, seed=seed),
            "same_answer": mean([1.0 if d == 0 else 0.0 for d in diffs]),
            "curve": curve, "needed": needed,
            "normal_needed": math.ceil(units_for(mu, sd)) if mu else None}


def text(r: dict[str, Any], a: str, b: str, suite_name: str) -> str:
    """The figures, for the terminal (and the README)."""
    lines = [
        f"Suite {suite_name}: {r['positions']} positions; {a} against {b}, each answering "
        "every position once",
        f"  mean loss {a}: {r['mean_a']:.4f} ({r['ci_a'][0]:.4f}-{r['ci_a'][1]:.4f})",
        f"  mean loss {b}: {r['mean_b']:.4f} ({r['ci_b'][0]:.4f}-{r['ci_b'][1]:.4f})",
        f"  paired difference per position: {r['mean_diff']:+.4f} (95% CI "
        f"{r['diff_ci'][0]:+.4f} to {r['diff_ci'][1]:+.4f}), sd {r['sd_diff']:.4f}, "
        f"permutation p {r['p_value']:.4f}; the same loss at {r['same_answer']:.0%} of positions",
        "  positions | power to separate them at 95% (2,000 resamples)",
    ]
    lines += [f"  {n:>9} | {p:.0%}" for n, p in r["curve"]]
    needed = "more than the table" if r["needed"] is None else str(r["needed"])
    normal = "—" if r["normal_needed"] is None else str(r["normal_needed"])
    lines.append(f"  positions for 80% power: {needed} (normal approximation: {normal})")
    return "\n".join(lines)

"""Small statistics used by tournaments and benchmarks."""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from typing import TypeVar

T = TypeVar("T")


def wilson(successes: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """Wilson score interval for a proportion (95% by default); (0, 1) when n is 0.

    `successes` may be fractional: a score rate with draws as half a win. Each game then scores
    0, 1/2 or 1, whose variance is at most p(1 - p), so the interval is conservative (never too
    narrow). At 0 or n successes the bound on that side is exactly 0 or 1."""
    if n == 0:
        return 0.0, 1.0
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    lo = 0.0 if successes <= 0 else max(0.0, centre - half)
    hi = 1.0 if successes >= n else min(1.0, centre + half)
    return lo, hi


def mean(values: list[float]) -> float:
    return sum(values) / len(values) if values else 0.0


def bootstrap_ci(values: list[float], resamples: int = 2000, seed: int = 0,
                 level: float = 0.95) -> tuple[float, float]:
    """Percentile bootstrap CI of the mean (resampling the paired units, e.g. deals)."""
    if not values:
        return 0.0, 0.0
    rng = random.Random(seed)
    n = len(values)
    means = sorted(sum(values[rng.randrange(n)] for _ in range(n)) / n
                   for _ in range(resamples))
    lo = means[int((1 - level) / 2 * resamples)]
    hi = means[min(resamples - 1, int((1 + level) / 2 * resamples))]
    return lo, hi


def bootstrap_stat_ci(units: Sequence[T], stat: Callable[[Sequence[T]], float],
                      resamples: int = 2000, seed: int = 0, level: float = 0.95
                      ) -> tuple[float, float]:
    """Percentile bootstrap CI of any statistic of `units` resampled whole: a unit (a game, a
    deal) holds observations that are not independent of each other, so they are drawn
    together. `stat` gets each resample (a list of units)."""
    if not units:
        return 0.0, 0.0
    rng = random.Random(seed)
    n = len(units)
    values = sorted(stat([units[rng.randrange(n)] for _ in range(n)])
                    for _ in range(resamples))
    lo = values[int((1 - level) / 2 * resamples)]
    hi = values[min(resamples - 1, int((1 + level) / 2 * resamples))]
    return lo, hi


def paired_permutation_p(diffs: list[float], resamples: int = 10000, seed: int = 0) -> float:
    """Two-sided p-value of a sign-flip permutation test for a zero mean paired difference.
    Exact over all 2^n sign patterns when n <= 16."""
    n = len(diffs)
    if n == 0:
        return 1.0
    observed = abs(sum(diffs))
    eps = 1e-12
    if n <= 16:
        hits = 0
        for mask in range(1 << n):
            total = sum(-d if (mask >> i) & 1 else d for i, d in enumerate(diffs))
            if abs(total) >= observed - eps:
                hits += 1
        return hits / (1 << n)
    rng = random.Random(seed)
    hits = 0
    for _ in range(resamples):
        total = sum(d if rng.random() < 0.5 else -d for d in diffs)
        if abs(total) >= observed - eps:
            hits += 1
    return (hits + 1) / (resamples + 1)


def format_p(p: float) -> str:
    """A p-value as reports print it: three decimals, and "<0.001" below that (a permutation
    p-value is never 0; printing "0.000" would claim what it cannot)."""
    return "<0.001" if p < 0.001 else f"{p:.3f}"


def percentile(values: Sequence[float], q: float) -> float:
    """The `q` quantile of `values` (the nearest rank below; 0.0 for none)."""
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]

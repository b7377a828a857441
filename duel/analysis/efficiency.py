"""How many games separate two players by a metric: the number of independent units (seat-swapped
pairs of games, say) at which the metric's 95% CI excludes "no difference" with probability 80%.

Each unit gives one value of the metric (a pair's score rate for one player, or the difference
of the two players' mean loss per decision in that pair), with a mean `mu` and a standard
deviation `sigma` per unit. A 95% CI from n units, ``mean ± z(0.975) sigma / sqrt(n)``, excludes
the null value with probability `power` when

    n = ((z(1 - alpha/2) + z(power)) * sigma / |mu - null|) ** 2

(the normal approximation; 7.85 sigma^2 / mu^2 at 95% and 80%). :func:`units_needed` computes it
from observed units; :func:`bootstrap_power` checks it without the normal assumption: it draws n
units at a time from the observed ones, with replacement, and counts how often their CI excludes
the null; :func:`separation` adds a percentile bootstrap CI of n itself (the units resampled and
n recomputed), which is wide when the effect is small and known roughly.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np

from duel.errors import UsageError

ALPHA = 0.05
POWER = 0.80
_BLOCK = 2_000_000  # values drawn at once by bootstrap_power (memory, not accuracy)


def _z(p: float) -> float:
    return NormalDist().inv_cdf(p)


def _moments(values: Sequence[float]) -> tuple[float, float]:
    if len(values) < 2:
        raise UsageError(f"a sample size needs at least 2 units, got {len(values)}")
    arr = np.asarray(values, dtype=float)
    return float(arr.mean()), float(arr.std(ddof=1))


def units_for(mu: float, sigma: float, null: float = 0.0, alpha: float = ALPHA,
              power: float = POWER) -> float:
    """Units needed (the formula above, not rounded) for a true mean `mu` and spread `sigma`;
    infinite when there is no difference to find."""
    if not (0 < alpha < 1 and 0 < power < 1):
        raise UsageError(f"alpha and power must be in (0, 1), got {alpha} and {power}")
    if mu == null:
        return math.inf
    return ((_z(1 - alpha / 2) + _z(power)) * sigma / abs(mu - null)) ** 2


def units_needed(values: Sequence[float], null: float = 0.0, alpha: float = ALPHA,
                 power: float = POWER) -> float:
    """Units needed to separate the mean of units like `values` from `null` (see the module
    docstring), from their observed mean and standard deviation."""
    mu, sigma = _moments(values)
    return units_for(mu, sigma, null, alpha, power)


def bootstrap_power(values: Sequence[float], n: int, null: float = 0.0, alpha: float = ALPHA,
                    resamples: int = 2000, seed: int = 0, test: str = "ci") -> float:
    """The fraction of samples of `n` units drawn from `values` (with replacement) that the
    `test` separates from `null` at level `alpha`: "ci", the ``mean ± z sd / sqrt(n)`` interval
    excludes it; "sign-flip", the paired sign-flip statistic ``sum(d) / sqrt(sum(d^2))`` of
    the differences from it reaches z (what position grading tests; duel.bench.positions)."""
    if n < 2:
        raise UsageError(f"a sample needs at least 2 units, got {n}")
    if test not in ("ci", "sign-flip"):
        raise UsageError(f"test must be 'ci' or 'sign-flip', got {test!r}")
    arr = np.asarray(values, dtype=float)
    if arr.size == 0:
        raise UsageError("no units to draw from")
    z = _z(1 - alpha / 2)
    rng = np.random.default_rng(seed)
    hits = 0
    done = 0
    per_block = max(1, _BLOCK // n)
    while done < resamples:
        rows = min(per_block, resamples - done)
        sample = arr[rng.integers(0, arr.size, size=(rows, n))]
        if test == "ci":
            means = sample.mean(axis=1)
            half = z * sample.std(axis=1, ddof=1) / math.sqrt(n)
            hits += int(np.count_nonzero((means - half > null) | (means + half < null)))
        else:
            d = sample - null
            norm = np.sqrt((d * d).sum(axis=1))
            stat = np.divide(d.sum(axis=1), norm, out=np.zeros(rows), where=norm > 0)
            hits += int(np.count_nonzero(np.abs(stat) >= z))
        done += rows
    return hits / resamples


@dataclass(frozen=True)
class Separation:
    """One metric's figures over the observed units (`units` of them): its mean per unit with a
    95% CI, the spread per unit, the units needed to separate it from `null` (with a bootstrap
    CI), and the bootstrap power at that number."""

    units: int
    null: float
    mean: float
    ci: tuple[float, float]
    sd: float
    needed: float  # units; math.inf when the observed mean is the null
    needed_ci: tuple[float, float]
    power_at_needed: float  # bootstrap_power at ceil(needed); nan when needed is infinite

    @property
    def separated(self) -> bool:
        """Whether the observed units already exclude the null at 95%."""
        return not self.ci[0] <= self.null <= self.ci[1]


def separation(values: Sequence[float], null: float = 0.0, alpha: float = ALPHA,
               power: float = POWER, resamples: int = 2000, seed: int = 0) -> Separation:
    """:class:`Separation` of units like `values`."""
    mu, sigma = _moments(values)
    m = len(values)
    half = _z(1 - alpha / 2) * sigma / math.sqrt(m)
    needed = units_for(mu, sigma, null, alpha, power)
    arr = np.asarray(values, dtype=float)
    rng = np.random.default_rng(seed)
    draws = []
    for _ in range(resamples):
        sample = arr[rng.integers(0, m, size=m)]
        draws.append(units_for(float(sample.mean()), float(sample.std(ddof=1)), null, alpha,
                               power))
    draws.sort()
    needed_ci = (draws[int(alpha / 2 * resamples)],
                 draws[min(resamples - 1, int((1 - alpha / 2) * resamples))])
    at = (bootstrap_power(values, max(2, math.ceil(needed)), null, alpha, resamples, seed)
          if math.isfinite(needed) and needed < 1e6 else math.nan)
    return Separation(m, null, mu, (mu - half, mu + half), sigma, needed, needed_ci, at)

"""The stopping rule of ``duel grade --until-decided``: a group-sequential test per variant.

The unit is the deal: the variant and the baseline each play both seats of the same deal against
the same opponent, and the deal's paired difference is the variant's mean points over its two
games minus the baseline's (each game 1, 1/2 or 0), a number in [-1, 1]. Deals are taken in seed
order; a deal counts once all four of its games have finished.

Design: looks after every K deals (``--look-every``, default 10) and at the maximum N
(``--deals``). At a look with n deals the statistic is z = sum(d) / sqrt(sum(d^2)): the paired
sign-flip (randomisation) statistic, whose null distribution given the sizes |d| is that of a
sum of independent symmetric steps, close to normal and with independent increments from look to
look. It needs no variance estimated around the mean: a paired t statistic was tried first and
was wrongly significant in 5.4% of 20,000 simulated null runs of 20 or 30 deals and in 14% of
runs of 10 (a few equal differences make its variance zero); this one stays under 5% there (the
tests check it). The boundaries come from Lan-DeMets alpha spending with the
O'Brien-Fleming-type function (per side 2 - 2 Phi(z_{1-a/4} / sqrt t), a the two-sided alpha) at
the information fraction t = n / N, by recursive numerical integration over the earlier looks
(Armitage, McPherson and Rowe); for five looks at a = 0.05 they are the published 4.877, 3.357,
2.680, 2.290, 2.031. A variant is **different** from the baseline at the first look where |z|
reaches the boundary; at N without that, **no difference shown**. There is no stopping for
futility before N: saying "no difference" early needs an effect size worth finding, which a
grading run does not have; --deals is the futility bound.

Errors: the two-sided alpha (0.05) is shared by the real variants with Bonferroni: each
comparison is tested at alpha / m, m the number of variants other than the baseline and the null
variant (at least 1), so the chance that any real variant is wrongly declared different is at
most alpha. The null variant (the baseline under another name) is tested at the same alpha / m,
the per-comparison rate it checks; it never keeps a run going.

Why this design and not an SPRT on the pair signs: it needs no alternative effect size chosen in
advance, the maximum number of deals is the user's own --deals (a cost cap they think in
already), it uses the size of each difference and not only its sign (a sign test drops the many
tied deals), and O'Brien-Fleming-type spending keeps the boundary at the last look close to the
fixed-sample test's (2.03 against 1.96 for five looks), so stopping early costs little power.
Looks in batches also suit games that finish in parallel.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from statistics import NormalDist
from typing import Any

import numpy as np

from duel.errors import UsageError
from duel.stats import mean

ALPHA = 0.05
LOOK_EVERY = 10
_NORMAL = NormalDist()
_GRID = 801  # points of the numerical integration: boundaries good to about 1e-4


def _tail(x: float) -> float:
    """P(Z >= x) for a standard normal Z (accurate far into the tail)."""
    return 0.5 * math.erfc(x / math.sqrt(2))


def spent_alpha(t: float, alpha: float) -> float:
    """The O'Brien-Fleming-type spending function, per side as Lan and DeMets define it for a
    one-sided alpha/2 (the convention of gsDesign's sfLDOF and ldbounds): the two-sided alpha
    spent by information t is 2 * (2 - 2 Phi(z_{1-alpha/4} / sqrt t)), alpha at t = 1."""
    if t <= 0:
        return 0.0
    return min(alpha, 4.0 * _tail(_NORMAL.inv_cdf(1 - alpha / 4) / math.sqrt(t)))


@lru_cache(maxsize=64)
def boundaries(fractions: tuple[float, ...], alpha: float) -> tuple[float, ...]:
    """Two-sided z boundaries at increasing information `fractions` (the last 1.0) spending
    `alpha` (Lan-DeMets). Works on the score scale S_k = Z_k sqrt(t_k), whose increments are
    independent N(0, t_k - t_{k-1}): the density of S over the paths not yet stopped is carried
    from look to look on a grid, and each boundary is found by bisection so that the chance of
    first crossing at that look is the alpha spent since the last one."""
    out: list[float] = []
    grid: np.ndarray[Any, Any] | None = None  # S values of the continuing paths
    dens: np.ndarray[Any, Any] | None = None  # their sub-density times the grid weights
    prev_t = 0.0
    for t in fractions:
        target = spent_alpha(t, alpha) - spent_alpha(prev_t, alpha)
        step = math.sqrt(t - prev_t)
        rt = math.sqrt(t)

        def crossing(c: float, grid: Any = grid, dens: Any = dens, step: float = step,
                     rt: float = rt) -> float:
            if grid is None:
                return 2.0 * _tail(c)
            upper = [_tail(v) for v in ((c * rt - grid) / step).tolist()]
            lower = [_tail(v) for v in ((c * rt + grid) / step).tolist()]
            return float(np.dot(dens, np.add(upper, lower)))

        if target <= 1e-15:
            c = math.inf  # nothing to spend here: no rejection possible at this look
        elif grid is None:
            c = _NORMAL.inv_cdf(1 - target / 2)
        else:
            lo, hi = 0.0, 40.0
            for _ in range(45):
                mid = (lo + hi) / 2
                lo, hi = (mid, hi) if crossing(mid) > target else (lo, mid)
            c = (lo + hi) / 2
        out.append(c)
        half = (c if math.isfinite(c) else 8.0) * rt
        new_grid = np.linspace(-half, half, _GRID)
        weights = np.full(_GRID, 2.0 * half / (_GRID - 1))
        weights[0] = weights[-1] = weights[0] / 2  # trapezoid rule
        if grid is None:
            pdf = np.exp(-0.5 * (new_grid / rt) ** 2) / (rt * math.sqrt(2 * math.pi))
        else:
            kernel = np.exp(-0.5 * ((new_grid[:, None] - grid[None, :]) / step) ** 2)
            pdf = kernel @ dens / (step * math.sqrt(2 * math.pi))
        grid, dens, prev_t = new_grid, pdf * weights, t
    return tuple(out)


def z_score(diffs: list[float]) -> float:
    """The sum of the differences over the square root of the sum of their squares."""
    scale = math.sqrt(sum(d * d for d in diffs))
    return sum(diffs) / scale if scale else 0.0


@dataclass(frozen=True)
class Design:
    """Where the looks are and what error each comparison may make."""

    max_deals: int
    look_every: int = LOOK_EVERY
    alpha: float = ALPHA  # two-sided, shared by the real variants
    comparisons: int = 1  # m of the Bonferroni split

    def __post_init__(self) -> None:
        if self.max_deals < 2 or self.look_every < 2:
            raise UsageError("--until-decided needs --deals and --look-every of at least 2")
        if not 0 < self.alpha < 1 or self.comparisons < 1:
            raise UsageError("the sequential test needs 0 < alpha < 1 and a comparison")

    @property
    def alpha_each(self) -> float:
        return self.alpha / self.comparisons

    @property
    def looks(self) -> list[int]:
        """Deal counts at the looks: every look_every deals, and the maximum."""
        looks = list(range(self.look_every, self.max_deals, self.look_every))
        return [*looks, self.max_deals]

    @property
    def bounds(self) -> tuple[float, ...]:
        return boundaries(tuple(n / self.max_deals for n in self.looks), self.alpha_each)

    def describe(self) -> str:
        looks = self.looks
        return (f"group-sequential, {len(looks)} looks (after {', '.join(map(str, looks))} "
                f"deals), Lan-DeMets O'Brien-Fleming-type alpha spending, two-sided alpha "
                f"{self.alpha:g} over {self.comparisons} variant(s) by Bonferroni "
                f"({self.alpha_each:.4g} each); boundaries |z| >= "
                + ", ".join(f"{b:.3f}" for b in self.bounds))

    def to_json(self) -> dict[str, Any]:
        return {"max_deals": self.max_deals, "look_every": self.look_every,
                "alpha": self.alpha, "comparisons": self.comparisons}


@dataclass(frozen=True)
class Look:
    deals: int
    z: float
    boundary: float


DIFFERENT = "different"
NO_DIFFERENCE = "no difference shown"
OPEN = "undecided"


@dataclass(frozen=True)
class Verdict:
    decision: str  # DIFFERENT, NO_DIFFERENCE or OPEN
    looks: list[Look]  # the looks taken, the deciding one last
    mean_diff: float  # over the deals of the last look (0 before any)

    @property
    def decided(self) -> bool:
        return self.decision != OPEN

    def reason(self) -> str:
        if not self.looks:
            return "no look yet"
        last = self.looks[-1]
        where = f"look {len(self.looks)} ({last.deals} deals): z = {last.z:+.3f}"
        if self.decision == DIFFERENT:
            better = "better" if last.z > 0 else "worse"
            return f"{where} reached the boundary {last.boundary:.3f} ({better})"
        if self.decision == NO_DIFFERENCE:
            return f"{where} under the boundary {last.boundary:.3f} at the maximum"
        return f"{where} under the boundary {last.boundary:.3f}"


def decide(design: Design, diffs: list[float]) -> Verdict:
    """The test over the per-deal differences in deal order (only complete deals): the looks
    reached so far, stopping at the first that decides."""
    taken: list[Look] = []
    for n, bound in zip(design.looks, design.bounds, strict=True):
        if n > len(diffs):
            break
        z = z_score(diffs[:n])
        taken.append(Look(n, z, bound))
        if abs(z) >= bound:
            return Verdict(DIFFERENT, taken, mean(diffs[:n]))
        if n == design.max_deals:
            return Verdict(NO_DIFFERENCE, taken, mean(diffs[:n]))
    return Verdict(OPEN, taken, mean(diffs[:taken[-1].deals]) if taken else 0.0)

"""The --until-decided stopping rule keeps its promise: over many simulated grading runs a null
variant is declared different at most at the stated alpha, a real difference is found, early.

The simulated runs go through the grading code that decides a real run (the per-deal pairing,
the variants that keep a run going, the looks): only the games are fake. A fake game's points for
the LLM seat are drawn from a win probability per variant, shifted by how much the deal favours
that seat (the same shift for every variant on the deal, as in real paired deals), with 4%
shared victories (half a point).
"""

from __future__ import annotations

import math
import random

import pytest

from duel.errors import UsageError
from duel.grading.plan import BASELINE, NULL_VARIANT, GradeTask, Plan, holders
from duel.grading.sequential import (
    DIFFERENT,
    NO_DIFFERENCE,
    OPEN,
    Design,
    boundaries,
    decide,
    z_score,
)
from duel.grading.stopping import paired_diffs, verdicts

RUNS = 2000
ALPHA = 0.05
# The Monte Carlo error of a rejection rate near alpha over RUNS runs, and a 3-sigma tolerance.
TOLERANCE = 3 * math.sqrt(ALPHA * (1 - ALPHA) / RUNS)  # 0.0146


def fake_points(rng: random.Random, win: dict[str, float], deals: int, seed: int = 0,
                luck: float = 0.3) -> dict[tuple[str, int, int], float]:
    """Points of every fake game by (variant, deal, seat)."""
    points = {}
    for deal in range(seed, seed + deals):
        tilt = rng.uniform(-luck, luck)  # how much this deal favours seat 1
        for variant, p in win.items():
            for seat, shift in ((1, tilt), (2, -tilt)):
                if rng.random() < 0.04:
                    points[GradeTask(variant, deal, seat)] = 0.5
                else:
                    q = min(1.0, max(0.0, p + shift))
                    points[GradeTask(variant, deal, seat)] = 1.0 if rng.random() < q else 0.0
    return points


def simulate(win: dict[str, float], deals: int, look_every: int, runs: int = RUNS,
             seed: int = 1, luck: float = 0.3) -> tuple[dict[str, float], dict[str, float], float]:
    """Over `runs` fake runs: each variant's rate of being declared different, its mean number
    of deals at its decision, and the family-wise rate over the real variants."""
    names = [BASELINE, *win.keys() - {BASELINE, NULL_VARIANT}, NULL_VARIANT]
    plan = Plan(Design(deals, look_every, comparisons=len(holders(names))), 0, names)
    rng = random.Random(seed)
    found = dict.fromkeys(names[1:], 0)
    used = dict.fromkeys(names[1:], 0)
    any_real = 0
    for _ in range(runs):
        decided = verdicts(plan, fake_points(rng, {v: win.get(v, win[BASELINE])
                                                   for v in names}, deals, luck=luck))
        for v, verdict in decided.items():
            assert verdict.decided  # every comparison ends by the maximum
            found[v] += verdict.decision == DIFFERENT
            used[v] += verdict.looks[-1].deals
        any_real += any(decided[h].decision == DIFFERENT for h in holders(names)
                        if h != NULL_VARIANT)
    return ({v: n / runs for v, n in found.items()}, {v: n / runs for v, n in used.items()},
            any_real / runs)


@pytest.mark.parametrize(("deals", "look_every", "luck"), [(100, 10, 0.3), (20, 5, 0.0),
                                                           (30, 5, 0.45)])
def test_a_null_variant_is_declared_different_at_most_at_alpha(deals: int, look_every: int,
                                                               luck: float) -> None:
    # Measured over these 2,000 runs: 0.054, 0.057 and 0.045; over 20,000 runs of the first
    # two: 0.0495 and 0.0465 (the 2,000-run figures are within their Monte Carlo error).
    rate, _, _ = simulate({BASELINE: 0.5}, deals, look_every, luck=luck)
    assert rate[NULL_VARIANT] <= ALPHA + TOLERANCE, rate


def test_bonferroni_keeps_the_family_wise_error_over_three_null_variants() -> None:
    # Three variants that are the baseline in all but name: each tested at 0.05 / 3.
    # Measured: family-wise 0.042; each variant and the null 0.014 to 0.017.
    rate, _, family = simulate({BASELINE: 0.5, "a": 0.5, "b": 0.5, "c": 0.5}, 50, 10)
    assert family <= ALPHA + TOLERANCE, family
    for v in ("a", "b", "c", NULL_VARIANT):
        assert rate[v] <= ALPHA / 3 + 3 * math.sqrt(ALPHA / 3 / RUNS), rate


def test_a_real_difference_is_found_and_early() -> None:
    # Win probability 0.65 against the baseline's 0.5: 0.144 points per deal. Measured over
    # 2,000 runs: power 0.873 (a single test after all 100 deals at 1.96: 0.888), decided after
    # 73 deals on average instead of 100.
    rate, deals, _ = simulate({BASELINE: 0.5, "better": 0.65}, 100, 10)
    assert rate["better"] >= 0.82, rate
    assert deals["better"] <= 80, deals
    # the null variant alongside it still errs at most at alpha
    assert rate[NULL_VARIANT] <= ALPHA + TOLERANCE, rate


def test_boundaries_are_the_published_ones() -> None:
    # Lan-DeMets O'Brien-Fleming-type spending, five equally spaced looks, two-sided 0.05
    # (e.g. gsDesign sfLDOF / ldbounds: 4.877, 3.357, 2.680, 2.290, 2.031)
    found = boundaries(tuple(i / 5 for i in range(1, 6)), 0.05)
    for got, want in zip(found, (4.8769, 3.3570, 2.6803, 2.2898, 2.0310), strict=True):
        assert got == pytest.approx(want, abs=2e-3)
    assert boundaries((1.0,), 0.05) == (pytest.approx(1.95996, abs=1e-4),)
    # two looks: the first spends 2*(2 - 2 Phi(z_0.9875 * sqrt 2)) = 0.00305 -> 2.963
    assert boundaries((0.5, 1.0), 0.05)[0] == pytest.approx(2.9626, abs=1e-3)


def test_the_statistic_and_the_decisions_at_the_looks() -> None:
    assert z_score([]) == 0.0 and z_score([0.0, 0.0]) == 0.0
    assert z_score([0.5, 0.5]) == pytest.approx(math.sqrt(2))
    assert z_score([1.0, -0.5, 0.5]) == pytest.approx(1.0 / math.sqrt(1.5))
    design = Design(20, 10)
    assert design.looks == [10, 20]
    assert Design(25, 10).looks == [10, 20, 25]
    c1, c2 = design.bounds
    # before the first look nothing is decided
    assert decide(design, [1.0] * 9).decision == OPEN
    # ten equal differences: z = sqrt(10) = 3.16 >= 2.963 at the first look
    verdict = decide(design, [1.0] * 25)
    assert verdict.decision == DIFFERENT and len(verdict.looks) == 1
    assert verdict.looks[0].z == pytest.approx(math.sqrt(10)) and verdict.looks[0].boundary == c1
    assert "look 1 (10 deals)" in verdict.reason() and "better" in verdict.reason()
    # noise runs to the maximum and shows no difference there
    noise = [0.5, -0.5] * 10
    verdict = decide(design, noise)
    assert verdict.decision == NO_DIFFERENCE and [x.deals for x in verdict.looks] == [10, 20]
    assert verdict.looks[-1].boundary == c2 and "at the maximum" in verdict.reason()
    assert decide(design, noise[:15]).decision == OPEN


def test_a_deal_counts_once_all_four_of_its_games_have_finished() -> None:
    points = {GradeTask(v, d, s): 1.0 if v == "x" else 0.0 for v in ("x", BASELINE)
              for d in (3, 4, 6) for s in (1, 2)}
    points[GradeTask("x", 4, 2)] = 0.5
    assert paired_diffs(points, "x", 3, 10) == [1.0, 0.75]  # deal 5 is missing: stop there
    del points[GradeTask(BASELINE, 3, 1)]
    assert paired_diffs(points, "x", 3, 10) == []


def test_the_null_variant_keeps_a_run_going_only_when_it_is_the_only_one() -> None:
    assert holders([BASELINE, "errata", NULL_VARIANT]) == ["errata"]
    assert holders([BASELINE, NULL_VARIANT]) == [NULL_VARIANT]
    assert Design(50, 10, comparisons=2).alpha_each == 0.025
    with pytest.raises(UsageError, match="--look-every"):
        Design(50, 1)

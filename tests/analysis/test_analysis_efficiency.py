"""The games-to-separate estimator against simulated data with a known effect: it returns about
the analytically expected number, and at that number a fresh experiment separates the players
about 80% of the time."""

from __future__ import annotations

import math

import numpy as np
import pytest

from duel.analysis.efficiency import bootstrap_power, separation, units_for, units_needed
from duel.bench.analyser_experiments import games_text, pair_scores
from duel.errors import UsageError


def test_the_formula() -> None:
    # (1.95996 + 0.84162)^2 = 7.849: 196 units for an effect of 0.2 standard deviations.
    assert units_for(0.2, 1.0) == pytest.approx(196.2, abs=0.1)
    assert units_for(0.6, 0.5, null=0.5) == pytest.approx(7.849 * 25, abs=0.1)
    assert units_for(0.5, 0.5, null=0.5) == math.inf
    with pytest.raises(UsageError, match="alpha and power"):
        units_for(0.2, 1.0, power=1.0)


def test_it_finds_the_expected_number_for_a_normal_effect() -> None:
    values = np.random.default_rng(1).normal(0.2, 1.0, 100_000).tolist()
    assert units_needed(values) == pytest.approx(196, rel=0.08)
    assert bootstrap_power(values, 196, resamples=2000, seed=2) == pytest.approx(0.80, abs=0.04)
    # Smaller samples separate less often, larger ones more.
    assert bootstrap_power(values, 60, resamples=1000) < 0.45
    assert bootstrap_power(values, 500, resamples=1000) > 0.97


def test_it_finds_the_expected_number_for_win_rates() -> None:
    """Pairs of games of a player who scores 60%: a pair's score is 0, 1/2 or 1 with chances
    0.16, 0.48 and 0.36 (variance 0.12), so n = 7.849 * 0.12 / 0.1^2 = 94 pairs."""
    rng = np.random.default_rng(3)
    pairs = ((rng.random((4000, 2)) < 0.6).mean(axis=1)).tolist()
    s = separation(pairs, null=0.5, resamples=300, seed=4)
    assert s.needed == pytest.approx(94, rel=0.15)
    assert s.needed_ci[0] < s.needed < s.needed_ci[1]
    assert s.power_at_needed == pytest.approx(0.80, abs=0.05)
    assert s.separated
    # A fresh experiment of that many pairs from the true distribution separates ~80% of the
    # time: the number is right, not only consistent with the data it came from.
    n = math.ceil(s.needed)
    trials = (rng.random((3000, n, 2)) < 0.6).mean(axis=2)
    half = 1.959964 * trials.std(axis=1, ddof=1) / math.sqrt(n)
    assert float(np.mean(trials.mean(axis=1) - half > 0.5)) == pytest.approx(0.80, abs=0.05)


def test_no_effect_needs_more_games_than_any_budget() -> None:
    values = [1.0, -1.0, 0.5, -0.5] * 100  # exactly no observed difference
    s = separation(values, resamples=200)
    assert s.needed == math.inf and not s.separated and math.isnan(s.power_at_needed)
    assert games_text(s.needed) == "more than 100000" and games_text(10.2) == "22"
    with pytest.raises(UsageError, match="at least 2 units"):
        units_needed([0.3])


def test_pairs_of_games() -> None:
    assert pair_scores([1.0, 0.0, 1.0, 0.5]) == [0.5, 0.75]
    with pytest.raises(UsageError, match="even number"):
        pair_scores([1.0, 0.0, 1.0])

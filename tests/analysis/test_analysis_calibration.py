"""The Brier score and the reliability table against simulated forecasts whose calibration is
known: calibrated forecasts pass, miscalibrated ones are caught."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from duel.analysis.calibration import (
    Forecast,
    brier,
    calibrate,
    constant_brier,
    plot,
    reliability,
)
from duel.errors import UsageError


def simulated(n: int, forecast_of: object = None, per_game: int = 1, seed: int = 0
              ) -> list[Forecast]:
    """`n` forecasts whose true win chance p is uniform on [0, 1] and whose outcome is drawn
    with chance p; the forecast is p itself, or `forecast_of(p)` (a miscalibrated one).
    `per_game` consecutive forecasts share a game (and its outcome)."""
    rng = random.Random(seed)
    out = []
    for g in range(n // per_game):
        p = rng.random()
        outcome = 1.0 if rng.random() < p else 0.0
        said = forecast_of(p) if callable(forecast_of) else p
        out += [Forecast(g, i, 1, 1, said, outcome) for i in range(per_game)]
    return out


def test_calibrated_forecasts_are_found_calibrated() -> None:
    forecasts = simulated(6000)
    cal = calibrate(forecasts, resamples=300)
    assert len(cal.bins) == 10 and sum(b.n for b in cal.bins) == 6000
    # Each bin's interval holds its mean forecast with 95% chance: 10 of 10, or 9 by bad luck.
    assert len(cal.misses) <= 1
    for b in cal.bins:
        assert abs(b.observed - b.predicted) < 0.06
    # The Brier score of a calibrated forecaster with p uniform is E[p(1-p)] = 1/6.
    assert cal.brier_ci[0] <= 1 / 6 <= cal.brier_ci[1]
    assert abs(cal.half_brier - 0.25) < 0.01 and cal.skill > 0.25


def test_overconfident_and_biased_forecasts_are_caught() -> None:
    def overconfident(p: float) -> float:
        return min(1.0, max(0.0, 0.5 + 1.8 * (p - 0.5)))

    def pessimist(p: float) -> float:
        return p * p

    good = calibrate(simulated(4000), resamples=200)
    for wrong in (overconfident, pessimist):
        cal = calibrate(simulated(4000, wrong), resamples=200)
        assert len(cal.misses) >= 4, wrong.__name__
        assert cal.brier_ci[0] > good.brier, wrong.__name__  # and it scores worse


def test_trivial_forecasters_and_the_table() -> None:
    forecasts = [Forecast(0, 1, 1, 1, 1.0, 1.0), Forecast(1, 1, 1, 2, 0.0, 0.0),
                 Forecast(2, 1, 2, 1, 0.25, 0.5), Forecast(3, 1, 3, 2, 0.75, 0.0)]
    assert brier(forecasts) == pytest.approx((0 + 0 + 0.0625 + 0.5625) / 4)
    assert constant_brier(forecasts, 0.5) == pytest.approx((0.25 + 0.25 + 0 + 0.25) / 4)
    table = reliability(forecasts)
    # 1.0 goes in the last bin, 0.0 in the first; empty bins are left out.
    assert [(b.lo, b.n) for b in table] == [(0.0, 1), (0.2, 1), (0.7, 1), (0.9, 1)]
    assert table[1].observed == 0.5  # a draw counts half
    cal = calibrate(forecasts, resamples=200)
    assert cal.base_rate == pytest.approx(0.375) and set(cal.by_age) == {1, 2, 3}
    with pytest.raises(UsageError, match="no forecasts"):
        calibrate([])
    with pytest.raises(UsageError, match="bins"):
        reliability(forecasts, bins=0)


def test_the_bootstrap_resamples_whole_games() -> None:
    """Forecasts of one game share its outcome: repeating each forecast 5 times in its game
    must not narrow the Brier score's interval, as resampling single forecasts would."""
    once = calibrate(simulated(400), resamples=1000)
    five = calibrate(simulated(2000, per_game=5), resamples=1000)
    assert five.brier == pytest.approx(once.brier)
    width = once.brier_ci[1] - once.brier_ci[0]
    assert five.brier_ci[1] - five.brier_ci[0] == pytest.approx(width, rel=0.25)


def test_the_reliability_plot_is_written(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    out = plot(calibrate(simulated(500), resamples=100), tmp_path / "docs" / "r.png", "test")
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"

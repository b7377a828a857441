"""Is the analyser's win chance a probability? Brier score and reliability of forecasts against
the games' results.

A **forecast** is the analyser's win chance for the player to move at one ply (the point of the
win-chance curve: the value, from the mover's side, of the position after the move played) and
the **outcome** is that player's result in the game (1 win, 1/2 draw, 0 loss).

- **Brier score**: the mean of ``(forecast - outcome) ** 2``; 0 is perfect, and a forecaster that
  always says 1/2 scores 0.25 on games without draws. Its 95% CI is a percentile bootstrap over
  *games* (the forecasts of one game share its outcome, so they are resampled together). Beside
  it, the Brier scores of two trivial forecasters: the constant 1/2 and the base rate (the mean
  outcome), and the **skill score** ``1 - brier / base-rate brier`` (0: no better than the base
  rate; 1: perfect), with its bootstrap CI.
- **Reliability**: forecasts binned by their value (10 bins of width 0.1); per bin the mean
  forecast, the observed score rate with its Wilson 95% interval (draws count 1/2), and n. A
  calibrated forecaster's mean forecast lies inside the interval in about 95% of bins; the
  intervals treat a bin's forecasts as independent, which they nearly are (the plies sampled from
  one game have different forecasts, so they mostly fall in different bins).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from duel.errors import UsageError
from duel.stats import bootstrap_stat_ci, wilson

BINS = 10


@dataclass(frozen=True)
class Forecast:
    """One forecast: `predicted` (the analyser's win chance of `player`, to move at `ply`) and
    `outcome` (that player's result), from game number `game` (the bootstrap's unit)."""

    game: int
    ply: int
    age: int
    player: int
    predicted: float
    outcome: float

    def to_json(self) -> dict[str, Any]:
        return {"game": self.game, "ply": self.ply, "age": self.age, "player": self.player,
                "predicted": self.predicted, "outcome": self.outcome}

    @staticmethod
    def from_json(obj: dict[str, Any]) -> Forecast:
        return Forecast(obj["game"], obj["ply"], obj["age"], obj["player"], obj["predicted"],
                        obj["outcome"])


def brier(forecasts: Sequence[Forecast]) -> float:
    """The mean squared difference of forecast and outcome."""
    if not forecasts:
        raise UsageError("no forecasts to score")
    return sum((f.predicted - f.outcome) ** 2 for f in forecasts) / len(forecasts)


def constant_brier(forecasts: Sequence[Forecast], p: float) -> float:
    """The Brier score of a forecaster that always says `p` on the same outcomes."""
    if not forecasts:
        raise UsageError("no forecasts to score")
    return sum((p - f.outcome) ** 2 for f in forecasts) / len(forecasts)


def base_rate(forecasts: Sequence[Forecast]) -> float:
    """The mean outcome: the best constant forecast in hindsight."""
    return sum(f.outcome for f in forecasts) / len(forecasts) if forecasts else 0.5


@dataclass(frozen=True)
class Bin:
    """Forecasts in [lo, hi): how many, their mean, the observed score rate and its Wilson
    95% interval."""

    lo: float
    hi: float
    n: int
    predicted: float
    observed: float
    ci: tuple[float, float]

    @property
    def calibrated(self) -> bool:
        """The mean forecast lies inside the observed rate's interval."""
        return self.ci[0] <= self.predicted <= self.ci[1]


def reliability(forecasts: Sequence[Forecast], bins: int = BINS) -> list[Bin]:
    """The reliability table: one :class:`Bin` per non-empty bin of equal width, lowest first
    (a forecast of exactly 1 goes in the last bin)."""
    if bins < 1:
        raise UsageError(f"the number of bins must be at least 1, got {bins}")
    groups: list[list[Forecast]] = [[] for _ in range(bins)]
    for f in forecasts:
        groups[min(bins - 1, max(0, int(f.predicted * bins)))].append(f)
    table = []
    for i, group in enumerate(groups):
        if group:
            n = len(group)
            score = sum(f.outcome for f in group)
            table.append(Bin(i / bins, (i + 1) / bins, n,
                             sum(f.predicted for f in group) / n, score / n, wilson(score, n)))
    return table


# A game's forecasts summed: (squared errors, forecasts, outcomes, squared outcomes), enough for
# the Brier score and the base rate's on any resample of games.
_Sums = tuple[float, int, float, float]


def _by_game(forecasts: Sequence[Forecast]) -> list[_Sums]:
    games: dict[int, list[float]] = {}
    for f in forecasts:
        g = games.setdefault(f.game, [0.0, 0, 0.0, 0.0])
        g[0] += (f.predicted - f.outcome) ** 2
        g[1] += 1
        g[2] += f.outcome
        g[3] += f.outcome ** 2
    return [(g[0], int(g[1]), g[2], g[3]) for g in games.values()]


def _brier(units: Sequence[_Sums]) -> float:
    return sum(u[0] for u in units) / sum(u[1] for u in units)


def _skill(units: Sequence[_Sums]) -> float:
    """1 - Brier / the base rate's Brier; the latter is the outcomes' variance,
    mean(o^2) - mean(o)^2."""
    n = sum(u[1] for u in units)
    rate = sum(u[2] for u in units) / n
    reference = sum(u[3] for u in units) / n - rate * rate
    return 1 - _brier(units) / reference if reference > 1e-12 else 0.0


@dataclass(frozen=True)
class Calibration:
    """The figures of a set of forecasts (see the module docstring)."""

    forecasts: int
    games: int
    brier: float
    brier_ci: tuple[float, float]
    base_rate: float
    base_rate_brier: float
    half_brier: float  # the constant 1/2's
    skill: float
    skill_ci: tuple[float, float]
    bins: list[Bin]
    by_age: dict[int, tuple[int, float, tuple[float, float]]]  # age: (n, brier, its CI)

    @property
    def misses(self) -> list[Bin]:
        """The bins whose mean forecast lies outside their observed rate's interval."""
        return [b for b in self.bins if not b.calibrated]


def calibrate(forecasts: Sequence[Forecast], bins: int = BINS, resamples: int = 2000,
              seed: int = 0) -> Calibration:
    """The Brier score, the trivial forecasters', the skill score and the reliability table,
    with bootstrap CIs over games."""
    units = _by_game(forecasts)
    if not units:
        raise UsageError("no forecasts to score")
    by_age = {}
    for age in sorted({f.age for f in forecasts}):
        mine = _by_game([f for f in forecasts if f.age == age])
        by_age[age] = (sum(u[1] for u in mine), _brier(mine),
                       bootstrap_stat_ci(mine, _brier, resamples, seed))
    rate = base_rate(forecasts)
    return Calibration(len(forecasts), len(units), _brier(units),
                       bootstrap_stat_ci(units, _brier, resamples, seed), rate,
                       constant_brier(forecasts, rate), constant_brier(forecasts, 0.5),
                       _skill(units), bootstrap_stat_ci(units, _skill, resamples, seed),
                       reliability(forecasts, bins), by_age)


def plot(cal: Calibration, path: str | Path, title: str) -> Path:
    """The reliability diagram as a PNG: the observed rate against the mean forecast per bin
    with its interval, the diagonal of perfect calibration, and the number of forecasts per bin
    below (needs matplotlib, the `train` extra)."""
    try:
        import matplotlib
    except ImportError:
        raise UsageError("the reliability plot needs matplotlib: pip install 'duel[train]'"
                         ) from None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (top, bottom) = plt.subplots(2, 1, figsize=(5.5, 6.5), sharex=True,
                                      gridspec_kw={"height_ratios": [3, 1]})
    top.plot([0, 1], [0, 1], color="grey", linestyle="--", linewidth=1,
             label="perfectly calibrated")
    xs = [b.predicted for b in cal.bins]
    ys = [b.observed for b in cal.bins]
    errors = [[b.observed - b.ci[0] for b in cal.bins], [b.ci[1] - b.observed for b in cal.bins]]
    top.errorbar(xs, ys, yerr=errors, fmt="o-", capsize=3, color="tab:blue",
                 label="observed score rate (Wilson 95%)")
    top.set_ylabel("observed score rate of the player")
    top.set_xlim(-0.02, 1.02)
    top.set_ylim(-0.02, 1.02)
    top.set_title(title, fontsize=9)
    top.legend(loc="upper left", fontsize=8)
    top.text(0.98, 0.03, f"Brier {cal.brier:.3f} (95% CI {cal.brier_ci[0]:.3f}-"
             f"{cal.brier_ci[1]:.3f})\nbase rate {cal.base_rate_brier:.3f}, "
             f"constant 1/2 {cal.half_brier:.3f}\n{cal.forecasts} forecasts, {cal.games} games",
             ha="right", va="bottom", fontsize=8, transform=top.transAxes)
    bottom.bar([(b.lo + b.hi) / 2 for b in cal.bins], [b.n for b in cal.bins],
               width=[0.9 * (b.hi - b.lo) for b in cal.bins], color="tab:blue", alpha=0.5)
    bottom.set_xlabel("analyser's win chance for the player to move (after the move played)")
    bottom.set_ylabel("forecasts")
    fig.tight_layout()
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return out

"""The PNG plots of grading reports, one variant per bar: a figure with its 95% CI, a paired
difference from the baseline with its permutation p-value, and legality. Game grading
(duel.grading.report) and position grading (duel.grading.positions.grade) draw theirs with
these, so the two
reports look alike."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class Bars:
    """A figure per variant with its CI: the row keys of the value, the low and the high."""

    key: str
    low: str
    high: str
    color: str
    ylabel: str
    title: str
    ylim: tuple[float, float] | None = None


@dataclass(frozen=True)
class Paired:
    """A paired difference from the baseline per variant; `count` is the row key of the number
    of pairs (no p-value is drawn without any) and `p` that of the p-value."""

    key: str
    low: str
    high: str
    count: str
    p: str
    ylabel: str
    title: str


Chart = Bars | Paired | None  # None: the legality chart


def draw(table: list[dict[str, Any]], out: Path, charts: dict[str, Chart]) -> list[Path]:
    """Write one PNG per entry of `charts` (file name to chart) into `out`; their paths."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = [r["variant"] for r in table]

    def save(name: str, paint: Callable[[Any], None]) -> Path:
        fig, ax = plt.subplots(figsize=(max(4, 1.3 * len(names)), 3.5))
        paint(ax)
        fig.tight_layout()
        path = out / name
        fig.savefig(path, dpi=110)
        plt.close(fig)
        return path

    def painter(chart: Chart) -> Callable[[Any], None]:
        if chart is None:
            return lambda ax: _legality(ax, table, names)
        if isinstance(chart, Bars):
            return lambda ax: _bars(ax, table, names, chart)
        return lambda ax: _paired(ax, table, names, chart)

    return [save(name, painter(chart)) for name, chart in charts.items()]


def _error_bars(ax: Any, table: list[dict[str, Any]], names: list[str], key: str, low: str,
                high: str, color: str) -> None:
    values = [r[key] for r in table]
    ax.bar(names, values, capsize=4, color=color,
           yerr=[[r[key] - r[low] for r in table], [r[high] - r[key] for r in table]])


def _bars(ax: Any, table: list[dict[str, Any]], names: list[str], chart: Bars) -> None:
    _error_bars(ax, table, names, chart.key, chart.low, chart.high, chart.color)
    if chart.ylim is not None:
        ax.set_ylim(*chart.ylim)
    ax.set_ylabel(chart.ylabel)
    ax.set_title(chart.title)


def _paired(ax: Any, table: list[dict[str, Any]], names: list[str], chart: Paired) -> None:
    _error_bars(ax, table, names, chart.key, chart.low, chart.high, "#b5704a")
    ax.axhline(0, color="black", linewidth=0.8)
    for i, r in enumerate(table):  # the permutation test's p-value over each bar
        if r[chart.count]:
            ax.annotate(f"p={r[chart.p]:.3f}", (i, r[chart.high]), ha="center", va="bottom",
                        fontsize=8, xytext=(0, 3), textcoords="offset points")
    low = min([0.0, *(r[chart.low] for r in table)])
    high = max([0.0, *(r[chart.high] for r in table)])
    span = (high - low) or 1.0
    ax.set_ylim(low - 0.1 * span, high + 0.2 * span)
    ax.set_ylabel(chart.ylabel)
    ax.set_title(chart.title)


def _legality(ax: Any, table: list[dict[str, Any]], names: list[str]) -> None:
    x = list(range(len(names)))
    ax.bar([i - 0.2 for i in x], [r["first_try_legal"] for r in table], width=0.4,
           label="first try", color="#4a7ab5")
    ax.bar([i + 0.2 for i in x], [r["legal_after_retries"] for r in table], width=0.4,
           label="after retries", color="#7fb54a")
    ax.set_xticks(x, names)
    ax.set_ylim(0, 1.25)
    ax.set_yticks([0, 0.25, 0.5, 0.75, 1])
    ax.set_ylabel("legal moves (share of LLM moves)")
    ax.set_title("Legality by prompt variant")
    ax.legend(loc="upper center", ncol=2, fontsize=8)

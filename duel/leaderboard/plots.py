"""The leaderboard's plots, as SVG files (matplotlib; text kept as text, no date in the file,
so the same board draws the same bytes): ratings with their intervals, rating against cost per
game with the frontier marked, and loss per decision by Age and by decision kind. Each player
is labelled with its row number in the table and its spec (cut short, never renamed)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, Final

from .figures import AGES, Board

LABEL: Final = 44  # characters of a spec in a plot's label
ANCHOR: Final = "#8a6d1d"
PLAYER: Final = "#2f6db5"
FRONTIER: Final = "#c0392b"


def label(row: dict[str, Any], number: int) -> str:
    spec = str(row["player"])
    return f"#{number} {spec if len(spec) <= LABEL else spec[:LABEL - 1] + '…'}"


def draw(board: Board, out: Path) -> dict[str, str]:
    """Write the plots that have something to show into `out`; their file names by plot
    ("ratings", "cost", "loss")."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out.mkdir(parents=True, exist_ok=True)
    written: dict[str, str] = {}
    # No mathtext: a "$" in a spec or a label is a dollar sign.
    with plt.rc_context({"svg.fonttype": "none", "svg.hashsalt": "duel", "font.size": 9,
                         "text.parse_math": False}):
        for name, paint in (("ratings", _ratings), ("cost", _cost), ("loss", _loss)):
            fig = paint(board, plt)
            if fig is None:
                continue
            fig.savefig(out / f"{name}.svg", format="svg", metadata={"Date": None},
                        bbox_inches="tight")
            plt.close(fig)
            written[name] = f"{name}.svg"
    return written


def _numbered(board: Board) -> list[tuple[int, dict[str, Any]]]:
    return list(enumerate(board.players, 1))


def _ratings(board: Board, plt: Any) -> Any:
    rows = _numbered(board)
    fig, ax = plt.subplots(figsize=(7.5, 0.8 + 0.34 * len(rows)))
    for y, (_, r) in enumerate(reversed(rows)):
        lo, hi = r["rating_ci"]
        color = ANCHOR if r["rung"] is not None else PLAYER
        ax.plot([lo, hi], [y, y], color=color, linewidth=2)
        ax.plot([r["rating"]], [y], marker="D" if r["rung"] is not None else "o",
                color=color, markerfacecolor="white" if r["provisional"] else color)
    ax.set_yticks(range(len(rows)), [label(r, i) for i, r in reversed(rows)])
    ax.axvline(0, color="#999", linewidth=0.8, linestyle="--")
    anchor = board.method.get("anchor")
    ax.set_xlabel(f"rating (Elo scale, 0 = {anchor or 'the mean'}); bars: 95% CI")
    ax.set_title("Ratings (diamonds: MCTS rungs; hollow: provisional, few games)")
    ax.grid(axis="x", alpha=0.3)
    return fig


def frontier(points: list[tuple[float, float, int]]) -> list[int]:
    """The players no other beats on both: none costs as little or less and rates higher, or
    costs less and rates as high (`points`: cost, rating, id); their ids, cheapest first."""
    best: list[int] = []
    top = float("-inf")
    for _, rating, i in sorted(points, key=lambda p: (p[0], -p[1])):
        if rating > top:
            best.append(i)
            top = rating
    return best


def _cost(board: Board, plt: Any) -> Any:
    rows = [(i, r) for i, r in _numbered(board) if r["cost_per_game_usd"] is not None]
    if not any(r["llm"] for _, r in rows):
        return None  # no player spent money: nothing to weigh
    fig, ax = plt.subplots(figsize=(7.5, 4.8))
    by_id = dict(rows)
    on = frontier([(r["cost_per_game_usd"], r["rating"], i) for i, r in rows])
    ax.plot([by_id[i]["cost_per_game_usd"] for i in on], [by_id[i]["rating"] for i in on],
            color=FRONTIER, linewidth=1.2, linestyle="--", drawstyle="steps-post",
            label="frontier: the best rating for the money")
    for i, r in rows:
        color = ANCHOR if r["rung"] is not None else PLAYER
        lo, hi = r["rating_ci"]
        x = r["cost_per_game_usd"]
        ax.plot([x, x], [lo, hi], color=color, linewidth=1, alpha=0.6)
        if r["cost_per_game_ci"]:
            ax.plot(r["cost_per_game_ci"], [r["rating"]] * 2, color=color, linewidth=1,
                    alpha=0.6)
        ax.plot([x], [r["rating"]], marker="o", color=FRONTIER if i in on else color)
        ax.annotate(label(r, i), (x, r["rating"]), textcoords="offset points", xytext=(5, 4),
                    fontsize=7)
    ax.set_xlabel("API cost per game (US$; agents that call no API: $0); bars: 95% CIs")
    ax.set_ylabel("rating (Elo scale)")
    ax.set_title("Rating against cost per game")
    ax.legend(loc="lower right", fontsize=7)
    ax.grid(alpha=0.3)
    return fig


def _loss(board: Board, plt: Any) -> Any:
    rows = [(i, r) for i, r in _numbered(board) if r["decisions"]]
    if not rows:
        return None
    kinds = sorted({k for _, r in rows for k in r["loss_by_kind"]})
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.8), gridspec_kw={"width_ratios":
                                                                  [len(AGES), max(1, len(kinds))]})
    width = 0.8 / len(rows)
    palette = plt.get_cmap("tab10")
    for ax, groups, key, title in ((axes[0], list(AGES), "loss_by_age", "by Age"),
                                   (axes[1], kinds, "loss_by_kind", "by decision kind")):
        for j, (i, r) in enumerate(rows):
            found: Callable[[str], dict[str, Any] | None] = r[key].get
            xs = [g + (j - (len(rows) - 1) / 2) * width for g in range(len(groups))]
            cells = [found(name) for name in groups]
            heights = [c["mean_loss"] if c else 0.0 for c in cells]
            errors = [[c["mean_loss"] - c["ci"][0] if c and c["ci"] else 0.0 for c in cells],
                      [c["ci"][1] - c["mean_loss"] if c and c["ci"] else 0.0 for c in cells]]
            ax.bar(xs, heights, width, yerr=errors, color=palette(j % 10), capsize=2,
                   label=label(r, i))
        ax.set_xticks(range(len(groups)), [f"Age {g}" if key == "loss_by_age" else g
                                           for g in groups])
        ax.set_title(f"Mean loss per decision, {title}")
        ax.grid(axis="y", alpha=0.3)
    axes[0].set_ylabel("expected score given away (95% CI)")
    axes[1].legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    return fig

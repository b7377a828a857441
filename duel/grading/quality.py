"""Move quality in game grading: the analyser's verdict on the graded seat's decisions, per prompt
variant, next to the win rate (``duel grade --analyse``, or whenever the games' sidecars exist).

Each finished game of a grading folder is a transcript; ``--analyse`` runs duel.analysis on the
LLM's seat of every game (only that seat: the opponent is not graded), writing the sidecar beside
it, and the report reads every fresh sidecar that covers the LLM's seat.

Figures, per variant:

- **mean loss per decision**: each game's mean loss over the LLM's analysed decisions (loss: the
  best move's value minus the played one's, in expected score; duel.analysis), averaged over the
  seats of a deal, then over deals. Deals weigh the same, as in the win rate's pairing.
- **blunder rate**: the share of the LLM's decisions with a loss of at least the analyser's
  blunder threshold (0.10), per game, then averaged the same way.
- each with a 95% percentile bootstrap CI over deals (the games of one deal share its cards, so
  the deal is the unit resampled), and its **paired difference from the baseline**: per deal, the
  variant's figure minus the baseline's over the seats both have analysed (the same deals and
  seats), with a paired bootstrap CI and a sign-flip permutation p-value (duel.stats).

A lower loss is better: a negative difference means the variant played better moves than the
baseline.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from duel.analysis import Settings, load_analysis
from duel.analysis.summary import BLUNDER
from duel.errors import TranscriptError
from duel.grading.plots import Bars, Chart, Paired
from duel.stats import bootstrap_ci, format_p, mean, paired_permutation_p
from duel.transcripts import read
from duel.util import tables


@dataclass(frozen=True)
class SeatLosses:
    """The analysed decisions of the graded seat of one game: their losses and the settings."""

    losses: tuple[float, ...]
    settings: str  # "4000 iterations, seed 0"

    @property
    def mean_loss(self) -> float:
        return mean(list(self.losses))

    @property
    def blunder_rate(self) -> float:
        return mean([1.0 if x >= BLUNDER else 0.0 for x in self.losses])


def settings_label(s: Settings) -> str:
    budget = f"{s.time:g} s" if s.time > 0 else f"{s.iterations} iterations"
    return f"{budget} per decision, seed {s.seed}"


def seat_losses(path: Path, seat: int) -> SeatLosses | None:
    """The graded seat's losses from the fresh sidecar of `path`; None without one (a stale one
    counts as none), without that seat, or without any analysed decision of it."""
    try:
        found = load_analysis(path)
    except TranscriptError:
        return None
    if found is None or seat not in found.seats:
        return None
    losses = tuple(d.loss for d in found.decisions if d.player == seat)
    return SeatLosses(losses, settings_label(found.settings)) if losses else None


def graded_games(out: str | Path) -> list[tuple[Path, int]]:
    """The finished games of a grading folder with the LLM's seat (from the file name)."""
    games = []
    for path in sorted(Path(out).glob("games/*/deal*-seat*.jsonl")):
        try:
            finished = read(path).footer is not None
        except TranscriptError:
            continue
        if finished:
            games.append((path, int(path.stem.split("seat")[1])))
    return games


def analyse_games(out: str | Path, settings: Settings, jobs: int = 2, progress: bool = True,
                  ray: str | None = None) -> int:
    """Analyse the LLM's seat of every finished game in `out` that has no fresh analysis of it
    made with `settings` (with `ray`, each game as a task of that Ray cluster); how many were
    analysed."""
    todo = []
    for path, seat in graded_games(out):
        try:
            found = load_analysis(path)
        except TranscriptError:
            found = None
        if found is None or seat not in found.seats or found.settings != settings:
            todo.append((path, seat))
    from duel.analysis.many import analyse_all

    analyse_all([(path, (seat,)) for path, seat in todo], settings, jobs, ray, progress)
    return len(todo)


Figure = tuple[float, float]  # (mean loss, blunder rate) of one game
_FIGURES: Final = ("loss", "blunder")


def _by_deal(games: Iterable[tuple[int, int, SeatLosses | None]]
             ) -> dict[int, dict[int, Figure]]:
    """(deal, seat, losses) to deal -> seat -> figures, for the analysed games."""
    out: dict[int, dict[int, Figure]] = {}
    for deal, seat, losses in games:
        if losses is not None:
            out.setdefault(deal, {})[seat] = (losses.mean_loss, losses.blunder_rate)
    return out


def quality_row(mine: Sequence[tuple[int, int, SeatLosses | None]],
                base: Sequence[tuple[int, int, SeatLosses | None]]) -> dict[str, Any]:
    """A variant's move-quality columns from its games and the baseline's, each game as (deal,
    seat, its graded seat's losses or None)."""
    own, other = _by_deal(mine), _by_deal(base)
    row: dict[str, Any] = dict.fromkeys(COLUMNS)  # no analysed game: empty cells
    row["analysed_games"] = sum(len(seats) for seats in own.values())
    row["decisions"] = sum(len(x[2].losses) for x in mine if x[2] is not None)
    if not own:
        return row
    shared = [d for d in sorted(own) if d in other and set(own[d]) & set(other[d])]
    row["loss_paired_deals"] = len(shared)
    for i, name in enumerate(_FIGURES):
        per_deal = [mean([f[i] for f in own[d].values()]) for d in sorted(own)]
        row[f"mean_{name}" if name == "loss" else f"{name}_rate"] = mean(per_deal)
        row[f"{name}_ci_low"], row[f"{name}_ci_high"] = bootstrap_ci(per_deal)
        diffs = [mean([own[d][s][i] - other[d][s][i] for s in sorted(set(own[d]) & set(other[d]))])
                 for d in shared]
        row[f"{name}_diff"] = mean(diffs)
        row[f"{name}_diff_ci_low"], row[f"{name}_diff_ci_high"] = bootstrap_ci(diffs)
        row[f"{name}_p_value"] = paired_permutation_p(diffs)
    return row


COLUMNS: Final = ["analysed_games", "decisions", "mean_loss", "loss_ci_low", "loss_ci_high",
                  "blunder_rate", "blunder_ci_low", "blunder_ci_high", "loss_paired_deals",
                  "loss_diff", "loss_diff_ci_low", "loss_diff_ci_high", "loss_p_value",
                  "blunder_diff", "blunder_diff_ci_low", "blunder_diff_ci_high",
                  "blunder_p_value"]


def markdown(table: list[dict[str, Any]], settings: Iterable[str]) -> str:
    """The report's move-quality table (rows with analysed games only)."""
    rows = []
    for r in table:
        if not r.get("analysed_games"):
            continue
        paired = r["loss_paired_deals"] > 0
        row = {"variant": r["variant"], "games analysed": r["analysed_games"],
               "decisions": r["decisions"], "win rate": f"{r['win_rate']:.1%}",
               "mean loss (95% CI)": f"{r['mean_loss']:.4f} ({r['loss_ci_low']:.4f}-"
                                     f"{r['loss_ci_high']:.4f})"}
        for name, label in zip(_FIGURES, ("loss", "blunders"), strict=True):
            if name == "blunder":
                row["blunder rate (95% CI)"] = (f"{r['blunder_rate']:.1%} "
                                                f"({r['blunder_ci_low']:.1%}-"
                                                f"{r['blunder_ci_high']:.1%})")
            row[f"{label} vs baseline (95% CI)"] = (
                f"{r[f'{name}_diff']:+.4f} ({r[f'{name}_diff_ci_low']:+.4f} to "
                f"{r[f'{name}_diff_ci_high']:+.4f})" if paired else "—")
            row[f"{label} p"] = format_p(r[f"{name}_p_value"]) if paired else "—"
        rows.append(row)
    lines = ["", "## Move quality of the graded seat (duel analyse)", "", tables.markdown(rows)]
    used = ", ".join(sorted(set(settings))) or "—"
    lines += ["", "Mean loss: the expected score (win 1, draw 1/2) the LLM gave away per "
              "decision by the analyser's judgement from its own view (lower is better); "
              f"blunder rate: the share of its decisions losing at least {BLUNDER:.2f}. Each "
              "game's figure, averaged over the seats of a deal, then over deals; 95% bootstrap "
              "CIs over deals. vs baseline: the mean per-deal difference over the deals and "
              "seats both have analysed (negative: fewer losses than the baseline), paired "
              f"bootstrap 95% CI and sign-flip permutation p-value. Analyser: {used}."]
    return "\n".join(lines) + "\n"


CHARTS: Final[dict[str, Chart]] = {
    "mean_loss.png": Bars("mean_loss", "loss_ci_low", "loss_ci_high", "#6a4ab5",
                          "mean loss per decision (95% CI)",
                          "Analyser's mean loss per decision by prompt variant"),
    "loss_vs_baseline.png": Paired("loss_diff", "loss_diff_ci_low", "loss_diff_ci_high",
                                   "loss_paired_deals", "loss_p_value",
                                   "paired difference vs baseline",
                                   "Mean loss per decision minus the baseline's\n"
                                   "(paired bootstrap 95% CI, permutation p)"),
}

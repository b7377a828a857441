"""The report of a position grading run: the figures per variant (see
duel.grading.positions.grade) in ``report.md``, ``report.csv`` and PNG plots, written with game
grading's writers."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Final

from duel.accounting.games import llm_totals
from duel.accounting.totals import combine
from duel.agents.account import SeatAccount
from duel.analysis.summary import BLUNDER
from duel.grading.plan import BASELINE, NULL_VARIANT, RunOutcome
from duel.grading.plots import Bars, Chart, Paired, draw
from duel.grading.report import count_tool_calls, llm_calls, write_csv
from duel.stats import bootstrap_ci, format_p, mean, paired_permutation_p, wilson
from duel.util import tables

from .grade import Answer, answers
from .suite import Suite

COLUMNS: Final = [
    "variant", "hash", "reasoning", "positions", "mean_loss", "loss_ci_low", "loss_ci_high",
    "best_rate", "blunder_rate", "first_try_legal", "first_try_ci_low", "first_try_ci_high",
    "legal_after_retries", "legal_ci_low", "legal_ci_high", "mean_attempts", "fallbacks",
    "own_answers", "forfeits", "input_tokens", "output_tokens", "reasoning_tokens", "cost_usd",
    "latency_per_call_s",
    "tool_calls_per_answer", "seconds_per_answer", "paired_positions", "diff_vs_baseline",
    "diff_ci_low", "diff_ci_high", "p_value"]

CHARTS: Final[dict[str, Chart]] = {
    "mean_loss.png": Bars("mean_loss", "loss_ci_low", "loss_ci_high", "#6a4ab5",
                          "mean loss per position (95% CI)",
                          "Mean loss on the suite by prompt variant"),
    "vs_baseline.png": Paired("diff_vs_baseline", "diff_ci_low", "diff_ci_high",
                              "paired_positions", "p_value", "paired difference vs baseline",
                              "Loss per position minus the baseline's\n"
                              "(paired bootstrap 95% CI, permutation p)"),
    "legality.png": None,
}


def summarise(suite: Suite, found: list[Answer]) -> list[dict[str, Any]]:
    """One row per variant (baseline first, then null, then the others by name)."""
    by_id = suite.by_id()
    by_variant: dict[str, dict[str, Answer]] = {}
    for a in found:
        by_variant.setdefault(a.variant, {})[a.position] = a

    def losses(of: dict[str, Answer]) -> dict[str, float]:
        return {pid: by_id[pid].loss(a.move, a.forfeit) for pid, a in of.items()}

    base = losses(by_variant.get(BASELINE, {}))
    table = []
    for variant, mine in by_variant.items():
        own = losses(mine)
        values = list(own.values())
        t = combine(llm_totals([a.details]) for a in mine.values())
        moves = t["moves"]
        first = round(t["first_try_legal"] * moves)
        legal = round(t["legal_after_retries"] * moves)
        row: dict[str, Any] = {
            "variant": variant, "positions": len(own),
            "hash": ",".join(sorted({a.prompt_hash for a in mine.values()})),
            "reasoning": t["reasoning"],
            "mean_loss": mean(values), "best_rate": mean(
                [1.0 if not a.forfeit and a.move == by_id[pid].best.move else 0.0
                 for pid, a in mine.items()]),
            "blunder_rate": mean([1.0 if x >= BLUNDER else 0.0 for x in values]),
            "first_try_legal": t["first_try_legal"],
            "legal_after_retries": t["legal_after_retries"],
            **{k: t[k] for k in ("mean_attempts", "fallbacks", "input_tokens", "output_tokens",
                                 "reasoning_tokens", "cost_usd")},
            "latency_per_call_s": t["latency_s"] / t["calls"] if t["calls"] else 0.0,
            "tool_calls_per_answer": mean([float(count_tool_calls(llm_calls(a.details)))
                                           for a in mine.values()]),
            "seconds_per_answer": mean([a.seconds for a in mine.values()]),
        }
        account = SeatAccount.of_decisions(
            {**a.details, **({"forfeit": True} if a.forfeit else {})} for a in mine.values())
        row["own_answers"], row["forfeits"] = account.own, account.forfeits
        row["account"] = account.to_json()
        row["loss_ci_low"], row["loss_ci_high"] = bootstrap_ci(values)
        row["first_try_ci_low"], row["first_try_ci_high"] = wilson(first, moves)
        row["legal_ci_low"], row["legal_ci_high"] = wilson(legal, moves)
        diffs = [own[pid] - base[pid] for pid in by_id if pid in own and pid in base]
        row["paired_positions"] = len(diffs)
        row["diff_vs_baseline"] = mean(diffs)
        row["diff_ci_low"], row["diff_ci_high"] = bootstrap_ci(diffs)
        row["p_value"] = paired_permutation_p(diffs)
        table.append(row)
    order = {BASELINE: 0, NULL_VARIANT: 1}
    table.sort(key=lambda r: (order.get(r["variant"], 2), r["variant"]))
    return table


def markdown(table: list[dict[str, Any]], suite: Suite, suite_name: str) -> str:
    s = suite.selection
    settings = sorted({f"{p.analysis['iterations']} iterations, seed {p.analysis['seed']}"
                       if not p.analysis["time"] else f"{p.analysis['time']:g} s"
                       for p in suite.positions})
    lines = [f"Position suite {suite_name}: {len(suite.positions)} positions (best move at "
             f"least {s['min_gap']:g} over the second-best, at most {s['per_kind']} per Age and "
             f"kind, from {s['transcripts']} transcripts); analyser: {', '.join(settings)} per "
             "decision.", ""]
    rows = []
    for r in table:
        paired = r["paired_positions"] > 0
        rows.append({
            "variant": r["variant"], "positions": r["positions"],
            "mean loss (95% CI)": f"{r['mean_loss']:.4f} ({r['loss_ci_low']:.4f}-"
                                  f"{r['loss_ci_high']:.4f})",
            "best move": f"{r['best_rate']:.1%}", "blunders": f"{r['blunder_rate']:.1%}",
            "first-try legal (95% CI)": f"{r['first_try_legal']:.1%} "
                                        f"({r['first_try_ci_low']:.1%}-"
                                        f"{r['first_try_ci_high']:.1%})",
            "legal after retries (95% CI)": f"{r['legal_after_retries']:.1%} "
                                            f"({r['legal_ci_low']:.1%}-{r['legal_ci_high']:.1%})",
            "attempts": f"{r['mean_attempts']:.2f}", "fallbacks": r["fallbacks"],
            "tokens in/out": f"{r['input_tokens']}/{r['output_tokens']}",
            "reasoning (tokens)": f"{r['reasoning']} ({r['reasoning_tokens']})",
            "cost": "unknown" if r["cost_usd"] is None else f"${r['cost_usd']:.4f}",
            "s/call": f"{r['latency_per_call_s']:.2f}",
            "tool calls/answer": f"{r['tool_calls_per_answer']:.2f}",
            "s/answer": f"{r['seconds_per_answer']:.1f}",
            "vs baseline (95% CI)": f"{r['diff_vs_baseline']:+.4f} ({r['diff_ci_low']:+.4f} to "
                                    f"{r['diff_ci_high']:+.4f})" if paired else "—",
            "p": format_p(r["p_value"]) if paired else "—"})
    lines.append(tables.markdown(rows))
    for r in table:  # whose answers the figures count, where not all were the model's
        acc = SeatAccount.from_json(r["account"])
        if not acc.clean:
            lines += ["", f"**{r['variant']}: {acc.brief().replace('moves', 'answers')}.** "
                      "Those answers are scored like any answer, but the model did not make "
                      "them."]
    lines += ["", "Loss of an answer: the analyser's value of its best move minus that of the "
              "move answered (the seat's expected score, win 1, draw 1/2; a resignation is worth "
              "0), from the suite; lower is better. Mean loss over the positions answered, with "
              "a bootstrap 95% CI over positions. Best move: the share of answers that were the "
              f"analyser's best; blunders: answers losing at least {BLUNDER:.2f}. Legality and "
              "attempts are per answer, with Wilson 95% CIs; a fallback move (after the last "
              "re-ask) is scored like any answer. Tool calls (tools=on, make_move included) "
              "and seconds are means per answer, re-asks included. vs baseline: the mean "
              "per-position difference in loss over the positions both answered (negative: "
              "better than the baseline), paired bootstrap 95% CI and two-sided sign-flip "
              "permutation p-value. The null variant is the baseline under another name: its "
              "difference shows the noise floor."]
    return "\n".join(lines) + "\n"


def report(out: str | Path, suite: Suite, suite_name: str, outcome: RunOutcome | None = None
           ) -> tuple[str, list[Path]]:
    """Write report.md, report.csv and the plots of the position grading folder `out`."""
    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    table = summarise(suite, answers(folder, suite))
    md = markdown(table, suite, suite_name)
    if outcome is not None and outcome.notes:
        md += "\n" + "\n".join(outcome.notes) + "\n"
    (folder / "report.md").write_text(md)
    (folder / "report.csv").write_text(write_csv(table, COLUMNS))
    paths = [folder / "report.md", folder / "report.csv"]
    return md, paths + (draw(table, folder, CHARTS) if table else [])

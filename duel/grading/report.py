"""A grading folder's report: each finished game's outcome (counted once the engine reproduces
it), the table comparing each variant with the baseline over the same deals (paired bootstrap CI
and a permutation test), its CSV, its plots and the stopping rule's account."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from duel.accounting.totals import combine
from duel.agents.account import SeatAccount
from duel.engine import Seat
from duel.errors import TranscriptError
from duel.grading import quality
from duel.grading.plan import BASELINE, NULL_VARIANT, GradeTask, Plan, RunOutcome, holders
from duel.grading.plots import Bars, Chart, Paired, draw
from duel.grading.quality import SeatLosses, quality_row, seat_losses
from duel.grading.sequential import DIFFERENT
from duel.grading.stopping import verdicts
from duel.stats import bootstrap_ci, format_p, mean, paired_permutation_p, wilson
from duel.transcripts import Transcript, read, verified_result
from duel.util import tables


@dataclass
class GameOutcome:
    variant: str
    seed: int
    seat: int
    points: float  # 1 win, 0.5 shared, 0 loss, for the LLM
    margin: int  # LLM score minus opponent score
    totals: dict[str, Any] | None
    prompt_hash: str | None = None  # the variant's hash when the game was played
    losses: SeatLosses | None = None  # the LLM seat's analysed decisions (duel.grading.quality)
    moves: int = 0  # the LLM seat's decisions
    tool_calls: int = 0  # its tool calls (tools=on), make_move included
    seconds: float = 0.0  # its decisions' time
    # the cost of its calls whose reply was not played (cut off, empty, malformed, illegal...);
    # None: some of them have no price
    unusable_usd: float | None = 0.0
    # whose moves the LLM seat's and its opponent's were (duel.agents.account)
    account: SeatAccount | None = None
    opponent_account: SeatAccount | None = None


def outcomes(out: str) -> list[GameOutcome]:
    rows = []
    for path in sorted(Path(out).glob("games/*/deal*-seat*.jsonl")):
        try:
            t = read(path)
        except TranscriptError:
            continue  # unreadable: played again by the next run
        if t.footer is None:
            continue
        game = game_outcome(path, t)
        rows.append(replace(game, losses=seat_losses(path, game.seat)))
    return rows


def game_outcome(path: Path, t: Transcript) -> GameOutcome:
    """A finished game of the grading folder; it counts only once the engine reproduces every
    recorded fact."""
    variant = path.parent.name
    seat = Seat.of_player(int(path.stem.split("seat")[1]))
    try:
        result = verified_result(t)
    except TranscriptError as exc:
        raise TranscriptError(f"{path}: {exc}") from None
    assert t.footer is not None
    prompt = t.header["players"][str(seat.player)].get("prompt") or {}
    mine = [m for m in t.moves if m.get("player") == seat.player]
    calls = [c for m in mine for c in llm_calls(m.get("details"))]
    tool_calls = count_tool_calls(calls)
    lost = [c.get("cost_usd") for c in calls if c.get("category") != "OK"]
    priced = [float(x) for x in lost if x is not None]
    return GameOutcome(variant, int(t.header["seed"]), seat.player, result.points(seat),
                       result.total(seat) - result.total(seat.other),
                       t.footer["totals"].get(str(seat.player)), prompt.get("hash"),
                       moves=len(mine), tool_calls=tool_calls,
                       seconds=sum(float(m.get("seconds") or 0.0) for m in mine),
                       unusable_usd=round(sum(priced), 6) if len(priced) == len(lost) else None,
                       account=SeatAccount.of_decisions(m.get("details") or {} for m in mine),
                       opponent_account=SeatAccount.of_decisions(
                           m.get("details") or {} for m in t.moves
                           if m.get("player") != seat.player))


def llm_calls(details: dict[str, Any] | None) -> list[dict[str, Any]]:
    """The LLM call records of one decision's details (none for another agent)."""
    return list(((details or {}).get("llm") or {}).get("calls") or [])


def count_tool_calls(calls: list[dict[str, Any]]) -> int:
    """The tool calls of tools=on in these call records, make_move included."""
    return sum(len(c.get("tool_calls") or []) for c in calls)


def summarise(rows: list[GameOutcome], baseline: str = BASELINE) -> list[dict[str, Any]]:
    by_variant: dict[str, list[GameOutcome]] = {}
    for r in rows:
        by_variant.setdefault(r.variant, []).append(r)
    base_by_deal = _per_deal(by_variant.get(baseline, []))
    analysed = any(r.losses is not None for r in rows)
    table = []
    for variant, games in by_variant.items():
        n = len(games)
        wins = sum(g.points for g in games)
        lo, hi = wilson(wins, n)
        t = combine(g.totals for g in games)
        row: dict[str, Any] = {
            "variant": variant, "games": n,
            "hash": ",".join(sorted({g.prompt_hash or "?" for g in games})),  # as played
            "reasoning": t["reasoning"],
            "win_rate": wins / n, "win_ci_low": lo, "win_ci_high": hi,
            "mean_margin": mean([float(g.margin) for g in games]),
            **{k: t[k] for k in ("first_try_legal", "legal_after_retries", "mean_attempts",
                                 "fallbacks", "input_tokens", "output_tokens",
                                 "reasoning_tokens", "cost_usd")},
            "latency_per_call_s": t["latency_s"] / t["calls"] if t["calls"] else 0.0,
        }
        moves = sum(g.moves for g in games)
        row["llm_moves"] = moves
        # output spent on replies that were not played (None: a game recorded before it was
        # counted), and what those calls cost (None: a price unknown)
        row["unusable_output_tokens"] = t.get("unusable_output_tokens")
        lost = [g.unusable_usd for g in games if g.unusable_usd is not None]
        row["unusable_cost_usd"] = round(sum(lost), 6) if len(lost) == n else None
        mine_acc = SeatAccount.combine(g.account for g in games)
        theirs = SeatAccount.combine(g.opponent_account for g in games)
        row["own_moves"], row["forfeits"] = mine_acc.own, mine_acc.forfeits
        row["opponent_not_own"] = theirs.not_own
        row["account"], row["opponent_account"] = mine_acc.to_json(), theirs.to_json()
        row["tool_calls_per_move"] = sum(g.tool_calls for g in games) / moves if moves else 0.0
        row["seconds_per_move"] = sum(g.seconds for g in games) / moves if moves else 0.0
        mine = _per_deal(games)
        shared = sorted(set(mine) & set(base_by_deal))
        diffs = [mine[d] - base_by_deal[d] for d in shared]
        row["paired_deals"] = len(shared)
        row["diff_vs_baseline"] = mean(diffs)
        row["diff_ci_low"], row["diff_ci_high"] = bootstrap_ci(diffs)
        row["p_value"] = paired_permutation_p(diffs)
        if analysed:
            row.update(quality_row(_losses(games), _losses(by_variant.get(baseline, []))))
        table.append(row)
    order = {baseline: 0, NULL_VARIANT: 1}
    table.sort(key=lambda r: (order.get(r["variant"], 2), r["variant"]))
    return table


def _losses(games: list[GameOutcome]) -> list[tuple[int, int, SeatLosses | None]]:
    return [(g.seed, g.seat, g.losses) for g in games]


def _per_deal(games: list[GameOutcome]) -> dict[int, float]:
    """Mean points per deal over the seats played (the pairing unit)."""
    acc: dict[int, list[float]] = {}
    for g in games:
        acc.setdefault(g.seed, []).append(g.points)
    return {d: mean(v) for d, v in acc.items()}


COLUMNS = ["variant", "hash", "reasoning", "games", "win_rate", "win_ci_low", "win_ci_high",
           "mean_margin", "first_try_legal", "legal_after_retries", "mean_attempts", "fallbacks",
           "input_tokens", "output_tokens", "reasoning_tokens", "cost_usd",
           "unusable_output_tokens", "unusable_cost_usd", "latency_per_call_s", "llm_moves",
           "own_moves", "forfeits", "opponent_not_own",
           "tool_calls_per_move", "seconds_per_move", "paired_deals",
           "diff_vs_baseline", "diff_ci_low", "diff_ci_high", "p_value"]


def markdown(table: list[dict[str, Any]]) -> str:
    rows = []
    for r in table:
        paired = r["paired_deals"] > 0  # else no deal in common with the baseline
        rows.append({
            "variant": r["variant"], "games": r["games"],
            "win rate (95% CI)": f"{r['win_rate']:.1%} ({r['win_ci_low']:.1%}-"
                                 f"{r['win_ci_high']:.1%})",
            "margin": f"{r['mean_margin']:+.1f}",
            "first-try legal": f"{r['first_try_legal']:.1%}",
            "legal after retries": f"{r['legal_after_retries']:.1%}",
            "attempts/move": f"{r['mean_attempts']:.2f}", "fallbacks": r["fallbacks"],
            "tokens in/out": f"{r['input_tokens']}/{r['output_tokens']}",
            "reasoning (tokens)": f"{r['reasoning']} ({r['reasoning_tokens']})",
            "cost": "unknown" if r["cost_usd"] is None else f"${r['cost_usd']:.4f}",
            "unusable replies (out, cost)": _unusable(r),
            "s/call": f"{r['latency_per_call_s']:.2f}",
            "tool calls/move": f"{r['tool_calls_per_move']:.2f}",
            "s/move (moves)": f"{r['seconds_per_move']:.2f} ({r['llm_moves']})",
            "vs baseline (95% CI)": f"{r['diff_vs_baseline']:+.3f} ({r['diff_ci_low']:+.3f} to "
                                    f"{r['diff_ci_high']:+.3f})" if paired else "—",
            "p": format_p(r["p_value"]) if paired else "—"})
    lines = [tables.markdown(rows)]
    for r in table:  # whose moves the figures count, where not all were the seats' own
        for who, key in (("the LLM", "account"), ("its opponent", "opponent_account")):
            acc = SeatAccount.from_json(r[key])
            if not acc.clean:
                lines += ["", f"**{r['variant']}: {who}: {acc.brief()}.** Its figures count "
                          "moves the agent did not make."]
    lines += ["", "Win rate: points per game for the LLM (a shared victory counts half), "
              "Wilson 95% CI. Legality and attempts are per LLM move; s/call is the mean "
              "latency of a call; tool calls/move counts the tool calls of tools=on (make_move "
              "included) per LLM move, s/move the decision's time, over the LLM moves shown. "
              "Reasoning: the setting the games were played with "
              "(reasoning_effort, thinking, or the provider's default) and the reasoning tokens "
              "spent, which are part of the output tokens. Unusable replies: the output tokens "
              "of replies that were not played (cut off, refused, empty, not JSON, malformed, "
              "illegal; each re-asked or ended in the fallback), their share of the output, and "
              "what those calls cost. vs baseline: the mean difference in "
              "points per deal (both seats averaged) over the deals both played, with a paired "
              "bootstrap 95% CI and a two-sided sign-flip permutation p-value. The null variant "
              "is the baseline under another name: its difference shows the noise floor."]
    return "\n".join(lines) + "\n"


def _unusable(r: dict[str, Any]) -> str:
    """E.g. '1200 (3.1%), $0.0180'; 'not counted' for games recorded before it was."""
    tokens = r.get("unusable_output_tokens")
    if tokens is None:
        return "not counted"
    share = tokens / r["output_tokens"] if r["output_tokens"] else 0.0
    usd = r.get("unusable_cost_usd")
    return f"{tokens} ({share:.1%}), " + ("price unknown" if usd is None else f"${usd:.4f}")


def to_csv(table: list[dict[str, Any]]) -> str:
    """The table as CSV; the move-quality columns too when some game was analysed."""
    analysed = any("analysed_games" in r for r in table)
    return write_csv(table, COLUMNS + (quality.COLUMNS if analysed else []))


def write_csv(table: list[dict[str, Any]], columns: list[str]) -> str:
    """`columns` of every row of `table` as CSV (a missing or None value is an empty cell)."""
    return tables.csv_text([{k: r.get(k) for k in columns} for r in table], columns)


CHARTS: dict[str, Chart] = {
    "win_rate.png": Bars("win_rate", "win_ci_low", "win_ci_high", "#4a7ab5",
                         "win rate (95% CI)", "Win rate by prompt variant", (0, 1)),
    "vs_baseline.png": Paired("diff_vs_baseline", "diff_ci_low", "diff_ci_high",
                              "paired_deals", "p_value", "paired difference vs baseline",
                              "Points per deal minus the baseline's\n"
                              "(paired bootstrap 95% CI, permutation p)"),
    "legality.png": None,
}


def plots(table: list[dict[str, Any]], out: Path) -> list[Path]:
    """The win rate, the paired difference and legality; with analysed games, the mean loss
    and its paired difference too."""
    shown = [r for r in table if r.get("analysed_games")]
    return [*draw(table, out, CHARTS), *(draw(shown, out, quality.CHARTS) if shown else [])]


def sequential_section(plan: Plan, rows: list[GameOutcome]) -> str:
    """The report's account of the stopping rule: the design, where and why the run stopped,
    and each variant's deciding look, statistic and boundary."""
    found = verdicts(plan, {GradeTask(r.variant, r.seed, r.seat): r.points for r in rows})
    open_ = [h for h in holders(plan.names) if not found[h].decided]
    if not open_:
        last = max((found[h] for h in holders(plan.names)), key=lambda v: len(v.looks))
        stop = (f"The run stopped at look {len(last.looks)} ({last.looks[-1].deals} deals): "
                "every variant's comparison with the baseline is decided. Games that were "
                "already in flight were finished; they are in the table above but not in the "
                "test.")
    else:
        stop = (f"Undecided: {', '.join(open_)}. The run ended before the test did (a budget, "
                "an interruption or a failed game); run it again to go on.")
    lines = ["", "## Stopping rule (--until-decided)", "",
             f"Design: {plan.design.describe()}. At a look with n complete deals (all four games "
             "of each, from the first deal on), z is the sum of the n paired differences over "
             "the square root of the sum of their squares.", "", stop, "",
             ]
    table: list[dict[str, str]] = []
    for v, verdict in found.items():
        looks = verdict.looks
        where = f"look {len(looks)}, {looks[-1].deals} deals" if looks else "no look yet"
        z = f"{looks[-1].z:+.3f}" if looks else "—"
        bound = f"{looks[-1].boundary:.3f}" if looks else "—"
        decision = verdict.decision
        if decision == DIFFERENT:
            decision += " (better)" if looks[-1].z > 0 else " (worse)"
        table.append({"variant": v, "decision": decision, "where": where, "z": z,
                     "boundary": bound, "mean difference": f"{verdict.mean_diff:+.3f}",
                     "z at each look": ", ".join(f"{x.z:+.2f}" for x in looks) or "—"})
    lines += [tables.markdown(table), "",
              "A variant is different from the baseline at the first look where |z| reaches "
              "the boundary; at the maximum number of deals without that, no difference is "
              "shown. The null variant is tested at the same per-variant alpha: it is wrongly "
              "declared different in that share of runs, and never keeps a run going."]
    return "\n".join(lines) + "\n"


def report(out: str, outcome: RunOutcome | None = None) -> tuple[str, list[Path]]:
    """Write report.md, report.csv and the plots of the grading folder `out`; with the
    `outcome` of a run, its notes (the money) and its stopping rule's account too."""
    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)  # a run stopped before its first game has none
    rows = outcomes(out)
    table = summarise(rows)
    md = markdown(table)
    if any(r.get("analysed_games") for r in table):
        md += quality.markdown(table, {r.losses.settings for r in rows if r.losses})
    if outcome is not None and outcome.plan is not None:
        md += sequential_section(outcome.plan, rows)
    if outcome is not None and outcome.notes:
        md += "\n" + "\n".join(outcome.notes) + "\n"
    (folder / "report.md").write_text(md)
    (folder / "report.csv").write_text(to_csv(table))
    return md, [folder / "report.md", folder / "report.csv", *plots(table, folder)]

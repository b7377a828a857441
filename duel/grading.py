"""Grading prompt variants: every variant plays the same deals, from both seats, against the same
opponent; games are transcripts in DIR (resumable); the report compares each variant with the
baseline over the same deals (paired bootstrap CI and a permutation test)."""

from __future__ import annotations

import csv
import io
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tqdm import tqdm

from duel.agents.spec import make_agent
from duel.engine import Seat, new_game
from duel.errors import SpecError, TranscriptError
from duel.match import play_match
from duel.prompts import get_variant
from duel.stats import bootstrap_ci, mean, paired_permutation_p, wilson
from duel.totals import combine
from duel.transcripts import TranscriptWriter, read, verified_result

NULL_VARIANT = "null"
BASELINE = "baseline"


def variant_spec(model: str, variant: str) -> str:
    """The model's agent spec with the prompt variant set."""
    if not model.startswith("llm:"):
        raise SpecError(f"--model must be an llm: spec, got {model!r}")
    if "prompt=" in model:
        raise SpecError("--model must not set prompt=; --variants chooses it")
    return f"{model},prompt={variant}"


def game_path(out: Path, variant: str, seed: int, seat: int) -> Path:
    return out / "games" / variant / f"deal{seed}-seat{seat}.jsonl"


def _finished(path: Path, model: str, variant: str, opponent: str, seat: int) -> bool:
    """Whether `path` holds a finished game of this very grading run (the same model spec,
    opponent spec and prompt text). A partial or unreadable file is played again; a finished
    game of another run is refused, so that a report never mixes two runs' games."""
    if not path.exists():
        return False
    try:
        t = read(path)
    except TranscriptError:
        return False
    if t.footer is None:
        return False
    llm_spec = variant_spec(model, variant).strip()
    expected = (llm_spec, opponent.strip()) if seat == 1 else (opponent.strip(), llm_spec)
    players = t.header.get("players", {})
    found = tuple(players.get(str(s), {}).get("spec") for s in (1, 2))
    if found != expected:
        raise SpecError(f"{path} is a game of {found[0]} (player 1) against {found[1]}, not of "
                        f"{expected[0]} against {expected[1]}: grade into another --out")
    prompt = players.get(str(seat), {}).get("prompt") or {}
    now = get_variant(variant).hash
    if prompt.get("hash") != now:
        raise SpecError(f"{path} was played with prompt variant {variant} of hash "
                        f"{prompt.get('hash')}, which is now {now}: grade into another --out")
    return True


def play_one(model: str, variant: str, opponent: str, seed: int, seat: int, out: Path) -> Path:
    """Play (or keep) one game: the variant's LLM in `seat`, the opponent in the other."""
    path = game_path(out, variant, seed, seat)
    if _finished(path, model, variant, opponent, seat):
        return path
    llm = make_agent(variant_spec(model, variant))
    opp = make_agent(opponent)
    agents = (llm, opp) if seat == 1 else (opp, llm)
    deal = new_game(seed).deal
    writer = TranscriptWriter.for_match(path, seed, deal, agents)
    try:
        result = play_match(agents[0], agents[1], seed=seed, deal=deal, on_move=writer.record)
        writer.finish(result.result)
    finally:
        writer.close()
    return path


def run(variants: list[str], model: str, opponent: str, deals: int, out: str, seed: int = 0,
        jobs: int = 4, progress: bool = True) -> None:
    # Every variant is compared with the baseline, and the null variant (the baseline under
    # another name) shows the noise floor: both are always played.
    names = list(dict.fromkeys([BASELINE, *variants, NULL_VARIANT]))
    for name in names:
        get_variant(name)
        make_agent(variant_spec(model, name))
    make_agent(opponent)
    folder = Path(out)
    tasks = [(v, seed + d, seat) for d in range(deals) for v in names for seat in (1, 2)]
    bar = tqdm(total=len(tasks), disable=not progress, unit="game")
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        futures = [pool.submit(play_one, model, v, opponent, s, seat, folder)
                   for v, s, seat in tasks]
        try:
            for f in as_completed(futures):
                f.result()
                bar.update(1)
        except BaseException:
            for f in futures:  # stop at the first failure (or Ctrl-C): the rest is resumable
                f.cancel()
            raise
        finally:
            bar.close()


@dataclass
class GameOutcome:
    variant: str
    seed: int
    seat: int
    points: float  # 1 win, 0.5 shared, 0 loss, for the LLM
    margin: int  # LLM score minus opponent score
    totals: dict[str, Any] | None
    prompt_hash: str | None = None  # the variant's hash when the game was played


def outcomes(out: str) -> list[GameOutcome]:
    rows = []
    for path in sorted(Path(out).glob("games/*/deal*-seat*.jsonl")):
        try:
            t = read(path)
        except TranscriptError:
            continue  # unreadable: played again by the next run
        if t.footer is None:
            continue
        variant = path.parent.name
        seat = Seat.of_player(int(path.stem.split("seat")[1]))
        try:  # a finished game counts only once the engine reproduces every recorded fact
            result = verified_result(t)
        except TranscriptError as exc:
            raise TranscriptError(f"{path}: {exc}") from None
        prompt = t.header["players"][str(seat.player)].get("prompt") or {}
        rows.append(GameOutcome(variant, int(t.header["seed"]), seat.player,
                                result.points(seat), result.total(seat) - result.total(seat.other),
                                t.footer["totals"].get(str(seat.player)), prompt.get("hash")))
    return rows


def summarise(rows: list[GameOutcome], baseline: str = BASELINE) -> list[dict[str, Any]]:
    by_variant: dict[str, list[GameOutcome]] = {}
    for r in rows:
        by_variant.setdefault(r.variant, []).append(r)
    base_by_deal = _per_deal(by_variant.get(baseline, []))
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
        mine = _per_deal(games)
        shared = sorted(set(mine) & set(base_by_deal))
        diffs = [mine[d] - base_by_deal[d] for d in shared]
        row["paired_deals"] = len(shared)
        row["diff_vs_baseline"] = mean(diffs)
        row["diff_ci_low"], row["diff_ci_high"] = bootstrap_ci(diffs)
        row["p_value"] = paired_permutation_p(diffs)
        table.append(row)
    order = {baseline: 0, NULL_VARIANT: 1}
    table.sort(key=lambda r: (order.get(r["variant"], 2), r["variant"]))
    return table


def _per_deal(games: list[GameOutcome]) -> dict[int, float]:
    """Mean points per deal over the seats played (the pairing unit)."""
    acc: dict[int, list[float]] = {}
    for g in games:
        acc.setdefault(g.seed, []).append(g.points)
    return {d: mean(v) for d, v in acc.items()}


COLUMNS = ["variant", "hash", "reasoning", "games", "win_rate", "win_ci_low", "win_ci_high",
           "mean_margin", "first_try_legal", "legal_after_retries", "mean_attempts", "fallbacks",
           "input_tokens", "output_tokens", "reasoning_tokens", "cost_usd", "latency_per_call_s",
           "paired_deals", "diff_vs_baseline", "diff_ci_low", "diff_ci_high", "p_value"]


def markdown(table: list[dict[str, Any]]) -> str:
    head = ("| variant | games | win rate (95% CI) | margin | first-try legal | legal after "
            "retries | attempts/move | fallbacks | tokens in/out | reasoning (tokens) | cost | "
            "s/call | vs baseline (95% CI) | p |")
    lines = [head, "|" + "---|" * 14]
    for r in table:
        cost = "unknown" if r["cost_usd"] is None else f"${r['cost_usd']:.4f}"
        if r["paired_deals"] == 0:  # no deal in common with the baseline: nothing to compare
            vs = "— | — |"
        else:
            vs = (f"{r['diff_vs_baseline']:+.3f} ({r['diff_ci_low']:+.3f} to "
                  f"{r['diff_ci_high']:+.3f}) | {r['p_value']:.3f} |")
        lines.append(
            f"| {r['variant']} | {r['games']} | {r['win_rate']:.1%} ({r['win_ci_low']:.1%}-"
            f"{r['win_ci_high']:.1%}) | {r['mean_margin']:+.1f} | {r['first_try_legal']:.1%} | "
            f"{r['legal_after_retries']:.1%} | {r['mean_attempts']:.2f} | {r['fallbacks']} | "
            f"{r['input_tokens']}/{r['output_tokens']} | {r['reasoning']} "
            f"({r['reasoning_tokens']}) | {cost} | "
            f"{r['latency_per_call_s']:.2f} | {vs}")
    lines += ["", "Win rate: points per game for the LLM (a shared victory counts half), "
              "Wilson 95% CI. Legality and attempts are per LLM move; s/call is the mean "
              "latency of a call. Reasoning: the setting the games were played with "
              "(reasoning_effort, thinking, or the provider's default) and the reasoning tokens "
              "spent, which are part of the output tokens. vs baseline: the mean difference in "
              "points per deal (both seats averaged) over the deals both played, with a paired "
              "bootstrap 95% CI and a two-sided sign-flip permutation p-value. The null variant "
              "is the baseline under another name: its difference shows the noise floor."]
    return "\n".join(lines) + "\n"


def to_csv(table: list[dict[str, Any]]) -> str:
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=COLUMNS)
    writer.writeheader()
    for r in table:
        writer.writerow({k: r[k] for k in COLUMNS})
    return buf.getvalue()


def plots(table: list[dict[str, Any]], out: Path) -> list[Path]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = [r["variant"] for r in table]
    x = list(range(len(names)))

    def chart(name: str, draw: Callable[[Any], None]) -> Path:
        fig, ax = plt.subplots(figsize=(max(4, 1.3 * len(names)), 3.5))
        draw(ax)
        fig.tight_layout()
        path = out / name
        fig.savefig(path, dpi=110)
        plt.close(fig)
        return path

    def bars(ax: Any, key: str, low: str, high: str, color: str) -> None:
        values = [r[key] for r in table]
        ax.bar(names, values, capsize=4, color=color,
               yerr=[[r[key] - r[low] for r in table], [r[high] - r[key] for r in table]])

    def win_rate(ax: Any) -> None:
        bars(ax, "win_rate", "win_ci_low", "win_ci_high", "#4a7ab5")
        ax.set_ylim(0, 1)
        ax.set_ylabel("win rate (95% CI)")
        ax.set_title("Win rate by prompt variant")

    def vs_baseline(ax: Any) -> None:
        bars(ax, "diff_vs_baseline", "diff_ci_low", "diff_ci_high", "#b5704a")
        ax.axhline(0, color="black", linewidth=0.8)
        for i, r in enumerate(table):  # the permutation test's p-value over each bar
            if r["paired_deals"]:
                ax.annotate(f"p={r['p_value']:.3f}", (i, r["diff_ci_high"]), ha="center",
                            va="bottom", fontsize=8, xytext=(0, 3), textcoords="offset points")
        low = min([0.0, *(r["diff_ci_low"] for r in table)])
        high = max([0.0, *(r["diff_ci_high"] for r in table)])
        span = (high - low) or 1.0
        ax.set_ylim(low - 0.1 * span, high + 0.2 * span)
        ax.set_ylabel("paired difference vs baseline")
        ax.set_title("Points per deal minus the baseline's\n"
                     "(paired bootstrap 95% CI, permutation p)")

    def legality(ax: Any) -> None:
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

    return [chart("win_rate.png", win_rate), chart("vs_baseline.png", vs_baseline),
            chart("legality.png", legality)]


def report(out: str) -> tuple[str, list[Path]]:
    folder = Path(out)
    table = summarise(outcomes(out))
    md = markdown(table)
    (folder / "report.md").write_text(md)
    (folder / "report.csv").write_text(to_csv(table))
    return md, [folder / "report.md", folder / "report.csv", *plots(table, folder)]

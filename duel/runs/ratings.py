"""Bradley-Terry ratings over finished games, with bootstrap CIs, on an Elo-like scale anchored
to a ladder of MCTS iteration budgets, so an LLM's strength reads as "between MCTS-200 and
MCTS-1000"."""

from __future__ import annotations

import math
import random
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from duel.util import tables
from duel.engine import Seat
from duel.errors import TranscriptError
from duel.records import GameSummary, read_games
from duel.transcripts import read, verified_summary

Game = tuple[str, str, float]  # player1 spec, player2 spec, player1's points (1, 0.5, 0)
ELO = 400 / math.log(10)
_MCTS_ITERS = re.compile(r"^mcts:(?:.*,)?iterations=(\d+)(?:,|$)")


def collect(folders: Iterable[str]) -> list[Game]:
    """Finished games from tournament games.jsonl files and from transcripts (*.jsonl with a
    header), each transcript re-played and checked before it counts."""
    summaries: list[GameSummary] = []
    for folder in folders:
        for path in sorted(Path(folder).rglob("*.jsonl")):
            if path.name == "games.jsonl":
                summaries.extend(read_games(path))
                continue
            try:
                t = read(path)
                if t.footer is None:
                    continue  # a partial game
                summaries.append(verified_summary(t))
            except (TranscriptError, KeyError, TypeError, AttributeError):
                continue  # not a transcript
    return [(g.specs[0], g.specs[1], g.points(Seat.P1)) for g in summaries]


def bradley_terry(games: list[Game], iterations: int = 500, prior: float = 0.5
                  ) -> dict[str, float]:
    """Elo-scale ratings by the MM algorithm (Hunter 2004); a draw counts half a win each way.
    A small prior (2 * `prior` virtual drawn games against a reference player of strength 1)
    keeps unbeaten players finite; `prior=0` gives the plain maximum-likelihood fit."""
    players = sorted({p for g in games for p in g[:2]})
    wins = {p: prior for p in players}
    pairs: dict[tuple[str, str], float] = {}
    for a, b, pa in games:
        wins[a] += pa
        wins[b] += 1 - pa
        key = (a, b) if a < b else (b, a)
        pairs[key] = pairs.get(key, 0.0) + 1
    strength = {p: 1.0 for p in players}
    for _ in range(iterations):
        new = {}
        for p in players:
            denom = 2 * prior / (strength[p] + 1.0)  # the virtual games against strength 1
            for (a, b), n in pairs.items():
                if p == a or p == b:
                    denom += n / (strength[a] + strength[b])
            new[p] = wins[p] / denom if denom else strength[p]
        strength = new
    return {p: ELO * math.log(s) for p, s in strength.items()}


def ladder(players: Iterable[str]) -> list[tuple[int, str]]:
    """The MCTS players with an iteration budget, weakest budget first."""
    found = []
    for p in players:
        m = _MCTS_ITERS.match(p)
        if m:
            found.append((int(m.group(1)), p))
    return sorted(found)


def anchor(ratings: dict[str, float], zero: str | None = None) -> dict[str, float]:
    """Shift so `zero` (default: the smallest MCTS budget on the ladder) is 0; with no ladder,
    the mean is 0."""
    if zero is None:
        rungs = ladder(ratings)
        zero = rungs[0][1] if rungs else None
    offset = (ratings[zero] if zero is not None
              else sum(ratings.values()) / max(1, len(ratings)))
    return {p: r - offset for p, r in ratings.items()}


def rate(games: list[Game], resamples: int = 200, seed: int = 0) -> list[dict[str, Any]]:
    """Ratings with percentile bootstrap 95% CIs (games resampled with replacement). Every
    sample is anchored to the same player as the point estimate (a sample that lost that
    player's games is skipped), so the CIs measure one scale."""
    fitted = bradley_terry(games)
    rungs = ladder(fitted)
    zero = rungs[0][1] if rungs else None
    base = anchor(fitted, zero)
    rng = random.Random(seed)
    samples: dict[str, list[float]] = {p: [] for p in base}
    for _ in range(resamples):
        boot = [games[rng.randrange(len(games))] for _ in games]
        boot_fit = bradley_terry(boot, iterations=200)
        if zero is not None and zero not in boot_fit:
            continue
        boot_ratings = anchor(boot_fit, zero)
        for p in base:
            if p in boot_ratings:
                samples[p].append(boot_ratings[p])
    rows = []
    for p, r in sorted(base.items(), key=lambda kv: -kv[1]):
        s = sorted(samples[p])
        lo = s[int(0.025 * len(s))] if s else r
        hi = s[min(len(s) - 1, int(0.975 * len(s)))] if s else r
        rows.append({"player": p, "rating": r, "ci_low": lo, "ci_high": hi,
                     "games": sum(1 for g in games if p in g[:2]),
                     "place": _place(p, r, rungs, base)})
    return rows


def _place(player: str, rating: float, rungs: list[tuple[int, str]],
           ratings: dict[str, float]) -> str:
    if not rungs or any(player == name for _, name in rungs):
        return ""
    below = [(n, name) for n, name in rungs if ratings[name] <= rating]
    above = [(n, name) for n, name in rungs if ratings[name] > rating]
    if not below:
        return f"below MCTS-{rungs[0][0]}"
    if not above:
        return f"above MCTS-{rungs[-1][0]}"
    return f"between MCTS-{below[-1][0]} and MCTS-{above[0][0]}"


def table(rows: list[dict[str, Any]]) -> str:
    return tables.markdown([{
        "player": r["player"],
        "rating (95% CI)": f"{r['rating']:+.0f} ({r['ci_low']:+.0f} to {r['ci_high']:+.0f})",
        "games": r["games"], "on the MCTS ladder": r["place"]} for r in rows])

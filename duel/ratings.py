"""Bradley-Terry ratings over finished games, with bootstrap CIs, on an Elo-like scale anchored
to a ladder of MCTS iteration budgets, so an LLM's strength reads as "between MCTS-200 and
MCTS-1000"."""

from __future__ import annotations

import json
import math
import random
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from duel.transcripts import read

Game = tuple[str, str, float]  # player1 spec, player2 spec, player1's points (1, 0.5, 0)
ELO = 400 / math.log(10)
_MCTS_ITERS = re.compile(r"^mcts:(?:.*,)?iterations=(\d+)(?:,|$)")


def collect(folders: Iterable[str]) -> list[Game]:
    """Finished games from transcripts (*.jsonl with a header) and tournament games.jsonl."""
    games: list[Game] = []
    for folder in folders:
        for path in sorted(Path(folder).rglob("*.jsonl")):
            if path.name == "games.jsonl":
                for line in path.read_text().splitlines():
                    try:
                        g = json.loads(line)
                    except json.JSONDecodeError:
                        continue
                    games.append((g["player1"], g["player2"], _points(g["winner"])))
                continue
            try:
                t = read(path)
            except Exception:  # noqa: BLE001 - not a transcript
                continue
            if t.footer is None:
                continue
            players = t.header["players"]
            games.append((players["1"]["spec"], players["2"]["spec"],
                          _points(t.footer["winner"])))
    return games


def _points(winner: Any) -> float:
    return 0.5 if winner == "draw" else (1.0 if winner == 1 else 0.0)


def bradley_terry(games: list[Game], iterations: int = 500, prior: float = 0.5
                  ) -> dict[str, float]:
    """Strengths by the MM algorithm (Hunter 2004); a draw counts half a win each way. A small
    prior (`prior` virtual draws against a reference player) keeps unbeaten players finite."""
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


def anchor(ratings: dict[str, float]) -> dict[str, float]:
    """Shift so the smallest MCTS budget on the ladder is 0 (else the mean is 0)."""
    rungs = ladder(ratings)
    zero = ratings[rungs[0][1]] if rungs else sum(ratings.values()) / max(1, len(ratings))
    return {p: r - zero for p, r in ratings.items()}


def rate(games: list[Game], resamples: int = 200, seed: int = 0) -> list[dict[str, Any]]:
    base = anchor(bradley_terry(games))
    rng = random.Random(seed)
    samples: dict[str, list[float]] = {p: [] for p in base}
    for _ in range(resamples):
        boot = [games[rng.randrange(len(games))] for _ in games]
        boot_ratings = anchor(bradley_terry(boot, iterations=200))
        for p in base:
            if p in boot_ratings:
                samples[p].append(boot_ratings[p])
    rungs = ladder(base)
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
    lines = ["| player | rating (95% CI) | games | on the MCTS ladder |", "|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['player']} | {r['rating']:+.0f} ({r['ci_low']:+.0f} to "
                     f"{r['ci_high']:+.0f}) | {r['games']} | {r['place']} |")
    return "\n".join(lines)

"""Every figure of the leaderboard, each with its n and, for a rate or a mean, its 95% CI.

- **Players**: a player is its agent spec, settings included, so two settings are two players;
  an LLM spec whose games were played with two prompt texts (a variant's hash changed) is two
  players too, tagged with the hash.
- **Rating**: Bradley-Terry on the Elo scale (duel.runs.ratings), 0 = the smallest MCTS budget
  present (the mean without a ladder). CI and **rank interval** from one parametric bootstrap
  (the same schedule played again with the fitted strengths, `RESAMPLES` times): the rank
  interval is the ranks the player holds in 95% of those samples (1 = the best). A player with
  fewer than `PROVISIONAL` games is marked provisional; its interval says how little is known.
- **Score rate**: points per game (a shared victory counts half), Wilson 95% CI over games.
- **LLM figures** (from the games' LLM totals): first-try legality per LLM move and cost per
  game, with 95% bootstrap CIs over games (a game's moves are not independent of each other);
  tokens per move (reasoning tokens apart: they are part of the output tokens); fallbacks;
  cost per game won. Agents that call no API cost $0.
- **Moves its own** (from the games' seat accounts, duel.agents.account): how many of a player's
  decisions were its own and how many a fallback made or a resignation decided for it, by
  cause; a row with any is marked "partly not its own".
- **Loss per decision** (from the analyser's sidecars, duel.analysis): the mean over the
  player's analysed decisions, overall, by Age and by decision kind, with 95% bootstrap CIs
  over games; the worst decisions, each with its game.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Final

import numpy as np

from duel.accounting.totals import combine
from duel.agents.account import SeatAccount
from duel.runs import ratings
from duel.runs.budget import is_llm
from duel.stats import wilson

from .games import SEATS, Game

RESAMPLES: Final = 1000
PROVISIONAL: Final = 10  # fewer games than this: a provisional rating
WORST: Final = 12  # worst decisions listed per player
AGES: Final = ("1", "2", "3")
FEWEST_UNITS: Final = 5  # games a bootstrap CI over games needs
FORMAT_VERSION: Final = 1


@dataclass
class Board:
    """The leaderboard: `players` (the table's rows, the strongest first, as leaderboard.json
    has them), `pairings` (results between each two players), the games with their players,
    each player's worst decisions, and notes on what was read and left out."""

    players: list[dict[str, Any]]
    pairings: list[dict[str, Any]]
    games: list[Game]
    seats: dict[str, tuple[str, str]]  # game key -> its two players
    worst: dict[str, list[dict[str, Any]]]
    notes: list[str]
    method: dict[str, Any]

    def player(self, name: str) -> dict[str, Any]:
        return next(p for p in self.players if p["player"] == name)

    def games_of(self, name: str) -> list[Game]:
        return [g for g in self.games if name in self.seats[g.key]]


def players_of(games: Sequence[Game]) -> dict[str, tuple[str, str]]:
    """Each game's two players: its specs, an LLM spec tagged with its prompt's hash when the
    spec's games were played with more than one prompt text."""
    hashes: dict[str, set[str | None]] = defaultdict(set)
    for g in games:
        for spec, prompt in zip(g.specs, g.prompts, strict=True):
            hashes[spec].add(prompt)

    def name(spec: str, prompt: str | None) -> str:
        known = hashes[spec] - {None}
        if len(known) <= 1:
            return spec  # games without a recorded hash go with the one hash seen
        return f"{spec} [prompt {prompt[:8] if prompt else 'unknown'}]"

    return {g.key: (name(g.specs[0], g.prompts[0]), name(g.specs[1], g.prompts[1]))
            for g in games}


def build(games: Sequence[Game], notes: Sequence[str] = (), resamples: int = RESAMPLES,
          seed: int = 0) -> Board:
    """The leaderboard of `games` (at least one)."""
    games = sorted(games, key=lambda g: (g.started_at or "", g.key))
    seats = players_of(games)
    played = [(seats[g.key][0], seats[g.key][1], g.points(1)) for g in games]
    rows = {r["player"]: r for r in ratings.rate(played, resamples, seed, method="model")}
    rungs = dict((name, n) for n, name in ratings.ladder(rows))
    anchor = min(rungs, key=lambda name: (rungs[name], name)) if rungs else None
    spec_of = {seats[g.key][i]: g.specs[i] for g in games for i in range(2)}
    prompt_of = {seats[g.key][i]: g.prompts[i] for g in games for i in range(2)}
    worst: dict[str, list[dict[str, Any]]] = {}
    players = []
    for name, r in rows.items():
        mine = [(g, seat) for g in games for seat in SEATS if seats[g.key][seat - 1] == name]
        row: dict[str, Any] = {
            "player": name, "spec": spec_of[name], "prompt_hash": prompt_of[name],
            "anchor": name == anchor, "rung": rungs.get(name), "place": r["place"],
            "rating": round(r["rating"], 1),
            "rating_ci": [round(r["ci_low"], 1), round(r["ci_high"], 1)],
            "rank_interval": [r["rank_best"], r["rank_worst"]],
            "provisional": len(mine) < PROVISIONAL,
            **_results(mine), **_llm(spec_of[name], mine, seed), **_own(mine),
            **_dates(mine)}
        loss, worst[name] = _losses(mine, seed)
        row.update(loss)
        players.append(row)
    pairings = _pairings(games, seats, {n: r["rating"] for n, r in rows.items()})
    method = {"rating": "Bradley-Terry (MM), Elo scale", "bootstrap": "parametric",
              "resamples": resamples, "seed": seed, "level": ratings.LEVEL,
              "anchor": anchor, "provisional_below_games": PROVISIONAL}
    return Board(players, pairings, list(games), seats, worst,
                 [*notes, *_connectivity(played)], method)


def _own(mine: list[tuple[Game, int]]) -> dict[str, Any]:
    """How many of the player's moves were its own (duel.agents.account), over the games whose
    accounts were recorded; the row is marked where some were not."""
    counted = [g.accounts[seat - 1] for g, seat in mine if g.accounts[seat - 1] is not None]
    if not counted:
        return {"moves_counted": None, "own_moves": None, "not_own": {},
                "partly_not_own": False}
    total = SeatAccount.combine(counted)
    return {"moves_counted": total.moves, "own_moves": total.own,
            "not_own": dict(sorted(total.causes.items())), "partly_not_own": not total.clean}


def _results(mine: list[tuple[Game, int]]) -> dict[str, Any]:
    n = len(mine)
    points = [g.points(seat) for g, seat in mine]
    wins, draws = points.count(1.0), points.count(0.5)
    score = wins + 0.5 * draws
    lo, hi = wilson(score, n)
    return {"games": n, "wins": wins, "draws": draws, "losses": n - wins - draws,
            "score_rate": round(score / n, 4) if n else None,
            "score_rate_ci": [round(lo, 4), round(hi, 4)]}


def _llm(spec: str, mine: list[tuple[Game, int]], seed: int) -> dict[str, Any]:
    """The LLM seat's figures from its games' totals. An agent that calls no API has no
    legality or tokens, and its games cost $0; an LLM's game without totals (recorded by an
    older duel) has an unknown cost, left out of the cost figures (`cost_games` counts the
    games they are over)."""
    per_game = [(g, seat, g.totals[seat - 1]) for g, seat in mine]
    llm_games = [(g, seat, t) for g, seat, t in per_game if t]
    out: dict[str, Any] = {"llm": bool(llm_games) or is_llm(spec)}
    if not out["llm"]:
        wins = sum(1 for g, seat in mine if g.points(seat) == 1.0)
        return {**out, "llm_moves": 0, "first_try_legal": None, "first_try_legal_ci": None,
                "legal_after_retries": None, "fallbacks": 0, "tokens_per_move": None,
                "reasoning": None, "cost_games": len(mine), "cost_usd": 0.0,
                "cost_per_game_usd": 0.0, "cost_per_game_ci": [0.0, 0.0],
                "cost_per_game_won_usd": 0.0 if wins else None}
    t = combine(x for _, _, x in llm_games)
    moves = t["moves"]
    if not moves:
        return {**out, "llm_moves": 0, "first_try_legal": None, "first_try_legal_ci": None,
                "legal_after_retries": None, "fallbacks": 0, "tokens_per_move": None,
                "reasoning": None, "cost_games": 0, "cost_usd": None, "cost_per_game_usd": None,
                "cost_per_game_ci": None, "cost_per_game_won_usd": None}
    first = np.array([x["first_try_legal"] * x["moves"] for _, _, x in llm_games])
    counts = np.array([float(x["moves"]) for _, _, x in llm_games])
    priced = [(g, seat, float(x["cost_usd"])) for g, seat, x in llm_games
              if x.get("cost_usd") is not None]
    costs = np.array([c for _, _, c in priced])
    won = sum(1 for g, seat, _ in priced if g.points(seat) == 1.0)
    cost = float(costs.sum()) if priced else None
    out.update({
        "llm_moves": moves,
        "first_try_legal": round(t["first_try_legal"], 4),
        "first_try_legal_ci": _rounded(ratio_ci(first, counts, seed=seed), 4),
        "legal_after_retries": round(t["legal_after_retries"], 4),
        "fallbacks": t["fallbacks"],
        "tokens_per_move": {k: round(t[f"{k}_tokens"] / moves, 1) if moves else None
                            for k in ("input", "cached", "output", "reasoning")},
        "reasoning": t["reasoning"],
        "cost_games": len(priced),
        "cost_usd": None if cost is None else round(cost, 6),
        "cost_per_game_usd": None if cost is None else round(cost / len(priced), 6),
        "cost_per_game_ci": None if cost is None else
        _rounded(ratio_ci(costs, np.ones(len(costs)), seed=seed), 6),
        "cost_per_game_won_usd": round(cost / won, 6) if cost is not None and won else None,
    })
    return out


def _dates(mine: list[tuple[Game, int]]) -> dict[str, Any]:
    dates = sorted(g.started_at for g, _ in mine if g.started_at)
    return {"first_game": dates[0] if dates else None, "last_game": dates[-1] if dates else None,
            "dated_games": len(dates)}


def _decisions(g: Game, seat: int) -> list[dict[str, Any]] | None:
    """The player's analysed decisions in `g` (None if its seat was not analysed)."""
    a = g.analysis
    if a is None or seat not in a.get("analysed_seats", []):
        return None
    return [d for d in a["decisions"] if d["player"] == seat]


def _losses(mine: list[tuple[Game, int]], seed: int
            ) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Mean loss per decision overall, by Age and by kind (bootstrap CIs over games), and the
    worst decisions."""
    analysed = [(g, seat, d) for g, seat in mine if (d := _decisions(g, seat)) is not None]
    decisions = [x for _, _, ds in analysed for x in ds]
    out: dict[str, Any] = {"analysed_games": len(analysed), "decisions": len(decisions),
                           "mean_loss": None, "mean_loss_ci": None, "loss_by_age": {},
                           "loss_by_kind": {}}
    if not decisions:
        return out, []

    def group(keep: Callable[[dict[str, Any]], bool]) -> dict[str, Any] | None:
        sums = np.array([sum(x["loss"] for x in ds if keep(x)) for _, _, ds in analysed])
        counts = np.array([float(sum(1 for x in ds if keep(x))) for _, _, ds in analysed])
        if counts.sum() == 0:
            return None
        return {"decisions": int(counts.sum()), "games": int((counts > 0).sum()),
                "mean_loss": round(float(sums.sum() / counts.sum()), 4),
                "ci": _rounded(ratio_ci(sums, counts, seed=seed), 4)}

    overall = group(lambda x: True)
    assert overall is not None
    out["mean_loss"], out["mean_loss_ci"] = overall["mean_loss"], overall["ci"]
    for age in AGES:
        found = group(lambda x, age=age: str(x["age"]) == age)  # type: ignore[misc]
        if found:
            out["loss_by_age"][age] = found
    for kind in sorted({x["kind"] for x in decisions}):
        found = group(lambda x, kind=kind: x["kind"] == kind)  # type: ignore[misc]
        if found:
            out["loss_by_kind"][kind] = found
    ranked = sorted(((x["loss"], g.key, seat, x) for g, seat, ds in analysed for x in ds),
                    key=lambda item: (-item[0], item[1], item[3]["ply"]))
    worst = [{"game": key, "seat": seat, "ply": x["ply"], "age": x["age"], "kind": x["kind"],
              "played": x["played_text"], "best": x["best_text"], "loss": x["loss"],
              "loss_se": x["loss_se"]} for _, key, seat, x in ranked[:WORST] if x["loss"] > 0]
    return out, worst


def ratio_ci(numerators: np.ndarray, denominators: np.ndarray, resamples: int = RESAMPLES,
             seed: int = 0, level: float = ratings.LEVEL) -> tuple[float, float]:
    """Percentile bootstrap CI of sum(numerators) / sum(denominators), the units (games)
    resampled whole; samples whose denominators sum to 0 are left out. NaN with fewer than
    `FEWEST_UNITS` units: resampling 2 games gives 3 distinct samples, an interval far too
    narrow to print."""
    n = len(numerators)
    if n < FEWEST_UNITS:
        return (math.nan, math.nan)
    gen = np.random.default_rng(seed)
    drawn = gen.integers(0, n, size=(resamples, n))
    den = denominators[drawn].sum(axis=1)
    keep = den > 0
    values = np.sort(numerators[drawn].sum(axis=1)[keep] / den[keep])
    if not len(values):
        return (math.nan, math.nan)
    m = len(values)
    return (float(values[int((1 - level) / 2 * m)]),
            float(values[min(m - 1, int((1 + level) / 2 * m))]))


def _rounded(pair: tuple[float, float], digits: int) -> list[float] | None:
    if any(math.isnan(x) for x in pair):
        return None
    return [round(pair[0], digits), round(pair[1], digits)]


def _pairings(games: Sequence[Game], seats: dict[str, tuple[str, str]],
              rating: dict[str, float]) -> list[dict[str, Any]]:
    """The results between each two players, from the first's side (the names in order), with
    the score the ratings expect of the first."""
    acc: dict[tuple[str, str], list[float]] = {}
    for g in games:
        a, b = seats[g.key]
        pa = g.points(1)
        key, first = ((a, b), pa) if a <= b else ((b, a), 1 - pa)
        acc.setdefault(key, []).append(first)
    out = []
    for (a, b), results in sorted(acc.items()):
        n = len(results)
        wins, draws = results.count(1.0), results.count(0.5)
        lo, hi = wilson(wins + 0.5 * draws, n)
        expected = 1 / (1 + 10 ** ((rating[b] - rating[a]) / 400))
        out.append({"a": a, "b": b, "games": n, "a_wins": wins, "draws": draws,
                    "b_wins": n - wins - draws, "a_score_rate": round((wins + 0.5 * draws) / n, 4),
                    "a_score_rate_ci": [round(lo, 4), round(hi, 4)],
                    "a_expected": round(expected, 4)})
    return out


def _connectivity(played: list[tuple[str, str, float]]) -> list[str]:
    """A note per group of players that met nobody outside it: ratings across groups are
    tied by the prior alone, not by games."""
    parent: dict[str, str] = {}

    def root(p: str) -> str:
        while parent.setdefault(p, p) != p:
            p = parent[p]
        return p

    for a, b, _ in played:
        parent[root(a)] = root(b)
    groups: dict[str, list[str]] = defaultdict(list)
    for p in list(parent):
        groups[root(p)].append(p)
    if len(groups) < 2:
        return []
    parts = sorted((sorted(v) for v in groups.values()), key=lambda v: (-len(v), v))
    return [f"{len(parts)} groups of players never met each other ("
            + "; ".join(", ".join(v) for v in parts)
            + "): ratings and ranks between groups rest on the prior, not on games"]

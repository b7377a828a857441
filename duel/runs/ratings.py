"""Bradley-Terry ratings over finished games, with bootstrap CIs, on an Elo-like scale anchored
to a ladder of MCTS iteration budgets, so an LLM's strength reads as "between MCTS-200 and
MCTS-1000"."""

from __future__ import annotations

import bisect
import json
import math
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import numpy as np

from duel.agents.account import SeatAccount
from duel.engine import Seat
from duel.errors import DuelError, TranscriptError, UsageError
from duel.records import GameSummary
from duel.transcripts import read, verified_summary
from duel.util import tables

Game = tuple[str, str, float]  # player1 spec, player2 spec, player1's points (1, 0.5, 0)
ELO = 400 / math.log(10)
T = TypeVar("T")
_MCTS_ITERS = re.compile(r"^mcts:(?:.*,)?iterations=(\d+)(?:,|$)")


@dataclass(frozen=True)
class FoundGame:
    """A finished game found in a folder: its summary, the file it was read from, and its
    transcript when there is one (a tournament line may name the transcript it recorded)."""

    summary: GameSummary
    origin: Path  # the games.jsonl, or the transcript itself
    transcript: Path | None
    line: int | None = None  # the game's line in games.jsonl (1 for the first)


def found_games(folders: Iterable[str]) -> list[FoundGame]:
    """Finished games in tournament games.jsonl files and transcripts (*.jsonl with a header),
    each transcript re-played and checked before it counts. A transcript that a games.jsonl
    line names (a tournament records both) counts once, as that line; a file reached through
    two of the folders counts once too."""
    roots = [Path(f) for f in folders]
    lines: list[FoundGame] = []
    named: set[Path] = set()
    seen: set[Path] = set()
    for root in roots:
        for path in sorted(root.rglob("games.jsonl")):
            if path.resolve() in seen:
                continue
            seen.add(path.resolve())
            for number, obj in _lines(path):
                try:
                    summary = GameSummary.from_json(obj)
                except DuelError:
                    continue  # not a game record: that game is played again by a resume
                transcript = _named(path, obj.get("transcript"))
                if transcript is not None:
                    named.add(transcript.resolve())
                    if not transcript.is_file():
                        transcript = None
                lines.append(FoundGame(summary, path, transcript, number))
    loose: list[FoundGame] = []
    for root in roots:
        for path in sorted(root.rglob("*.jsonl")):
            real = path.resolve()
            if path.name == "games.jsonl" or real in named or real in seen:
                continue
            seen.add(real)
            try:
                t = read(path)
                if t.footer is None:
                    continue  # a partial game
                loose.append(FoundGame(verified_summary(t), path, path))
            except (TranscriptError, KeyError, TypeError, AttributeError):
                continue  # not a transcript
    return lines + loose


def _named(games: Path, ref: Any) -> Path | None:
    """The transcript a tournament line names: a path inside the folder of its games.jsonl
    (a line naming a file anywhere else names none)."""
    if not isinstance(ref, str) or not ref:
        return None
    folder = games.parent.resolve()
    target = (folder / ref).resolve()
    return folder / ref if target.is_relative_to(folder) and target != folder else None


def _lines(path: Path) -> list[tuple[int, Any]]:
    """The JSON lines of a tournament file with their numbers; a line cut short by a kill is
    skipped (as duel.records.read_games does)."""
    out = []
    for number, text in enumerate(path.read_text().splitlines(), 1):
        try:
            out.append((number, json.loads(text)))
        except json.JSONDecodeError:
            continue
    return out


def collect(folders: Iterable[str]) -> list[Game]:
    """Finished games from tournament games.jsonl files and from transcripts (see
    :func:`found_games`), as (player 1, player 2, player 1's points)."""
    return as_games(found_games(folders))


def as_games(found: Iterable[FoundGame]) -> list[Game]:
    """Found games as (player 1, player 2, player 1's points)."""
    return [(g.summary.specs[0], g.summary.specs[1], g.summary.points(Seat.P1)) for g in found]


def reasoning_settings(found: Iterable[FoundGame]) -> dict[str, str]:
    """Each LLM player's reasoning setting as its games recorded it (the label of
    duel.accounting.totals.reasoning_label, e.g. "reasoning_effort=medium (provider default)"),
    several joined by commas in sorted order; players without LLM totals are not in it."""
    labels: dict[str, set[str]] = {}
    for g in found:
        for seat, spec in zip(("1", "2"), g.summary.specs, strict=True):
            totals = (g.summary.totals or {}).get(seat)
            if totals:
                labels.setdefault(spec, set()).add(str(totals.get("reasoning") or "default"))
    return {p: ",".join(sorted(v)) for p, v in labels.items()}


def player_accounts(found: Iterable[FoundGame]) -> dict[str, SeatAccount | None]:
    """Each player's account over its games (duel.agents.account): how many of its moves were
    its own. None for a player with a game recorded before accounts were kept."""
    out: dict[str, SeatAccount | None] = {}
    for g in found:
        for seat, spec in zip((Seat.P1, Seat.P2), g.summary.specs, strict=True):
            account = g.summary.account(seat)
            if spec in out and out[spec] is None:
                continue
            if account is None:
                out[spec] = None
            else:
                total = out.setdefault(spec, SeatAccount())
                assert total is not None
                total += account
    return out


def own_moves(account: SeatAccount | None) -> str:
    """A ratings row's mark: "1,331 of 1,331", or "741 of 1,331: partly not its own (busy
    590)"."""
    if account is None:
        return "not counted"
    text = f"{account.own:,} of {account.moves:,}"
    return text if account.clean else f"{text}: partly not its own ({account.why()})"


def bradley_terry(games: list[Game], iterations: int = 500, prior: float = 0.5
                  ) -> dict[str, float]:
    """Elo-scale ratings by the MM algorithm (Hunter 2004); a draw counts half a win each way.
    A small prior (2 * `prior` virtual drawn games against a reference player of strength 1)
    keeps unbeaten players finite; `prior=0` gives the plain maximum-likelihood fit. Stops
    early once no strength moves by more than a relative 1e-12 in a step."""
    tally = Tally.of(games)
    return tally.ratings(tally.fit(tally.points[None, :], prior, iterations)[0])


@dataclass(frozen=True)
class Tally:
    """Games by pairing: pairing k is players[a[k]] against players[b[k]], `n[k]` games of
    which the first scored `points[k]`."""

    players: list[str]
    a: np.ndarray
    b: np.ndarray
    n: np.ndarray
    points: np.ndarray

    @staticmethod
    def of(games: Iterable[Game]) -> Tally:
        pairs: dict[tuple[str, str], list[float]] = {}
        for x, y, px in games:
            key, points = ((x, y), px) if x < y else ((y, x), 1 - px)
            entry = pairs.setdefault(key, [0.0, 0.0])
            entry[0] += 1
            entry[1] += points
        players = sorted({p for key in pairs for p in key})
        index = {p: i for i, p in enumerate(players)}
        keys = list(pairs)
        return Tally(players, np.array([index[x] for x, _ in keys], dtype=np.intp),
                     np.array([index[y] for _, y in keys], dtype=np.intp),
                     np.array([pairs[k][0] for k in keys]), np.array([pairs[k][1] for k in keys]))

    def fit(self, points: np.ndarray, prior: float = 0.5, iterations: int = 500,
            start: np.ndarray | None = None, tolerance: float = 1e-12,
            games: np.ndarray | None = None) -> np.ndarray:
        """Strengths, one row per row of `points` (the first players' points in each
        pairing) and of `games` (the games of each pairing; default `n` in every row), all
        rows fitted at once; `start`: strengths to begin from (a nearby fit converges in a
        few steps). A player without games in a row gets strength 1 there."""
        n = self.n if games is None else games
        first, second = self.incidence()
        wins = prior + points @ first + (n - points) @ second
        strength = (np.ones((points.shape[0], len(self.players))) if start is None
                    else np.array(start, dtype=float))
        with np.errstate(divide="ignore", invalid="ignore"):
            for _ in range(iterations):
                # the virtual games against strength 1, then each pairing's games
                share = n / (strength[:, self.a] + strength[:, self.b])
                denom = 2 * prior / (strength + 1.0) + share @ first + share @ second
                new = np.where(denom > 0, wins / denom, strength)
                live = (new > 0) & (strength > 0)
                moved = float(np.max(np.abs(new[live] / strength[live] - 1), initial=0.0))
                strength = new
                if moved < tolerance:
                    break
        return strength

    def incidence(self) -> tuple[np.ndarray, np.ndarray]:
        """(pairings x players) matrices: 1 where the player is a pairing's first, second."""
        first = np.zeros((len(self.n), len(self.players)))
        first[np.arange(len(self.n)), self.a] = 1.0
        second = np.zeros((len(self.n), len(self.players)))
        second[np.arange(len(self.n)), self.b] = 1.0
        return first, second

    def ratings(self, strength: np.ndarray) -> dict[str, float]:
        """One row of strengths on the Elo scale, by player."""
        with np.errstate(divide="ignore"):
            elo = ELO * np.log(strength)
        return {p: float(r) for p, r in zip(self.players, elo, strict=True)}


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


BOOTSTRAPS = ("games", "model")
LEVEL = 0.95


def resample(games: list[Game], resamples: int = 200, seed: int = 0, method: str = "games"
             ) -> tuple[dict[str, float], str | None, list[dict[str, float]]]:
    """The anchored fit, its anchor (None: the mean is 0) and `resamples` anchored bootstrap
    fits, on one scale.

    `method` "games": the games resampled with replacement. A sample that lost the anchor's
    games is skipped (re-anchored to another rung, it would pin that rung at 0 and widen its
    CI); a player missing from a sample has no rating in it.

    `method` "model" (parametric): the same schedule (who played whom, how often) played again
    with the fitted strengths, every game a win or a loss with the fitted chance. Every player
    is in every sample, and a short or one-sided record still varies: 2 wins of 2 games are
    often 1 of 2 in a sample, so a player with few games gets the wide interval it should,
    where resampling its games would repeat them."""
    if method not in BOOTSTRAPS:
        raise UsageError(f"bootstrap method {method!r}: use one of {', '.join(BOOTSTRAPS)}")
    tally = Tally.of(games)
    strength = tally.fit(tally.points[None, :])
    fitted = tally.ratings(strength[0])
    rungs = ladder(fitted)
    zero = rungs[0][1] if rungs else None
    base = anchor(fitted, zero)
    if method == "model":
        # Every sample's games at once: a binomial draw per pairing with the fitted chance.
        chance = strength[0, tally.a] / (strength[0, tally.a] + strength[0, tally.b])
        gen = np.random.default_rng(seed)
        points = gen.binomial(tally.n.astype(np.int64), chance,
                              size=(resamples, len(tally.n))).astype(float)
        fits = tally.fit(points, start=np.repeat(strength, resamples, axis=0),
                         tolerance=1e-9)
        return base, zero, [anchor(tally.ratings(row), zero) for row in fits]
    # The games resampled, a chunk of samples at a time: each sample's games per pairing and
    # the first players' points in them.
    index = {p: i for i, p in enumerate(tally.players)}
    pairing = {(int(x), int(y)): k for k, (x, y) in enumerate(zip(tally.a, tally.b,
                                                                    strict=True))}
    of_game = np.array([pairing[(index[x], index[y])] if x < y else pairing[(index[y], index[x])]
                        for x, y, _ in games], dtype=np.intp)
    first_points = np.array([px if x < y else 1 - px for x, y, px in games])
    first, second = tally.incidence()
    gen = np.random.default_rng(seed)
    samples: list[dict[str, float]] = []
    chunk = max(1, 2_000_000 // max(1, len(games)))
    for done in range(0, resamples, chunk):
        rows = min(chunk, resamples - done)
        drawn = gen.integers(0, len(games), size=(rows, len(games)))
        counts = np.zeros((rows, len(tally.n)))
        points = np.zeros((rows, len(tally.n)))
        row_of = np.repeat(np.arange(rows), len(games))
        np.add.at(counts, (row_of, of_game[drawn].ravel()), 1.0)
        np.add.at(points, (row_of, of_game[drawn].ravel()), first_points[drawn].ravel())
        present = (counts @ first + counts @ second) > 0
        fits = tally.fit(points, games=counts, start=np.repeat(strength, rows, axis=0),
                         tolerance=1e-9)
        for row, here in zip(fits, present, strict=True):
            sample = {p: r for (p, r), h in zip(tally.ratings(row).items(), here, strict=True)
                      if h}
            if zero is not None and zero not in sample:
                continue  # see the docstring: never re-anchored to another player
            samples.append(anchor(sample, zero))
    return base, zero, samples


def rank_intervals(samples: list[dict[str, float]], level: float = LEVEL
                   ) -> dict[str, tuple[int, int]]:
    """Each player's rank interval: the ranks (1 = the highest rating; equal ratings share the
    better rank) it holds in `level` of the samples, from the (1 - level)/2 quantile of its
    ranks to the (1 + level)/2 one. A player is ranked in the samples it is in."""
    ranks: dict[str, list[int]] = {}
    for sample in samples:
        ordered = sorted(-r for r in sample.values())  # the highest first
        for p, r in sample.items():
            ranks.setdefault(p, []).append(1 + bisect.bisect_left(ordered, -r))
    return {p: _quantiles(sorted(v), level) for p, v in ranks.items()}


def _quantiles(values: list[T], level: float) -> tuple[T, T]:
    """The percentile interval of sorted `values` (as duel.stats.bootstrap_ci takes it)."""
    n = len(values)
    return values[int((1 - level) / 2 * n)], values[min(n - 1, int((1 + level) / 2 * n))]


def rate(games: list[Game], resamples: int = 200, seed: int = 0, method: str = "games"
         ) -> list[dict[str, Any]]:
    """Ratings with percentile bootstrap 95% CIs and rank intervals (`rank_best`,
    `rank_worst`), the strongest first. Every sample is anchored to the same player as the
    point estimate, so the CIs measure one scale; see :func:`resample` for the methods."""
    base, _, samples = resample(games, resamples, seed, method)
    rungs = ladder(base)
    by_player: dict[str, list[float]] = {p: [] for p in base}
    for sample in samples:
        for p, r in sample.items():
            by_player[p].append(r)
    ranks = {**rank_intervals([base]), **rank_intervals(samples)}  # the fit's, if in none
    rows = []
    for p, r in sorted(base.items(), key=lambda kv: -kv[1]):
        lo, hi = _quantiles(sorted(by_player[p]), LEVEL) if by_player[p] else (r, r)
        best, worst = ranks[p]
        rows.append({"player": p, "rating": r, "ci_low": lo, "ci_high": hi,
                     "rank_best": best, "rank_worst": worst,
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


def table(rows: list[dict[str, Any]], reasoning: dict[str, str] | None = None,
          accounts: dict[str, SeatAccount | None] | None = None) -> str:
    """The ratings as a markdown table; with `reasoning` (reasoning_settings) and an LLM
    player among the rows, a column naming the reasoning setting each LLM player's games were
    played with ("—" for the others); with `accounts` (player_accounts), how many of each
    player's moves were its own, marked where some were not."""
    shown = bool(reasoning) and any(r["player"] in (reasoning or {}) for r in rows)
    return tables.markdown([{
        "player": r["player"],
        **({"reasoning": (reasoning or {}).get(r["player"], "—")} if shown else {}),
        "rating (95% CI)": f"{r['rating']:+.0f} ({r['ci_low']:+.0f} to {r['ci_high']:+.0f})",
        "games": r["games"], "on the MCTS ladder": r["place"],
        **({"moves its own": own_moves(accounts.get(r["player"]))} if accounts is not None
           else {})} for r in rows])

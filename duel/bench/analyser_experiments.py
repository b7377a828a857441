"""The measurements that show the analyser is right (issue 15): calibration, ordering of known
players, stability over analysis seeds and efficiency against win rates, as functions returning
their figures (`duel bench calibration | ordering | stability | efficiency` prints them).

Games are played and analysed in worker processes, one game per task: a worker plays the game
(seeded: the same specs and seed give the same game), writes its transcript and analyses it
with one process, so `jobs` games go at once. With a `folder`, transcripts and sidecars stay
there and a run started again reads back what is there instead of playing and searching again
(a game is written under a temporary name and renamed once finished, so a killed run leaves no
half game behind); a sidecar made with other settings is searched again.

Every figure comes with its n and a 95% CI. Figures about players resample whole games or
deals, never decisions, as the decisions of one game are not independent; the stability's rate
of agreement is over decisions (Wilson), as each decision's two searches are drawn afresh.
"""

from __future__ import annotations

import json
import math
import os
import random
import re
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from itertools import combinations, pairwise
from pathlib import Path
from typing import TypeVar

from duel.analysis.calibration import Forecast
from duel.analysis.efficiency import Separation, separation
from duel.analysis.game import Analysis, analyse_file, analyse_transcript, verified_steps
from duel.analysis.search import STABILITY_TOLERANCE, Settings, decision_seed, evaluate
from duel.analysis.summary import BLUNDER
from duel.engine import GameState, Move, Perspective
from duel.errors import UsageError
from duel.runs import schedule
from duel.stats import bootstrap_stat_ci, wilson
from duel.util.files import PARTIAL
from duel.util.parallel import parallel_map

T = TypeVar("T")
R = TypeVar("R")

# Calibration's mix of pairings: weak against strong, close ones and MCTS budgets, so forecasts
# cover the whole range. Each is played seat-swapped on successive deals.
CALIBRATION_PAIRINGS = (
    ("random", "rule"),
    ("rule", "mcts:iterations=200"),
    ("mcts:iterations=200", "mcts:iterations=1000"),
    ("random", "mcts:iterations=200"),
    ("rule", "mcts:iterations=1000"),
)
ORDERING_PLAYERS = ("mcts:iterations=1000", "rule", "random")  # expected best first
EFFICIENCY_PAIR = ("mcts:iterations=100", "rule")  # 55% of 40 games: close


@dataclass(frozen=True)
class Game:
    """One game to play: deal and agent seeds from `seed`, player 1 `p1`, player 2 `p2`."""

    seed: int
    p1: str
    p2: str

    @property
    def file_name(self) -> str:
        slug = re.sub(r"[^A-Za-z0-9.=]+", "_", f"{self.p1}-vs-{self.p2}")
        return f"{self.seed}-{slug}.jsonl"


def round_robin(players: Sequence[str], deals: int, seed: int) -> list[Game]:
    """Every pair of `players` on each of `deals` deals (seeds seed, seed+1, ...), the seats
    swapped on every other deal: each player plays each other once per deal."""
    if len(set(players)) < 2:
        raise UsageError(f"a round robin needs at least two different players, got "
                         f"{list(players)}")
    return [Game(seed + d, *((a, b) if d % 2 == 0 else (b, a)))
            for d in range(deals) for a, b in combinations(players, 2)]


def seat_swapped(a: str, b: str, pairs: int, seed: int) -> list[Game]:
    """`pairs` deals, each played twice: `a` as player 1, then as player 2."""
    return [Game(*game) for game in schedule.seat_swapped(a, b, 2 * pairs, seed)]


def mixed(pairings: Sequence[tuple[str, str]], games: int, seed: int) -> list[Game]:
    """`games` games cycling through `pairings`, each on its own deal, the seats swapped on
    every other round of the cycle."""
    k = len(pairings)
    return [Game(seed + i, *(pairings[i % k] if (i // k) % 2 == 0
                             else pairings[i % k][::-1])) for i in range(games)]


@contextmanager
def _workdir(folder: str | Path | None) -> Iterator[Path]:
    if folder is not None:
        Path(folder).mkdir(parents=True, exist_ok=True)
        yield Path(folder)
        return
    with tempfile.TemporaryDirectory(prefix="duel-figures-") as tmp:
        yield Path(tmp)


def played(game: Game, folder: Path) -> Path:
    """The transcript of `game` in `folder`, played now unless it is there already."""
    from duel.agents.spec import make_agent
    from duel.engine import new_game
    from duel.match import play_match
    from duel.transcripts import TranscriptWriter

    path = folder / game.file_name
    if path.exists():
        return path
    part = path.with_name(path.name + PARTIAL)
    agents = make_agent(game.p1), make_agent(game.p2)
    writer = TranscriptWriter.for_match(part, game.seed, new_game(game.seed).deal, agents)
    writer.finish(play_match(agents[0], agents[1], seed=game.seed, on_move=writer.record).result)
    os.replace(part, path)
    return path


@dataclass(frozen=True)
class _AnalyseTask:
    game: Game
    folder: str
    settings: Settings
    keep: bool  # write (or read back) the sidecar; False for a second opinion


def _analyse(task: _AnalyseTask) -> Analysis:
    path = played(task.game, Path(task.folder))
    if task.keep:
        return analyse_file(path, (1, 2), task.settings, jobs=1)[0]
    return analyse_transcript(path, (1, 2), task.settings, jobs=1)


def analysed_games(games: Sequence[Game], folder: str | Path, settings: Settings, jobs: int,
                   progress: bool = False, keep: bool = True) -> list[Analysis]:
    """Both seats of every game analysed, in the games' order (see the module docstring)."""
    tasks = [_AnalyseTask(g, str(folder), settings, keep) for g in games]
    return parallel_map(_analyse, tasks, jobs, progress, "game")


def points(a: Analysis, player: int) -> float:
    """`player`'s result in the analysed game: 1, 1/2 or 0."""
    winner = a.result.get("winner")
    return 0.5 if winner == "draw" else 1.0 if winner == player else 0.0


# --- calibration -------------------------------------------------------------------------------

def win_chance(before: GameState, move: Move, ply: int, settings: Settings) -> float:
    """The analyser's win chance for the player to move in `before` after playing `move`: the
    value `duel analyse` gives the move played at `ply` (the same view, moves and generator)."""
    seen = Perspective.to_move(before)
    played_move = seen.move_out(move)
    values, _ = evaluate(seen.view(before), seen.moves_out(before.legal_moves()), played_move,
                         settings, random.Random(decision_seed(settings.seed, ply)))
    return next(v.value for v in values if v.move == played_move)


def sampled_plies(decisions: Sequence[int], k: int, rng: random.Random) -> list[int]:
    """`k` of the plies `decisions` (in order), evenly spread with a random offset, so every
    part of the game (the draft and each Age) is sampled; all of them when there are <= k."""
    n = len(decisions)
    if n <= k:
        return list(decisions)
    offset = rng.random()
    return [decisions[int((j + offset) * n / k)] for j in range(k)]


@dataclass(frozen=True)
class _ForecastTask:
    index: int
    game: Game
    folder: str
    plies: int
    settings: Settings


def sampled_decisions(path: Path, k: int, seed: int
                      ) -> list[tuple[int, GameState, Move, float]]:
    """`k` decisions of a played game drawn by `sampled_plies` (those with a choice), each with
    its state, the move played and the mover's outcome (1 won, 0.5 drawn, 0 lost)."""
    from duel.transcripts import read

    t = read(path)
    steps = {ply: (before, move) for ply, before, move in verified_steps(t)
             if len(before.legal_moves()) > 1}
    winner = (t.footer or {}).get("winner")
    out = []
    for ply in sampled_plies(sorted(steps), k, random.Random(seed)):
        before, move = steps[ply]
        player = before.current_player
        out.append((ply, before, move,
                    0.5 if winner == "draw" else 1.0 if winner == player else 0.0))
    return out


def _forecasts(task: _ForecastTask) -> list[Forecast]:
    """The forecasts of one game: its transcript's decisions (more than one legal move) at the
    sampled plies, each with the mover's result. Kept beside the transcript."""
    path = played(task.game, Path(task.folder))
    cache = path.with_name(path.stem + ".forecasts.json")
    key = {"plies": task.plies, "settings": task.settings.to_json()}
    if cache.exists():
        saved = json.loads(cache.read_text())
        if saved.get("key") == key:
            return [Forecast.from_json(f) for f in saved["forecasts"]]
    out = [Forecast(task.index, ply, before.age, before.current_player,
                    win_chance(before, move, ply, task.settings), outcome)
           for ply, before, move, outcome in sampled_decisions(path, task.plies, task.game.seed)]
    cache.write_text(json.dumps({"key": key, "forecasts": [f.to_json() for f in out]}))
    return out


def calibration_forecasts(games: int, plies: int, settings: Settings, jobs: int, seed: int,
                          folder: str | Path | None = None, progress: bool = False,
                          pairings: Sequence[tuple[str, str]] = CALIBRATION_PAIRINGS
                          ) -> list[Forecast]:
    """`plies` forecasts from each of `games` games of the `pairings` mix (see `mixed`)."""
    if plies < 1:
        raise UsageError(f"plies per game must be at least 1, got {plies}")
    with _workdir(folder) as work:
        tasks = [_ForecastTask(i, g, str(work), plies, settings)
                 for i, g in enumerate(mixed(pairings, games, seed))]
        return [f for fs in parallel_map(_forecasts, tasks, jobs, progress, "game") for f in fs]


# --- ordering ----------------------------------------------------------------------------------

@dataclass(frozen=True)
class PlayerLoss:
    """A player's mean loss per decision over its games: the ratio of all its losses to all its
    decisions, a bootstrap CI over deals, and its rate of blunders."""

    spec: str
    games: int
    decisions: int
    mean_loss: float
    ci: tuple[float, float]
    blunder_rate: float


@dataclass(frozen=True)
class Gap:
    """`worse`'s mean loss minus `better`'s, with a paired bootstrap CI over deals."""

    better: str
    worse: str
    diff: float
    ci: tuple[float, float]


@dataclass(frozen=True)
class Ordering:
    deals: int
    players: list[PlayerLoss]  # in the expected order, best first
    gaps: list[Gap]  # between neighbours in that order

    @property
    def ordered(self) -> bool:
        """Each player's CI lies wholly below the next one's (the issue's criterion)."""
        return all(a.ci[1] < b.ci[0] for a, b in pairwise(self.players))


# A deal's figures per player: (sum of losses, decisions, blunders, games).
_Tally = dict[str, tuple[float, int, int, int]]


def _ratio(units: Sequence[_Tally], spec: str) -> float:
    loss = sum(u[spec][0] for u in units if spec in u)
    n = sum(u[spec][1] for u in units if spec in u)
    return loss / n if n else 0.0


def tallies_by_deal(analyses: Sequence[Analysis], games: Sequence[Game]) -> list[_Tally]:
    """Each deal's losses, decisions, blunders and games per player spec."""
    deals: dict[int, dict[str, list[float]]] = {}
    for a, g in zip(analyses, games, strict=True):
        deal = deals.setdefault(g.seed, {})
        for player, spec in ((1, g.p1), (2, g.p2)):
            losses = [d.loss for d in a.decisions if d.player == player]
            t = deal.setdefault(spec, [0.0, 0, 0, 0])
            t[0] += sum(losses)
            t[1] += len(losses)
            t[2] += sum(1 for x in losses if x >= BLUNDER)
            t[3] += 1
    return [{s: (t[0], int(t[1]), int(t[2]), int(t[3])) for s, t in deal.items()}
            for deal in deals.values()]


def ordering(players: Sequence[str] = ORDERING_PLAYERS, deals: int = 50, seed: int = 0,
             settings: Settings | None = None, jobs: int = 2, folder: str | Path | None = None,
             progress: bool = False, resamples: int = 2000) -> Ordering:
    """The round robin of `players` on `deals` deals, analysed: each player's mean loss per
    decision with its CI, and the gaps between neighbours (`players` best first)."""
    settings = settings or Settings()
    games = round_robin(players, deals, seed)
    with _workdir(folder) as work:
        units = tallies_by_deal(analysed_games(games, work, settings, jobs, progress), games)
    rows = []
    for spec in players:
        def mean_loss(s: Sequence[_Tally], spec: str = spec) -> float:
            return _ratio(s, spec)

        n = sum(u[spec][1] for u in units)
        rows.append(PlayerLoss(spec, sum(u[spec][3] for u in units), n, mean_loss(units),
                               bootstrap_stat_ci(units, mean_loss, resamples, seed),
                               sum(u[spec][2] for u in units) / n if n else 0.0))
    gaps = []
    for better, worse in pairwise(players):
        def diff(s: Sequence[_Tally], b: str = better, w: str = worse) -> float:
            return _ratio(s, w) - _ratio(s, b)

        gaps.append(Gap(better, worse, diff(units), bootstrap_stat_ci(units, diff, resamples,
                                                                      seed)))
    return Ordering(deals, rows, gaps)


# --- stability ---------------------------------------------------------------------------------

@dataclass(frozen=True)
class Stability:
    """Two analyses of the same games with different seeds, decision by decision."""

    games: int
    decisions: int
    iterations: int
    tolerance: float
    agree: int  # decisions whose two losses differ by at most `tolerance`
    same_best: int  # decisions where both analyses name the same best move
    largest: float  # the largest difference of a decision's losses
    p95: float  # its 95th percentile
    seat_largest: float  # the largest difference of a seat's mean loss in a game

    @property
    def rate(self) -> float:
        return self.agree / self.decisions if self.decisions else 0.0

    @property
    def ci(self) -> tuple[float, float]:
        return wilson(self.agree, self.decisions)


def stability(games: Sequence[Game], settings: Settings | None = None, other_seed: int = 1,
              tolerance: float = STABILITY_TOLERANCE, jobs: int = 2,
              folder: str | Path | None = None, progress: bool = False) -> Stability:
    """Both seats of `games` analysed with `settings` (kept as sidecars) and again with
    `other_seed` (not kept), compared decision by decision."""
    first = settings or Settings()
    second = replace(first, seed=other_seed)  # every other setting the same (the guide too)
    if second.seed == first.seed:
        raise UsageError(f"the second analysis needs another seed than {first.seed}")
    with _workdir(folder) as work:
        ones = analysed_games(games, work, first, jobs, progress)
        twos = analysed_games(games, work, second, jobs, progress, keep=False)
    diffs: list[float] = []
    same = 0
    seat_diffs = []
    for a, b in zip(ones, twos, strict=True):
        for x, y in zip(a.decisions, b.decisions, strict=True):
            diffs.append(abs(x.loss - y.loss))
            same += x.best.move == y.best.move
        for p in (1, 2):
            seat_diffs.append(abs(a.seat(p)["mean_loss"] - b.seat(p)["mean_loss"]))
    ordered = sorted(diffs)
    return Stability(len(games), len(diffs), first.iterations, tolerance,
                     sum(1 for d in diffs if d <= tolerance), same, max(diffs, default=0.0),
                     ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))] if diffs else 0.0,
                     max(seat_diffs, default=0.0))


# --- efficiency --------------------------------------------------------------------------------

@dataclass(frozen=True)
class Efficiency:
    """How many games separate `a` from `b` by win rate and by mean loss per decision. A unit
    is a seat-swapped pair of games on one deal; `games = 2 * units`."""

    a: str
    b: str
    win: Separation  # a's score rate per pair (null 1/2), over `win_pairs` pairs
    win_same: Separation  # the same over the analysed pairs only
    loss: Separation  # b's mean loss per decision minus a's, per pair (null 0)
    a_loss: float
    b_loss: float


def pair_scores(scores: Sequence[float]) -> list[float]:
    """Consecutive games' scores averaged two by two (a seat-swapped pair each)."""
    if len(scores) % 2:
        raise UsageError(f"seat-swapped pairs need an even number of games, got {len(scores)}")
    return [(x + y) / 2 for x, y in zip(scores[::2], scores[1::2], strict=True)]


def _seat_mean(a: Analysis, player: int) -> float:
    losses = [d.loss for d in a.decisions if d.player == player]
    return sum(losses) / len(losses) if losses else 0.0


def efficiency(a: str = EFFICIENCY_PAIR[0], b: str = EFFICIENCY_PAIR[1], pairs: int = 20,
               win_pairs: int = 200, seed: int = 0, settings: Settings | None = None,
               jobs: int = 2, folder: str | Path | None = None, progress: bool = False,
               resamples: int = 2000) -> Efficiency:
    """`pairs` seat-swapped pairs of `a` against `b` analysed (both seats), and `win_pairs`
    pairs (the analysed ones first: the same seeds give the same games) for the win rate alone,
    which needs no analysis and so can afford many more games (a tournament, kept in
    `folder`/win-rate)."""
    if pairs < 2 or win_pairs < 2:
        raise UsageError(f"efficiency needs at least 2 pairs of games, got {pairs} analysed "
                         f"and {win_pairs} for the win rate")
    from duel.runs.tournament import run

    settings = settings or Settings()
    games = seat_swapped(a, b, pairs, seed)
    with _workdir(folder) as work:
        analyses = analysed_games(games, work, settings, jobs, progress)
        standings = run(a, b, 2 * max(win_pairs, pairs), seed=seed, jobs=jobs,
                        out=str(work / "win-rate"), progress=progress)
    a_scores = [g.points(seat) for g, seat in zip(standings.games, standings.seats, strict=True)]
    a_of = [1 if g.p1 == a else 2 for g in games]
    same = [points(x, p) for x, p in zip(analyses, a_of, strict=True)]
    diffs = [_seat_mean(x, 3 - p) - _seat_mean(x, p) for x, p in zip(analyses, a_of,
                                                                      strict=True)]
    a_mean = sum(_seat_mean(x, p) for x, p in zip(analyses, a_of, strict=True)) / len(games)
    b_mean = sum(_seat_mean(x, 3 - p) for x, p in zip(analyses, a_of, strict=True)) / len(games)
    return Efficiency(a, b,
                      separation(pair_scores(a_scores), 0.5, resamples=resamples, seed=seed),
                      separation(pair_scores(same), 0.5, resamples=resamples, seed=seed),
                      separation(pair_scores(diffs), 0.0, resamples=resamples, seed=seed),
                      a_mean, b_mean)


def games_text(units: float) -> str:
    """A number of pairs as a number of games, for people (huge or infinite ones as a bound)."""
    if not math.isfinite(units) or units > 50000:
        return "more than 100000"
    return str(2 * max(1, math.ceil(units)))

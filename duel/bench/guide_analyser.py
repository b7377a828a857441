"""`duel bench guide-analyser`: the analyser on the learned guide against today's, on the same
decisions: time per decision, stability over two analysis seeds and calibration (Brier score).

The decisions are those of `duel bench calibration`: the same games (the CALIBRATION_PAIRINGS
mix, the same seeds, so a folder shared with that benchmark reuses its transcripts) and the same
sampled plies. Each decision is searched by every analyser setting with analysis seeds 0 and 1,
the settings in turn for each decision so that the machine's load falls on all of them alike;
each search's CPU time is recorded (process time, so other jobs on the machine count less).

Per setting:
- **time per decision**: the mean CPU seconds of one search (both seeds' searches counted);
- **stability**: the share of decisions whose two seeds' losses (best value minus the played
  move's) differ by at most STABILITY_TOLERANCE, with its Wilson 95% interval;
- **Brier score** of the seed-0 win chance (the value of the move played) against the mover's
  result, with a bootstrap CI over games, and the paired difference from the first setting
  (bootstrap over games).

Results are kept per game in the folder (``GAME.judges.json``), so a run again (or with another
setting added) computes only what is missing.
"""

from __future__ import annotations

import json
import os
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from duel.analysis.calibration import Forecast, brier
from duel.analysis.search import STABILITY_TOLERANCE, Settings, decision_seed, evaluate
from duel.bench.analyser_experiments import (
    CALIBRATION_PAIRINGS,
    Game,
    _workdir,
    mixed,
    played,
    sampled_decisions,
)
from duel.engine import Perspective
from duel.stats import bootstrap_stat_ci, wilson
from duel.util.parallel import parallel_map


@dataclass(frozen=True)
class _Task:
    index: int
    game: Game
    folder: str
    plies: int
    settings: tuple[Settings, ...]  # seed 0 each; seed 1 is run too


def _key(s: Settings) -> str:
    return json.dumps(s.to_json(), sort_keys=True)


def _judge(task: _Task) -> list[dict[str, Any]]:
    """The game's sampled decisions, each searched by every setting with seeds 0 and 1."""
    path = played(task.game, Path(task.folder))
    cache = path.with_name(path.stem + ".judges.json")
    saved: dict[str, Any] = json.loads(cache.read_text()) if cache.exists() else {}
    out = []
    for ply, before, move, outcome in sampled_decisions(path, task.plies, task.game.seed):
        player = before.current_player
        seen = Perspective.to_move(before)
        view = seen.view(before)
        legal = seen.moves_out(before.legal_moves())
        played_move = seen.move_out(move)
        entry = saved.setdefault(str(ply), {})
        for settings in task.settings:
            for seed in (0, 1):
                s = replace(settings, seed=seed)
                key = _key(s)
                if key in entry:
                    continue
                cpu = time.process_time()
                values, iterations = evaluate(view, legal, played_move, s,
                                              random.Random(decision_seed(seed, ply)))
                seconds = time.process_time() - cpu
                mine = next(v for v in values if v.move == played_move)
                entry[key] = {"seconds": seconds, "iterations": iterations,
                              "win_chance": mine.value,
                              "loss": round(max(0.0, values[0].value - mine.value), 4),
                              "best": values[0].move.to_json()}
        out.append({"game": task.index, "ply": ply, "age": before.age, "player": player,
                    "outcome": outcome, "judges": entry})
        cache.write_text(json.dumps(saved))
    return out


@dataclass
class Judged:
    """One setting's figures over the decisions."""

    settings: Settings
    decisions: int
    seconds: float  # mean CPU seconds per search
    iterations: float  # mean iterations per search
    agree: int
    brier: float
    brier_ci: tuple[float, float]

    @property
    def stability(self) -> float:
        return self.agree / self.decisions if self.decisions else 0.0

    @property
    def stability_ci(self) -> tuple[float, float]:
        return wilson(self.agree, self.decisions)


def compare(settings: Sequence[Settings], games: int = 200, plies: int = 5, jobs: int = 1,
            seed: int = 0, folder: str | Path | None = None, progress: bool = False
            ) -> tuple[list[Judged], list[tuple[float, tuple[float, float]]]]:
    """Each setting's figures, and each setting's Brier difference from the first one's with
    its bootstrap CI over games (the first entry is 0)."""
    with _workdir(folder) as work:
        tasks = [_Task(i, g, str(work), plies, tuple(settings))
                 for i, g in enumerate(mixed(CALIBRATION_PAIRINGS, games, seed))]
        rows = [r for rs in parallel_map(_judge, tasks, jobs, progress, "game") for r in rs]
    judged = []
    per_game: dict[int, list[list[tuple[float, float]]]] = {}
    for k, s in enumerate(settings):
        one, two = _key(replace(s, seed=0)), _key(replace(s, seed=1))
        forecasts = [Forecast(r["game"], r["ply"], r["age"], r["player"],
                              r["judges"][one]["win_chance"], r["outcome"]) for r in rows]
        for f in forecasts:
            per_game.setdefault(f.game, [[] for _ in settings])[k].append(
                (f.predicted, f.outcome))
        agree = sum(1 for r in rows if abs(r["judges"][one]["loss"] - r["judges"][two]["loss"])
                    <= STABILITY_TOLERANCE)
        times = [r["judges"][key]["seconds"] for r in rows for key in (one, two)]
        its = [r["judges"][key]["iterations"] for r in rows for key in (one, two)]

        def game_brier(units: Sequence[list[tuple[float, float]]]) -> float:
            pairs = [p for u in units for p in u]
            return sum((a - b) ** 2 for a, b in pairs) / len(pairs)

        units = [g[k] for g in per_game.values()]
        judged.append(Judged(s, len(rows), sum(times) / len(times), sum(its) / len(its), agree,
                             brier(forecasts), bootstrap_stat_ci(units, game_brier)))
    diffs: list[tuple[float, tuple[float, float]]] = []
    games_units = list(per_game.values())
    for k in range(len(settings)):
        def diff(units: Sequence[list[list[tuple[float, float]]]], k: int = k) -> float:
            mine = [p for u in units for p in u[k]]
            first = [p for u in units for p in u[0]]
            return (sum((a - b) ** 2 for a, b in mine) / len(mine)
                    - sum((a - b) ** 2 for a, b in first) / len(first))

        diffs.append((diff(games_units), bootstrap_stat_ci(games_units, diff)))
    return judged, diffs


def report(judged: Sequence[Judged], diffs: Sequence[tuple[float, tuple[float, float]]],
           games: int) -> list[str]:
    base = judged[0].seconds
    lines = [f"analysers on the same decisions ({judged[0].decisions} decisions from {games} "
             f"games, the calibration benchmark's; load average {os.getloadavg()[0]:.2f})"]
    for j, (d, ci) in zip(judged, diffs, strict=True):
        s = j.settings
        name = f"guide={s.guide}" if s.guide else f"rollout={s.rollout}"
        lo, hi = j.stability_ci
        blo, bhi = j.brier_ci
        lines.append(
            f"  {name}, {s.iterations} iterations: {j.seconds:.3f} s CPU per decision "
            f"({j.seconds / base:.2f}x the first), {j.iterations:.0f} iterations; stability "
            f"{j.stability:.1%} within {STABILITY_TOLERANCE} (95% CI {lo:.1%}-{hi:.1%}); Brier "
            f"{j.brier:.4f} (95% CI {blo:.4f}-{bhi:.4f}), minus the first's {d:+.4f} "
            f"(95% CI {ci[0]:+.4f} to {ci[1]:+.4f})")
    return lines

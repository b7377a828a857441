"""Analysing a transcript: every decision of the chosen seats, judged from what that seat saw.

The transcript is read and re-played with duel.transcripts (every recorded fact checked, the
result too), so a tampered file is refused before any search. For each decision of an analysed
seat with more than one legal move, the analyser (duel.analysis.search) searches from the view
that seat had at that ply, ``Perspective.to_move(state).view(state)``: the very view whose hash
the transcript records, in which the seat is player2. Only that view, the legal moves and the
move played cross to the search (in the view's labels, mapped back to true labels after), so the
hidden cards of the real game cannot reach it. A resignation's decision is not analysed (its
move was never played).

Decisions run in parallel over a process pool (``jobs``); each one's generator is seeded from the
analysis seed and its ply, so the results are the same for any number of jobs.
"""

from __future__ import annotations

import random
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from duel import __version__
from duel.engine import RULES_VERSION, GameState, Move, Perspective
from duel.engine.decisions import decision_kind
from duel.errors import UsageError
from duel.records import mover_view_hash
from duel.transcripts import Transcript, check_result, initial_state, read, replay
from duel.util.parallel import parallel_map
from duel.words.narrate import move_text

from . import sidecar
from .decision import AnalysedDecision
from .search import MoveValue, Settings, decision_seed, evaluate
from .summary import BLUNDER, MISTAKE, curve, seat_summary

DEFAULT_JOBS = 2
SEATS_ALL = (1, 2)


@dataclass
class Analysis:
    """The analysis of one transcript: its decisions and how it was made. `to_json` is the
    sidecar (and `duel analyse --json`'s output)."""

    transcript: str  # the file's name
    sha256: str
    players: dict[str, str | None]  # agent specs by player number ("1", "2")
    result: dict[str, Any]  # the footer's winner and victory
    settings: Settings
    seats: tuple[int, ...]  # the players analysed
    decisions: list[AnalysedDecision]
    forced: dict[int, int]  # decisions skipped (one legal move), by player
    seconds: float = 0.0
    jobs: int = 1
    duel_version: str = __version__
    rules_version: str = RULES_VERSION
    reused: bool = field(default=False, compare=False)  # read back from a fresh sidecar

    def seat(self, player: int) -> dict[str, Any]:
        """`player`'s figures: overall, by Age and by kind (duel.analysis.summary)."""
        return seat_summary(self.decisions, player, self.forced.get(player, 0))

    def to_json(self) -> dict[str, Any]:
        return {
            "type": "analysis", "format_version": sidecar.FORMAT_VERSION,
            "duel_version": self.duel_version, "rules_version": self.rules_version,
            "transcript": {"file": self.transcript, "sha256": self.sha256},
            "players": self.players, "result": self.result,
            "settings": self.settings.to_json(), "analysed_seats": list(self.seats),
            "thresholds": {"blunder": BLUNDER, "mistake": MISTAKE},
            "seconds": round(self.seconds, 2), "jobs": self.jobs,
            "seats": {str(p): self.seat(p) for p in self.seats},
            "decisions": [d.to_json() for d in self.decisions],
            "curve": curve(self.decisions),
        }

    @staticmethod
    def from_json(obj: dict[str, Any]) -> Analysis:
        """Read a sidecar (checked against its schema: see sidecar.read)."""
        seats = tuple(obj["analysed_seats"])
        return Analysis(obj["transcript"]["file"], obj["transcript"]["sha256"], obj["players"],
                        obj["result"], Settings.from_json(obj["settings"]), seats,
                        [AnalysedDecision.from_json(d) for d in obj["decisions"]],
                        {p: obj["seats"][str(p)]["forced"] for p in seats}, obj["seconds"],
                        obj["jobs"], obj["duel_version"], obj["rules_version"])


@dataclass(frozen=True)
class _Task:
    """What the search of one decision gets: the seat's view and moves in its labels, never the
    state."""

    ply: int
    view: dict[str, Any]
    legal: tuple[Move, ...]
    played: Move
    settings: Settings


def _run(task: _Task) -> tuple[list[MoveValue], int]:
    """One decision's search (in a worker process): its ranked moves and iterations."""
    values, iterations = evaluate(task.view, task.legal, task.played, task.settings,
                                  random.Random(decision_seed(task.settings.seed, task.ply)))
    return values, iterations


def verified_steps(t: Transcript) -> list[tuple[int, GameState, Move]]:
    """Every decision that was played, as (ply, state before, move), after checking the whole
    transcript and its result. TranscriptError names the first fact that does not match."""
    steps = list(replay(t))
    check_result(t, steps[-1].after if steps else initial_state(t))
    return [(step.ply, step.before, step.move) for step in steps]


def analyse_transcript(path: str | Path, seats: Iterable[int] = SEATS_ALL,
                       settings: Settings | None = None, jobs: int = DEFAULT_JOBS,
                       progress: bool = False) -> Analysis:
    """Analyse the decisions of `seats` (player numbers) in the transcript at `path`."""
    settings = settings or Settings()
    chosen = tuple(sorted(set(seats)))
    if not chosen or any(s not in SEATS_ALL for s in chosen):
        raise UsageError(f"seats must be 1, 2 or both, got {list(seats)}")
    if jobs < 1:
        raise UsageError(f"--jobs must be at least 1, got {jobs}")
    start = time.perf_counter()
    t = read(path)
    digest = sidecar.file_hash(path)
    steps = verified_steps(t)
    tasks: list[_Task] = []
    before_of: dict[int, GameState] = {}
    forced = {p: 0 for p in chosen}
    for ply, before, move in steps:
        player = before.current_player
        if player not in chosen:
            continue
        legal = before.legal_moves()
        if len(legal) == 1:
            forced[player] += 1
            continue
        seen = Perspective.to_move(before)
        tasks.append(_Task(ply, seen.view(before), tuple(seen.moves_out(legal)),
                           seen.move_out(move), settings))
        before_of[ply] = before
    results = _map(tasks, jobs, progress)
    decisions = [_decision(task, before_of[task.ply], values, iterations)
                 for task, (values, iterations) in zip(tasks, results, strict=True)]
    footer = t.footer or {}
    return Analysis(Path(path).name, digest, {k: t.spec(int(k)) for k in ("1", "2")},
                    {"winner": footer.get("winner"), "victory": footer.get("victory")},
                    settings, chosen, decisions, forced, time.perf_counter() - start, jobs)


def _map(tasks: Sequence[_Task], jobs: int, progress: bool
         ) -> list[tuple[list[MoveValue], int]]:
    """The tasks' results in the tasks' order, over `jobs` processes (MCTS's shared pool, kept
    between analyses; made before tqdm starts its monitor thread, since the pool may fork)."""
    from duel.agents.mcts import shared_pool

    pool = shared_pool(jobs) if jobs > 1 and len(tasks) > 1 else None
    return parallel_map(_run, tasks, jobs, progress, "decision", pool)


def _decision(task: _Task, before: GameState, values: list[MoveValue], iterations: int
              ) -> AnalysedDecision:
    """A search's result, back in true labels and with the moves in words."""
    seen = Perspective.to_move(before)
    moves = tuple(v.relabelled(seen.move_in(v.move)) for v in values)
    played = seen.move_in(task.played)
    best = moves[0].move
    return AnalysedDecision(
        ply=task.ply, player=before.current_player, step=before.step_name,
        kind=decision_kind(before.step_name, played), age=before.age,
        view_hash=mover_view_hash(before), iterations=iterations,
        played=next(m for m in moves if m.move == played), moves=moves,
        played_text=move_text(before, played, before.apply(played)),
        best_text=move_text(before, best, before.apply(best)))


def analyse_file(path: str | Path, seats: Iterable[int] = SEATS_ALL,
                 settings: Settings | None = None, jobs: int = DEFAULT_JOBS,
                 progress: bool = False, reuse: bool = True) -> tuple[Analysis, Path]:
    """Analyse a transcript and write its sidecar: the analysis and the sidecar's path. With
    `reuse`, a sidecar that is fresh (same transcript bytes and rules) and was made with the
    same settings and seats is read back instead of searching again."""
    settings = settings or Settings()
    chosen = tuple(sorted(set(seats)))
    if reuse:
        from duel.errors import TranscriptError

        try:
            found = sidecar.load(path)
        except TranscriptError:
            found = None  # stale or unreadable: analysed again and overwritten
        if found is not None and found["settings"] == settings.to_json() \
                and tuple(found["analysed_seats"]) == chosen:
            analysis = Analysis.from_json(found)
            analysis.reused = True
            return analysis, sidecar.sidecar_path(path)
    analysis = analyse_transcript(path, chosen, settings, jobs, progress)
    return analysis, sidecar.write(analysis.to_json(), path)


def load_analysis(transcript: str | Path) -> Analysis | None:
    """The fresh analysis beside `transcript`, or None if there is none (TranscriptError if it
    is stale or unreadable)."""
    found = sidecar.load(transcript)
    return None if found is None else Analysis.from_json(found)


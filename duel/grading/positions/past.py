"""The moves before a position, from the game it was taken from: what a ``history=`` variant is
told before it is asked (position grading).

A position names its transcript (path and SHA-256) and ply. Its past is that transcript replayed
(and so checked) up to the position; the state reached must show the deciding player exactly the
position's view (its hash is the position's id), so a suite and a transcript that disagree are
refused, naming both. Each move is told to the asked seat as a game's runner tells it
(duel.agents.observe.inform): from that seat's views only, so the past holds nothing it could
not see. A transcript is looked for where the suite names it, then beside the suite file.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from duel.agents.observe import inform
from duel.analysis.sidecar import file_hash
from duel.engine import GameState
from duel.errors import DuelError, UsageError
from duel.records import mover_view_hash
from duel.transcripts import ReplayStep, initial_state, read, replay

from .suite import Position


class Pasts:
    """The past of each position of one suite, each transcript read and replayed once."""

    def __init__(self, suite_path: str | Path) -> None:
        self.folder = Path(suite_path).parent
        self._games: dict[str, tuple[GameState, list[ReplayStep]]] = {}
        self._lock = threading.Lock()

    def locate(self, position: Position) -> Path:
        """The position's transcript file, its SHA-256 checked."""
        named = Path(position.source["transcript"])
        for path in (named, self.folder / named.name):
            if path.is_file():
                break
        else:
            raise UsageError(f"position {position.id}: history needs the game it was taken from, "
                             f"{named}, which is not there (nor beside the suite, in "
                             f"{self.folder}): grade from where the suite's transcripts are")
        if file_hash(path) != position.source["sha256"]:
            raise UsageError(f"position {position.id}: {path} is not the game it was taken "
                             "from (its SHA-256 differs from the suite's)")
        return path

    def _game(self, path: Path) -> tuple[GameState, list[ReplayStep]]:
        key = str(path.resolve())
        with self._lock:
            if key not in self._games:
                t = read(path)
                self._games[key] = (initial_state(t), list(replay(t)))
            return self._games[key]

    def of(self, position: Position) -> list[ReplayStep]:
        """The moves played before `position`, oldest first."""
        path = self.locate(position)
        try:
            start, moves = self._game(path)
        except DuelError as exc:
            raise UsageError(f"position {position.id}: its game {path}: {exc}") from None
        ply = int(position.source["ply"])
        past = [m for m in moves if m.ply < ply]
        state = past[-1].after if past else start
        if state.ply != ply - 1 or mover_view_hash(state) != position.id:
            raise UsageError(f"position {position.id}: ply {ply} of {path} is not this "
                             "position (the suite and its game disagree)")
        return past

    def tell(self, agent: Any, position: Position) -> None:
        """Tell `agent`, the seat that decides at `position`, the moves before it."""
        seats: list[Any] = [None, None]
        seats[int(position.source["player"]) - 1] = agent
        for m in self.of(position):
            inform(seats, m.before, m.move, m.after)

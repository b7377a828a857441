"""One analysed decision: the move played and the analyser's verdict on it, in true labels."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from duel.engine import Move

from .search import MoveValue


@dataclass(frozen=True)
class AnalysedDecision:
    """A decision of `player` at `ply`: every legal move valued from the seat's information set
    (`moves`, ranked best first; `played` and `best` are among them), moves in true labels."""

    ply: int
    player: int
    step: str
    kind: str
    age: int
    view_hash: str  # the transcript's hash of the view searched from
    iterations: int
    played: MoveValue
    moves: tuple[MoveValue, ...]
    played_text: str  # the moves in the game's words (duel.words.narrate)
    best_text: str

    @property
    def best(self) -> MoveValue:
        return self.moves[0]

    @property
    def legal_count(self) -> int:
        return len(self.moves)

    @property
    def loss(self) -> float:
        """Expected score given away: the best move's value minus the played one's, never
        negative."""
        return round(max(0.0, self.best.value - self.played.value), 4)

    @property
    def loss_se(self) -> float:
        """The loss's standard error: the two values' errors combined (they come from separate
        iterations); 0 when the move played is the best."""
        if self.best.move == self.played.move:
            return 0.0
        return round(math.hypot(self.best.se, self.played.se), 4)

    def to_json(self) -> dict[str, Any]:
        """The sidecar's form; `played` and `best` are bare moves in the prompt's format."""
        return {
            "ply": self.ply, "player": self.player, "step": self.step, "kind": self.kind,
            "age": self.age, "legal": self.legal_count, "view_hash": self.view_hash,
            "iterations": self.iterations,
            "played": self.played.move.to_json(), "best": self.best.move.to_json(),
            "played_value": self.played.value, "played_se": self.played.se,
            "best_value": self.best.value, "best_se": self.best.se,
            "loss": self.loss, "loss_se": self.loss_se,
            "played_text": self.played_text, "best_text": self.best_text,
            "top": [m.to_json() for m in self.moves[:3]],
            "moves": [m.to_json() for m in self.moves],
        }

    @staticmethod
    def from_json(obj: dict[str, Any]) -> AnalysedDecision:
        """Read :meth:`to_json`'s form (a sidecar already checked against its schema)."""
        moves = tuple(MoveValue.from_json(m) for m in obj["moves"])
        played = Move.from_json(obj["played"])
        return AnalysedDecision(obj["ply"], obj["player"], obj["step"], obj["kind"], obj["age"],
                        obj["view_hash"], obj["iterations"],
                        next(m for m in moves if m.move == played), moves,
                        obj["played_text"], obj["best_text"])

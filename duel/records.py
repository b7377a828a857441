"""The one move-record type: a decision as the match runner, the server's store and the
transcripts keep it.

A record is in true labels (the engine's), whatever labels the agent saw; its JSON form is the
transcript's move line without ``"type"``, and the store keeps exactly that JSON.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any

from duel.engine import GameState, Move, Perspective, Seat


def view_hash(view: dict[str, Any]) -> str:
    """A stable hash of a view (canonical JSON): a record's proof of what its player saw."""
    text = json.dumps(view, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def mover_view_hash(state: GameState) -> str:
    """The hash of the view the player to move has of `state`."""
    return view_hash(Perspective.to_move(state).view(state))


@dataclass(frozen=True)
class MoveRecord:
    """One decision. A resignation is a record too (``details["forfeit"]``, its move never
    played, price 0), the last of its game."""

    ply: int  # 1 for the game's first decision
    seat: Seat
    step: str
    move: Move  # true labels
    price: int
    view_hash: str  # of the view the player decided from
    seconds: float
    details: dict[str, Any] = field(default_factory=dict)  # true labels (Perspective.details_in)

    @property
    def is_forfeit(self) -> bool:
        return self.details.get("forfeit") is True

    @staticmethod
    def decided(state: GameState, move: Move, seconds: float, details: dict[str, Any],
                forfeit: bool = False) -> MoveRecord:
        """The record of the player to move in `state` choosing `move` (or resigning)."""
        return MoveRecord(state.ply + 1, Seat.of_index(state.current), state.step_name, move,
                          0 if forfeit else state.price(move), mover_view_hash(state),
                          round(seconds, 4), {**details, "forfeit": True} if forfeit
                          else details)

    def to_json(self) -> dict[str, Any]:
        return {"ply": self.ply, "player": self.seat.player, "step": self.step,
                "move": self.move.to_json(), "price": self.price, "view_hash": self.view_hash,
                "seconds": self.seconds, "details": self.details}

    @staticmethod
    def from_json(obj: dict[str, Any]) -> MoveRecord:
        """Read :meth:`to_json`'s form (a transcript line already checked against its schema,
        or a row of the store)."""
        return MoveRecord(obj["ply"], Seat.of_player(obj["player"]), obj["step"],
                          Move.from_json(obj["move"]), obj["price"], obj["view_hash"],
                          obj["seconds"], obj["details"])

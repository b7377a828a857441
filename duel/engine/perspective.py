"""How one seat sees the game: the only place labels are swapped.

The rules prompt tells an LLM player "You are always player2", and every agent in duel sees the
game that way. The engine, the transcripts, the store and every message to people use the true
labels. A :class:`Perspective` maps between the two: the state (`view`), the legal moves
(`moves_out`), the agent's answer (`move_in`), the reasons the engine gives (`text_out`) and the
details an agent returns (`details_in`, so MCTS statistics are stored in true labels).

Only CHOOSE_STARTING_PLAYER's ``playerNumber`` names a seat in a move; texts name seats as
"player 1"/"player 2".
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from .moves import Move, MoveKind
from .seat import Seat
from .state import GameState
from .view import seat_view, swap_text

__all__ = ["Perspective", "swap_move", "swap_text"]


def swap_move(move: Move) -> Move:
    """The same move with the seat it names swapped (only CHOOSE_STARTING_PLAYER names one)."""
    if move.kind == MoveKind.CHOOSE_STARTING_PLAYER:
        return Move(MoveKind.CHOOSE_STARTING_PLAYER, player_number=3 - move.player_number)
    return move


def _swap_json(obj: Any) -> Any:
    """Swap the seat named by every move-shaped object (``{"move", "moveData"}``) inside `obj`."""
    if isinstance(obj, dict):
        if obj.get("move") == MoveKind.CHOOSE_STARTING_PLAYER \
                and isinstance(obj.get("moveData"), dict):
            data = obj["moveData"]
            number = data.get("playerNumber")
            if number in (1, 2) and not isinstance(number, bool):
                return {**obj, "moveData": {**data, "playerNumber": 3 - number}}
        return {k: _swap_json(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_swap_json(v) for v in obj]
    return obj


@dataclass(frozen=True)
class Perspective:
    """The game as `seat` sees it: itself as player2. `None` (a spectator) keeps true labels."""

    seat: Seat | None

    @property
    def swapped(self) -> bool:
        """Whether labels differ from the true ones (the viewer is player 1)."""
        return self.seat is Seat.P1

    @staticmethod
    def of_player(number: int | None) -> Perspective:
        """The perspective of player `number` (1 or 2); None is a spectator's (true labels)."""
        return Perspective(None if number is None else Seat.of_player(number))

    @staticmethod
    def to_move(state: GameState) -> Perspective:
        """The perspective of the player to move."""
        return Perspective(Seat.of_index(state.current))

    def view(self, state: GameState) -> dict[str, Any]:
        """The prompt's JSON state in this perspective's labels."""
        return seat_view(state, swapped=self.swapped)

    def moves_out(self, moves: Iterable[Move]) -> list[Move]:
        """True moves in the viewer's labels."""
        return [swap_move(m) for m in moves] if self.swapped else list(moves)

    def move_out(self, move: Move) -> Move:
        return swap_move(move) if self.swapped else move

    def move_in(self, move: Move) -> Move:
        """The viewer's answer in true labels."""
        return swap_move(move) if self.swapped else move

    def text_out(self, text: str) -> str:
        """A message about the true game in the viewer's labels."""
        return swap_text(text) if self.swapped else text

    def seat_out(self, seat: Seat) -> Seat:
        return seat.other if self.swapped else seat

    def seat_in(self, seat: Seat) -> Seat:
        return seat.other if self.swapped else seat

    def details_in(self, details: dict[str, Any]) -> dict[str, Any]:
        """An agent's details (search statistics, parsed answers) in true labels: every
        move object inside is relabelled. Free text an LLM wrote is kept as it was said."""
        if not self.swapped:
            return details
        out: dict[str, Any] = _swap_json(details)
        return out

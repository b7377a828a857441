"""The one seat type: who is player 1 and who is player 2.

The engine's hot path indexes its two cities with 0 and 1 (`GameState.current`); the JSON, the
transcripts and every message say "player 1" and "player 2". `Seat` is the bridge and the only
place either number is derived from the other: `seat.index` (0/1), `seat.player` (1/2),
`seat.other`. A draw is not a seat: results say "no winner" with ``None``.
"""

from __future__ import annotations

from enum import Enum

from duel.errors import InvalidStateError


class Seat(Enum):
    """One of the two players, in true labels (player 1 drafts first)."""

    P1 = 1
    P2 = 2

    @property
    def player(self) -> int:
        """1 or 2: the number the JSON and the prompt use."""
        return self.value

    @property
    def index(self) -> int:
        """0 or 1: the engine's index into its two cities."""
        return self.value - 1

    @property
    def other(self) -> Seat:
        return Seat.P2 if self is Seat.P1 else Seat.P1

    @property
    def key(self) -> str:
        """``player1`` or ``player2``: the JSON state's key for this seat."""
        return f"player{self.value}"

    @staticmethod
    def of_player(number: object) -> Seat:
        """The seat of a player number (1 or 2); anything else is an error naming the value."""
        if type(number) is int and number in (1, 2):
            return Seat.P1 if number == 1 else Seat.P2
        raise InvalidStateError(f"a player number must be 1 or 2, got {number!r}")

    @staticmethod
    def of_index(index: int) -> Seat:
        """The seat at engine index 0 or 1."""
        return Seat.P1 if index == 0 else Seat.P2

    def __str__(self) -> str:
        return f"player {self.value}"


SEATS: tuple[Seat, Seat] = (Seat.P1, Seat.P2)

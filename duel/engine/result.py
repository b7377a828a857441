"""The one result type: who won, how, and the points of both cities.

The engine makes one when a game ends (`GameState.result()`), the match runner and the server
make one when a seat resigns (`Result.forfeited`); tournaments, grading, ratings, RL rewards, MCTS
rollouts and transcripts all read it, and `points(seat)` is the only place a winner becomes a
score (win 1, draw 1/2, loss 0). Its JSON form is written here and nowhere else.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from duel.errors import InvalidStateError

from .seat import SEATS, Seat

VICTORY_MILITARY: Final = "military"
VICTORY_SCIENCE: Final = "science"
VICTORY_CIVILIAN: Final = "civilian"
VICTORY_FORFEIT: Final = "forfeit"
VICTORY_KINDS: Final = (VICTORY_MILITARY, VICTORY_SCIENCE, VICTORY_CIVILIAN, VICTORY_FORFEIT)
DRAW_LABEL: Final = "draw"


def points_of(winner: int, seat: int) -> float:
    """The score of engine seat index `seat` (0/1) when `winner` is a seat index or -2 (a
    draw): 1, 1/2 or 0. The one place a winner becomes a score; ints, for the search's hot
    path (`GameState.points`); :meth:`Result.points` says the same for a `Seat`."""
    if winner < 0:
        return 0.5
    return 1.0 if winner == seat else 0.0


@dataclass(frozen=True)
class Result:
    """A finished game. `winner` is None for a shared victory (a draw), which is not a seat."""

    winner: Seat | None
    victory: str
    # Points per category (the score breakdown, "TOTAL" included) of player 1 and of player 2.
    scores: tuple[Mapping[str, int], Mapping[str, int]]
    forfeit: Seat | None = None  # the seat that resigned, when victory is "forfeit"
    reason: str = field(default="", compare=False)  # why it resigned, for people to read

    def __post_init__(self) -> None:
        if self.victory not in VICTORY_KINDS:
            raise InvalidStateError(f"victory must be one of {', '.join(VICTORY_KINDS)}, "
                                    f"got {self.victory!r}")
        if (self.victory == VICTORY_FORFEIT) != (self.forfeit is not None):
            raise InvalidStateError("a forfeit result names the seat that resigned, and only "
                                    "a forfeit does")
        if self.forfeit is not None and self.winner is not self.forfeit.other:
            raise InvalidStateError("the seat that did not resign wins a forfeit")
        if self.winner is None and self.victory != VICTORY_CIVILIAN:
            raise InvalidStateError("only a civilian victory can be shared")

    @staticmethod
    def forfeited(loser: Seat, scores: tuple[Mapping[str, int], Mapping[str, int]],
                  reason: str = "") -> Result:
        """The result of a game `loser` gave up, with the cities' points as they stood."""
        return Result(loser.other, VICTORY_FORFEIT, scores, loser, reason)

    @property
    def is_draw(self) -> bool:
        return self.winner is None

    def points(self, seat: Seat) -> float:
        """The game's score for `seat`: 1 for a win, 1/2 for a draw, 0 for a loss."""
        return points_of(-2 if self.winner is None else self.winner.index, seat.index)

    def score(self, seat: Seat) -> Mapping[str, int]:
        return self.scores[seat.index]

    def total(self, seat: Seat) -> int:
        return self.scores[seat.index]["TOTAL"]

    @property
    def winner_label(self) -> int | str:
        """1, 2 or "draw": how the JSON names the winner."""
        return DRAW_LABEL if self.winner is None else self.winner.player

    def describe(self) -> str:
        """One line for people: "player 1 wins by science", "player 2 forfeits"."""
        if self.forfeit is not None:
            why = f" ({self.reason})" if self.reason else ""
            return f"{self.forfeit} forfeits{why}; {self.forfeit.other} wins"
        if self.winner is None:
            return f"shared victory ({self.victory})"
        return f"{self.winner} wins by {self.victory}"

    def to_json(self) -> dict[str, Any]:
        """``{"winner": 1 | 2 | "draw", "victory", "scores": {"player1", "player2"},
        "forfeit": 1 | 2 | null}``: the result line of a transcript and the server's answer."""
        return {"winner": self.winner_label, "victory": self.victory,
                "scores": {s.key: dict(self.scores[s.index]) for s in SEATS},
                "forfeit": None if self.forfeit is None else self.forfeit.player}

    @staticmethod
    def from_json(obj: Any) -> Result:
        """Read :meth:`to_json`'s form; raises InvalidStateError naming the bad field."""
        if not isinstance(obj, dict):
            raise InvalidStateError("a result must be a JSON object")
        winner_json = obj.get("winner")
        winner = None if winner_json == DRAW_LABEL else _seat(winner_json, "winner")
        scores = obj.get("scores")
        if not isinstance(scores, dict):
            raise InvalidStateError("result field scores must be an object")
        pair = tuple(_score(scores.get(s.key), f"scores.{s.key}") for s in SEATS)
        forfeit_json = obj.get("forfeit")
        forfeit = None if forfeit_json is None else _seat(forfeit_json, "forfeit")
        victory = obj.get("victory")
        if not isinstance(victory, str):
            raise InvalidStateError("result field victory must be a string")
        return Result(winner, victory, (pair[0], pair[1]), forfeit)


def _seat(value: Any, name: str) -> Seat:
    try:
        return Seat.of_player(value)
    except InvalidStateError:
        raise InvalidStateError(f"result field {name} must be 1, 2 or \"draw\", got {value!r}"
                                ) from None


def _score(value: Any, name: str) -> dict[str, int]:
    if not isinstance(value, dict) or not all(
            isinstance(k, str) and type(v) is int for k, v in value.items()) \
            or "TOTAL" not in value:
        raise InvalidStateError(f"result field {name} must map categories to integer points, "
                                "TOTAL included")
    return dict(value)

"""The one Move type and its JSON form (the prompt's ``{"move", "moveData"}``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

from duel.errors import DuelError, IllegalMoveError, InvalidMoveError, InvalidStateError

from .data import CARD_IDS, TOKEN_IDS, WONDER_IDS

__all__ = ["DuelError", "IllegalMoveError", "InvalidMoveError", "InvalidStateError", "Move"]

SELECT_WONDER: Final = "SELECT_WONDER"
CONSTRUCT_BUILDING: Final = "CONSTRUCT_BUILDING"
DISCARD: Final = "DISCARD"
CONSTRUCT_WONDER: Final = "CONSTRUCT_WONDER"
CHOOSE_PROGRESS_TOKEN: Final = "CHOOSE_PROGRESS_TOKEN"
CHOOSE_PROGRESS_TOKEN_FROM_DISCARD: Final = "CHOOSE_PROGRESS_TOKEN_FROM_DISCARD"
DESTROY_CARD: Final = "DESTROY_CARD"
CONSTRUCT_FROM_DISCARD: Final = "CONSTRUCT_FROM_DISCARD"
CHOOSE_STARTING_PLAYER: Final = "CHOOSE_STARTING_PLAYER"

# moveData keys of each move kind, in the prompt's order.
MOVE_FIELDS: Final[dict[str, tuple[str, ...]]] = {
    SELECT_WONDER: ("wonder",),
    CONSTRUCT_BUILDING: ("cardIndex",),
    DISCARD: ("cardIndex",),
    CONSTRUCT_WONDER: ("cardIndex", "wonder"),
    CHOOSE_PROGRESS_TOKEN: ("progressToken",),
    CHOOSE_PROGRESS_TOKEN_FROM_DISCARD: ("progressToken",),
    DESTROY_CARD: ("cardName",),
    CONSTRUCT_FROM_DISCARD: ("cardName",),
    CHOOSE_STARTING_PLAYER: ("playerNumber",),
}
MOVE_KINDS: Final = tuple(MOVE_FIELDS)


@dataclass(frozen=True, slots=True)
class Move:
    """A move in the prompt's vocabulary. Unused fields keep their defaults (-1, "" or 0).

    ``player_number`` (CHOOSE_STARTING_PLAYER) is absolute (1 or 2) inside the engine; views that
    relabel seats map it with :func:`swap_move`.
    """

    kind: str
    card_index: int = -1
    wonder: str = ""
    token: str = ""
    card_name: str = ""
    player_number: int = 0

    def to_json(self) -> dict[str, Any]:
        """The prompt's form, e.g. ``{"move": "DISCARD", "moveData": {"cardIndex": 3}}``."""
        data: dict[str, Any] = {}
        for key in MOVE_FIELDS[self.kind]:
            if key == "cardIndex":
                data[key] = self.card_index
            elif key == "wonder":
                data[key] = self.wonder
            elif key == "progressToken":
                data[key] = self.token
            elif key == "cardName":
                data[key] = self.card_name
            else:
                data[key] = self.player_number
        return {"move": self.kind, "moveData": data}

    @staticmethod
    def from_json(obj: Any) -> Move:
        """Parse the prompt's move JSON. Raises InvalidMoveError naming what is wrong."""
        if not isinstance(obj, dict):
            raise InvalidMoveError(f"a move must be a JSON object, got {type(obj).__name__}")
        kind = obj.get("move")
        if not isinstance(kind, str):
            raise InvalidMoveError('a move needs a string "move" field')
        if kind not in MOVE_FIELDS:
            raise InvalidMoveError(
                f"unknown move {kind!r}; valid moves: {', '.join(MOVE_KINDS)}")
        data = obj.get("moveData")
        if not isinstance(data, dict):
            raise InvalidMoveError(f'{kind} needs a "moveData" object')
        wanted = MOVE_FIELDS[kind]
        extra = sorted(set(data) - set(wanted))
        if extra:
            raise InvalidMoveError(
                f"{kind} moveData has unexpected field(s) {extra}; expected {list(wanted)}")
        fields: dict[str, Any] = {}
        for key in wanted:
            if key not in data:
                raise InvalidMoveError(f'{kind} moveData needs "{key}"')
            value = data[key]
            if key in ("cardIndex", "playerNumber"):
                if isinstance(value, bool) or not isinstance(value, int):
                    raise InvalidMoveError(f"{kind} {key} must be an integer, got {value!r}")
                if key == "cardIndex" and not 0 <= value < 20:
                    raise InvalidMoveError(f"cardIndex must be 0-19, got {value}")
                if key == "playerNumber" and value not in (1, 2):
                    raise InvalidMoveError(f"playerNumber must be 1 or 2, got {value}")
                fields["card_index" if key == "cardIndex" else "player_number"] = value
                continue
            if not isinstance(value, str):
                raise InvalidMoveError(f"{kind} {key} must be a string, got {value!r}")
            if key == "wonder":
                if value not in WONDER_IDS:
                    raise InvalidMoveError(f"unknown wonder {value!r}")
                fields["wonder"] = value
            elif key == "progressToken":
                if value not in TOKEN_IDS:
                    raise InvalidMoveError(f"unknown progress token {value!r}")
                fields["token"] = value
            else:
                if value not in CARD_IDS:
                    raise InvalidMoveError(f"unknown card {value!r}")
                fields["card_name"] = value
        return Move(kind, **fields)

    def __str__(self) -> str:
        if self.kind in (CONSTRUCT_BUILDING, DISCARD):
            return f"{self.kind} {self.card_index}"
        if self.kind == CONSTRUCT_WONDER:
            return f"{self.kind} {self.card_index} {self.wonder}"
        if self.kind == SELECT_WONDER:
            return f"{self.kind} {self.wonder}"
        if self.kind in (CHOOSE_PROGRESS_TOKEN, CHOOSE_PROGRESS_TOKEN_FROM_DISCARD):
            return f"{self.kind} {self.token}"
        if self.kind == CHOOSE_STARTING_PLAYER:
            return f"{self.kind} {self.player_number}"
        return f"{self.kind} {self.card_name}"


# Interned moves: legal-move generation hands out these shared instances instead of allocating.
BUILD_MOVES: Final = tuple(Move(CONSTRUCT_BUILDING, card_index=i) for i in range(20))
DISCARD_MOVES: Final = tuple(Move(DISCARD, card_index=i) for i in range(20))
WONDER_MOVES: Final = tuple(tuple(Move(CONSTRUCT_WONDER, card_index=i, wonder=w)
                                  for w in WONDER_IDS) for i in range(20))
SELECT_MOVES: Final = tuple(Move(SELECT_WONDER, wonder=w) for w in WONDER_IDS)
TOKEN_MOVES: Final = tuple(Move(CHOOSE_PROGRESS_TOKEN, token=t) for t in TOKEN_IDS)
LIBRARY_MOVES: Final = tuple(Move(CHOOSE_PROGRESS_TOKEN_FROM_DISCARD, token=t) for t in TOKEN_IDS)
DESTROY_MOVES: Final = tuple(Move(DESTROY_CARD, card_name=c) for c in CARD_IDS)
FROM_DISCARD_MOVES: Final = tuple(Move(CONSTRUCT_FROM_DISCARD, card_name=c) for c in CARD_IDS)
START_MOVES: Final = (Move(CHOOSE_STARTING_PLAYER, player_number=1),
                      Move(CHOOSE_STARTING_PLAYER, player_number=2))

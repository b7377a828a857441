"""The one Move type and the one model of its JSON form (the prompt's ``{"move", "moveData"}``).

:data:`MOVE_FIELDS` and :data:`MOVE_DATA` say which moveData keys each move kind has, of which JSON
type and with which values. :meth:`Move.from_json` checks a move against them; the published move
schema (``duel.schemas.generate``) and the LLM's structured-output schema
(``duel.agents.llm.schema``) are built from them, so the three cannot disagree.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Final, Literal

from duel.errors import DuelError, IllegalMoveError, InvalidMoveError, InvalidStateError

from .data import CARD_NAMES, TOKEN_NAMES, WONDER_NAMES

__all__ = ["DuelError", "IllegalMoveError", "InvalidMoveError", "InvalidStateError", "Move",
           "MoveField", "MoveKind"]


class MoveKind(StrEnum):
    """The prompt's move names (a move's ``"move"`` field), in the order of the steps that ask
    for them. A member is the string itself: it compares, hashes, formats and serialises to
    JSON as its name."""

    SELECT_WONDER = "SELECT_WONDER"
    CONSTRUCT_BUILDING = "CONSTRUCT_BUILDING"
    DISCARD = "DISCARD"
    CONSTRUCT_WONDER = "CONSTRUCT_WONDER"
    CHOOSE_PROGRESS_TOKEN = "CHOOSE_PROGRESS_TOKEN"
    CHOOSE_PROGRESS_TOKEN_FROM_DISCARD = "CHOOSE_PROGRESS_TOKEN_FROM_DISCARD"
    DESTROY_CARD = "DESTROY_CARD"
    CONSTRUCT_FROM_DISCARD = "CONSTRUCT_FROM_DISCARD"
    CHOOSE_STARTING_PLAYER = "CHOOSE_STARTING_PLAYER"


# The member of each name: Move's constructor takes a plain string too (a dict lookup, cheaper
# than calling the enum).
_KIND_OF_NAME: Final[dict[str, MoveKind]] = {k.value: k for k in MoveKind}

# The keys of a move object: nothing else is allowed next to them.
MOVE_KEYS: Final = ("move", "moveData")


@dataclass(frozen=True, slots=True)
class MoveField:
    """One moveData key: the Move attribute it fills, its JSON type and its allowed values."""

    key: str
    attr: str
    json_type: Literal["integer", "string"]
    values: range | tuple[int, ...] | tuple[str, ...]
    # The parser's message for a value of the right type outside `values` ({value} is the value).
    outside: str

    def schema(self) -> dict[str, Any]:
        """This field as JSON Schema: a range of integers as bounds, anything else as an enum."""
        if isinstance(self.values, range):
            return {"type": self.json_type, "minimum": self.values.start,
                    "maximum": self.values.stop - 1}
        return {"type": self.json_type, "enum": list(self.values)}

    def parse(self, kind: str, value: Any) -> Any:
        """`value` if it is one of this field's values; else InvalidMoveError saying why not."""
        if self.json_type == "integer":
            # Python counts True as the integer 1; JSON does not
            if isinstance(value, bool) or not isinstance(value, int):
                raise InvalidMoveError(f"{kind} {self.key} must be an integer, got {value!r}")
        elif not isinstance(value, str):
            raise InvalidMoveError(f"{kind} {self.key} must be a string, got {value!r}")
        if value not in self.values:
            raise InvalidMoveError(self.outside.format(value=value))
        return value


MOVE_DATA: Final[dict[str, MoveField]] = {f.key: f for f in (
    MoveField("cardIndex", "card_index", "integer", range(20),
              "cardIndex must be 0-19, got {value}"),
    MoveField("wonder", "wonder", "string", WONDER_NAMES, "unknown wonder {value!r}"),
    MoveField("progressToken", "token", "string", TOKEN_NAMES,
              "unknown progress token {value!r}"),
    MoveField("cardName", "card_name", "string", CARD_NAMES, "unknown card {value!r}"),
    MoveField("playerNumber", "player_number", "integer", (1, 2),
              "playerNumber must be 1 or 2, got {value}"),
)}

# moveData keys of each move kind, in the prompt's order.
MOVE_FIELDS: Final[dict[str, tuple[str, ...]]] = {
    MoveKind.SELECT_WONDER: ("wonder",),
    MoveKind.CONSTRUCT_BUILDING: ("cardIndex",),
    MoveKind.DISCARD: ("cardIndex",),
    MoveKind.CONSTRUCT_WONDER: ("cardIndex", "wonder"),
    MoveKind.CHOOSE_PROGRESS_TOKEN: ("progressToken",),
    MoveKind.CHOOSE_PROGRESS_TOKEN_FROM_DISCARD: ("progressToken",),
    MoveKind.DESTROY_CARD: ("cardName",),
    MoveKind.CONSTRUCT_FROM_DISCARD: ("cardName",),
    MoveKind.CHOOSE_STARTING_PLAYER: ("playerNumber",),
}
MOVE_KINDS: Final[tuple[MoveKind, ...]] = tuple(MoveKind)


def move_data_schema(kind: str) -> dict[str, Any]:
    """The JSON Schema of `kind`'s moveData object: exactly its fields, each with its values."""
    keys = MOVE_FIELDS[kind]
    return {"type": "object", "required": list(keys), "additionalProperties": False,
            "properties": {key: MOVE_DATA[key].schema() for key in keys}}


@dataclass(frozen=True, slots=True, repr=False)
class Move:
    """A move in the prompt's vocabulary. Unused fields keep their defaults (-1, "" or 0).

    ``player_number`` (CHOOSE_STARTING_PLAYER) is absolute (1 or 2) inside the engine; views that
    relabel seats map it with :func:`swap_move`.

    ``kind`` is always a :class:`MoveKind`: the constructor takes one's name as a plain string
    too (``Move("DISCARD", card_index=3)``), and refuses any other string (InvalidMoveError).
    It is declared ``str`` because the compiled build checks the declared type on the way in,
    before the name could be looked up.
    """

    kind: str
    card_index: int = -1
    wonder: str = ""
    token: str = ""
    card_name: str = ""
    player_number: int = 0
    # The hash, computed once: the search hashes moves in every iteration (its tree's children
    # are keyed by move), and building the six fields' tuple each time was 7% of a compiled
    # search (py-spy).
    _hash: int = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        kind = _KIND_OF_NAME.get(self.kind)
        if kind is None:
            raise InvalidMoveError(
                f"unknown move {self.kind!r}; valid moves: {', '.join(MOVE_KINDS)}")
        object.__setattr__(self, "kind", kind)
        object.__setattr__(self, "_hash", hash((self.kind, self.card_index, self.wonder,
                                                self.token, self.card_name,
                                                self.player_number)))

    # Written out rather than generated by dataclass: mypyc compiles these, and the search
    # compares moves in every iteration.
    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Move):
            return NotImplemented
        # `is`: a kind is always its MoveKind member (__post_init__), and comparing a str
        # subclass with == is the slow path of the compiled build
        return (self.kind is other.kind and self.card_index == other.card_index
                and self.wonder == other.wonder and self.token == other.token
                and self.card_name == other.card_name
                and self.player_number == other.player_number)

    def __hash__(self) -> int:
        return self._hash

    def __reduce__(self) -> tuple[type[Move], tuple[str, int, str, str, str, int]]:
        # Pickled by its fields through the constructor: a compiled (mypyc) frozen dataclass
        # cannot be restored attribute by attribute (root-parallel search returns moves).
        return (Move, (self.kind, self.card_index, self.wonder, self.token, self.card_name,
                       self.player_number))

    def to_json(self) -> dict[str, Any]:
        """The prompt's form, e.g. ``{"move": "DISCARD", "moveData": {"cardIndex": 3}}``."""
        data = {key: getattr(self, MOVE_DATA[key].attr) for key in MOVE_FIELDS[self.kind]}
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
        extra = sorted(set(obj) - set(MOVE_KEYS))
        if extra:
            raise InvalidMoveError(
                f"a move has unexpected field(s) {extra}; expected {list(MOVE_KEYS)}")
        wanted = MOVE_FIELDS[kind]
        extra = sorted(set(data) - set(wanted))
        if extra:
            # A misspelt key is both unexpected and missing: name the key it should have been.
            missing = [key for key in wanted if key not in data]
            needed = "; ".join(f"{key!r} is a required property" for key in missing) \
                or f"expected {list(wanted)}"
            raise InvalidMoveError(f"{kind} moveData has unexpected field(s) {extra}; {needed}")
        fields: dict[str, Any] = {}
        for key in wanted:
            if key not in data:
                raise InvalidMoveError(f'{kind} moveData needs "{key}"')
            field = MOVE_DATA[key]
            fields[field.attr] = field.parse(kind, data[key])
        return Move(kind, **fields)

    def __repr__(self) -> str:
        """Code that gives this move back: its JSON form, the one the prompt, the API and the
        transcripts write (``Move.from_json({"move": "DISCARD", "moveData": {"cardIndex": 3}})``),
        or, for a move that form cannot hold (a field its kind does not use, a value out of
        range), the constructor's call with the fields that differ from their defaults."""
        form = self.to_json()
        try:
            exact = Move.from_json(form) == self
        except InvalidMoveError:
            exact = False
        if exact:
            return f"Move.from_json({json.dumps(form)})"
        given = [f"{name}={value!r}" for name, value, default in (
            ("card_index", self.card_index, -1), ("wonder", self.wonder, ""),
            ("token", self.token, ""), ("card_name", self.card_name, ""),
            ("player_number", self.player_number, 0)) if value != default]
        return f"Move({', '.join([repr(str(self.kind)), *given])})"

    def __str__(self) -> str:
        if self.kind in (MoveKind.CONSTRUCT_BUILDING, MoveKind.DISCARD):
            return f"{self.kind} {self.card_index}"
        if self.kind == MoveKind.CONSTRUCT_WONDER:
            return f"{self.kind} {self.card_index} {self.wonder}"
        if self.kind == MoveKind.SELECT_WONDER:
            return f"{self.kind} {self.wonder}"
        if self.kind in (MoveKind.CHOOSE_PROGRESS_TOKEN,
                         MoveKind.CHOOSE_PROGRESS_TOKEN_FROM_DISCARD):
            return f"{self.kind} {self.token}"
        if self.kind == MoveKind.CHOOSE_STARTING_PLAYER:
            return f"{self.kind} {self.player_number}"
        return f"{self.kind} {self.card_name}"


# Interned moves: legal-move generation hands out these shared instances instead of allocating.
BUILD_MOVES: Final = tuple(Move(MoveKind.CONSTRUCT_BUILDING, card_index=i) for i in range(20))
DISCARD_MOVES: Final = tuple(Move(MoveKind.DISCARD, card_index=i) for i in range(20))
WONDER_MOVES: Final = tuple(tuple(Move(MoveKind.CONSTRUCT_WONDER, card_index=i, wonder=w)
                                  for w in WONDER_NAMES) for i in range(20))
SELECT_MOVES: Final = tuple(Move(MoveKind.SELECT_WONDER, wonder=w) for w in WONDER_NAMES)
TOKEN_MOVES: Final = tuple(Move(MoveKind.CHOOSE_PROGRESS_TOKEN, token=t) for t in TOKEN_NAMES)
LIBRARY_MOVES: Final = tuple(Move(MoveKind.CHOOSE_PROGRESS_TOKEN_FROM_DISCARD, token=t)
                             for t in TOKEN_NAMES)
DESTROY_MOVES: Final = tuple(Move(MoveKind.DESTROY_CARD, card_name=c) for c in CARD_NAMES)
FROM_DISCARD_MOVES: Final = tuple(Move(MoveKind.CONSTRUCT_FROM_DISCARD, card_name=c)
                                  for c in CARD_NAMES)
START_MOVES: Final = (Move(MoveKind.CHOOSE_STARTING_PLAYER, player_number=1),
                      Move(MoveKind.CHOOSE_STARTING_PLAYER, player_number=2))

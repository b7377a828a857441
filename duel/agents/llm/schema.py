"""The move schema as the providers' structured-output features want it, and reply parsing."""

from __future__ import annotations

import json
import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from duel.engine.data import CARD_NAMES, TOKEN_NAMES, WONDER_NAMES
from duel.engine.moves import MOVE_FIELDS, MOVE_KINDS


def _field(name: str) -> dict[str, Any]:
    if name == "cardIndex":
        return {"type": "integer"}
    if name == "playerNumber":
        return {"type": "integer", "enum": [1, 2]}
    if name == "wonder":
        return {"type": "string", "enum": list(WONDER_NAMES)}
    if name == "progressToken":
        return {"type": "string", "enum": list(TOKEN_NAMES)}
    return {"type": "string", "enum": list(CARD_NAMES)}


def structured_schema() -> dict[str, Any]:
    """A move schema that OpenAI's strict mode accepts (object root, every property required,
    no extra properties, anyOf only below the root) and Anthropic's tool input_schema too."""
    shapes: list[tuple[str, ...]] = []
    for fields in MOVE_FIELDS.values():
        if fields not in shapes:
            shapes.append(fields)
    return {
        "type": "object",
        "properties": {
            "move": {"type": "string", "enum": list(MOVE_KINDS)},
            "moveData": {"anyOf": [
                {"type": "object", "properties": {f: _field(f) for f in shape},
                 "required": list(shape), "additionalProperties": False}
                for shape in shapes
            ]},
        },
        "required": ["move", "moveData"],
        "additionalProperties": False,
    }


class MoveReply(BaseModel):
    """The reply's shape; names and legality are checked afterwards, against the engine."""

    model_config = ConfigDict(extra="forbid", strict=True)
    move: Literal[MOVE_KINDS]  # type: ignore[valid-type]
    moveData: dict[str, Any]


def pydantic_error(obj: Any) -> str | None:
    """One line naming what is wrong with the reply's shape, or None."""
    try:
        MoveReply.model_validate(obj)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "(root)"
        return f"{where}: {first['msg']}"
    return None


# The prompt's own example writes the move name unquoted: {"move": CONSTRUCT_BUILDING, ...}.
# Quoting a bare move name is a syntax repair, not a guess.
_BARE_MOVE = re.compile(r'("move"\s*:\s*)([A-Z][A-Z_]+)')
# Where an object can start: a brace, then a key or the closing brace (skips "{{{{" cheaply).
_OBJECT_START = re.compile(r'\{\s*["}]')


def last_json_object(text: str) -> dict[str, Any] | None:
    """The last top-level JSON object in `text` (code fences and prose around it are fine).
    Never guesses a move out of prose: no object, no move."""
    text = _BARE_MOVE.sub(r'\1"\2"', text)
    decoder = json.JSONDecoder()
    found: dict[str, Any] | None = None
    pos = 0
    while True:
        match = _OBJECT_START.search(text, pos)
        if match is None:
            return found
        start = match.start()
        try:
            obj, end = decoder.raw_decode(text, start)
        except (ValueError, RecursionError):  # not JSON here, or nested too deep to read
            pos = start + 1
            continue
        if isinstance(obj, dict):
            found = obj
        pos = end

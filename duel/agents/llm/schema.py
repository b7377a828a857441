"""The move schema as the providers' structured-output features want it, and finding the move
object in a free-text reply."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

from duel.engine.moves import MOVE_FIELDS, MOVE_KEYS, MOVE_KINDS, move_data_schema

# Bounds the providers' strict modes do not all accept (OpenAI's strict mode long refused them);
# the parser checks them anyway, and a reply outside them is re-asked as SCHEMA.
_UNSUPPORTED = ("minimum", "maximum")


def structured_schema() -> dict[str, Any]:
    """The engine's move model in the shape OpenAI's strict mode accepts (object root, every
    property required, no extra properties, anyOf only below the root), which Anthropic's tool
    input_schema accepts too: one moveData shape per distinct set of fields."""
    shapes: dict[tuple[str, ...], dict[str, Any]] = {}
    for kind, fields in MOVE_FIELDS.items():
        if fields not in shapes:
            data = move_data_schema(kind)
            data["properties"] = {
                key: {k: v for k, v in prop.items() if k not in _UNSUPPORTED}
                for key, prop in data["properties"].items()}
            shapes[fields] = data
    return {
        "type": "object",
        "properties": {
            "move": {"type": "string", "enum": list(MOVE_KINDS)},
            "moveData": {"anyOf": list(shapes.values())},
        },
        "required": list(MOVE_KEYS),
        "additionalProperties": False,
    }


# The prompt's own example writes the move name unquoted: {"move": CONSTRUCT_BUILDING, ...}.
# Quoting a bare move name is a syntax repair, not a guess.
_BARE_MOVE = re.compile(r'("move"\s*:\s*)([A-Z][A-Z_]+)')
# Where an object can start: a brace, then a key or the closing brace (skips "{{{{" cheaply).
_OBJECT_START = re.compile(r'\{\s*["}]')


def json_objects(text: str) -> Iterator[tuple[dict[str, Any], int]]:
    """Each top-level JSON object of `text` and where it starts (code fences and prose around
    it are skipped; a brace that starts no valid JSON is passed over)."""
    decoder = json.JSONDecoder()
    pos = 0
    while True:
        match = _OBJECT_START.search(text, pos)
        if match is None:
            return
        start = match.start()
        try:
            obj, end = decoder.raw_decode(text, start)
        except (ValueError, RecursionError):  # not JSON here, or nested too deep to read
            pos = start + 1
            continue
        if isinstance(obj, dict):
            yield obj, start
        pos = end


def last_json_object(text: str) -> dict[str, Any] | None:
    """The last top-level JSON object in `text` (code fences and prose around it are fine).
    Never guesses a move out of prose: no object, no move."""
    found: dict[str, Any] | None = None
    for obj, _ in json_objects(_BARE_MOVE.sub(r'\1"\2"', text)):
        found = obj
    return found

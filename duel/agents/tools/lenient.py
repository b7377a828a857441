"""Reading a tool call's arguments as clients are known to send them, before they are checked.

Known slips, each repaired and named (the tool record's ``repairs``):
- an object argument sent as a JSON-encoded string (LLM clients often do; so does a client that
  converts typed-in values only where a schema says ``"type": "object"``), parsed;
- a whole number or a boolean sent as a string (``"11"``, ``"true"``) where the schema says
  ``integer`` or ``boolean``, read as one;
- an optional argument sent as ``null`` (OpenAI's strict mode sends every field, ``null`` for
  those not meant), left out; so is a ``null`` field of ``moveData``;
- a move's whole ``{"move": ..., "moveData": ...}`` sent in ``move`` (as an object or a JSON
  string) without a ``moveData`` of its own, taken apart.
Nothing else is guessed: what is left is checked against the schema, and a move by the engine's
parser, whose refusals name what was wrong (`expected_shape` adds what was wanted).
"""

from __future__ import annotations

import json
import re
from typing import Any

from duel.engine.moves import MOVE_DATA, MOVE_FIELDS, MOVE_KEYS

_INTEGER = re.compile(r"\s*-?\d{1,19}\s*")


def _object(text: str) -> dict[str, Any] | None:
    """`text` as a JSON object, or None if it holds none."""
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, dict) else None


def _scalar(value: str, kind: Any) -> tuple[bool, Any]:
    """(True, the value) when `value` spells one of type `kind`."""
    if kind == "integer" and _INTEGER.fullmatch(value):
        return True, int(value)
    if kind == "boolean" and value.strip() in ("true", "false"):
        return True, value.strip() == "true"
    return False, value


def loosen(params: dict[str, dict[str, Any]], required: tuple[str, ...], move: bool,
           arguments: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """`arguments` with the known slips repaired, and a line for each repair."""
    out = dict(arguments)
    repairs: list[str] = []
    if move:
        _unpack_move(out, repairs)
    for key in list(out):
        schema, value = params.get(key), out[key]
        if schema is None:
            continue
        kind = schema.get("type")
        if value is None and key not in required:
            del out[key]
            repairs.append(f"{key}: null taken as left out")
        elif isinstance(value, str) and kind == "object":
            parsed = _object(value)
            if parsed is not None:
                out[key] = parsed
                repairs.append(f"{key}: parsed from a JSON string")
        elif isinstance(value, str):
            ok, read = _scalar(value, kind)
            if ok:
                out[key] = read
                repairs.append(f"{key}: read as {kind} from a string")
    data = out.get("moveData")
    if move and isinstance(data, dict) and any(v is None for v in data.values()):
        out["moveData"] = {k: v for k, v in data.items() if v is not None}
        repairs.append("moveData: null fields taken as left out")
    return out, repairs


def _unpack_move(out: dict[str, Any], repairs: list[str]) -> None:
    """A whole move object given in `move` (and no moveData beside it) taken apart."""
    whole = out.get("move")
    if isinstance(whole, str) and whole.lstrip().startswith("{"):
        whole = _object(whole)
    if not isinstance(whole, dict) or out.get("moveData") is not None:
        return
    if "move" not in whole or not set(whole) <= set(MOVE_KEYS):
        return  # not a move object: the parser says what is wrong with it
    out["move"] = whole["move"]
    out["moveData"] = whole.get("moveData")
    repairs.append('move: the whole {"move", "moveData"} object, taken apart')


def _field_words(key: str) -> str:
    field = MOVE_DATA[key]
    values = field.values
    if isinstance(values, range):
        return f"<integer {values.start}-{values.stop - 1}>"
    if field.json_type == "integer":
        return f"<{' or '.join(str(v) for v in values)}>"
    return f"<a {key} name>"


def expected_shape(kind: Any) -> str:
    """The move JSON wanted, in words: the kind's own fields where `kind` is a move kind."""
    fields = MOVE_FIELDS.get(kind) if isinstance(kind, str) else None
    if fields is None:
        return ('expected {"move": "<a move kind>", "moveData": {<its fields>}}, e.g. '
                '{"move": "CONSTRUCT_BUILDING", "moveData": {"cardIndex": 3}}; legal_moves '
                "lists yours")
    data = ", ".join(f'"{key}": {_field_words(key)}' for key in fields)
    return f'expected {{"move": "{kind}", "moveData": {{{data}}}}}'


__all__ = ["expected_shape", "loosen"]

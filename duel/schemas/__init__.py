"""The published JSON Schemas (state, move, deal) and validators that name what is wrong."""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any

import jsonschema
from jsonschema.exceptions import best_match

from duel.engine.moves import InvalidMoveError, InvalidStateError


@cache
def schema(name: str) -> dict[str, Any]:
    """The published schema `name` ("state", "move" or "deal") as a dict."""
    text = resources.files(__package__).joinpath(f"{name}.schema.json").read_text()
    loaded: dict[str, Any] = json.loads(text)
    return loaded


@cache
def _validator(name: str) -> jsonschema.protocols.Validator:
    s = schema(name)
    cls = jsonschema.validators.validator_for(s)
    validator: jsonschema.protocols.Validator = cls(s)
    return validator


def schema_error(name: str, obj: Any) -> str | None:
    """The most relevant schema violation as one line, or None if `obj` validates."""
    err = best_match(_validator(name).iter_errors(obj))
    if err is None:
        return None
    where = "/".join(str(p) for p in err.absolute_path) or "(root)"
    return f"{name} schema: at {where}: {err.message}"


def validate_state(obj: Any) -> None:
    """Raises InvalidStateError with the schema's message if `obj` is not a valid state."""
    msg = schema_error("state", obj)
    if msg:
        raise InvalidStateError(msg)


def move_schema_error(obj: Any) -> str | None:
    """Like schema_error("move", ...), but checks the branch the "move" field names, so the
    message points at the wrong field instead of "not valid under any of the given schemas"."""
    if isinstance(obj, dict) and isinstance(obj.get("move"), str):
        for branch in schema("move")["anyOf"]:
            if branch["properties"]["move"]["const"] == obj["move"]:
                err = best_match(jsonschema.Draft202012Validator(branch).iter_errors(obj))
                if err is None:
                    return None
                where = "/".join(str(p) for p in err.absolute_path) or "(root)"
                return f"move schema: at {where}: {err.message}"
    return schema_error("move", obj)


def validate_move(obj: Any) -> None:
    msg = move_schema_error(obj)
    if msg:
        raise InvalidMoveError(msg)


def validate_deal(obj: Any) -> None:
    msg = schema_error("deal", obj)
    if msg:
        raise InvalidStateError(msg)

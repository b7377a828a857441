"""The tools' argument schemas: one source, and the forms each provider's function calling
takes, derived from it.

The source is plain JSON Schema that every client reads alike: each property has one `type`
(an optional one is left out of `required`, never typed `[T, "null"]`) and no property is a
union. Schema-driven clients convert a typed-in value by that `type` (the MCP Inspector parses
a `--tool-arg` into an object only where the property says `"type": "object"`), so `moveData`
is one flat object whose fields are all optional, its kinds' fields described in words: the
engine's parser (`Move.from_json`) stays the one judge of which fields a kind takes.

Derived forms, for the providers that accept only part of JSON Schema:
- `openai_strict`: OpenAI's strict mode: every object's properties all `required`,
  `additionalProperties: false`, an optional property nullable by the type union OpenAI
  documents (`["integer", "null"]`, an enum gaining `null`), only the keywords it supports.
- `gemini`: Gemini's function declarations, a subset of the OpenAPI 3.0 Schema object: no
  `additionalProperties`, `enum` only on strings, `nullable` instead of a type list.
- `anthropic`: Anthropic's `input_schema` takes JSON Schema as it is: the source, unchanged.
duel's own tools=on requests use the source (OpenAI's function tools non-strict, Anthropic's).
"""

from __future__ import annotations

import copy
from typing import Any

from duel.engine.moves import MOVE_DATA, MOVE_FIELDS, MOVE_KINDS
from duel.errors import UsageError

# Keywords OpenAI documents as supported in strict mode (Structured Outputs' "supported
# schemas"); others (default, minLength, maxLength) are dropped, the parser checks them anyway.
OPENAI_STRICT_KEYWORDS = frozenset({
    "type", "properties", "required", "additionalProperties", "enum", "const", "anyOf",
    "description", "items", "minItems", "maxItems", "pattern", "format", "minimum", "maximum",
    "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "$ref", "$defs"})
# The fields of Gemini's Schema object (its function declarations' `parameters`).
GEMINI_KEYWORDS = frozenset({
    "type", "format", "title", "description", "nullable", "enum", "maxItems", "minItems",
    "properties", "required", "minProperties", "maxProperties", "minLength", "maxLength",
    "pattern", "example", "anyOf", "propertyOrdering", "default", "items", "minimum",
    "maximum"})
GEMINI_TYPES = frozenset({"string", "number", "integer", "boolean", "array", "object"})
DIALECTS = ("source", "openai_strict", "gemini", "anthropic")


def _variants() -> str:
    """Each move kind's moveData fields, kinds with the same fields together."""
    groups: dict[tuple[str, ...], list[str]] = {}
    for kind in MOVE_KINDS:
        groups.setdefault(MOVE_FIELDS[kind], []).append(str(kind))
    return "; ".join(f"{' or '.join(kinds)}: {', '.join(fields)}"
                     for fields, kinds in groups.items())


def move_params() -> dict[str, dict[str, Any]]:
    """`move` and `moveData` as the move tools take them (the engine's move model)."""
    return {
        "move": {"type": "string", "enum": [str(k) for k in MOVE_KINDS],
                 "description": "the move's kind, as the rules prompt names it"},
        "moveData": {
            "type": "object",
            "properties": {key: field.schema() for key, field in MOVE_DATA.items()},
            "additionalProperties": False,
            "description": "the move's data: exactly the fields of its kind, "
                           f"{_variants()}; e.g. {{\"cardIndex\": 3}} or "
                           '{"cardIndex": 3, "wonder": "THE_COLOSSUS"}'}}


def for_provider(schema: dict[str, Any], dialect: str) -> dict[str, Any]:
    """`schema` (a tool's source schema) in `dialect`'s form; the source is not changed."""
    if dialect in ("source", "anthropic"):
        return copy.deepcopy(schema)
    if dialect == "openai_strict":
        return _strict(schema, optional=False)
    if dialect == "gemini":
        return _gemini(schema)
    raise UsageError(f"unknown schema dialect {dialect!r}; dialects: {', '.join(DIALECTS)}")


def _strict(schema: dict[str, Any], optional: bool) -> dict[str, Any]:
    out = {k: copy.deepcopy(v) for k, v in schema.items() if k in OPENAI_STRICT_KEYWORDS}
    if "properties" in schema:
        required = set(schema.get("required", ()))
        out["properties"] = {key: _strict(prop, optional=key not in required)
                             for key, prop in schema["properties"].items()}
        out["required"] = list(schema["properties"])
        out["additionalProperties"] = False
    if optional:  # OpenAI: "emulate an optional parameter with a union type with null"
        out["type"] = [out["type"], "null"]
        if "enum" in out:
            out["enum"] = [*out["enum"], None]
    return out


def _gemini(schema: dict[str, Any]) -> dict[str, Any]:
    out = {k: copy.deepcopy(v) for k, v in schema.items() if k in GEMINI_KEYWORDS}
    if "properties" in schema:
        out["properties"] = {key: _gemini(prop) for key, prop in schema["properties"].items()}
        if schema.get("required"):
            out["required"] = list(schema["required"])
    values = out.get("enum")
    if values is not None and out.get("type") != "string":
        # Gemini's enum is for strings: a whole-number enum becomes its bounds and words.
        del out["enum"]
        out["minimum"], out["maximum"] = min(values), max(values)
        words = f"one of {', '.join(str(v) for v in values)}"
        out["description"] = f"{out['description']} ({words})" if "description" in out \
            else words
    return out


__all__ = ["DIALECTS", "for_provider", "move_params"]

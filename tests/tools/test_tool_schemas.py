"""The tools' schemas, as every client reads them: one plain `type` per property and no type
list (the source, which the MCP server publishes and tools=on sends), and the forms derived for
the providers' function calling, each checked against that provider's documented rules."""

from __future__ import annotations

from typing import Any

import pytest
from jsonschema import Draft202012Validator

from duel.agents.llm.toolloop import tool_specs
from duel.agents.tools import TOOLS
from duel.agents.tools.schemas import (
    GEMINI_KEYWORDS,
    GEMINI_TYPES,
    OPENAI_STRICT_KEYWORDS,
    for_provider,
)
from duel.engine import Move
from duel.engine.moves import BUILD_MOVES, SELECT_MOVES, TOKEN_MOVES
from duel.mcp.games import GAME_PARAM, JOIN_GAME, NEW_GAME
from duel.mcp.server import _WAIT_PARAM

JSON_TYPES = {"string", "number", "integer", "boolean", "array", "object", "null"}


def published() -> dict[str, dict[str, Any]]:
    """Every tool's schema, as `duel mcp` publishes it (with `game`, and `wait`)."""
    out = {t.name: t.schema() for t in (NEW_GAME, JOIN_GAME)}
    for tool in TOOLS:
        extra = {**GAME_PARAM, **(_WAIT_PARAM if tool.name == "get_state" else {})}
        out[tool.name] = tool.schema(extra, ("game",))
    return out


def nodes(schema: dict[str, Any], path: str = "$") -> list[tuple[str, dict[str, Any]]]:
    """Every schema node under `schema` (itself first), with its path."""
    out = [(path, schema)]
    for key, prop in schema.get("properties", {}).items():
        out += nodes(prop, f"{path}.{key}")
    if isinstance(schema.get("items"), dict):
        out += nodes(schema["items"], f"{path}[]")
    for i, branch in enumerate(schema.get("anyOf", ())):
        out += nodes(branch, f"{path}|{i}")
    return out


@pytest.mark.parametrize("name", list(published()))
def test_every_property_has_one_plain_type(name: str) -> None:
    schema = published()[name]
    Draft202012Validator.check_schema(schema)
    assert schema["type"] == "object" and schema["additionalProperties"] is False
    for path, node in nodes(schema):
        assert isinstance(node.get("type"), str) and node["type"] in JSON_TYPES, path
        assert not {"anyOf", "oneOf", "allOf", "$ref"} & set(node), path
        assert node.get("default", 0) is not None, path  # optional: left out, never null
    assert set(schema["required"]) <= set(schema["properties"])


def test_move_data_is_one_flat_object_whose_kinds_are_described() -> None:
    data = published()["make_move"]["properties"]["moveData"]
    assert data["type"] == "object" and "required" not in data
    for move in (BUILD_MOVES[3], SELECT_MOVES[0], TOKEN_MOVES[0]):
        Draft202012Validator(data).validate(move.to_json()["moveData"])
        assert move.kind in data["description"]
    assert set(data["properties"]) == {"cardIndex", "wonder", "progressToken", "cardName",
                                       "playerNumber"}


def test_tools_on_sends_the_source_schema_to_every_api() -> None:
    source = {t.name: t.schema() for t in TOOLS}
    for spec in tool_specs("anthropic"):
        assert spec["input_schema"] == source[spec["name"]]
    for spec in tool_specs("chat"):
        assert spec["function"]["parameters"] == source[spec["function"]["name"]]
    for spec in tool_specs("responses"):
        assert spec["parameters"] == source[spec["name"]] and spec["strict"] is False


@pytest.mark.parametrize("name", list(published()))
def test_openai_strict_form_follows_openais_rules(name: str) -> None:
    """Structured Outputs' rules: an object root; on every object, every property required
    and additionalProperties false; an optional property nullable by a union with null; only
    the supported keywords."""
    source = published()[name]
    strict = for_provider(source, "openai_strict")
    Draft202012Validator.check_schema(strict)
    assert strict["type"] == "object" and "anyOf" not in strict
    for path, node in nodes(strict):
        assert set(node) <= OPENAI_STRICT_KEYWORDS, (path, set(node) - OPENAI_STRICT_KEYWORDS)
        if "properties" in node:
            assert node["required"] == list(node["properties"]), path
            assert node["additionalProperties"] is False, path
        if "enum" in node and isinstance(node["type"], list):
            assert None in node["enum"], path
    for key in source["properties"]:
        nullable = isinstance(strict["properties"][key]["type"], list)
        assert nullable is (key not in source["required"]), key
    assert for_provider(source, "source") == source  # the source is never changed


@pytest.mark.parametrize("name", list(published()))
def test_gemini_form_is_in_the_openapi_subset(name: str) -> None:
    """Gemini's function declarations: the fields of its Schema object only (no
    additionalProperties), one type each, enum only of strings."""
    gemini = for_provider(published()[name], "gemini")
    for path, node in nodes(gemini):
        assert set(node) <= GEMINI_KEYWORDS, (path, set(node) - GEMINI_KEYWORDS)
        assert node["type"] in GEMINI_TYPES, path
        if "enum" in node:
            assert node["type"] == "string" and all(isinstance(v, str) for v in node["enum"])
        assert set(node.get("required", ())) <= set(node.get("properties", {})), path


def test_anthropic_form_is_the_source_with_an_object_root() -> None:
    for name, schema in published().items():
        form = for_provider(schema, "anthropic")
        assert form == schema and form["type"] == "object", name


def test_what_the_strict_form_lets_through_is_read_back() -> None:
    """A call made to the strict form (every field, null where not meant) is the same call."""
    from duel.agents.tools import TOOLS_BY_NAME, check_arguments

    strict_call = {"move": "CONSTRUCT_WONDER",
                   "moveData": {"cardIndex": 4, "wonder": "THE_SPHINX", "progressToken": None,
                                "cardName": None, "playerNumber": None}}
    args = check_arguments(TOOLS_BY_NAME["make_move"], strict_call)
    assert Move.from_json(args) == Move("CONSTRUCT_WONDER", card_index=4, wonder="THE_SPHINX")
    assert check_arguments(TOOLS_BY_NAME["legal_moves"], {"why_not": None}) == {
        "why_not": False}

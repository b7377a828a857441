"""Builds the published JSON Schemas from the engine's name tables.

The committed files (``state.schema.json``, ``move.schema.json``, ``deal.schema.json``,
``transcript.schema.json``, ``analysis.schema.json``, ``suite.schema.json``,
``leaderboard.schema.json``) are the published form; ``python -m duel.schemas.generate``
rewrites them and a test checks they are
current.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from duel.engine.data import BACK_NAMES, CARD_NAMES, GROUP_ORDER, TOKEN_NAMES, WONDER_NAMES
from duel.engine.moves import MOVE_KEYS, MOVE_KINDS, move_data_schema
from duel.engine.steps import STEP_NAMES

HERE = Path(__file__).parent
DRAFT = "https://json-schema.org/draft/2020-12/schema"
SCORE_KEYS = ("CIVILIAN_BUILDING", "SCIENTIFIC_BUILDING", "COMMERCIAL_BUILDING", "GUILD",
              "MILITARY_BUILDING", "WONDER", "MONEY", "PROGRESS_TOKEN", "TOTAL")


def _names(values: tuple[str, ...] | list[str]) -> dict[str, Any]:
    return {"type": "array", "items": {"enum": list(values)}, "uniqueItems": True}


def state_schema() -> dict[str, Any]:
    score = {
        "oneOf": [
            {"type": "object", "maxProperties": 0},
            {"type": "object", "required": list(SCORE_KEYS), "additionalProperties": False,
             "properties": {k: {"type": "integer"} for k in SCORE_KEYS}},
        ]
    }
    player = {
        "type": "object",
        "required": ["id", "money", "wonders", "tokens", "won", "score", "sortedHand"],
        "properties": {
            "id": {"type": "integer"},
            "money": {"type": "integer", "minimum": 0},
            "wonders": {"type": "object", "maxProperties": 4,
                        "propertyNames": {"enum": list(WONDER_NAMES)},
                        "additionalProperties": {"type": "integer", "minimum": 0, "maximum": 3}},
            "tokens": _names(TOKEN_NAMES),
            "won": {"type": "boolean"},
            "score": score,
            "sortedHand": {"type": "object", "propertyNames": {"enum": list(GROUP_ORDER)},
                           "additionalProperties": _names(CARD_NAMES)},
        },
    }
    slot = {
        "type": "object", "required": ["cardName", "isActive"], "additionalProperties": False,
        "properties": {"cardName": {"enum": list(CARD_NAMES) + list(BACK_NAMES)},
                       "isActive": {"type": "boolean"}},
    }
    return {
        "$schema": DRAFT,
        "$id": "https://duel.dev/schemas/state.schema.json",
        "title": "7 Wonders Duel game state (the rules prompt's JSON format)",
        "type": "object",
        "required": ["code", "step", "age", "currentPlayerNumber", "player1", "player2",
                     "military", "discardedCards", "tokensAvailable", "tokensUnavailable",
                     "tokensFromUnavailable", "wondersAvailable", "wondersUnavailable",
                     "visiblePyramid"],
        "properties": {
            "code": {"type": "string"},
            "step": {"enum": list(STEP_NAMES)},
            "age": {"enum": [1, 2, 3]},
            "currentPlayerNumber": {"enum": [1, 2]},
            "player1": player,
            "player2": player,
            "military": {
                "type": "object",
                "required": ["militaryPosition", "loot5Player1Available", "loot2Player1Available",
                             "loot2Player2Available", "loot5Player2Available"],
                "properties": {
                    "id": {"type": "integer"},
                    "militaryPosition": {"type": "integer", "minimum": -9, "maximum": 9},
                    "loot5Player1Available": {"type": "boolean"},
                    "loot2Player1Available": {"type": "boolean"},
                    "loot2Player2Available": {"type": "boolean"},
                    "loot5Player2Available": {"type": "boolean"},
                },
            },
            "discardedCards": _names(CARD_NAMES),
            "tokensAvailable": _names(TOKEN_NAMES),
            "tokensUnavailable": _names(TOKEN_NAMES),
            "tokensFromUnavailable": _names(TOKEN_NAMES),
            "wondersAvailable": _names(WONDER_NAMES),
            "wondersUnavailable": _names(WONDER_NAMES),
            "visiblePyramid": {
                "type": "object",
                "propertyNames": {"pattern": "^(1?[0-9])$"},
                "additionalProperties": slot,
            },
            "previousMove": {"type": "string"},
        },
    }


def move_schema() -> dict[str, Any]:
    """One branch per move kind, each built from the engine's move model (duel.engine.moves)."""
    return {
        "$schema": DRAFT,
        "$id": "https://duel.dev/schemas/move.schema.json",
        "title": "7 Wonders Duel move (the rules prompt's {move, moveData} format)",
        "anyOf": [
            {"type": "object", "required": list(MOVE_KEYS), "additionalProperties": False,
             "properties": {"move": {"const": kind}, "moveData": move_data_schema(kind)}}
            for kind in MOVE_KINDS
        ],
    }


def deal_schema() -> dict[str, Any]:
    def cards(n: int) -> dict[str, Any]:
        return {**_names(CARD_NAMES), "minItems": n, "maxItems": n}

    return {
        "$schema": DRAFT,
        "$id": "https://duel.dev/schemas/deal.schema.json",
        "title": "7 Wonders Duel deal (all the randomness of one game)",
        "type": "object",
        "required": ["wonderDraft", "wondersOut", "tokensBoard", "tokensBox", "age1", "age2",
                     "age3", "removed"],
        "properties": {
            "wonderDraft": {**_names(WONDER_NAMES), "minItems": 8, "maxItems": 8},
            "wondersOut": {**_names(WONDER_NAMES), "minItems": 4, "maxItems": 4},
            "tokensBoard": {**_names(TOKEN_NAMES), "minItems": 5, "maxItems": 5},
            "tokensBox": {**_names(TOKEN_NAMES), "minItems": 5, "maxItems": 5},
            "age1": cards(20), "age2": cards(20), "age3": cards(20),
            "removed": {"type": "object", "required": ["age1", "age2", "age3", "guilds"],
                        "properties": {"age1": cards(3), "age2": cards(3), "age3": cards(3),
                                       "guilds": cards(4)}},
        },
    }


def transcript_schema() -> dict[str, Any]:
    """One line of a transcript file (JSON lines): a header, a move record or the result."""
    breakdown = {"type": "object", "required": list(SCORE_KEYS),
                 "properties": {k: {"type": "integer"} for k in SCORE_KEYS}}
    count = {"type": "integer", "minimum": 0}
    player = {"type": "object", "required": ["spec", "prompt"], "properties": {
        "spec": {"type": "string"},
        "prompt": {"oneOf": [{"type": "null"}, {
            "type": "object", "required": ["name", "hash"],
            "properties": {"name": {"type": "string"}, "hash": {"type": "string"},
                           "tools": {"type": "object", "required": ["steps", "hash"],
                                     "description": "tools=on: the look-ups per turn and the "
                                                    "hash of the tools' definitions",
                                     "properties": {"steps": count,
                                                    "hash": {"type": "string"}}},
                           "harness": {"type": "string", "description": "the LLM seat's "
                                       "harness settings (history=all,think=text), when not "
                                       "the defaults"},
                           "renaming": {"type": "object", "description": "names=renamed: the "
                                        "seed and each true name's invented one"}}}]}}}
    tool_call = {  # one call of a tool (duel.agents.tools.record.ToolCall)
        "type": "object", "required": ["tool"], "additionalProperties": False,
        "properties": {
            "tool": {"type": "string"},
            "arguments": {"type": "object"},
            "raw": {"type": "string", "description": "arguments that were not a JSON object, "
                                                     "as sent"},
            "repairs": {"type": "array", "items": {"type": "string"},
                        "description": "the client's slips repaired before the arguments "
                                       "were checked (an object sent as a JSON string)"},
            "chars": {**count, "description": "characters of JSON in the answer"},
            "error": {"type": "string", "description": "why the call was refused"},
            "seconds": {"type": "number", "minimum": 0}}}
    cost = {"type": ["number", "null"], "minimum": 0}
    llm_call = {  # one attempt: its category, raw reply, tokens, cost and latency
        "type": "object",
        "required": ["attempt", "category", "raw", "input_tokens", "output_tokens",
                     "cached_tokens", "cost_usd", "latency_s"],
        "properties": {
            "provider": {"type": "string"}, "model": {"type": "string"},
            "variant": {"type": "string"}, "variant_hash": {"type": "string"},
            "attempt": {"type": "integer", "minimum": 1},
            "category": {"enum": ["OK", "ILLEGAL", "SCHEMA", "UNPARSABLE", "EMPTY",
                                  "TRUNCATED", "TRANSPORT", "TOOLS", "TOOL_STEPS",
                                  "REFUSAL"]},
            "raw": {"type": "string"}, "finish_reason": {"type": "string"},
            "input_tokens": count, "output_tokens": count, "cached_tokens": count,
            "cache_write_tokens": count,
            "reasoning_tokens": {**count, "description": "of the output tokens, those spent "
                                                         "reasoning"},
            "thinking": {"type": "string",
                         "description": "the thinking text or reasoning summary returned"},
            "max_tokens": {**count, "description": "the output limit sent on this call"},
            "cost_usd": cost, "latency_s": {"type": "number", "minimum": 0},
            "error": {"type": "string"},
            "tool_calls": {"type": "array", "items": tool_call,
                           "description": "tools=on: the tool calls this reply made"},
            "served_model": {"type": "string", "description": "the model (snapshot) that "
                                                              "answered, as the reply names it"},
            "request_id": {"type": "string", "description": "the provider's request id"},
            "retry": {"type": "string", "description": "why the call before this one (the same "
                                                       "request) got no reply"},
            "cost_source": {"enum": ["provider"],
                            "description": "cost_usd is what the provider billed (OpenRouter's "
                                           "usage.cost), not the price table's"},
            "harness": {"type": "string", "description": "the seat's harness settings, when "
                                                         "not the defaults"}}}
    adaptation = {"type": "object", "required": ["parameter", "change", "reason"],
                  "properties": {k: {"type": "string"} for k in ("parameter", "change",
                                                                "reason")}}
    llm_details = {
        "type": "object",
        "required": ["calls", "attempts", "legal_at_attempt", "fallback", "variant",
                     "variant_hash"],
        "properties": {
            "calls": {"type": "array", "items": llm_call},
            "attempts": count,
            "legal_at_attempt": {"type": ["integer", "null"], "minimum": 1},
            "fallback": {"enum": [None, "random", "rule", "forfeit"]},
            "variant": {"type": "string"}, "variant_hash": {"type": "string"},
            "adaptations": {"type": "array", "items": adaptation,
                            "description": "parameters the model refused, changed during "
                                           "this decision (each recorded once per run)"},
            "settings": {"type": "object", "description": "what the calls were sent with, "
                                                          "after adaptation"},
            "tools": {"type": "object", "required": ["steps", "used"],
                      "description": "tools=on: the look-ups allowed this turn and those made",
                      "properties": {"steps": count, "used": count}},
            "harness": {"type": "string", "description": "the seat's harness settings "
                                                         "(history=all,think=text), when not "
                                                         "the defaults"},
            "note": {"type": ["string", "null"], "description": "notes=on: the note the "
                                                                "model kept with this move"}}}
    totals = {"oneOf": [{"type": "null"}, {  # one seat's LLM totals (null: no LLM moves)
        "type": "object",
        "required": ["moves", "calls", "input_tokens", "output_tokens", "cached_tokens",
                     "cost_usd", "latency_s", "first_try_legal", "legal_after_retries",
                     "mean_attempts", "fallbacks", "categories"],
        "properties": {
            "moves": count, "calls": count, "input_tokens": count, "output_tokens": count,
            "cached_tokens": count, "cache_write_tokens": count, "reasoning_tokens": count,
            "unusable_output_tokens": {**count, "description": "output tokens of replies that "
                                                               "were not played"},
            "reasoning": {"type": "string"},
            "cost_usd": cost, "latency_s": {"type": "number"},
            "first_try_legal": {"type": "number", "minimum": 0, "maximum": 1},
            "legal_after_retries": {"type": "number", "minimum": 0, "maximum": 1},
            "mean_attempts": {"type": "number", "minimum": 0}, "fallbacks": count,
            "categories": {"type": "object", "additionalProperties": count}}}]}
    return {
        "$schema": DRAFT,
        "$id": "https://duel.dev/schemas/transcript.schema.json",
        "title": "One line of a duel transcript (JSON lines)",
        "description": "Line 1 is the header, then one move record per decision (ply 1, 2, ...), "
                       "then the result. format_version is 1; readers refuse newer versions. "
                       "A forfeit is recorded as the last move record with details.forfeit "
                       "true (its move was never played).",
        "oneOf": [
            {"type": "object",
             "required": ["type", "format_version", "duel_version", "rules_version", "options",
                          "players"],
             # A sealed header (a running game's, as a server shows it) has no seed or deal;
             # every other header has both.
             "if": {"required": ["sealed"]},
             "then": {"not": {"anyOf": [{"required": [k]} for k in ("seed", "deal",
                                                                     "deal_from_seed")]}},
             "else": {"required": ["seed", "deal"]},
             "properties": {
                 "type": {"const": "header"},
                 "sealed": {"const": True,
                            "description": "a game still in play as a server shows it: the seed "
                                           "and the deal are withheld until the game is over, so "
                                           "the transcript cannot be replayed"},
                 "format_version": {"type": "integer", "minimum": 1},
                 "duel_version": {"type": "string"},
                 "rules_version": {"type": "string"},
                 "seed": {"type": ["integer", "null"]},
                 "deal_from_seed": {"type": "boolean",
                                    "description": "true if the deal is the seed's deal, which "
                                                   "replay then checks"},
                 "code": {"type": "string"},
                 "deal": deal_schema(),
                 "options": {"type": "object",
                             "properties": {"open_box": {"type": "boolean"}}},
                 "players": {"type": "object", "required": ["1", "2"],
                             "properties": {"1": player, "2": player}},
                 "started_at": {"type": "string"}}},
            {"type": "object",
             "required": ["type", "ply", "player", "step", "move", "price", "view_hash",
                          "seconds", "details"],
             "properties": {
                 "type": {"const": "move"},
                 "ply": {"type": "integer", "minimum": 1},
                 "player": {"enum": [1, 2]},
                 "step": {"enum": list(STEP_NAMES)},
                 "move": move_schema(),
                 "price": {"type": "integer", "minimum": 0},
                 "view_hash": {"type": "string"},
                 "seconds": {"type": "number", "minimum": 0},
                 "details": {"type": "object", "properties": {
                     "llm": llm_details,
                     "tool_calls": {"type": "array", "items": tool_call,
                                    "description": "a move made through the tool set (duel "
                                                   "mcp): the look-ups before it"},
                     "forfeit": {"type": "boolean"},
                     "iterations": count}}}},
            {"type": "object",
             "required": ["type", "winner", "victory", "scores", "moves", "seconds", "forfeit",
                          "totals"],
             "properties": {
                 "type": {"const": "result"},
                 "winner": {"enum": [1, 2, "draw"]},
                 "victory": {"enum": ["military", "science", "civilian", "forfeit"]},
                 "scores": {"type": "object", "required": ["player1", "player2"],
                            "properties": {"player1": breakdown, "player2": breakdown}},
                 "moves": count,
                 "seconds": {"type": "number", "minimum": 0},
                 "forfeit": {"enum": [None, 1, 2]},
                 "totals": {"type": "object", "required": ["1", "2"],
                            "properties": {"1": totals, "2": totals}}}},
        ],
    }


def analysis_schema() -> dict[str, Any]:
    """The analysis sidecar beside a transcript (duel.analysis.sidecar; `duel analyse`)."""
    unit = {"type": "number", "minimum": 0, "maximum": 1}
    count = {"type": "integer", "minimum": 0}
    from duel.engine.decisions import KINDS

    kinds = list(KINDS)
    valued = {"type": "object", "required": ["move", "value", "se", "visits", "rounds"],
              "additionalProperties": False,
              "properties": {"move": move_schema(), "value": unit, "se": unit,
                             "visits": count, "rounds": count}}
    figures_keys = ["decisions", "mean_loss", "loss_se", "blunders", "mistakes", "accuracy"]
    figures_props = {"decisions": count, "mean_loss": unit, "loss_se": unit,
                     "blunders": count, "mistakes": count,
                     "accuracy": {"type": "number", "minimum": 0, "maximum": 100}}
    figures = {"type": "object", "required": figures_keys, "additionalProperties": False,
               "properties": figures_props}
    seat = {"type": "object", "required": figures_keys + ["forced", "by_age", "by_kind"],
            "additionalProperties": False,
            "properties": {**figures_props, "forced": count,
                           "by_age": {"type": "object", "propertyNames": {"enum": ["1", "2", "3"]},
                                      "additionalProperties": figures},
                           "by_kind": {"type": "object", "propertyNames": {"enum": kinds},
                                       "additionalProperties": figures}}}
    decision = {
        "type": "object",
        "required": ["ply", "player", "step", "kind", "age", "legal", "view_hash", "iterations",
                     "played", "best", "played_value", "played_se", "best_value", "best_se",
                     "loss", "loss_se", "played_text", "best_text", "top", "moves"],
        "additionalProperties": False,
        "properties": {
            "ply": {"type": "integer", "minimum": 1}, "player": {"enum": [1, 2]},
            "step": {"enum": list(STEP_NAMES)}, "kind": {"enum": kinds},
            "age": {"enum": [1, 2, 3]}, "legal": {"type": "integer", "minimum": 2},
            "view_hash": {"type": "string"}, "iterations": count,
            "played": move_schema(), "best": move_schema(),
            "played_value": unit, "played_se": unit, "best_value": unit, "best_se": unit,
            "loss": unit, "loss_se": unit,
            "played_text": {"type": "string"}, "best_text": {"type": "string"},
            "top": {"type": "array", "items": valued, "minItems": 1, "maxItems": 3},
            "moves": {"type": "array", "items": valued, "minItems": 2}}}
    return {
        "$schema": DRAFT,
        "$id": "https://duel.dev/schemas/analysis.schema.json",
        "title": "Move-quality analysis of a duel transcript (GAME.analysis.json)",
        "description": "Written by duel analyse beside the transcript. Values are the deciding "
                       "seat's expected score (win 1, draw 1/2, loss 0) after a move, from the "
                       "view that seat had; loss = best value - played value, never negative. "
                       "played and best are moves in the prompt's format; moves holds every "
                       "legal move, ranked best first.",
        "type": "object",
        "required": ["type", "format_version", "duel_version", "rules_version", "transcript",
                     "players", "result", "settings", "analysed_seats", "thresholds",
                     "seconds", "jobs", "seats", "decisions", "curve"],
        "properties": {
            "type": {"const": "analysis"},
            "format_version": {"const": 1},
            "duel_version": {"type": "string"}, "rules_version": {"type": "string"},
            "transcript": {"type": "object", "required": ["file", "sha256"],
                           "properties": {"file": {"type": "string"},
                                          "sha256": {"type": "string",
                                                     "pattern": "^[0-9a-f]{64}$"}}},
            "players": {"type": "object", "required": ["1", "2"],
                        "properties": {"1": {"type": ["string", "null"]},
                                       "2": {"type": ["string", "null"]}}},
            "result": {"type": "object", "required": ["winner", "victory"],
                       "properties": {"winner": {"enum": [1, 2, "draw", None]},
                                      "victory": {"enum": ["military", "science", "civilian",
                                                           "forfeit", None]}}},
            "settings": {"type": "object",
                         "required": ["iterations", "time", "seed", "root", "c", "rollout",
                                      "build_bias"],
                         "properties": {"iterations": {"type": "integer", "minimum": 1},
                                        "time": {"type": "number", "minimum": 0},
                                        "seed": count, "root": {"type": "string"},
                                        "c": {"type": "number", "minimum": 0},
                                        "rollout": {"enum": ["uniform", "heuristic",
                                                             "mast"]},
                                        "build_bias": unit, "epsilon": unit,
                                        # duel analyse --guide: the net's name and a hash of
                                        # its weights (a retrained net is another judge)
                                        "guide": {"type": "string"},
                                        "guide_model": {"type": "string"}}},
            "analysed_seats": {"type": "array", "items": {"enum": [1, 2]}, "minItems": 1,
                               "uniqueItems": True},
            "thresholds": {"type": "object", "required": ["blunder", "mistake"],
                           "properties": {"blunder": unit, "mistake": unit}},
            "seconds": {"type": "number", "minimum": 0},
            "jobs": {"type": "integer", "minimum": 1},
            "seats": {"type": "object", "propertyNames": {"enum": ["1", "2"]},
                      "additionalProperties": seat},
            "decisions": {"type": "array", "items": decision},
            "curve": {"type": "array", "items": {
                "type": "object", "required": ["ply", "player", "p1", "p2"],
                "additionalProperties": False,
                "properties": {"ply": {"type": "integer", "minimum": 1},
                               "player": {"enum": [1, 2]}, "p1": unit, "p2": unit}}},
        },
    }


def suite_schema() -> dict[str, Any]:
    """A position suite (duel.grading.positions.suite; `duel positions extract`)."""
    from duel.engine.decisions import KINDS

    unit = {"type": "number", "minimum": 0, "maximum": 1}
    count = {"type": "integer", "minimum": 0}
    valued = {"type": "object", "required": ["move", "value", "se", "visits", "rounds"],
              "additionalProperties": False,
              "properties": {"move": move_schema(), "value": unit, "se": unit,
                             "visits": count, "rounds": count}}
    position = {
        "type": "object",
        "required": ["id", "source", "step", "age", "kind", "view", "legal", "values", "best",
                     "gap", "analysis"],
        "additionalProperties": False,
        "properties": {
            "id": {"type": "string", "pattern": "^[0-9a-f]{16}$"},
            "source": {"type": "object", "required": ["transcript", "sha256", "ply", "player"],
                       "additionalProperties": False,
                       "properties": {"transcript": {"type": "string"},
                                      "sha256": {"type": "string", "pattern": "^[0-9a-f]{64}$"},
                                      "ply": {"type": "integer", "minimum": 1},
                                      "player": {"enum": [1, 2]}}},
            "step": {"enum": list(STEP_NAMES)}, "kind": {"enum": list(KINDS)},
            "age": {"enum": [1, 2, 3]},
            "view": state_schema(),
            "legal": {"type": "array", "items": move_schema(), "minItems": 2},
            "values": {"type": "array", "items": valued, "minItems": 2},
            "best": move_schema(), "gap": unit,
            "analysis": {"type": "object", "required": ["iterations", "time", "seed", "root"],
                         "properties": {"iterations": {"type": "integer", "minimum": 1},
                                        "time": {"type": "number", "minimum": 0},
                                        "seed": count, "root": {"type": "string"},
                                        "ran": count}}}}
    return {
        "$schema": DRAFT,
        "$id": "https://duel.dev/schemas/suite.schema.json",
        "title": "A duel position suite (duel positions extract)",
        "description": "Decisions from real games, each as the deciding seat saw it (view: the "
                       "prompt's state in which that seat is player2), its legal moves in the "
                       "engine's order for that view, and the analyser's value (the seat's "
                       "expected score, win 1, draw 1/2, loss 0) of every legal move, ranked "
                       "best first. id is the view's hash. A reader also checks every view "
                       "against the engine's legal moves.",
        "type": "object",
        "required": ["type", "format_version", "duel_version", "rules_version", "selection",
                     "positions"],
        "properties": {
            "type": {"const": "position-suite"},
            "format_version": {"type": "integer", "minimum": 1},
            "duel_version": {"type": "string"}, "rules_version": {"type": "string"},
            "selection": {"type": "object",
                          "required": ["min_gap", "per_kind", "seed", "transcripts",
                                       "decisions", "over_gap"],
                          "properties": {"min_gap": unit, "per_kind": {"type": "integer",
                                                                       "minimum": 1},
                                         "seed": count, "transcripts": count,
                                         "decisions": count, "over_gap": count}},
            "positions": {"type": "array", "items": position},
        },
    }


def leaderboard_schema() -> dict[str, Any]:
    """leaderboard.json (duel.leaderboard; `duel leaderboard`, and `duel serve` at
    /leaderboard/leaderboard.json)."""
    num = {"type": "number"}
    count = {"type": "integer", "minimum": 0}
    unit = {"type": "number", "minimum": 0, "maximum": 1}
    usd = {"type": ["number", "null"], "minimum": 0}
    text = {"type": ["string", "null"]}

    def pair(item: dict[str, Any], nullable: bool = True) -> dict[str, Any]:
        shape = {"type": "array", "items": item, "minItems": 2, "maxItems": 2}
        return {"oneOf": [shape, {"type": "null"}]} if nullable else shape

    group = {"type": "object", "required": ["decisions", "games", "mean_loss", "ci"],
             "additionalProperties": False,
             "properties": {"decisions": count, "games": count, "mean_loss": unit,
                            "ci": pair(unit)}}
    player = {
        "type": "object",
        "required": ["player", "spec", "rating", "rating_ci", "rank_interval", "games",
                     "score_rate", "cost_per_game_usd", "mean_loss"],
        "properties": {
            "player": {"type": "string", "description": "the name rows are keyed by "
                       "(data-player): the spec, tagged with the prompt's hash only when the "
                       "spec's games were played with several prompt texts"},
            "spec": {"type": "string"}, "prompt_hash": text, "page": {"type": "string"},
            "anchor": {"type": "boolean"}, "rung": {"type": ["integer", "null"]},
            "place": {"type": "string"},
            "rating": num, "rating_ci": pair(num, False),
            "rank_interval": pair({"type": "integer", "minimum": 1}, False),
            "provisional": {"type": "boolean"},
            "games": {"type": "integer", "minimum": 1}, "wins": count, "draws": count,
            "losses": count, "score_rate": unit, "score_rate_ci": pair(unit, False),
            "llm": {"type": "boolean"}, "llm_moves": count,
            "first_try_legal": {"type": ["number", "null"], "minimum": 0, "maximum": 1},
            "first_try_legal_ci": pair(unit),
            "legal_after_retries": {"type": ["number", "null"], "minimum": 0, "maximum": 1},
            "fallbacks": count,
            "moves_counted": {"type": ["integer", "null"], "minimum": 0,
                              "description": "the player's decisions whose account was "
                              "recorded (null: a game recorded before accounts were kept)"},
            "own_moves": {"type": ["integer", "null"], "minimum": 0,
                          "description": "of those, the agent's own (not a fallback's move, "
                          "not a resignation decided for it)"},
            "not_own": {"type": "object", "additionalProperties": count,
                        "description": "the decisions that were not its own, by cause"},
            "partly_not_own": {"type": "boolean",
                               "description": "some of its moves were not its own: its "
                               "figures count moves the agent did not make"},
            "tokens_per_move": {"oneOf": [{"type": "null"}, {
                "type": "object", "required": ["input", "cached", "output", "reasoning"],
                "properties": {k: {"type": ["number", "null"], "minimum": 0}
                               for k in ("input", "cached", "output", "reasoning")}}]},
            "reasoning": text, "cost_games": count, "cost_usd": usd,
            "cost_per_game_usd": usd, "cost_per_game_ci": pair(usd),
            "cost_per_game_won_usd": usd,
            "analysed_games": count, "decisions": count,
            "mean_loss": {"type": ["number", "null"], "minimum": 0, "maximum": 1},
            "mean_loss_ci": pair(unit),
            "loss_by_age": {"type": "object", "propertyNames": {"enum": ["1", "2", "3"]},
                            "additionalProperties": group},
            "loss_by_kind": {"type": "object", "additionalProperties": group},
            "first_game": text, "last_game": text, "dated_games": count,
        },
    }
    pairing = {"type": "object",
               "required": ["a", "b", "games", "a_wins", "draws", "b_wins", "a_score_rate",
                            "a_score_rate_ci", "a_expected"],
               "properties": {"a": {"type": "string"}, "b": {"type": "string"},
                              "games": count, "a_wins": count, "draws": count,
                              "b_wins": count, "a_score_rate": unit,
                              "a_score_rate_ci": pair(unit, False), "a_expected": unit}}
    game = {"type": "object",
            "required": ["key", "players", "specs", "winner", "victory", "scores", "moves",
                         "seed", "started_at", "replay"],
            "properties": {"key": {"type": "string"},
                           "players": pair({"type": "string"}, False),
                           "specs": pair({"type": "string"}, False),
                           "winner": {"enum": [1, 2, None]},
                           "victory": {"enum": ["military", "science", "civilian", "forfeit"]},
                           "scores": pair({"type": "integer"}, False), "moves": count,
                           "seed": {"type": ["integer", "null"]}, "started_at": text,
                           "replay": text}}
    return {
        "$schema": DRAFT,
        "$id": "https://duel.dev/schemas/leaderboard.schema.json",
        "title": "A duel leaderboard (leaderboard.json)",
        "description": "Players (an agent spec with its settings) rated by Bradley-Terry on "
                       "the Elo scale (0 = the smallest MCTS budget present, else the mean), "
                       "best first. rating_ci and rank_interval ([best, worst] rank, 1 = "
                       "first) come from one parametric bootstrap (method); every rate has "
                       "its 95% CI and its n beside it (games, llm_moves, cost_games, "
                       "decisions). Figures that are not known are null: an LLM figure of a "
                       "player that made no LLM move, a cost with no priced game, a loss "
                       "with no analysed game. Agents that call no API cost 0 US$.",
        "type": "object",
        "required": ["format_version", "duel_version", "method", "summary", "players",
                     "pairings", "games", "notes"],
        "properties": {
            "format_version": {"const": 1}, "duel_version": {"type": "string"},
            "method": {"type": "object", "required": ["resamples", "seed", "level", "anchor"],
                       "properties": {"resamples": count, "seed": count, "level": unit,
                                      "anchor": text}},
            "summary": {"type": "object", "required": ["players", "games"],
                        "properties": {"players": count, "games": count}},
            "players": {"type": "array", "items": player},
            "pairings": {"type": "array", "items": pairing},
            "games": {"type": "array", "items": game},
            "notes": {"type": "array", "items": {"type": "string"}},
        },
    }


SCHEMAS = {"state": state_schema, "move": move_schema, "deal": deal_schema,
           "transcript": transcript_schema, "analysis": analysis_schema,
           "suite": suite_schema, "leaderboard": leaderboard_schema}


def write_all() -> None:
    for name, build in SCHEMAS.items():
        (HERE / f"{name}.schema.json").write_text(json.dumps(build(), indent=2) + "\n")


if __name__ == "__main__":
    write_all()

"""The `local` prompt variant: a short rules text whose every name is the state's own, whose card
and wonder tables are the engine's data, under its token budget, with the state on one line."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from helpers.games import random_game_states

from duel.engine.data import (
    BACK_NAMES,
    CARD_NAMES,
    COLOR_GROUP,
    RESOURCE_NAMES,
    SYMBOL_NAMES,
    TOKEN_NAMES,
    WONDER_NAMES,
)
from duel.engine.moves import MOVE_DATA, MOVE_KEYS, MOVE_KINDS
from duel.engine.perspective import Perspective
from duel.engine.steps import STEP_NAMES
from duel.errors import PromptError
from duel.prompts import Variant, _tables, get_variant, variants
from duel.prompts.reference import card_table, wonder_table

KNOWN_NAMES = {*CARD_NAMES, *WONDER_NAMES, *TOKEN_NAMES, *STEP_NAMES, *MOVE_KINDS,
               *RESOURCE_NAMES, *SYMBOL_NAMES, *BACK_NAMES, *COLOR_GROUP}
# Upper-case words of the text that are headings or abbreviations, not game identifiers.
HEADINGS = {"HOW", "TO", "WIN", "THE", "GAME", "COSTS", "MILITARY", "SCIENCE", "OTHER", "STEPS",
            "SCORE", "STATE", "CARDS", "NAME", "WONDERS", "PROGRESS", "TOKENS", "MOVES", "VP",
            "JSON", "II", "III"}


def view_keys(obj: Any) -> set[str]:
    """Every key of a JSON value, at any depth, except the numbered pyramid slots."""
    if isinstance(obj, dict):
        return {k for k in obj if not k.isdigit()} | set().union(
            *(view_keys(v) for v in obj.values()))
    if isinstance(obj, list):
        return set().union(*(view_keys(v) for v in obj))
    return set()


def test_local_is_short_and_has_no_placeholder_left() -> None:
    local, baseline = get_variant("local"), get_variant("baseline")
    # ~3,800 tokens of Qwen2.5's tokenizer (the slow test counts them), ~11,000 for the baseline
    assert local.token_estimate() <= 3000
    assert local.token_estimate() * 3 < baseline.token_estimate()
    assert not re.search(r"\{\{[A-Z_]+\}\}", local.system)
    assert local.compact_state and not local.legal_moves


def test_every_name_in_the_text_is_the_games_own() -> None:
    text = get_variant("local").system
    words = set(re.findall(r"\b[A-Z][A-Z0-9_]*[A-Z0-9]\b", text))  # two letters or more
    unknown = {w for w in words if w not in KNOWN_NAMES and w not in HEADINGS}
    assert not unknown
    # all identifiers are spelt as the state spells them; the headings are plain words
    assert not any("_" in w for w in HEADINGS)
    for name in (*MOVE_KINDS, *STEP_NAMES[:-1]):  # every move and step but GAME_END
        assert name in words, name


def test_every_quoted_key_is_a_key_of_the_state_or_the_move() -> None:
    text = get_variant("local").system
    keys: set[str] = set()
    for seed in range(3):
        for state in random_game_states(seed)[::10]:
            keys |= view_keys(Perspective.to_move(state).view(state))
    quoted = set(re.findall(r'"([a-z][A-Za-z0-9]*)"', text))
    assert quoted <= keys | set(MOVE_KEYS) | set(MOVE_DATA)
    for key in ("visiblePyramid", "isActive", "militaryPosition", "wondersAvailable",
                "tokensAvailable", "tokensFromUnavailable", "discardedCards", "sortedHand"):
        assert f'"{key}"' in text and key in keys


def test_the_tables_are_the_engines_data() -> None:
    text = get_variant("local").system
    lines = text.splitlines()
    for name in (*CARD_NAMES, *WONDER_NAMES, *TOKEN_NAMES):
        assert sum(line.startswith(name + ": ") for line in lines) == 1, name
    cards = card_table().splitlines()
    # one line of each kind, as docs/rules.md §1-§2 give them
    for line in ("LOGGING_CAMP: 1 coin -> produces 1 WOOD",
                 "CLAY_RESERVE: 3 coins -> BRICK bought for 1 coin each",
                 "STATUE: 2 BRICK -> 4 VP; free if you own THEATRE",
                 "LIBRARY: 1 WOOD, 1 STONE, 1 GLASS -> symbol QUILL; 2 VP; "
                 "free if you own SCRIPTORIUM",
                 "FORUM: 3 coins, 1 BRICK -> produces 1 GLASS or PAPYRUS of your choice each turn",
                 "PORT: 1 WOOD, 1 GLASS, 1 PAPYRUS -> take 2 coins per brown card in your city; "
                 "3 VP",
                 "LIGHTHOUSE: 2 BRICK, 1 GLASS -> take 1 coin per yellow card (this one "
                 "included) in your city; 3 VP; free if you own TAVERN",
                 "PRETORIUM: 8 coins -> 3 shields",
                 "SHIPOWNERS_GUILD: 1 BRICK, 1 STONE, 1 GLASS, 1 PAPYRUS -> take 1 coin per "
                 "brown or grey card in the city with the most; at the end 1 VP per brown or "
                 "grey card in the city with the most"):
        assert line in cards
    wonders = wonder_table().splitlines()
    assert "THE_PYRAMIDS: 3 STONE, 1 PAPYRUS -> 9 VP" in wonders
    assert ("THE_APPIAN_WAY: 2 BRICK, 2 STONE, 1 PAPYRUS -> take 3 coins; the opponent loses 3 "
            "coins; play again; 3 VP") in wonders
    assert "THE_TEMPLE_OF_ARTEMIS: 1 WOOD, 1 STONE, 1 GLASS, 1 PAPYRUS -> take 12 coins; " \
           "play again" in wonders


def test_an_unknown_table_is_refused() -> None:
    assert _tables("a\n{{WONDERS}}\nb", "t.toml").startswith("a\nTHE_APPIAN_WAY: ")
    with pytest.raises(PromptError, match=r"t.toml: unknown table \{\{NOPE\}\}; valid: CARDS"):
        _tables("{{NOPE}}", "t.toml")


def test_the_compact_state_is_the_view_on_one_line() -> None:
    state = random_game_states(4)[40]
    view = Perspective.to_move(state).view(state)
    local = get_variant("local")
    message = local.turn_message(view, [])
    state_line = message.split("\n\n")[1]
    assert "\n" not in state_line and json.loads(state_line) == view
    indented = get_variant("baseline").turn_message(view, [])
    assert len(message) < 0.85 * len(indented)  # and ~35% fewer tokens: no indent tokens
    # the compact form is part of the hash; the other variants keep the hashes they had
    loose = Variant(local.name, local.description, local.system, local.legal_moves)
    assert loose.hash != local.hash
    assert get_variant("baseline").hash == "6650aac1c1508a42"
    assert get_variant("legal-moves").hash == "7b30606ed3c601de"
    assert all(v.compact_state == (v.name == "local") for v in variants().values())

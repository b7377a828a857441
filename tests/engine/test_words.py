"""duel.words, the one writer of names and texts for people: every card, wonder, token, step,
score row and move of many random games comes out in words, never an identifier or JSON; names
read as the cards print them; agents have names."""

from __future__ import annotations

import json
import re

import pytest
from helpers.games import random_game_states

from duel import words
from duel.engine import CARDS, WONDERS
from duel.engine.data import TOKEN_NAMES
from duel.engine.steps import STEP_NAMES
from duel.viewer.catalogue import catalogue

IDENTIFIER = re.compile(r"\b[A-Z][A-Z0-9]*_[A-Z0-9_]+\b")


def _clean(text: str, where: str) -> None:
    assert not IDENTIFIER.search(text), f"{where}: {text!r}"
    assert not re.search(r'[{\[]\s*"', text), f"{where}: {text!r}"


@pytest.mark.parametrize(("identifier", "name"), [
    ("THE_STATUE_OF_ZEUS", "The Statue of Zeus"), ("CHAMBER_OF_COMMERCE", "Chamber of Commerce"),
    ("THE_HANGING_GARDENS", "The Hanging Gardens"), ("WOOD_RESERVE", "Wood Reserve"),
    ("ALTER", "Alter"), ("POSTRUM", "Postrum")])
def test_names_read_as_the_cards_print_them(identifier: str, name: str) -> None:
    assert words.name(identifier) == name


def test_every_effect_is_words_and_icons() -> None:
    effects = ([(c.name, words.card_effects(c)) for c in CARDS]
               + [(w.name, words.wonder_effects(w)) for w in WONDERS]
               + [(t, words.token_effects(t)) for t in TOKEN_NAMES])
    for name, fx in effects:
        for e in fx:
            _clean(e["text"], name)
            assert e["icons"], name
            for piece in e["icons"]:
                assert isinstance(piece, str) or (isinstance(piece[0], str) and
                                                  isinstance(piece[1], int)), (name, piece)
    assert all(words.card_effects(c) for c in CARDS), "a card with no effect"
    assert all(words.wonder_effects(w) for w in WONDERS)
    assert set(words.STEP) == set(STEP_NAMES)


def test_the_catalogue_the_pages_embed_names_nothing_by_identifier() -> None:
    cat = catalogue()
    for kind in ("cards", "wonders", "tokens"):
        for key, entry in cat[kind].items():
            _clean(entry["name"], key)
            for e in entry["effects"]:
                _clean(e["text"], key)
    shown = json.dumps([cat["words"][k] for k in ("step", "victory", "category", "ages")])
    for text in re.findall(r'": "([^"]*)"', shown):
        _clean(text, "words")


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_every_move_of_random_games_in_words(seed: int) -> None:
    states = random_game_states(seed)
    names = {1: "Ann", 2: "Bob"}
    for before, after in zip(states, states[1:], strict=False):
        for move in before.legal_moves():  # every move that could have been played, too
            text = words.fill(words.move_text(before, move), names)
            _clean(text, str(move))
            assert "{" not in text, text
        played = next(m for m in before.legal_moves() if before.apply(m).ply == after.ply
                      and before.apply(m).code == after.code)
        assert words.move_text(before, played, before.apply(played))


def test_a_move_names_the_card_and_what_it_cost() -> None:
    states = random_game_states(5)
    for before in states:
        for move in before.legal_moves():
            text = words.move_text(before, move)
            if move.kind == "CONSTRUCT_BUILDING":
                card = words.name(CARDS[before.pyramid[move.card_index]].name)
                assert text.startswith(f"builds {card}"), text
                price = before.price(move)
                assert (f"for {words.coins(price)}" in text) if price else ("free" in text)
            if move.kind == "DISCARD":
                assert text.startswith("discards ") and " coin" in text


@pytest.mark.parametrize(("spec", "name"), [
    ("mcts:time=1", "MCTS at 1 s a move"), ("mcts:iterations=30", "MCTS at 30 iterations"),
    ("rule", "rule-based"), ("random", "random"), ("llm:local", "the local model"),
    ("llm:openai:gpt-5-mini", "gpt-5-mini on openai"), ("external", "a person or bot"),
    ("http:http://127.0.0.1:8001,agent=mcts", "a remote bot"), (None, "unknown")])
def test_agents_have_names(spec: str | None, name: str) -> None:
    assert words.agent_name(spec) == name

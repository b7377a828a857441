"""States as the prompt format's origin server writes them, for the tests of the one loader.

That server keeps listing in ``tokensUnavailable`` the tokens the Great Library drew: the rules
prompt's own example shows AGRICULTURE there and in player2's tokens, and during the Great
Library's choice its three tokens show both there and in ``tokensFromUnavailable``.
"""

from __future__ import annotations

import json
import random
from importlib import resources
from typing import Any

from duel.engine import GameState, new_game, seat_view
from duel.engine.data import TOKEN_NAMES


def prompt_example() -> dict[str, Any]:
    """The example state of the shipped rules prompt: the first JSON object in it that has a
    `visiblePyramid`."""
    text = resources.files("duel.prompts").joinpath("rules_prompt.txt").read_text()
    decoder = json.JSONDecoder()
    at = text.find("{")
    while at >= 0:
        try:
            obj, _ = decoder.raw_decode(text, at)
        except json.JSONDecodeError:
            obj = None
        if isinstance(obj, dict) and "visiblePyramid" in obj:
            return obj
        at = text.find("{", at + 1)
    raise AssertionError("the rules prompt shows no example state")


def great_library_choice() -> tuple[GameState, dict[str, Any]]:
    """A game at the Great Library's choice (seed 1, random moves; player 1 chooses), and its
    view as the origin server writes it: `tokensUnavailable` still lists the five tokens dealt
    to the box, the three drawn included."""
    state = new_game(1)
    rng = random.Random(1)
    while state.step_name != "CHOOSE_PROGRESS_TOKEN_FROM_DISCARD":
        state = state.apply(rng.choice(state.legal_moves()))
    view = seat_view(state)
    view["tokensUnavailable"] = [TOKEN_NAMES[t] for t in state.deal.tokens_box]
    assert set(view["tokensFromUnavailable"]) < set(view["tokensUnavailable"])
    return state, view


def after_great_library_choice(pick: int = 0) -> tuple[GameState, dict[str, Any]]:
    """The game of :func:`great_library_choice` once player 1 has taken its `pick`-th token,
    and its view as the origin server's test fixtures have it: `tokensFromUnavailable` still
    lists the three drawn tokens (the chosen one is now in player 1's city) and
    `tokensUnavailable` the five dealt to the box."""
    chooser, drawn = great_library_choice()
    state = chooser.apply(chooser.legal_moves()[pick])
    view = seat_view(state)
    view["tokensFromUnavailable"] = list(drawn["tokensFromUnavailable"])
    view["tokensUnavailable"] = [TOKEN_NAMES[t] for t in state.deal.tokens_box]
    assert state.step_name != "CHOOSE_PROGRESS_TOKEN_FROM_DISCARD"
    return state, view

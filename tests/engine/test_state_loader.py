"""The one state loader (`InfoSet.from_view`) on the states the format's origin server writes
(a Great Library list left filled after its choice included), and on impossible token placements,
which it refuses naming the field."""

from __future__ import annotations

import copy
import random
from typing import Any

import pytest
from helpers.reference_states import (
    after_great_library_choice,
    great_library_choice,
    prompt_example,
)

from duel.engine import InfoSet, InvalidStateError, Move, seat_view
from duel.engine.data import TOKEN_IDS
from duel.schemas import validate_state


def test_the_rules_prompt_s_example_state_loads() -> None:
    """AGRICULTURE shows in player2's tokens and in tokensUnavailable: player2 holds it, so the
    box holds the four others."""
    example = prompt_example()
    validate_state(example)
    assert "AGRICULTURE" in example["player2"]["tokens"]
    assert "AGRICULTURE" in example["tokensUnavailable"]
    state = InfoSet.from_view(example).sample(random.Random(0))
    assert sorted(state.tokens_box) == sorted(
        TOKEN_IDS[t] for t in ("PHILOSOPHY", "LAW", "STRATEGY", "MATHEMATICS"))
    view = seat_view(state)
    for key in ("step", "age", "currentPlayerNumber", "discardedCards", "tokensAvailable",
                "tokensFromUnavailable", "visiblePyramid"):
        assert view[key] == example[key], key
    assert view["military"] == {**example["military"], "id": 1}
    for player in ("player1", "player2"):
        for key in ("money", "wonders", "tokens", "sortedHand"):
            assert view[player][key] == example[player][key], (player, key)
    assert view["tokensUnavailable"] == ["LAW", "MATHEMATICS", "PHILOSOPHY", "STRATEGY"]
    # And it plays: player2 builds ARCHERY_RANGE from slot 0.
    move = Move("CONSTRUCT_BUILDING", card_index=0)
    assert move in state.legal_moves()
    after = state.apply(move)
    assert "ARCHERY_RANGE" in seat_view(after)["player2"]["sortedHand"]["MILITARY_BUILDING"]


def test_a_great_library_choice_as_the_origin_server_writes_it_loads_and_plays() -> None:
    """The three drawn tokens also in tokensUnavailable: they are the Great Library's, not the
    box's. Every choice plays as in the true game: the chosen token to the city, the other two
    back to the box."""
    true, reference = great_library_choice()
    state = InfoSet.from_view(reference).sample(random.Random(0))
    assert sorted(state.library) == sorted(true.library)
    assert sorted(state.tokens_box) == sorted(true.tokens_box)
    assert state.legal_moves() == true.legal_moves()
    assert len(state.legal_moves()) == 3
    for move in state.legal_moves():
        after, expected = state.apply(move), true.apply(move)
        assert seat_view(after) == seat_view(expected), move
        assert len(after.tokens_box) == 4 and after.library == []


@pytest.mark.parametrize("pick", [0, 1, 2])
def test_a_great_library_list_left_filled_after_its_choice_is_ignored(pick: int) -> None:
    """The origin server's fixtures keep the three drawn tokens in tokensFromUnavailable after
    the choice. The list only matters during that step: the state loads as the true game is
    (the chosen token in the city, the two others back in the box) and plays on as it does."""
    true, stale = after_great_library_choice(pick)
    validate_state(stale)
    assert set(stale["tokensFromUnavailable"]) & set(stale["player1"]["tokens"])
    state = InfoSet.from_view(stale).sample(random.Random(0))
    assert state.library == [] and sorted(state.tokens_box) == sorted(true.tokens_box)
    assert len(state.tokens_box) == 4
    assert seat_view(state) == seat_view(true)
    assert state.priced_moves() == true.priced_moves()
    # the box is read from the list of tokens seen nowhere else when it is hidden, too
    hidden = _with(stale, tokensUnavailable=[], wondersUnavailable=[])
    assert sorted(InfoSet.from_view(hidden).box_pool) == sorted(true.tokens_box)


def test_a_great_library_list_outside_its_step_still_names_unknown_tokens() -> None:
    _, stale = after_great_library_choice()
    with pytest.raises(InvalidStateError, match="tokensFromUnavailable"):
        InfoSet.from_view(_with(stale, tokensFromUnavailable=["ALCHEMY"]))


def _with(view: dict[str, Any], **changes: Any) -> dict[str, Any]:
    """A deep copy of `view` with top-level keys or player fields ("player1.tokens") replaced."""
    out = copy.deepcopy(view)
    for key, value in changes.items():
        if "__" in key:
            player, field = key.split("__")
            out[player][field] = value
        else:
            out[key] = value
    return out


_, LIBRARY = great_library_choice()
EXAMPLE = prompt_example()


@pytest.mark.parametrize("view,field", [
    # URBANISM is player1's: in player2's tokens too.
    (_with(EXAMPLE, player2__tokens=["ARCHITECTURE", "AGRICULTURE", "URBANISM"]),
     "player2.tokens"),
    # ... on the board too.
    (_with(EXAMPLE, tokensAvailable=["MASONRY", "THEOLOGY", "ECONOMY", "URBANISM"]),
     "tokensAvailable"),
    # A token on the board listed in the box.
    (_with(EXAMPLE, tokensUnavailable=["PHILOSOPHY", "LAW", "STRATEGY", "MATHEMATICS",
                                       "THEOLOGY"]),
     "tokensUnavailable"),
    # A drawn token also on the board, or also in a city.
    (_with(LIBRARY, tokensAvailable=LIBRARY["tokensAvailable"]
           + [LIBRARY["tokensFromUnavailable"][0]]), "tokensFromUnavailable"),
    (_with(LIBRARY, player2__tokens=[LIBRARY["tokensFromUnavailable"][1]]),
     "tokensFromUnavailable"),
], ids=["two-cities", "city-and-board", "board-and-box", "board-and-library",
        "city-and-library"])
def test_an_impossible_token_placement_fails_naming_the_field(view: dict[str, Any],
                                                              field: str) -> None:
    validate_state(view)  # the schema cannot see it
    with pytest.raises(InvalidStateError, match=field.replace(".", r"\.")) as caught:
        InfoSet.from_view(view)
    assert "state" in str(caught.value)

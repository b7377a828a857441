"""The published JSON Schemas: current with the engine, accepting what the engine emits, and
rejecting bad input with a message that names the field."""

from __future__ import annotations

import copy
import json
import random
from pathlib import Path
from typing import Any

import pytest

from duel.engine import InfoSet, InvalidMoveError, InvalidStateError, Move, new_game, seat_view
from duel.engine.data import AGE2_CARDS, CARD_IDS, CARD_NAMES, CARDS, COLOR_GROUP, GREY
from duel.engine.perspective import Perspective
from duel.engine.state import GameState
from duel.schemas import (
    move_schema_error,
    schema,
    schema_error,
    validate_deal,
    validate_move,
    validate_state,
)
from duel.schemas.generate import SCHEMAS

SCHEMA_DIR = Path(__file__).resolve().parents[2] / "duel" / "schemas"


@pytest.mark.parametrize("name", sorted(SCHEMAS))
def test_committed_schema_is_current(name: str) -> None:
    path = SCHEMA_DIR / f"{name}.schema.json"
    committed = json.loads(path.read_text())
    assert committed == SCHEMAS[name](), \
        f"{path.name} is stale: run python -m duel.schemas.generate and commit the result"
    assert schema(name) == committed


def test_every_schema_is_listed() -> None:
    assert sorted(p.name for p in SCHEMA_DIR.glob("*.schema.json")) == \
        sorted(f"{n}.schema.json" for n in SCHEMAS)


def game_views(seed: int) -> list[dict[str, Any]]:
    state = new_game(seed)
    rng = random.Random(seed)
    views = [seat_view(state)]
    while not state.is_terminal():
        state = state.apply(rng.choice(state.legal_moves()))
        views.append(Perspective.of_player(1 + len(views) % 2).view(state))
    return views


def test_engine_output_validates() -> None:
    views = game_views(3)
    for view in views[::5] + [views[-1]]:
        assert schema_error("state", view) is None
        validate_state(view)
    deal = new_game(3).deal.to_json()
    assert schema_error("deal", deal) is None
    validate_deal(deal)


# A mid-game view (Age II, cards in both cities, a discard pile) to break in various ways.
BASE = next(v for v in game_views(1) if v["age"] == 2 and v["step"] == "PLAY_CARD"
            and v["discardedCards"] and v["player1"]["sortedHand"])
FINAL = game_views(1)[-1]


def broken(path: list[Any], value: Any = None, delete: bool = False,
           base: dict[str, Any] = BASE) -> dict[str, Any]:
    obj = copy.deepcopy(base)
    target = obj
    for key in path[:-1]:
        target = target[key]
    if delete:
        del target[path[-1]]
    else:
        target[path[-1]] = value
    return obj


def first_slot() -> str:
    return next(iter(BASE["visiblePyramid"]))


INVALID_STATES: list[tuple[str, dict[str, Any], str]] = [
    ("missing step", broken(["step"], delete=True), "'step' is a required property"),
    ("unknown step", broken(["step"], "PLAY"), "at step:"),
    ("age 4", broken(["age"], 4), "at age:"),
    ("age as string", broken(["age"], "2"), "at age:"),
    ("currentPlayerNumber 3", broken(["currentPlayerNumber"], 3), "at currentPlayerNumber:"),
    ("missing player2", broken(["player2"], delete=True), "'player2' is a required property"),
    ("negative money", broken(["player1", "money"], -1), "at player1/money:"),
    ("money as string", broken(["player2", "money"], "7"), "at player2/money:"),
    ("missing sortedHand", broken(["player1", "sortedHand"], delete=True), "'sortedHand'"),
    ("unknown wonder", broken(["player1", "wonders"], {"THE_COLOSUS": 0}), "player1/wonders"),
    ("wonder built in Age 4", broken(["player2", "wonders"],
                                     {w: 4 for w in BASE["player2"]["wonders"]}),
     "at player2/wonders/"),
    ("unknown token", broken(["player1", "tokens"], ["MAGIC"]), "at player1/tokens/0:"),
    ("won as string", broken(["player1", "won"], "no"), "at player1/won:"),
    ("partial score", broken(["player1", "score"], {"TOTAL": 3}), "at player1/score:"),
    ("score with an extra key", broken(["player2", "score"],
                                       {**FINAL["player2"]["score"], "BONUS": 1}),
     "at player2/score:"),
    ("unknown hand group", broken(["player1", "sortedHand"], {"BLUE": ["ALTER"]}),
     "at player1/sortedHand:"),
    ("unknown card in hand", broken(["player1", "sortedHand"],
                                    {"CIVILIAN_BUILDING": ["ALTAR"]}),
     "at player1/sortedHand/CIVILIAN_BUILDING/0:"),
    ("military position 10", broken(["military", "militaryPosition"], 10),
     "at military/militaryPosition:"),
    ("military position -10", broken(["military", "militaryPosition"], -10),
     "at military/militaryPosition:"),
    ("loot flag as int", broken(["military", "loot2Player1Available"], 1),
     "at military/loot2Player1Available:"),
    ("missing loot flag", broken(["military", "loot5Player2Available"], delete=True),
     "'loot5Player2Available' is a required property"),
    ("unknown discarded card", broken(["discardedCards"], ["NOT_A_CARD"]),
     "at discardedCards/0:"),
    ("duplicate discarded card", broken(["discardedCards"], ["QUARRY", "QUARRY"]),
     "at discardedCards:"),
    ("unknown token available", broken(["tokensAvailable"], ["LAW", "BANKING"]),
     "at tokensAvailable/1:"),
    ("unknown wonder unavailable", broken(["wondersUnavailable"], ["ATLANTIS"]),
     "at wondersUnavailable/0:"),
    ("pyramid slot 20", broken(["visiblePyramid", "20"],
                               {"cardName": "AGE_TWO_BACK", "isActive": False}),
     "at visiblePyramid:"),
    ("pyramid slot name", broken(["visiblePyramid", "a"],
                                 {"cardName": "AGE_TWO_BACK", "isActive": False}),
     "at visiblePyramid:"),
    ("unknown pyramid card", broken(["visiblePyramid", first_slot(), "cardName"], "BACK"),
     f"at visiblePyramid/{first_slot()}/cardName:"),
    ("isActive as string", broken(["visiblePyramid", first_slot(), "isActive"], "true"),
     f"at visiblePyramid/{first_slot()}/isActive:"),
    ("pyramid entry with an extra key", broken(["visiblePyramid", first_slot(), "age"], 2),
     f"at visiblePyramid/{first_slot()}:"),
    ("previousMove not a string", broken(["previousMove"], 3), "at previousMove:"),
]


@pytest.mark.parametrize("obj,needle", [(o, n) for _, o, n in INVALID_STATES],
                         ids=[name for name, _, _ in INVALID_STATES])
def test_invalid_state_is_rejected_naming_the_field(obj: dict[str, Any], needle: str) -> None:
    msg = schema_error("state", obj)
    assert msg is not None and msg.startswith("state schema: ")
    assert needle in msg, msg
    assert "\n" not in msg
    with pytest.raises(InvalidStateError, match="state schema"):
        validate_state(obj)


def test_not_an_object_is_rejected() -> None:
    for obj in ([], "state", 3, None):
        msg = schema_error("state", obj)
        assert msg is not None and "at (root)" in msg


def test_schema_valid_but_inconsistent_states_are_rejected_by_the_reader() -> None:
    """What a schema cannot see (a card in two places, a wrong isActive flag) the information-set
    reader refuses with InvalidStateError naming the problem."""
    card = BASE["discardedCards"][0]
    group = COLOR_GROUP[CARDS[CARD_IDS[card]].color]
    twice = broken(["player1", "sortedHand", group],
                   BASE["player1"]["sortedHand"].get(group, []) + [card])
    slot = first_slot()
    flag = broken(["visiblePyramid", slot, "isActive"],
                  not BASE["visiblePyramid"][slot]["isActive"])
    wrong_group = broken(["player2", "sortedHand"], {"GUILD": ["QUARRY"]})
    for obj, needle in ((twice, "appears twice"), (flag, "isActive"),
                        (wrong_group, "QUARRY is not in GUILD")):
        InfoSet.from_view(BASE)  # the original reads fine
        validate_state(obj)  # and the broken one passes the schema
        with pytest.raises(InvalidStateError, match=needle):
            InfoSet.from_view(obj)


def _last_card_of_age1() -> GameState:
    """Seed 1, the last PLAY_CARD turn of Age I."""
    state = new_game(1)
    rng = random.Random(1)
    while not (state.age == 1 and state.remaining == 1 and state.step_name == "PLAY_CARD"):
        state = state.apply(rng.choice(state.legal_moves()))
    return state


AGE1_END = _last_card_of_age1()


@pytest.mark.parametrize("where,cards", [
    ("discardedCards", [CARD_NAMES[c] for c in AGE2_CARDS[:6]]),  # 6 of the 23 Age II cards
    ("player2", ["BUILDERS_GUILD"]),  # a guild in a city
])
def test_cards_of_a_later_age_are_rejected_by_the_reader(where: str, cards: list[str]) -> None:
    """During Age I no Age II, Age III or guild card can have been seen. The reader must refuse
    such a view: otherwise sample() deals the later Ages from what is left (an Age II structure
    of 17 cards for the first case) and the sampled game breaks when that Age starts."""
    view = seat_view(AGE1_END)
    if where == "discardedCards":
        view["discardedCards"] = view["discardedCards"] + cards
    else:
        hand = view[where]["sortedHand"]
        group = COLOR_GROUP[CARDS[CARD_IDS[cards[0]]].color]
        hand[group] = hand.get(group, []) + cards
    validate_state(view)  # schema-valid
    try:
        info = InfoSet.from_view(view)
    except InvalidStateError:
        return  # refused: what the reader should do
    # Accepted: show what the sampled game does with it.
    state = info.sample(random.Random(0))
    sizes = [len(state.deal.age2), len(state.deal.age3)]
    problem = ""
    try:
        state = state.apply(state.legal_moves()[0])  # the last card of Age I
        state = state.apply(state.legal_moves()[0])  # the Age II start choice
        state.legal_moves()
    except Exception as exc:  # noqa: BLE001 - report whatever breaks
        problem = f"; playing on raised {type(exc).__name__}: {exc}"
    pytest.fail(f"InfoSet.from_view accepted Age I view with {cards} in {where}; sample() dealt "
                f"Age II/III structures of {sizes} cards{problem}")


def _age1_first_turn() -> dict[str, Any]:
    state = new_game(0)
    rng = random.Random(0)
    while state.step_name != "PLAY_CARD":
        state = state.apply(rng.choice(state.legal_moves()))
    assert not any(CARDS[c].color == GREY for c in state.players[1].cards)
    return seat_view(state)


AGE1_START = _age1_first_turn()


def _gap() -> dict[str, Any]:
    view = copy.deepcopy(AGE1_START)
    del view["visiblePyramid"]["0"]  # slot 0 gone while slots 2 and 3 still lie on it
    return view


def test_a_gap_under_cards_is_read_but_never_becomes_playable() -> None:
    """A hand-made position may leave a slot empty under cards (tests build positions so); the
    engine must then never offer the empty slot once the cards above it are gone."""
    state = InfoSet.from_view(_gap()).sample(random.Random(0))
    while state.pyramid[2] >= 0 or state.pyramid[3] >= 0:
        slot = max(s for s in state.accessible_slots() if s != 0)
        state = state.apply(Move("DISCARD", card_index=slot))
        assert 0 not in state.accessible_slots()
        assert all(m.card_index != 0 for m in state.legal_moves())
    assert "0" not in seat_view(state)["visiblePyramid"]


@pytest.mark.parametrize("view,what", [
    ({**AGE1_START, "step": "DESTROY_GREY"}, "DESTROY_GREY, the opponent has no grey card"),
    ({**AGE1_START, "step": "CHOOSE_PROGRESS_TOKEN_FROM_DISCARD"},
     "the Great Library's step with no token drawn"),
], ids=["destroy-nothing", "library-nothing"])
def test_impossible_states_are_rejected_by_the_reader(view: dict[str, Any], what: str) -> None:
    """Schema-valid states no game can reach: accepted, they would give a non-terminal step
    with no legal move."""
    validate_state(view)
    try:
        info = InfoSet.from_view(view)
    except InvalidStateError:
        return
    state = info.sample(random.Random(0))
    detail = f"legal moves {[str(m) for m in state.legal_moves()][:4]}"
    pytest.fail(f"InfoSet.from_view accepted a state where {what}; {detail}")


# ---------------------------------------------------------------------------- moves and deals
@pytest.mark.parametrize("obj,where", [
    ({"move": "CONSTRUCT_BUILDING", "moveData": {"cardIndex": "3"}}, "moveData/cardIndex"),
    ({"move": "CONSTRUCT_BUILDING", "moveData": {"cardIndex": 20}}, "moveData/cardIndex"),
    ({"move": "CONSTRUCT_WONDER", "moveData": {"cardIndex": 2, "wonder": "X"}},
     "moveData/wonder"),
    ({"move": "DESTROY_CARD", "moveData": {"cardName": "X"}}, "moveData/cardName"),
    ({"move": "CHOOSE_STARTING_PLAYER", "moveData": {"playerNumber": 0}},
     "moveData/playerNumber"),
    ({"move": "DISCARD", "moveData": {"cardIndex": 2, "extra": 1}}, "moveData"),
    ({"move": "DISCARD"}, "(root)"),
])
def test_invalid_move_names_the_field(obj: dict[str, Any], where: str) -> None:
    msg = move_schema_error(obj)
    assert msg is not None and f"at {where}:" in msg, msg
    with pytest.raises(InvalidMoveError):
        validate_move(obj)


def test_invalid_deal_names_the_field() -> None:
    deal = new_game(5).deal.to_json()
    short = {**deal, "age1": deal["age1"][:19]}
    assert "at age1:" in (schema_error("deal", short) or "")
    bad_guild = {**deal, "removed": {**deal["removed"],
                                     "guilds": deal["removed"]["guilds"][:3] + ["X"]}}
    assert "at removed/guilds/3:" in (schema_error("deal", bad_guild) or "")
    with pytest.raises(InvalidStateError):
        validate_deal(short)

"""The tool set against the engine: its legal moves are the generator's, its refusals the
engine's reasons, its simulation the real move's outcome, its explanations the rules text's
words; its schemas are the engine's move model and its argument check names every fault."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from helpers.seat_tables import StateTable, positions, status_of, tools_at
from jsonschema import Draft202012Validator

from duel.agents.llm.schema import structured_schema
from duel.agents.tools import TOOLS, TOOLS_BY_NAME, SeatTools, check_arguments
from duel.agents.tools.simulate import simulate
from duel.engine import CARDS, Move, Perspective, Seat, new_game
from duel.engine.data import BACK_NAMES, CARD_IDS, CARD_NAMES, TOKEN_NAMES, WONDER_NAMES
from duel.engine.explain import unavailable
from duel.errors import (
    ConflictError,
    DuelError,
    IllegalMoveError,
    InvalidMoveError,
    TooLargeError,
    UsageError,
)
from duel.prompts.reference import card_effect
from duel.words import TOKEN_TEXT

POSITIONS = positions(range(3), every=3)


def seat_of(state: Any) -> Seat:
    return Seat.of_index(state.current)


def test_the_schemas_are_valid_and_the_move_is_the_engines_model() -> None:
    for tool in TOOLS:
        Draft202012Validator.check_schema(tool.schema())
    engine = structured_schema()["properties"]
    for name in ("simulate", "make_move"):
        params = TOOLS_BY_NAME[name].params
        assert params["move"]["enum"] == engine["move"]["enum"]
        # one flat object: every kind's fields, each with the values the engine's model takes
        fields = {k: v for shape in engine["moveData"]["anyOf"]
                  for k, v in shape["properties"].items()}
        data = params["moveData"]
        assert data["type"] == "object" and set(data["properties"]) == set(fields)
        assert all(v.items() <= data["properties"][k].items() for k, v in fields.items())
        assert TOOLS_BY_NAME[name].required == ("move", "moveData")


@pytest.mark.parametrize("state", POSITIONS[::4], ids=lambda s: f"ply{s.ply}")
def test_legal_moves_are_the_generators_with_its_prices(state: Any) -> None:
    seen = Perspective(seat_of(state))
    answer = tools_at(state).call("legal_moves", {})
    expected = [{**seen.move_out(m).to_json(), "price": p} for m, p in state.priced_moves()]
    assert [{k: m[k] for k in ("move", "moveData", "price")} for m in answer["moves"]] \
        == expected
    assert all(isinstance(m["text"], str) and m["text"] for m in answer["moves"])


def _without_face(reason: str) -> str:
    return reason.removeprefix("face down, ")


@pytest.mark.parametrize("state", [s for s in POSITIONS if s.step_name == "PLAY_CARD"][::3],
                         ids=lambda s: f"ply{s.ply}")
def test_why_not_is_the_engines_reasons_from_the_view_alone(state: Any) -> None:
    """The view's refusals are the true state's (a face-down card is said to be one), and
    with the legal moves they account for every card left in the structure."""
    answer = tools_at(state).call("legal_moves", {"why_not": True})
    truth = [{**m.to_json(), "reason": why, **({"price": p} if p is not None else {})}
             for m, why, p in unavailable(state)]
    mine = [{**r, "reason": _without_face(r["reason"])} for r in answer["unavailable"]]
    assert mine == truth
    view = Perspective(seat_of(state)).view(state)
    hidden = {int(s) for s, e in view["visiblePyramid"].items()
              if e["cardName"] in BACK_NAMES}
    assert {r["moveData"]["cardIndex"] for r in answer["unavailable"]
            if r["reason"].startswith("face down")} == hidden
    present = {s for s, c in enumerate(state.pyramid) if c >= 0}
    told = {m["moveData"]["cardIndex"] for m in answer["moves"] + answer["unavailable"]}
    assert told == present


def _seat_after(state: Any, move_json: dict[str, Any]) -> Any:
    seat = seat_of(state)
    return state.apply(Perspective(seat).move_in(Move.from_json(move_json)))


@pytest.mark.parametrize("state", POSITIONS[::2], ids=lambda s: f"ply{s.ply}")
def test_simulate_tells_what_the_real_move_does(state: Any) -> None:
    """Every fact simulate reports from the view is what the true game does with the move."""
    seat = seat_of(state)
    me, them = seat.index, seat.other.index
    tools = tools_at(state)
    for m in tools.call("legal_moves", {})["moves"][:8]:
        move = {"move": m["move"], "moveData": m["moveData"]}
        sim = tools.call("simulate", move)
        after = _seat_after(state, move)
        assert sim["price"] == m["price"]
        assert sim["you"]["coins"] == {"before": state.players[me].coins,
                                       "after": after.players[me].coins}
        assert sim["opponent"]["coins"]["after"] == after.players[them].coins
        assert sim["you"]["points"]["after"] == after.score(me)["TOTAL"]
        assert sim["opponent"]["points"]["after"] == after.score(them)["TOTAL"]
        assert sim["you"]["science_symbols"]["after"] == after.players[me].science_count()
        position = after.military if seat is Seat.P2 else -after.military
        assert sim["military"]["after"] == position
        if after.is_terminal():
            result = after.result()
            assert sim["next"] is None and sim["game_over"]["victory"] == result.victory
            who = None if result.winner is None else \
                ("you" if result.winner is seat else "your opponent")
            assert sim["game_over"]["winner"] == who
        else:
            assert sim["next"]["step"] == after.step_name
            assert sim["next"]["to_move"] == ("you" if after.current == me else "your opponent")
        view = Perspective(seat).view(state)["visiblePyramid"]
        for u in sim["uncovers"]:
            shown = view[str(u["slot"])]["cardName"]
            assert (u["card"] is None) == (shown in BACK_NAMES)
            if u["card"] is not None:
                assert u["card"] == shown == CARDS[state.pyramid[u["slot"]]].name
            assert (after.accessible >> u["slot"]) & 1


@pytest.mark.parametrize("state", POSITIONS[1::5], ids=lambda s: f"ply{s.ply}")
def test_simulate_is_the_same_for_every_completion_of_the_view(state: Any) -> None:
    """The move is played on one completion of the view; what is reported depends on none."""
    status = status_of(state, seat_of(state))
    t = status.info.template
    for move in t.legal_moves()[:6]:
        answers = {json.dumps(simulate(status.info, move, random.Random(k)), sort_keys=True)
                   for k in range(5)}
        assert len(answers) == 1, move


def test_simulate_names_no_hidden_card_it_uncovers() -> None:
    """Taking the last card that lies on a face-down card: it is reported as unknown."""
    found = 0
    for state in [s for s in POSITIONS if s.step_name == "PLAY_CARD"]:
        tools = tools_at(state)
        seen = Perspective(seat_of(state)).view(state)["visiblePyramid"]
        for m in tools.call("legal_moves", {})["moves"]:
            if m["move"] != "DISCARD":
                continue
            sim = tools.call("simulate", {"move": m["move"], "moveData": m["moveData"]})
            for u in sim["uncovers"]:
                if seen[str(u["slot"])]["cardName"] in BACK_NAMES:
                    found += 1
                    hidden = CARDS[state.pyramid[u["slot"]]].name
                    assert u["card"] is None and "unknown" in u["note"]
                    assert hidden not in json.dumps(sim)
    assert found >= 5, "too few moves in these games uncover a face-down card"


def test_explain_every_name_in_the_rules_texts_words() -> None:
    state = POSITIONS[len(POSITIONS) // 2]
    seat = seat_of(state)
    tools = tools_at(state)
    for name in CARD_NAMES:
        card = CARDS[CARD_IDS[name]]
        answer = tools.call("explain", {"name": name})
        assert answer["kind"] == "card" and answer["effect"] == card_effect(card)
        assert name in answer["text"] and answer["where"]
        slot = state.pyramid.index(card.id) if card.id in state.pyramid else -1
        if slot >= 0 and (state.accessible >> slot) & 1:
            assert answer["price_for_you"] == state.card_price(seat.index, card.id)
    for name in WONDER_NAMES:
        assert tools.call("explain", {"name": name})["kind"] == "wonder"
    for name in TOKEN_NAMES:
        answer = tools.call("explain", {"name": name})
        assert answer["effect"] == TOKEN_TEXT[name]
    for name in BACK_NAMES:
        assert "face down" in tools.call("explain", {"name": name})["text"]


def test_explain_reads_names_as_people_write_them_and_suggests_for_typos() -> None:
    tools = tools_at(new_game(1))
    assert tools.call("explain", {"name": "lumber yard"})["name"] == "LUMBER_YARD"
    assert tools.call("explain", {"name": "The-Colossus"})["name"] == "THE_COLOSSUS"
    with pytest.raises(InvalidMoveError, match="did you mean THE_COLOSSUS"):
        tools.call("explain", {"name": "colosus"})
    with pytest.raises(InvalidMoveError, match="no card, wonder or progress token"):
        tools.call("explain", {"name": "xyzzy"})


@pytest.mark.parametrize(("tool", "arguments", "error", "words"), [
    ("explain", [], UsageError, "takes a JSON object"),
    ("explain", {}, UsageError, r"needs argument\(s\) \['name'\]"),
    ("explain", {"name": 5}, UsageError, "5 is not of type 'string'"),
    ("explain", {"name": ""}, UsageError, "should be non-empty"),
    ("explain", {"name": "x" * 101}, UsageError, "is too long"),
    ("explain", {"name": "BATHS", "extra": 1}, UsageError, r"no argument\(s\) \['extra'\]"),
    ("legal_moves", {"why_not": "yes"}, UsageError, "'yes' is not of type 'boolean'"),
    ("legal_moves", {"why_not": 1}, UsageError, "1 is not of type 'boolean'"),
    ("get_state", {"x": "y" * 3000}, TooLargeError, "at most 2000"),
    ("simulate", {"move": "DISCARD"}, UsageError, r"needs argument\(s\) \['moveData'\]"),
    ("simulate", {"move": "FLY", "moveData": {}}, InvalidMoveError, "unknown move 'FLY'"),
    ("make_move", {"move": "DISCARD", "moveData": {"cardIndex": "3"}}, InvalidMoveError,
     "cardIndex must be an integer"),
    ("make_move", {"move": "DISCARD", "moveData": {"cardIndex": True}}, InvalidMoveError,
     "cardIndex must be an integer"),
    ("make_move", {"move": "DISCARD", "moveData": {"slot": 3}}, InvalidMoveError,
     "'cardIndex' is a required property"),
    ("make_move", {"move": "DISCARD", "moveData": "3"}, InvalidMoveError,
     'needs a "moveData" object'),
    ("nope", {}, UsageError, "no tool is named 'nope'"),
])
def test_bad_arguments_are_refused_by_name(tool: str, arguments: Any, error: type[DuelError],
                                           words: str) -> None:
    table = StateTable(POSITIONS[10], seat_of(POSITIONS[10]))
    before = table.state
    with pytest.raises(error, match=words):
        SeatTools(table).call(tool, arguments)
    assert table.state is before and table.details == []


def test_an_illegal_move_is_refused_with_the_engines_reason_and_changes_nothing() -> None:
    state = next(s for s in POSITIONS if s.step_name == "PLAY_CARD")
    table = StateTable(state, seat_of(state))
    covered = next(i for i, c in enumerate(state.pyramid)
                   if c >= 0 and not (state.accessible >> i) & 1)
    with pytest.raises(IllegalMoveError, match=f"card {covered} is covered by"):
        SeatTools(table).call("make_move", {"move": "CONSTRUCT_BUILDING",
                                            "moveData": {"cardIndex": covered}})
    with pytest.raises(IllegalMoveError, match="not a move of step PLAY_CARD"):
        SeatTools(table).call("simulate", {"move": "SELECT_WONDER",
                                           "moveData": {"wonder": "THE_COLOSSUS"}})
    assert table.state is state


def test_a_seat_not_to_move_reads_but_cannot_move() -> None:
    state = POSITIONS[5]
    other = seat_of(state).other
    tools = SeatTools(StateTable(state, other))
    assert tools.call("get_state", {})["your_turn"] is False
    assert tools.call("legal_moves", {})["moves"] == []
    legal = Perspective(other).move_out(state.legal_moves()[0]).to_json()
    for name in ("simulate", "make_move"):
        with pytest.raises(ConflictError, match="not your turn"):
            tools.call(name, legal)


def test_make_move_commits_and_hands_the_calls_since_the_last_move_to_its_details() -> None:
    state = new_game(2)
    table = StateTable(state, Seat.P1)
    tools = SeatTools(table)
    tools.call("get_state", {})
    move = tools.call("legal_moves", {})["moves"][0]
    with pytest.raises(InvalidMoveError):
        tools.call("explain", {"name": "nothing at all"})
    answer = tools.call("make_move", {"move": move["move"], "moveData": move["moveData"]})
    assert answer["ply"] == 1 and answer["played"][0].startswith("Player 2 selected wonder")
    calls = table.details[0]["tool_calls"]
    assert [c["tool"] for c in calls] == ["get_state", "legal_moves", "explain"]
    assert calls[1]["chars"] > 0 and "error" in calls[2] and calls[0]["seconds"] >= 0
    assert tools.calls == []


def test_the_state_answer_of_a_finished_game_has_its_result() -> None:
    state = positions(range(1), every=1)[-1]
    while not state.is_terminal():
        state = state.apply(state.legal_moves()[0])
    answer = SeatTools(StateTable(state, Seat.P1)).call("get_state", {})
    result = state.result()
    assert answer["over"] is True and answer["your_turn"] is False
    assert answer["result"]["winner"] == (None if result.winner is None else
                                          result.winner.player)
    assert answer["result"]["victory"] == result.victory
    assert answer["result"]["points"]["you"] == result.total(Seat.P1)


def test_check_arguments_fills_defaults() -> None:
    assert check_arguments(TOOLS_BY_NAME["legal_moves"], {}) == {"why_not": False}
    assert check_arguments(TOOLS_BY_NAME["explain"], {"game": "g1", "name": "X"},
                           skip=("game",)) == {"name": "X"}


@pytest.mark.parametrize("state", POSITIONS[::3], ids=lambda s: f"ply{s.ply}")
def test_every_refusal_is_the_engines_reason_on_the_true_state(state: Any) -> None:
    """Whatever the seat tries (every structure move on every slot, every wonder, every other
    kind), the refusal read from its view is the engine's sentence about the true game, in the
    seat's labels; a face-down card is no exception."""
    seat = seat_of(state)
    seen = Perspective(seat)
    tools = tools_at(state)
    legal = set(state.legal_moves())
    tries = [Move(kind, card_index=i) for kind in ("CONSTRUCT_BUILDING", "DISCARD")
             for i in range(20)]
    tries += [Move("CONSTRUCT_WONDER", card_index=i, wonder=w) for i in range(0, 20, 3)
              for w in WONDER_NAMES[::2]]
    tries += [Move("SELECT_WONDER", wonder=w) for w in WONDER_NAMES[:3]]
    tries += [Move("CHOOSE_PROGRESS_TOKEN", token=t) for t in TOKEN_NAMES[:3]]
    tries += [Move("DESTROY_CARD", card_name=CARD_NAMES[0]),
              Move("CHOOSE_STARTING_PLAYER", player_number=1)]
    refused = 0
    for move in tries:
        true_move = seen.move_in(move)
        if true_move in legal:
            continue
        with pytest.raises(IllegalMoveError) as caught:
            tools.call("simulate", move.to_json())
        truth = seen.text_out(state.why_illegal(true_move))
        assert f"that move is not legal: {truth} (" in str(caught.value), move
        refused += 1
    assert refused >= 10

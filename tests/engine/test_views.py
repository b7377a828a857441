"""Seat views: relabelling, the hidden-box option, the wonder draft, the pyramid and the score."""

from __future__ import annotations

import json
import random
import re
from collections.abc import Iterator
from typing import Any

import pytest

from duel.engine import CARD_NAMES, Move, new_game, seat_view, swap_move
from duel.engine.data import (
    CARD_IDS,
    CARDS,
    COLOR_GROUP,
    GROUP_ORDER,
    PURPLE,
    TOKEN_NAMES,
    WONDER_NAMES,
    back_name,
)
from duel.engine.layout import COVERED_BY, FACE_UP_MASK
from duel.engine.perspective import Perspective
from duel.engine.state import GameState

SCORE_KEYS = ["CIVILIAN_BUILDING", "SCIENTIFIC_BUILDING", "COMMERCIAL_BUILDING", "GUILD",
              "MILITARY_BUILDING", "WONDER", "MONEY", "PROGRESS_TOKEN", "TOTAL"]
# Seeds of seeded random games (game seed = s, moves from random.Random(s)) by outcome.
MILITARY_P2 = 0
CIVILIAN_P2 = 1
CIVILIAN_P1 = 3
MILITARY_P1 = 14
SCIENCE_P1 = 1384
DRAW = 2008
SEEDS = [0, 1, 2, 3, 4, 5, 14, 1384, 2008]


def states(seed: int, open_box: bool = True) -> Iterator[GameState]:
    """Every state of the seeded random game, the final one included."""
    state = new_game(seed, open_box=open_box)
    rng = random.Random(seed)
    yield state
    while not state.is_terminal():
        state = state.apply(rng.choice(state.legal_moves()))
        yield state


def final_state(seed: int) -> GameState:
    *_, last = states(seed)
    return last


def swap_numbers(text: str) -> str:
    return re.sub(r"\b([Pp]layer) ([12])\b", lambda m: f"{m.group(1)} {3 - int(m.group(2))}",
                  text)


# ---------------------------------------------------------------------------- relabelling
def check_relabelled(state: GameState) -> None:
    true = Perspective.of_player(2).view(state)
    flip = Perspective.of_player(1).view(state)
    assert seat_view(state) == true  # None keeps the true labels
    assert list(flip) == list(true)
    assert flip["player1"] == {**true["player2"], "id": 1}
    assert flip["player2"] == {**true["player1"], "id": 2}
    tm, fm = true["military"], flip["military"]
    assert fm["militaryPosition"] == -tm["militaryPosition"]
    assert fm["loot2Player1Available"] == tm["loot2Player2Available"]
    assert fm["loot5Player1Available"] == tm["loot5Player2Available"]
    assert fm["loot2Player2Available"] == tm["loot2Player1Available"]
    assert fm["loot5Player2Available"] == tm["loot5Player1Available"]
    assert fm["id"] == tm["id"]
    assert flip["currentPlayerNumber"] == 3 - true["currentPlayerNumber"]
    assert flip["previousMove"] == swap_numbers(true["previousMove"])
    same = set(true) - {"player1", "player2", "military", "currentPlayerNumber", "previousMove"}
    for key in same:
        assert flip[key] == true[key], key


@pytest.mark.parametrize("seed", SEEDS)
def test_relabelled_view_swaps_the_seats(seed: int) -> None:
    for state in states(seed):
        check_relabelled(state)


def test_previous_move_player_numbers_are_relabelled() -> None:
    """The moves whose text names a second player: the start choice and the destruction."""
    seen = set()
    for seed in range(12):
        for state in states(seed):
            true = seat_view(state)["previousMove"]
            flip = Perspective.of_player(1).view(state)["previousMove"]
            m = re.fullmatch(r"Player ([12]) chose player ([12]) to start Age (II|III)", true)
            if m:
                seen.add("start")
                actor, chosen = int(m.group(1)), int(m.group(2))
                assert flip == f"Player {3 - actor} chose player {3 - chosen} to start Age " \
                               f"{m.group(3)}"
                # The chosen player is the one to move, in both labellings.
                assert seat_view(state)["currentPlayerNumber"] == chosen
                assert Perspective.of_player(1).view(state)["currentPlayerNumber"] == 3 - chosen
            m = re.fullmatch(r"Player ([12]) destroyed ([A-Z_]+) of player ([12])", true)
            if m:
                seen.add("destroy")
                actor, victim = int(m.group(1)), int(m.group(3))
                assert victim == 3 - actor
                assert flip == f"Player {victim} destroyed {m.group(2)} of player {actor}"
            if true:
                assert re.match(r"Player [12] ", true) and re.match(r"Player [12] ", flip)
                assert int(flip[7]) == 3 - int(true[7])
    assert seen == {"start", "destroy"}


def test_start_choice_uses_the_receiving_views_numbers() -> None:
    """A seat shown as player2 that answers playerNumber 2 ("me") starts the Age, once its move
    is mapped back with swap_move."""
    checked = 0
    for seed in range(6):
        for state in states(seed):
            if state.step_name != "CHOOSE_STARTING_PLAYER":
                continue
            chooser = state.current_player
            view = Perspective.of_player(chooser).view(state)
            assert view["currentPlayerNumber"] == 2
            for answer in (1, 2):
                sent = Move.from_json({"move": "CHOOSE_STARTING_PLAYER",
                                       "moveData": {"playerNumber": answer}})
                move = swap_move(sent) if chooser == 1 else sent
                after = Perspective.of_player(chooser).view(state.apply(move))
                assert after["step"] == "PLAY_CARD"
                assert after["currentPlayerNumber"] == answer
                assert re.fullmatch(rf"Player 2 chose player {answer} to start Age (II|III)",
                                    after["previousMove"])
            checked += 1
    assert checked >= 6
    assert swap_move(swap_move(Move("CHOOSE_STARTING_PLAYER", player_number=1))) == \
        Move("CHOOSE_STARTING_PLAYER", player_number=1)
    assert swap_move(Move("DISCARD", card_index=3)) == Move("DISCARD", card_index=3)


# ---------------------------------------------------------------------------- the box
@pytest.mark.parametrize("seed", [0, 3, 14, 1384])
def test_hidden_box_shows_no_boxed_token_or_wonder(seed: int) -> None:
    for state in states(seed, open_box=False):
        for as_player2 in (1, 2):
            view = Perspective.of_player(as_player2).view(state)
            assert view["tokensUnavailable"] == []
            # Only the wonder that left the game when the 7th was built, if any.
            assert view["wondersUnavailable"] == [WONDER_NAMES[w] for w in state.wonders_removed]
            if state.wonders_built < 7:
                assert view["wondersUnavailable"] == []
            text = json.dumps(view)
            for w in state.deal.wonders_out:
                assert WONDER_NAMES[w] not in text


@pytest.mark.parametrize("seed", [0, 3, 14])
def test_open_box_shows_the_box_sorted(seed: int) -> None:
    """Open box: the boxed tokens and the 4 undrafted wonders show, sorted, so the order the
    Great Library will draw in never shows. The undrafted wonders show from the draft's second
    round on: during round 1 they would give away round 2's four wonders by elimination."""
    for i, state in enumerate(states(seed, open_box=True)):
        view = seat_view(state)
        assert view["tokensUnavailable"] == [TOKEN_NAMES[t] for t in sorted(state.tokens_box)]
        round1 = state.step_name == "WONDER_SELECTION" and state.draft_pick < 4
        out = [] if round1 else [WONDER_NAMES[w] for w in sorted(state.deal.wonders_out)]
        assert view["wondersUnavailable"] == out + [WONDER_NAMES[w] for w in
                                                     state.wonders_removed]
        if i == 0:
            assert len(view["tokensUnavailable"]) == 5 and out == []
            assert sorted(view["tokensUnavailable"] + view["tokensAvailable"]) == \
                sorted(TOKEN_NAMES)
        if i == 4:  # round 2 of the draft: all 8 drafted wonders are known, so the 4 out are too
            assert state.draft_pick == 4 and len(out) == 4


def test_new_game_views_differ_only_in_the_box() -> None:
    open_view = seat_view(new_game(42, open_box=True))
    hidden_view = seat_view(new_game(42, open_box=False))
    diff = {k for k in open_view if open_view[k] != hidden_view[k]}
    assert diff == {"tokensUnavailable"}  # the wonders out show from round 2 of the draft


# ---------------------------------------------------------------------------- wonder draft
@pytest.mark.parametrize("seed", [0, 1, 2, 7])
@pytest.mark.parametrize("open_box", [True, False])
def test_wonder_selection_view(seed: int, open_box: bool) -> None:
    state = new_game(seed, open_box=open_box)
    rng = random.Random(seed)
    round1 = [WONDER_NAMES[w] for w in state.deal.wonder_draft[:4]]
    round2 = [WONDER_NAMES[w] for w in state.deal.wonder_draft[4:]]
    order = [1, 2, 2, 1, 2, 1, 1, 2]
    picked: list[str] = []
    for pick in range(8):
        for as_player2 in (1, 2):
            view = Perspective.of_player(as_player2).view(state)
            assert view["step"] == "WONDER_SELECTION"
            assert view["age"] == 1
            assert view["visiblePyramid"] == {}
            assert view["discardedCards"] == []
            expect_current = order[pick] if as_player2 == 2 else 3 - order[pick]
            assert view["currentPlayerNumber"] == expect_current
            pool = round1 if pick < 4 else round2
            assert view["wondersAvailable"] == [w for w in pool if w not in picked]
            text = json.dumps(view)
            if pick < 4:
                for w in round2:
                    assert w not in text, f"round-2 wonder {w} shown at pick {pick}"
                # Nor deducible: the wonders named in the view leave at least 8 unnamed.
                named = {w for w in WONDER_NAMES if re.search(rf"\b{w}\b", text)}
                assert len(named) <= 4, f"{sorted(named)} named at pick {pick}"
            # No card name at all: the structure is not on the table yet.
            assert not any(re.search(rf"\b{c}\b", text) for c in CARD_NAMES)
        owned = {**seat_view(state)["player1"]["wonders"], **seat_view(state)["player2"]["wonders"]}
        assert sorted(owned) == sorted(picked) and set(owned.values()) <= {0}
        move = rng.choice(state.legal_moves())
        picked.append(move.wonder)
        state = state.apply(move)
    view = seat_view(state)
    assert view["step"] == "PLAY_CARD" and view["currentPlayerNumber"] == 1
    assert view["wondersAvailable"] == []
    assert sorted(picked) == sorted(round1 + round2)
    assert len(view["player1"]["wonders"]) == len(view["player2"]["wonders"]) == 4
    assert len(view["visiblePyramid"]) == 20


# ---------------------------------------------------------------------------- the pyramid
def check_pyramid(state: GameState) -> None:
    view = seat_view(state)
    pyramid = view["visiblePyramid"]
    if state.step_name == "WONDER_SELECTION":
        assert pyramid == {}
        return
    age = state.age
    present = {s for s, c in enumerate(state.pyramid) if c >= 0}
    assert set(pyramid) == {str(s) for s in present}
    for slot in present:
        entry = pyramid[str(slot)]
        card = state.pyramid[slot]
        if (state.face_up >> slot) & 1:
            assert entry["cardName"] == CARD_NAMES[card]
        else:
            expected_back = "GUILD_BACK" if CARDS[card].color == PURPLE else \
                ("AGE_ONE_BACK", "AGE_TWO_BACK", "AGE_THREE_BACK")[age - 1]
            assert entry["cardName"] == expected_back == back_name(card)
        covered = any(t in present for t in COVERED_BY[age - 1][slot])
        assert entry["isActive"] is (not covered), f"slot {slot} isActive"
        if state.step_name == "PLAY_CARD" and entry["isActive"]:
            assert not entry["cardName"].endswith("_BACK"), "an active card is face down"
    if len(present) == 20:  # a fresh structure shows the printed face-up rows
        up = {s for s in range(20) if (FACE_UP_MASK[age - 1] >> s) & 1}
        assert {int(k) for k, e in pyramid.items() if not e["cardName"].endswith("_BACK")} == up


@pytest.mark.parametrize("seed", [0, 1, 3, 14])
def test_visible_pyramid(seed: int) -> None:
    for state in states(seed):
        check_pyramid(state)


def test_age3_guilds_show_the_guild_back() -> None:
    for state in states(CIVILIAN_P2):
        if state.age == 3 and state.step_name == "CHOOSE_STARTING_PLAYER":
            backs = {e["cardName"] for e in seat_view(state)["visiblePyramid"].values()
                     if e["cardName"].endswith("_BACK")}
            hidden_guilds = [c for s, c in enumerate(state.pyramid)
                             if CARDS[c].color == PURPLE and not (state.face_up >> s) & 1]
            assert ("GUILD_BACK" in backs) == bool(hidden_guilds)
            assert "AGE_THREE_BACK" in backs
            return
    raise AssertionError("no Age III start in the game")


# ---------------------------------------------------------------------------- cities
@pytest.mark.parametrize("seed", [1, 3])
def test_sorted_hand_groups(seed: int) -> None:
    for state in states(seed):
        view = seat_view(state)
        for seat in (0, 1):
            hand = view[f"player{seat + 1}"]["sortedHand"]
            assert list(hand) == [g for g in GROUP_ORDER if g in hand]
            assert all(hand.values()), "an empty group is shown"
            cards = state.players[seat].cards
            for group, names in hand.items():
                assert names == [CARD_NAMES[c] for c in cards if COLOR_GROUP[CARDS[c].color]
                                 == group]
            assert sum(map(len, hand.values())) == len(cards)


# ---------------------------------------------------------------------------- score and won
def _symbols(player: dict[str, Any]) -> set[int]:
    names = player["sortedHand"].get("SCIENTIFIC_BUILDING", [])
    symbols = {CARDS[CARD_IDS[n]].symbol for n in names}
    if "LAW" in player["tokens"]:
        symbols.add(6)
    return symbols


@pytest.mark.parametrize("seed,winner,victory", [
    (MILITARY_P2, 2, "military"), (CIVILIAN_P2, 2, "civilian"), (CIVILIAN_P1, 1, "civilian"),
    (MILITARY_P1, 1, "military"), (SCIENCE_P1, 1, "science"), (DRAW, "draw", "civilian")])
def test_score_and_won(seed: int, winner: int | str, victory: str) -> None:
    for state in states(seed):
        for as_player2 in (1, 2):
            view = Perspective.of_player(as_player2).view(state)
            if not state.is_terminal():
                assert view["step"] != "GAME_END"
                assert view["player1"]["score"] == {} and view["player2"]["score"] == {}
                assert view["player1"]["won"] is False and view["player2"]["won"] is False
    final = state
    result = final.result()
    assert result is not None
    assert (result.winner_label, result.victory) == (winner, victory)
    for as_player2 in (1, 2):
        view = Perspective.of_player(as_player2).view(final)
        assert view["step"] == "GAME_END"
        flip = as_player2 == 1
        for label in (1, 2):
            seat = (3 - label) if flip else label  # the true player number shown as `label`
            player = view[f"player{label}"]
            score = player["score"]
            assert list(score) == SCORE_KEYS
            assert score["TOTAL"] == sum(v for k, v in score.items() if k != "TOTAL")
            assert score == result.scores[seat - 1]
            assert score["MONEY"] == player["money"] // 3
            assert player["won"] is (winner == seat)
            pos = view["military"]["militaryPosition"] * (1 if label == 1 else -1)
            assert score["MILITARY_BUILDING"] == (0 if pos <= 0 else 2 if pos <= 2 else
                                                  5 if pos <= 5 else 10)
        if winner == "draw":
            assert not view["player1"]["won"] and not view["player2"]["won"]
            assert view["player1"]["score"]["TOTAL"] == view["player2"]["score"]["TOTAL"]
            assert view["player1"]["score"]["CIVILIAN_BUILDING"] == \
                view["player2"]["score"]["CIVILIAN_BUILDING"]
        won = 1 if view["player1"]["won"] else 2 if view["player2"]["won"] else None
        if winner != "draw":
            assert won is not None
            me, other = view[f"player{won}"], view[f"player{3 - won}"]
            if victory == "military":
                assert view["military"]["militaryPosition"] == (9 if won == 1 else -9)
            elif victory == "science":
                assert len(_symbols(me)) >= 6
            else:
                a, b = me["score"], other["score"]
                assert (a["TOTAL"], a["CIVILIAN_BUILDING"]) > (b["TOTAL"], b["CIVILIAN_BUILDING"])

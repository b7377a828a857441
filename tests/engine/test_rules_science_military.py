"""Science (pairs, LAW, supremacy) and the military track (loot, supremacy, Strategy).

Sources: docs/rules.md §7 and §8; §11 rows "Pair made with no tokens left",
"LAW", "Supremacy", "Loot tokens", "Coins"; docs/rules.md rulings 6 and 8.
"""

import pytest
from helpers.positions import (
    RICH,
    build,
    city,
    coins,
    discard,
    from_discard,
    library_token,
    moves_of,
    play,
    position,
    token,
    tokens,
    wonder,
)

from duel.engine import IllegalMoveError, seat_view
from duel.engine.state import science_symbols

FIVE_SYMBOLS = ["APOTHECARY", "WORKSHOP", "SCRIPTORIUM", "PHARMACIST", "ACADEMY"]  # no GLOBE


# ---------------------------------------------------------------- science pairs
def test_pair_of_identical_symbols_lets_the_player_choose_a_board_token():
    """docs/rules.md §8: two identical symbols (Apothecary + School: WHEEL) -> choose one token
    from tokensAvailable at once; then the turn passes."""
    s = position(age=2, pyramid={18: "COURTHOUSE", 19: "SCHOOL"},
                 p1={"cards": ["APOTHECARY", "LUMBER_YARD", "PRESS", "DRYING_ROOM"]},
                 board=["PHILOSOPHY", "AGRICULTURE"], box=["LAW"])
    s = play(s, build(19))
    assert s.step_name == "CHOOSE_PROGRESS_TOKEN" and s.current_player == 1
    assert moves_of(s, "CHOOSE_PROGRESS_TOKEN") == {token("PHILOSOPHY"), token("AGRICULTURE")}
    with pytest.raises(IllegalMoveError):
        s.apply(token("LAW"))  # in the box, not on the board
    s = play(s, token("PHILOSOPHY"))
    assert tokens(s, 1) == ["PHILOSOPHY"]
    assert seat_view(s)["tokensAvailable"] == ["AGRICULTURE"]
    assert s.step_name == "PLAY_CARD" and s.current_player == 2


def test_different_symbols_make_no_pair():
    """docs/rules.md §8: only identical symbols form a pair (WHEEL + PENDULUM: nothing)."""
    s = position(age=2, pyramid={18: "COURTHOUSE", 19: "SCHOOL"},
                 p1={"cards": ["WORKSHOP", "LUMBER_YARD", "PRESS", "DRYING_ROOM"]},
                 board=["PHILOSOPHY"])
    s = play(s, build(19))
    assert s.step_name == "PLAY_CARD" and s.current_player == 2
    assert tokens(s, 1) == []


def test_pair_with_no_token_left_on_the_board_gives_nothing():
    """docs/rules.md ruling 8 / §11 "Pair made with no tokens left": nothing; no step, the turn passes."""
    s = position(age=2, pyramid={18: "COURTHOUSE", 19: "SCHOOL"},
                 p1={"cards": ["APOTHECARY", "LUMBER_YARD", "PRESS", "DRYING_ROOM"]},
                 board=[], box=["LAW", "PHILOSOPHY"])
    s = play(s, build(19))
    assert s.step_name == "PLAY_CARD" and s.current_player == 2
    assert tokens(s, 1) == []


def test_pair_made_with_the_mausoleum_build_gives_a_token():
    """docs/rules.md §2: the Mausoleum build counts as a construction, so a green card from the
    discard pile can make a pair."""
    s = position(age=2, pyramid={18: "COURTHOUSE", 19: "POSTRUM"},
                 p1={"cards": RICH + ["APOTHECARY"], "wonders": ["THE_MAUSOLEUM"]},
                 discard=["SCHOOL"], board=["PHILOSOPHY"])
    s = play(s, wonder(19, "THE_MAUSOLEUM"), from_discard("SCHOOL"))
    assert s.step_name == "CHOOSE_PROGRESS_TOKEN" and s.current_player == 1
    s = play(s, token("PHILOSOPHY"))
    assert s.current_player == 2


def test_law_gives_scale_but_no_second_pair():
    """docs/rules.md ruling 8 / §11 "LAW": LAW gives SCALE, which never makes a pair: taking it through a
    pair starts no further token choice."""
    s = position(age=2, pyramid={18: "COURTHOUSE", 19: "SCHOOL"},
                 p1={"cards": ["APOTHECARY", "LUMBER_YARD", "PRESS", "DRYING_ROOM"]},
                 board=["LAW", "PHILOSOPHY"])
    s = play(s, build(19), token("LAW"))
    assert sorted(science_symbols(s.players[0])) == ["SCALE", "WHEEL"]
    assert s.step_name == "PLAY_CARD" and s.current_player == 2
    assert seat_view(s)["tokensAvailable"] == ["PHILOSOPHY"]


# ---------------------------------------------------------------- scientific supremacy
def test_six_different_symbols_win_at_once():
    """docs/rules.md ruling 8 / §11 "Supremacy": 6 different symbols win immediately, cards remaining."""
    s = position(age=3, pyramid={18: "PALACE", 19: "UNIVERSITY"},
                 p1={"cards": FIVE_SYMBOLS, "coins": 20})
    s = play(s, build(19))
    assert s.is_terminal() and s.step_name == "GAME_END"
    assert s.result().winner_label == 1 and s.result().victory == "science"
    assert "18" in seat_view(s)["visiblePyramid"]  # the Age was not finished
    assert s.legal_moves() == []


def test_five_different_symbols_do_not_win():
    """Control: 5 different symbols (a pair does not count twice) is no supremacy."""
    s = position(age=3, pyramid={18: "PALACE", 19: "STUDY"},
                 p1={"cards": FIVE_SYMBOLS, "coins": 20}, board=[])
    s = play(s, build(19))
    assert not s.is_terminal()
    assert s.current_player == 2


def test_law_counts_toward_six_different_symbols():
    """docs/rules.md ruling 8 / §11 "LAW": SCALE counts for the six. 4 card symbols + SCALE + SUNDIAL."""
    s = position(age=3, pyramid={18: "PALACE", 19: "ACADEMY"},
                 p1={"cards": ["APOTHECARY", "WORKSHOP", "SCRIPTORIUM", "PHARMACIST"],
                     "tokens": ["LAW"], "coins": 20})
    s = play(s, build(19))
    assert s.is_terminal()
    assert s.result().winner_label == 1 and s.result().victory == "science"


def test_law_taken_for_a_pair_wins_at_once():
    """docs/rules.md §8: supremacy is checked when LAW is taken for a pair (mid-turn)."""
    s = position(age=3, pyramid={18: "PALACE", 19: "STUDY"},
                 p1={"cards": FIVE_SYMBOLS, "coins": 20}, board=["PHILOSOPHY", "LAW"])
    s = play(s, build(19))
    assert s.step_name == "CHOOSE_PROGRESS_TOKEN"
    s = play(s, token("LAW"))
    assert s.is_terminal()
    assert s.result().winner_label == 1 and s.result().victory == "science"


def test_law_from_the_great_library_wins_at_once():
    """docs/rules.md §8: supremacy is checked when LAW comes through the Great Library."""
    s = position(age=3, pyramid={18: "PALACE", 19: "OBELISK"},
                 p1={"cards": FIVE_SYMBOLS, "coins": 30, "wonders": ["THE_GREAT_LIBRARY"]},
                 box=["LAW", "PHILOSOPHY", "STRATEGY"])
    s = play(s, wonder(19, "THE_GREAT_LIBRARY"), library_token("LAW"))
    assert s.is_terminal()
    assert s.result().winner_label == 1 and s.result().victory == "science"


def test_sixth_symbol_from_the_mausoleum_wins_at_once():
    """docs/rules.md §8: supremacy from a green card built from the discard pile."""
    s = position(age=3, pyramid={18: "PALACE", 19: "OBELISK"},
                 p1={"cards": FIVE_SYMBOLS, "coins": 30, "wonders": ["THE_MAUSOLEUM"]},
                 p2={"coins": 7}, discard=["OBSERVATORY"])
    s = play(s, wonder(19, "THE_MAUSOLEUM"), from_discard("OBSERVATORY"))
    assert s.is_terminal()
    assert s.result().winner_label == 1 and s.result().victory == "science"


def test_player_2_science_win():
    """docs/rules.md §8: either player can win by science."""
    s = position(age=3, pyramid={18: "PALACE", 19: "UNIVERSITY"}, current=2,
                 p2={"cards": FIVE_SYMBOLS, "coins": 20})
    s = play(s, build(19))
    assert s.result().winner_label == 2 and s.result().victory == "science"
    v = seat_view(s)
    assert v["player2"]["won"] is True and v["player1"]["won"] is False


# ---------------------------------------------------------------- the pawn and loot
def test_red_card_moves_the_pawn_by_its_shields():
    """docs/rules.md §7: player 1's shields move the pawn towards +9, player 2's towards -9."""
    s = position(age=2, pyramid={18: "WALLS", 19: "ARCHERY_RANGE"}, p1={"cards": RICH})
    s = play(s, build(18))
    assert s.military == 2
    s2 = position(age=2, pyramid={18: "WALLS", 19: "ARCHERY_RANGE"}, current=2,
                  p2={"cards": RICH}, military=2)
    s2 = play(s2, build(19))
    assert s2.military == 0


def test_entering_the_3_to_5_zone_costs_the_opponent_2_coins_once():
    """docs/rules.md §7: entering +3..+5 makes player 2 lose 2 coins; the token leaves the game
    (its flag turns false)."""
    s = position(age=2, pyramid={18: "WALLS", 19: "ARCHERY_RANGE"}, military=1,
                 p1={"cards": RICH}, p2={"coins": 7})
    s = play(s, build(18))
    assert s.military == 3
    assert coins(s) == (7, 5)
    m = seat_view(s)["military"]
    assert m["loot2Player2Available"] is False
    assert m["loot5Player2Available"] and m["loot2Player1Available"] and m["loot5Player1Available"]


def test_player_2_entering_minus_3_costs_player_1_2_coins():
    """docs/rules.md §7: mirror image: -3..-5 makes player 1 lose 2 coins."""
    s = position(age=2, pyramid={18: "WALLS", 19: "ARCHERY_RANGE"}, current=2, military=-1,
                 p2={"cards": RICH}, p1={"coins": 7})
    s = play(s, build(18))
    assert s.military == -3
    assert coins(s) == (5, 7)
    assert seat_view(s)["military"]["loot2Player1Available"] is False


def test_one_move_through_two_zones_loots_both_tokens():
    """docs/rules.md ruling 6 / §11 "Loot tokens": +2 -> +6 in one move takes 2 + 5 coins."""
    s = position(age=3, pyramid={18: "PALACE", 19: "PRETORIUM"}, military=2,
                 p1={"coins": 8, "tokens": ["STRATEGY"]}, p2={"coins": 10})
    s = play(s, build(19))
    assert s.military == 6
    assert coins(s) == (0, 3)
    m = seat_view(s)["military"]
    assert m["loot2Player2Available"] is False and m["loot5Player2Available"] is False


def test_player_2_through_two_zones_loots_both_tokens():
    """docs/rules.md ruling 6: mirror image: -2 -> -6 costs player 1 2 + 5 coins."""
    s = position(age=3, pyramid={18: "PALACE", 19: "PRETORIUM"}, military=-2, current=2,
                 p2={"coins": 8, "tokens": ["STRATEGY"]}, p1={"coins": 10})
    s = play(s, build(19))
    assert s.military == -6
    assert coins(s) == (3, 0)


def test_loot_never_takes_coins_below_zero():
    """docs/rules.md ruling 6 / §11 "Coins": a player who cannot pay in full loses all their coins."""
    s = position(age=3, pyramid={18: "PALACE", 19: "PRETORIUM"}, military=2,
                 p1={"coins": 8, "tokens": ["STRATEGY"]}, p2={"coins": 4})
    s = play(s, build(19))
    assert coins(s) == (0, 0)


def test_loot_token_already_taken_does_not_fire_again():
    """Checklist "Loot tokens": once each; a pawn re-entering the zone takes nothing."""
    s = position(age=2, pyramid={18: "WALLS", 19: "ARCHERY_RANGE"}, military=1,
                 loot={"loot2Player2Available": False}, p1={"cards": RICH}, p2={"coins": 7})
    s = play(s, build(18))
    assert s.military == 3
    assert coins(s) == (7, 7)


def test_moving_back_towards_the_centre_loots_nothing():
    """docs/rules.md §7: loot fires on entering a zone towards the opponent's capital, and only
    the opponent pays: player 2 pushing from +7 to +5 costs nobody anything."""
    s = position(age=2, pyramid={18: "WALLS", 19: "ARCHERY_RANGE"}, military=7, current=2,
                 loot={"loot2Player2Available": False, "loot5Player2Available": False},
                 p2={"cards": RICH})
    s = play(s, build(18))
    assert s.military == 5
    assert coins(s) == (7, 7)


# ---------------------------------------------------------------- military supremacy
def test_pawn_reaching_9_wins_at_once():
    """docs/rules.md ruling 8 / §11 "Supremacy": military at +9 ends the game at once."""
    s = position(age=2, pyramid={18: "WALLS", 19: "ARCHERY_RANGE"}, military=7,
                 loot={"loot2Player2Available": False, "loot5Player2Available": False},
                 p1={"cards": RICH})
    s = play(s, build(18))
    assert s.military == 9
    assert s.is_terminal()
    assert s.result().winner_label == 1 and s.result().victory == "military"
    assert "19" in seat_view(s)["visiblePyramid"]


def test_pawn_stops_at_9():
    """docs/rules.md §7: positions run from -9 to +9."""
    s = position(age=3, pyramid={18: "PALACE", 19: "PRETORIUM"}, military=8, p1={"coins": 8},
                 loot={"loot2Player2Available": False, "loot5Player2Available": False})
    s = play(s, build(19))
    assert s.military == 9
    assert seat_view(s)["military"]["militaryPosition"] == 9
    assert s.result().winner_label == 1


def test_pawn_reaching_minus_9_wins_for_player_2():
    """docs/rules.md §7: player 2 wins at -9."""
    s = position(age=2, pyramid={18: "WALLS", 19: "ARCHERY_RANGE"}, military=-8, current=2,
                 loot={"loot2Player1Available": False, "loot5Player1Available": False},
                 p2={"cards": RICH})
    s = play(s, build(19))
    assert s.military == -9
    assert s.result().winner_label == 2 and s.result().victory == "military"


def test_military_supremacy_from_a_wonder_shield_ends_the_game_before_the_destroy_step():
    """docs/rules.md ruling 8: supremacy ends the game at once, even mid-turn: the Statue of Zeus shield
    reaching +9 wins before its destroy choice."""
    s = position(age=2, pyramid={18: "WALLS", 19: "POSTRUM"}, military=8,
                 loot={"loot2Player2Available": False, "loot5Player2Available": False},
                 p1={"coins": 20, "wonders": ["THE_STATUE_OF_ZEUS"]}, p2={"cards": ["QUARRY"]})
    s = play(s, wonder(19, "THE_STATUE_OF_ZEUS"))
    assert s.step_name == "GAME_END"
    assert s.result().winner_label == 1 and s.result().victory == "military"
    assert city(s, 2) == ["QUARRY"]


def test_military_supremacy_from_a_mausoleum_build_ends_the_game():
    """docs/rules.md ruling 8: supremacy mid-turn, from a red card built from the discard pile."""
    s = position(age=3, pyramid={18: "PALACE", 19: "OBELISK"}, military=-7, current=2,
                 loot={"loot2Player1Available": False, "loot5Player1Available": False},
                 p2={"coins": 30, "wonders": ["THE_MAUSOLEUM"]}, discard=["WALLS"])
    s = play(s, wonder(19, "THE_MAUSOLEUM"), from_discard("WALLS"))
    assert s.result().winner_label == 2 and s.result().victory == "military"


def test_military_supremacy_play_again_is_not_granted():
    """docs/rules.md ruling 8: the game is over; no further move (even after a play-again wonder's shield)."""
    s = position(age=2, pyramid={18: "WALLS", 19: "POSTRUM"}, military=7,
                 loot={"loot2Player2Available": False, "loot5Player2Available": False},
                 p1={"coins": 30, "wonders": ["THE_COLOSSUS"], "tokens": ["THEOLOGY"]})
    s = play(s, wonder(19, "THE_COLOSSUS"))
    assert s.is_terminal() and s.legal_moves() == []


# ---------------------------------------------------------------- Strategy
def test_strategy_adds_a_shield_to_red_buildings():
    """docs/rules.md §3: STRATEGY: each red building built later gets +1 shield."""
    s = position(age=1, pyramid={18: "GUARD_TOWER", 19: "STABLE"}, p1={"tokens": ["STRATEGY"]})
    s = play(s, build(18))
    assert s.military == 2


def test_strategy_does_not_apply_to_wonders():
    """docs/rules.md §3: STRATEGY does not apply to wonder shields (Colossus stays 2)."""
    s = position(age=2, pyramid={18: "WALLS", 19: "POSTRUM"},
                 p1={"cards": RICH, "tokens": ["STRATEGY"], "wonders": ["THE_COLOSSUS"]})
    s = play(s, wonder(19, "THE_COLOSSUS"))
    assert s.military == 2


def test_strategy_does_not_move_the_pawn_for_red_cards_built_earlier():
    """docs/rules.md §3: taking STRATEGY has no effect on red cards already built."""
    s = position(age=2, pyramid={18: "COURTHOUSE", 19: "SCHOOL"}, military=2,
                 p1={"cards": ["GUARD_TOWER", "STABLE", "APOTHECARY", "LUMBER_YARD", "PRESS",
                               "DRYING_ROOM"]},
                 board=["STRATEGY"])
    s = play(s, build(19), token("STRATEGY"))
    assert s.military == 2
    assert tokens(s, 1) == ["STRATEGY"]


def test_strategy_applies_to_a_red_card_built_by_the_mausoleum():
    """docs/rules.md §2: "With Strategy, a red card built this way gets +1 shield"."""
    s = position(age=2, pyramid={18: "WALLS", 19: "POSTRUM"}, discard=["GUARD_TOWER"],
                 p1={"cards": RICH, "tokens": ["STRATEGY"], "wonders": ["THE_MAUSOLEUM"]})
    s = play(s, wonder(19, "THE_MAUSOLEUM"), from_discard("GUARD_TOWER"))
    assert s.military == 2


def test_discarding_a_red_card_moves_nothing():
    """docs/rules.md §6: a discarded card has no effect."""
    s = position(age=2, pyramid={18: "WALLS", 19: "POSTRUM"})
    s = play(s, discard(18))
    assert s.military == 0
    assert coins(s) == (9, 7)


def test_science_supremacy_with_the_last_card_of_age_3_is_a_science_victory():
    """docs/rules.md ruling 8: supremacy wins at once, before the end-of-game civilian count."""
    s = position(age=3, pyramid={19: "UNIVERSITY"}, p1={"cards": FIVE_SYMBOLS, "coins": 20},
                 p2={"cards": ["PALACE", "TOWNHALL", "GARDENS"], "coins": 60})
    s = play(s, build(19))
    assert s.result().winner_label == 1 and s.result().victory == "science"


def test_military_supremacy_with_the_last_card_of_an_age_ends_the_game():
    """docs/rules.md ruling 8: supremacy with an Age's last card ends the game: no next Age, no choice."""
    s = position(age=1, pyramid={19: "GUARD_TOWER"}, military=8,
                 loot={"loot2Player2Available": False, "loot5Player2Available": False})
    s = play(s, build(19))
    assert s.step_name == "GAME_END" and s.age == 1
    assert s.result().winner_label == 1 and s.result().victory == "military"

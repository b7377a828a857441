"""The structure, the end of an Age, who starts the next one, discarding, yellow and guild coins,
and end-of-game scoring.

Sources: docs/rules.md §1.3-§1.4 (yellow cards, guilds), §5 (structures, reveal),
§6 (discard), §9 (end of an Age), §10 (scoring); §11 rows "Start of Age II/III", "Play again on
the last card of an Age", "Guild city with most", "Shipowners", "Discard", "Lighthouse",
"Tie-break"; docs/rules.md rulings 1, 4, 5 and 10.
"""

import pytest
from helpers.positions import (
    BACK,
    RICH,
    build,
    city,
    coins,
    destroy,
    discard,
    moves_of,
    play,
    position,
    price,
    start,
    token,
    wonder,
)

from duel.engine import IllegalMoveError, seat_view
from duel.engine.data import CARDS, PURPLE

SCORE_KEYS = {"CIVILIAN_BUILDING", "SCIENTIFIC_BUILDING", "COMMERCIAL_BUILDING", "GUILD",
              "MILITARY_BUILDING", "WONDER", "MONEY", "PROGRESS_TOKEN", "TOTAL"}


def last_card_of_age(age, **kw):
    """A position with one card left in the structure (slot 19)."""
    card = kw.pop("card", {1: "LUMBER_YARD", 2: "POSTRUM", 3: "OBELISK"}[age])
    return position(age=age, pyramid={19: card}, **kw)


# ---------------------------------------------------------------- who starts Ages II and III
def test_pawn_on_player_2s_side_player_2_chooses_who_starts():
    """docs/rules.md ruling 4 / §11 "Start of Age II/III": the weaker player (pawn > 0: player 2)
    chooses, even though player 1 took the last card; either player may be chosen."""
    s = last_card_of_age(1, military=1, current=1)
    s = play(s, discard(19))
    assert s.step_name == "CHOOSE_STARTING_PLAYER" and s.current_player == 2
    assert s.age == 2
    assert moves_of(s, "CHOOSE_STARTING_PLAYER") == {start(1), start(2)}
    a = play(s, start(1))
    assert a.step_name == "PLAY_CARD" and a.current_player == 1 and a.age == 2
    b = play(s, start(2))
    assert b.step_name == "PLAY_CARD" and b.current_player == 2


def test_pawn_on_player_1s_side_player_1_chooses_who_starts():
    """docs/rules.md ruling 4: pawn < 0: player 1 is weaker and chooses, though player 2 took the last card."""
    s = last_card_of_age(1, military=-2, current=2)
    s = play(s, discard(19))
    assert s.step_name == "CHOOSE_STARTING_PLAYER" and s.current_player == 1
    s = play(s, start(2))
    assert s.current_player == 2 and s.step_name == "PLAY_CARD"


@pytest.mark.parametrize("last", [1, 2])
def test_pawn_at_zero_the_player_who_took_the_last_card_chooses(last):
    """docs/rules.md ruling 4: pawn at 0: the player who took the last card of the Age chooses."""
    s = last_card_of_age(1, military=0, current=last)
    s = play(s, discard(19))
    assert s.step_name == "CHOOSE_STARTING_PLAYER" and s.current_player == last
    s = play(s, start(3 - last))
    assert s.current_player == 3 - last


@pytest.mark.parametrize("first", [1, 2])
def test_pawn_at_zero_the_taker_of_the_last_card_chooses_not_the_first_to_move(first):
    """docs/rules.md ruling 4: pawn at 0: the player who took the Age's last card chooses, here the other
    player than the one to move when the position was set up (two cards left, one each)."""
    s = position(age=1, pyramid={18: "LUMBER_YARD", 19: "QUARRY"}, current=first)
    s = play(s, discard(19), discard(18))
    assert s.military == 0
    assert s.step_name == "CHOOSE_STARTING_PLAYER" and s.current_player == 3 - first


def test_start_player_is_decided_after_the_last_cards_shields():
    """docs/rules.md ruling 4: the pawn's position after the last card's effects counts: a Guard Tower taken
    last at 0 moves the pawn to +1, so player 2 chooses."""
    s = last_card_of_age(1, card="GUARD_TOWER", military=0, current=1)
    s = play(s, build(19))
    assert s.military == 1
    assert s.step_name == "CHOOSE_STARTING_PLAYER" and s.current_player == 2


def test_start_of_age_3_weaker_player_chooses():
    """docs/rules.md ruling 4 applies to Age III as well."""
    s = last_card_of_age(2, military=-1, current=2)
    s = play(s, discard(19))
    assert s.age == 3 and s.step_name == "CHOOSE_STARTING_PLAYER" and s.current_player == 1
    s = play(s, start(1))
    assert s.current_player == 1 and s.step_name == "PLAY_CARD"


def test_start_player_wrong_step_is_illegal():
    """docs/state-format.md "Steps": CHOOSE_STARTING_PLAYER is only a move of its own step."""
    s = last_card_of_age(1)
    with pytest.raises(IllegalMoveError, match="not a move of step PLAY_CARD"):
        s.apply(start(1))
    s = play(s, discard(19))
    with pytest.raises(IllegalMoveError):
        s.apply(build(18))


# ---------------------------------------------------------------- play again at the end of an Age
def test_play_again_with_the_last_card_of_an_age_is_lost():
    """docs/rules.md ruling 5 / §11 "Play again on the last card": lost. Player 1 builds the Sphinx with
    the last Age I card while ahead: player 2 (weaker) chooses who starts Age II."""
    s = last_card_of_age(1, military=1, current=1,
                         p1={"coins": 20, "wonders": ["THE_SPHINX"]})
    s = play(s, wonder(19, "THE_SPHINX"))
    assert s.age == 2
    assert s.step_name == "CHOOSE_STARTING_PLAYER" and s.current_player == 2
    s = play(s, start(2))
    assert s.current_player == 2


def test_play_again_lost_at_zero_the_builder_only_chooses():
    """docs/rules.md ruling 5: with the pawn at 0 the builder of the last card chooses who starts (a choice,
    not an extra turn); choosing the opponent gives the opponent the first turn."""
    s = last_card_of_age(2, military=0, current=1,
                         p1={"cards": RICH, "wonders": ["THE_HANGING_GARDENS"]})
    s = play(s, wonder(19, "THE_HANGING_GARDENS"))
    assert s.step_name == "CHOOSE_STARTING_PLAYER" and s.current_player == 1 and s.age == 3
    s = play(s, start(2))
    assert s.step_name == "PLAY_CARD" and s.current_player == 2


@pytest.mark.parametrize("age,chosen", [(1, 1), (1, 2), (2, 1), (2, 2)])
@pytest.mark.parametrize("wonder_name,tokens_", [("THE_SPHINX", []),
                                                 ("THE_PYRAMIDS", ["THEOLOGY"])])
def test_play_again_with_the_last_card_is_not_carried_into_the_next_age(age, chosen, wonder_name,
                                                                        tokens_):
    """docs/rules.md ruling 5 / §11 "Play again on the last card": the extra turn is lost, not kept for
    later: whoever starts the next Age plays one card, then the turn passes."""
    s = last_card_of_age(age, military=0, current=1,
                         p1={"cards": RICH if age == 2 else [], "coins": 20,
                             "wonders": [wonder_name], "tokens": tokens_})
    s = play(s, wonder(19, wonder_name))
    assert s.step_name == "CHOOSE_STARTING_PLAYER" and s.current_player == 1
    s = play(s, start(chosen), discard(19))
    assert s.step_name == "PLAY_CARD" and s.current_player == 3 - chosen
    s = play(s, discard(18))
    assert s.current_player == chosen


def test_theology_play_again_with_the_last_card_is_lost_too():
    """docs/rules.md ruling 5 with THEOLOGY."""
    s = last_card_of_age(1, military=-1, current=2,
                         p2={"coins": 20, "tokens": ["THEOLOGY"], "wonders": ["THE_PYRAMIDS"]})
    s = play(s, wonder(19, "THE_PYRAMIDS"))
    assert s.step_name == "CHOOSE_STARTING_PLAYER" and s.current_player == 1


def test_play_again_with_the_last_card_of_age_3_ends_the_game():
    """docs/rules.md §9: the Age III structure emptying ends the game."""
    s = last_card_of_age(3, p1={"cards": RICH, "wonders": ["THE_SPHINX"]})
    s = play(s, wonder(19, "THE_SPHINX"))
    assert s.is_terminal() and s.result().victory == "civilian"


# ---------------------------------------------------------------- the last card's pending choice
def test_pair_with_the_last_card_of_an_age_is_resolved_before_the_age_ends():
    """docs/rules.md §8/§9: the last card's token choice is resolved first, then the next Age."""
    s = last_card_of_age(2, card="SCHOOL", military=0, current=1, board=["PHILOSOPHY"],
                         p1={"cards": ["APOTHECARY", "LUMBER_YARD", "PRESS", "DRYING_ROOM"]})
    s = play(s, build(19))
    assert s.step_name == "CHOOSE_PROGRESS_TOKEN" and s.age == 2 and s.current_player == 1
    s = play(s, token("PHILOSOPHY"))
    assert s.step_name == "CHOOSE_STARTING_PLAYER" and s.age == 3 and s.current_player == 1


def test_pair_with_the_last_card_of_age_3_is_resolved_before_scoring():
    """docs/rules.md §8/§9: the token taken with the last card of Age III counts in the score."""
    s = last_card_of_age(3, card="STUDY", current=1, board=["PHILOSOPHY"],
                         p1={"cards": ["ACADEMY", "LUMBER_YARD", "SAWMILL", "GLASSWORKS",
                                       "PRESS"]})
    s = play(s, build(19))
    assert s.step_name == "CHOOSE_PROGRESS_TOKEN" and not s.is_terminal()
    s = play(s, token("PHILOSOPHY"))
    assert s.is_terminal()
    assert s.result().scores[0]["PROGRESS_TOKEN"] == 7


def test_destroy_with_the_last_card_of_an_age_is_resolved_before_the_age_ends():
    """docs/rules.md §9: an Age ends once the last card's effects (destroy) are resolved."""
    s = last_card_of_age(2, military=3, current=1, loot={"loot2Player2Available": False},
                         p1={"coins": 30, "wonders": ["CIRCUS_MAXIMUS"]},
                         p2={"cards": ["GLASSWORKS"]})
    s = play(s, wonder(19, "CIRCUS_MAXIMUS"))
    assert s.step_name == "DESTROY_GREY" and s.age == 2
    s = play(s, destroy("GLASSWORKS"))
    assert s.step_name == "CHOOSE_STARTING_PLAYER" and s.age == 3 and s.current_player == 2


# ---------------------------------------------------------------- structures and reveals
def test_age_2_structure_is_laid_out_with_rows_2_and_4_face_down():
    """docs/rules.md §5.2: Age II: 20 cards, only 18 and 19 accessible, rows 2 and 4 (slots 6-10,
    15-17) face down."""
    s = play(last_card_of_age(1, current=1), discard(19))
    pyr = seat_view(s)["visiblePyramid"]
    assert sorted(int(k) for k in pyr) == list(range(20))
    assert [int(k) for k, e in pyr.items() if e["isActive"]] == [18, 19]
    down = {6, 7, 8, 9, 10, 15, 16, 17}
    for slot in range(20):
        name = pyr[str(slot)]["cardName"]
        if slot in down:
            assert name == "AGE_TWO_BACK"
        else:
            assert name == CARDS[s.pyramid[slot]].name and CARDS[s.pyramid[slot]].age == 2


def test_age_3_structure_shows_guild_backs_for_face_down_guilds():
    """docs/rules.md §5.3 / docs/state-format.md "Structure": Age III: rows 2, 4, 6 face down (slots 2-4,
    9-10, 15-17), a face-down guild shows GUILD_BACK; 3 guilds in the structure."""
    for seed in range(6):
        s = play(last_card_of_age(2, seed=seed), discard(19))
        pyr = seat_view(s)["visiblePyramid"]
        assert [int(k) for k, e in pyr.items() if e["isActive"]] == [18, 19]
        assert sum(1 for c in s.pyramid if CARDS[c].color == PURPLE) == 3
        for slot in range(20):
            card = CARDS[s.pyramid[slot]]
            name = pyr[str(slot)]["cardName"]
            if slot in {2, 3, 4, 9, 10, 15, 16, 17}:
                assert name == ("GUILD_BACK" if card.color == PURPLE else "AGE_THREE_BACK")
            else:
                assert name == card.name


def test_age_3_removing_9_frees_5_and_6():
    """docs/rules.md §5.3: card 9 alone covers 5 and 6; rows 3 and 5 do not overlap."""
    s = position(age=3, pyramid={5: "PALACE", 6: "OBELISK", 9: "ACADEMY", 7: "STUDY",
                                 8: "ARSENAL", 10: "PRETORIUM"}, p1={"coins": 20})
    assert sorted(s.accessible_slots()) == [9, 10]
    s = play(s, discard(9))
    assert sorted(s.accessible_slots()) == [5, 6, 10]


def test_covered_card_cannot_be_taken():
    """docs/rules.md §5: a card is accessible once every card covering it has been taken."""
    s = position(age=2, pyramid={17: BACK, 18: "COURTHOUSE", 19: "POSTRUM"})
    with pytest.raises(IllegalMoveError, match="covered by slot"):
        s.apply(discard(17))


def test_face_down_card_is_revealed_only_after_the_token_choice():
    """docs/rules.md §5: a freed face-down card is turned face up after the action, including any
    pending choice, is fully resolved."""
    s = position(age=2, pyramid={17: BACK, 18: "COURTHOUSE", 19: "SCHOOL"}, board=["PHILOSOPHY"],
                 p1={"cards": ["APOTHECARY", "LUMBER_YARD", "PRESS", "DRYING_ROOM"]})
    hidden = CARDS[s.pyramid[17]].name
    assert seat_view(s)["visiblePyramid"]["17"] == {"cardName": "AGE_TWO_BACK", "isActive": False}
    s = play(s, build(19))
    assert s.step_name == "CHOOSE_PROGRESS_TOKEN"
    assert seat_view(s)["visiblePyramid"]["17"] == {"cardName": "AGE_TWO_BACK", "isActive": True}
    s = play(s, token("PHILOSOPHY"))
    assert seat_view(s)["visiblePyramid"]["17"] == {"cardName": hidden, "isActive": True}


def test_face_down_card_is_revealed_only_after_the_destroy_choice():
    """docs/rules.md §5: the reveal waits for the destroy choice too."""
    s = position(age=2, pyramid={17: BACK, 18: "COURTHOUSE", 19: "POSTRUM"},
                 p1={"coins": 30, "wonders": ["THE_STATUE_OF_ZEUS"]}, p2={"cards": ["QUARRY"]})
    hidden = CARDS[s.pyramid[17]].name
    s = play(s, wonder(19, "THE_STATUE_OF_ZEUS"))
    assert seat_view(s)["visiblePyramid"]["17"]["cardName"] == "AGE_TWO_BACK"
    s = play(s, destroy("QUARRY"))
    assert seat_view(s)["visiblePyramid"]["17"]["cardName"] == hidden


def test_face_down_card_is_revealed_before_the_play_again_turn():
    """docs/rules.md §5: a play-again turn starts after the reveal."""
    s = position(age=2, pyramid={17: BACK, 18: "COURTHOUSE", 19: "POSTRUM"},
                 p1={"cards": RICH, "wonders": ["THE_SPHINX"]})
    hidden = CARDS[s.pyramid[17]].name
    s = play(s, wonder(19, "THE_SPHINX"))
    assert s.current_player == 1
    assert seat_view(s)["visiblePyramid"]["17"] == {"cardName": hidden, "isActive": True}


# ---------------------------------------------------------------- discarding
def test_discard_gives_2_coins_plus_1_per_yellow_card():
    """Checklist "Discard": 2c + 1c per own yellow card; the card goes to the discard pile."""
    s = position(age=2, pyramid={18: "COURTHOUSE", 19: "POSTRUM"},
                 p1={"cards": ["TAVERN", "STONE_RESERVE", "FORUM", "QUARRY", "THEATRE"]},
                 p2={"cards": ["WOOD_RESERVE", "CARAVANSERY"]})
    s = play(s, discard(19))
    assert coins(s) == (12, 7)
    assert seat_view(s)["discardedCards"] == ["POSTRUM"]


def test_discard_with_no_yellow_card_gives_2():
    """Checklist "Discard"."""
    s = position(age=2, pyramid={18: "COURTHOUSE", 19: "POSTRUM"}, current=2,
                 p1={"cards": ["TAVERN"]})
    s = play(s, discard(18))
    assert coins(s) == (7, 9)


def test_any_accessible_card_can_be_discarded_even_unaffordable():
    """docs/rules.md §6: discarding is always possible."""
    s = position(age=3, pyramid={18: "PALACE", 19: "PRETORIUM"}, p1={"coins": 0},
                 p2={"cards": RICH})
    assert moves_of(s, "CONSTRUCT_BUILDING") == set()
    assert moves_of(s, "DISCARD") == {discard(18), discard(19)}


# ---------------------------------------------------------------- yellow cards' coins
def test_lighthouse_counts_itself():
    """docs/rules.md ruling 1 / §11 "Lighthouse": 1c per own yellow card, the Lighthouse included."""
    s = position(age=3, pyramid={18: "PALACE", 19: "LIGHTHOUSE"},
                 p1={"cards": ["TAVERN", "WOOD_RESERVE"]}, p2={"cards": ["FORUM", "CARAVANSERY"]})
    assert price(s, 1, "LIGHTHOUSE") == 0  # chain from the Tavern
    s = play(s, build(19))
    assert coins(s) == (10, 7)
    assert s.score(0)["COMMERCIAL_BUILDING"] == 3


def test_chamber_of_commerce_gives_3_per_own_grey_card():
    """docs/rules.md §1.3: 3c per grey card in your city (not the opponent's)."""
    s = position(age=3, pyramid={18: "PALACE", 19: "CHAMBER_OF_COMMERCE"},
                 p1={"cards": ["GLASSWORKS", "PRESS", "DRYING_ROOM"]},
                 p2={"cards": ["GLASSBLOWER"]})
    s = play(s, build(19))
    assert coins(s) == (16, 7)
    assert s.score(0)["COMMERCIAL_BUILDING"] == 3


def test_port_gives_2_per_own_brown_card_and_is_worth_3_vp():
    """docs/rules.md ruling 1: PORT is worth 3 VP; §1.3: 2c per own brown card."""
    s = position(age=3, pyramid={18: "PALACE", 19: "PORT"},
                 p1={"cards": ["LUMBER_YARD", "QUARRY", "CLAY_POOL", "GLASSWORKS", "PRESS"]},
                 p2={"cards": ["SAWMILL"]})
    assert price(s, 1, "PORT") == 0
    s = play(s, build(19))
    assert coins(s) == (13, 7)
    assert s.score(0)["COMMERCIAL_BUILDING"] == 3


def test_armory_gives_1_per_own_red_card():
    """docs/rules.md §1.3: 1c per red card in your city."""
    s = position(age=3, pyramid={18: "PALACE", 19: "ARMORY"},
                 p1={"cards": ["GUARD_TOWER", "STABLE", "QUARRY", "STONE_PIT", "GLASSWORKS"]},
                 p2={"cards": ["PALISADE", "GARRISON", "WALLS"]})
    s = play(s, build(19))
    assert coins(s) == (9, 7)


def test_arena_gives_2_per_own_built_wonder():
    """docs/rules.md §1.3: 2c per wonder you have built (Arena chained from the Brewery)."""
    s = position(age=3, pyramid={18: "PALACE", 19: "ARENA"},
                 p1={"cards": ["BREWERY"], "wonders": {"THE_COLOSSUS": 1, "THE_PYRAMIDS": 2}},
                 p2={"wonders": {"THE_SPHINX": 1, "THE_APPIAN_WAY": 1, "PIRAEUS": 2}})
    s = play(s, build(19))
    assert coins(s) == (11, 7)


@pytest.mark.parametrize("card,age,gain", [("TAVERN", 1, 4), ("BREWERY", 2, 6)])
def test_tavern_and_brewery_give_coins_once(card, age, gain):
    """docs/rules.md §1.1/§1.2: Tavern +4c, Brewery +6c, once, when built."""
    s = position(age=age, pyramid={18: "GUARD_TOWER" if age == 1 else "POSTRUM", 19: card},
                 p1={"coins": 1})
    s = play(s, build(19))
    assert coins(s) == (1 + gain, 7)


# ---------------------------------------------------------------- guilds
def _build_guild_last(guild, p1, p2):
    s = position(age=3, pyramid={19: guild}, p1=p1, p2=p2)
    paid = price(s, 1, guild)
    before = s.players[0].coins - paid
    s = play(s, build(19))
    assert s.is_terminal()
    return s, s.players[0].coins - before


@pytest.mark.parametrize("guild,p1,p2,gain,vp", [
    # Shipowners: brown+grey summed within one city: max(3 + 0, 2 + 2) = 4, not 3 + 2 = 5.
    ("SHIPOWNERS_GUILD", {"cards": ["LUMBER_YARD", "QUARRY", "CLAY_POOL"], "coins": 20},
     {"cards": ["LOGGING_CAMP", "STONE_PIT", "GLASSWORKS", "PRESS"]}, 4, 4),
    ("SCIENTISTS_GUILD", {"cards": ["APOTHECARY", "WORKSHOP"], "coins": 20},
     {"cards": ["SCRIPTORIUM", "PHARMACIST", "LIBRARY"]}, 3, 3),
    ("MERCHANTS_GUILD", {"cards": ["TAVERN"], "coins": 20},
     {"cards": ["FORUM", "CARAVANSERY"]}, 2, 2),
    ("MAGISTRATES_GUILD", {"cards": ["THEATRE", "ALTER", "BATHS"], "coins": 20},
     {"cards": ["STATUE"]}, 3, 3),
    ("TACTICIANS_GUILD", {"cards": ["GUARD_TOWER"], "coins": 20},
     {"cards": ["STABLE", "GARRISON"]}, 2, 2),
    ("BUILDERS_GUILD", {"coins": 20, "wonders": {"THE_PYRAMIDS": 1}},
     {"wonders": {"THE_SPHINX": 1, "THE_COLOSSUS": 2, "PIRAEUS": 2}}, 0, 6),
    ("MONEYLENDERS_GUILD", {"coins": 10}, {"coins": 25}, 0, 8),
])
def test_guild_coins_when_built_and_vp_at_the_end(guild, p1, p2, gain, vp):
    """Checklist "Guild city with most" and "Shipowners": coins once when built and VP at the end,
    each from the city with the most (the max over both cities)."""
    s, got = _build_guild_last(guild, p1, p2)
    assert got == gain
    assert s.result().scores[0]["GUILD"] == vp


def test_guild_vp_are_recomputed_at_the_end_and_coins_are_paid_once():
    """Checklist "Guild city with most": coins once when built (own city, 2 red vs 1), VP recounted
    at the end (the opponent's city then has 3 red); later red cards pay no more coins."""
    s = position(age=3, pyramid={16: "ARSENAL", 17: "OBELISK", 18: "PRETORIUM",
                                 19: "TACTICIANS_GUILD"},
                 loot={"loot2Player1Available": False, "loot5Player1Available": False},
                 p1={"cards": ["GUARD_TOWER", "STABLE"], "coins": 20},
                 p2={"cards": ["GARRISON"], "coins": 18})
    paid = price(s, 1, "TACTICIANS_GUILD")
    s = play(s, build(19))
    assert coins(s) == (20 - paid + 2, 18)
    s = play(s, build(18), discard(17), build(16))
    assert s.is_terminal()
    assert city(s, 2) == ["GARRISON", "PRETORIUM", "ARSENAL"]
    assert coins(s) == (20 - paid + 2 + 2, 0)
    assert s.result().scores[0]["GUILD"] == 3


# ---------------------------------------------------------------- end-of-game scoring
def test_civilian_score_breakdown():
    """docs/rules.md §10: military VP + blue/green/yellow/guild VP + wonders + tokens + coins/3."""
    s = position(age=3, pyramid={19: "OBELISK"}, current=2, military=4,
                 loot={"loot2Player2Available": False},
                 p1={"coins": 14,
                     "cards": ["THEATRE", "STATUE", "APOTHECARY", "LIBRARY", "PORT", "TAVERN",
                               "MAGISTRATES_GUILD", "GUARD_TOWER", "QUARRY"],
                     "wonders": {"THE_PYRAMIDS": 1, "THE_SPHINX": 2, "PIRAEUS": 0},
                     "tokens": ["AGRICULTURE", "MATHEMATICS"]},
                 p2={"coins": 7, "cards": ["ALTER", "SCRIPTORIUM"],
                     "wonders": {"THE_COLOSSUS": 1}, "tokens": ["PHILOSOPHY"]})
    s = play(s, discard(19))
    assert s.is_terminal()
    r = s.result()
    assert r.winner_label == 1 and r.victory == "civilian"
    assert r.scores[0] == {"CIVILIAN_BUILDING": 7, "SCIENTIFIC_BUILDING": 3,
                            "COMMERCIAL_BUILDING": 3, "GUILD": 2, "MILITARY_BUILDING": 5,
                            "WONDER": 15, "MONEY": 4, "PROGRESS_TOKEN": 10, "TOTAL": 49}
    assert r.scores[1] == {"CIVILIAN_BUILDING": 3, "SCIENTIFIC_BUILDING": 0,
                            "COMMERCIAL_BUILDING": 0, "GUILD": 0, "MILITARY_BUILDING": 0,
                            "WONDER": 3, "MONEY": 3, "PROGRESS_TOKEN": 7, "TOTAL": 16}
    v = seat_view(s)
    assert v["step"] == "GAME_END"
    assert v["player1"]["won"] is True and v["player2"]["won"] is False
    assert v["player1"]["score"] == r.scores[0] and set(v["player2"]["score"]) == SCORE_KEYS


@pytest.mark.parametrize("pos,vp1,vp2", [
    (0, 0, 0), (1, 2, 0), (2, 2, 0), (3, 5, 0), (5, 5, 0), (6, 10, 0), (8, 10, 0),
    (-1, 0, 2), (-2, 0, 2), (-3, 0, 5), (-5, 0, 5), (-6, 0, 10), (-8, 0, 10),
])
def test_military_vp_by_pawn_position(pos, vp1, vp2):
    """docs/rules.md §7/§10: 2 / 5 / 10 VP to the player the pawn is ahead for; 0 at the centre."""
    s = position(age=3, pyramid={19: "OBELISK"}, military=pos)
    assert s.score(0)["MILITARY_BUILDING"] == vp1
    assert s.score(1)["MILITARY_BUILDING"] == vp2


def test_brown_grey_and_red_cards_give_no_vp():
    """docs/rules.md §10: brown, grey and red cards give no VP."""
    s = position(age=3, pyramid={19: "OBELISK"},
                 p1={"cards": ["QUARRY", "GLASSWORKS", "SAWMILL", "WALLS", "GUARD_TOWER"],
                     "coins": 0})
    assert s.score(0)["TOTAL"] == 0


def test_tie_on_points_goes_to_more_blue_vp():
    """docs/rules.md ruling 10 / §11 "Tie-break": equal totals: more blue-card VP wins."""
    s = position(age=3, pyramid={19: "OBELISK"}, current=1,
                 p1={"coins": 0, "wonders": {"THE_PYRAMIDS": 1}},
                 p2={"coins": 0, "cards": ["THEATRE", "GARDENS"]})
    s = play(s, discard(19))
    r = s.result()
    assert r.scores[0]["TOTAL"] == r.scores[1]["TOTAL"] == 9
    assert r.winner_label == 2 and r.victory == "civilian"
    v = seat_view(s)
    assert v["player2"]["won"] is True and v["player1"]["won"] is False


def test_tie_on_points_and_blue_vp_is_a_shared_victory():
    """docs/rules.md ruling 10: still tied: a shared victory; both `won` false, result "draw"."""
    s = position(age=3, pyramid={19: "OBELISK"}, current=1,
                 p1={"coins": 0, "cards": ["THEATRE"], "wonders": {"THE_PYRAMIDS": 1}},
                 p2={"coins": 0, "cards": ["ALTER"],
                     "wonders": {"THE_HANGING_GARDENS": 1, "THE_SPHINX": 2}})
    s = play(s, discard(19))
    r = s.result()
    assert r.scores[0]["TOTAL"] == r.scores[1]["TOTAL"] == 12
    assert r.winner_label == "draw"
    v = seat_view(s)
    assert v["player1"]["won"] is False and v["player2"]["won"] is False

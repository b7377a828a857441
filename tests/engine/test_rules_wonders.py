"""The 12 wonders, Theology and the 7-wonder limit.

Sources: docs/rules.md §2 (wonders), §3 (THEOLOGY), §9 (play again); §11 rows
"7th wonder built", "Mausoleum with an empty discard", "Great Library", "Zeus / Circus Maximus with
no target"; docs/rules.md ruling 7; docs/state-format.md "Steps" (a step with no legal option is
skipped).
"""

import pytest
from helpers.positions import (
    RICH,
    city,
    coins,
    destroy,
    discard,
    from_discard,
    library_token,
    moves_of,
    play,
    position,
    price,
    token,
    tokens,
    wonder,
    wonder_price,
)

from duel.engine import IllegalMoveError, seat_view
from duel.engine.data import TOKEN_IDS

PYR = {18: "POSTRUM", 19: "COURTHOUSE"}  # two accessible Age II cards


def rich_p1(*wonders_, **extra):
    """Player 1 producing everything, holding the given (unbuilt) wonders."""
    return {"cards": RICH, "wonders": list(wonders_), **extra}


# ---------------------------------------------------------------- building a wonder
def test_wonder_is_paid_with_its_own_cost_and_the_card_is_tucked_not_discarded():
    """docs/rules.md §2: pay the wonder's cost (never the card's); the card goes under the wonder,
    not to the discard pile and not into the city."""
    s = position(age=2, pyramid=PYR, p1={"wonders": ["THE_PYRAMIDS"], "coins": 10})
    assert wonder_price(s, 1, "THE_PYRAMIDS") == 8
    s = play(s, wonder(19, "THE_PYRAMIDS"))
    assert coins(s) == (2, 7)
    assert s.discard == [] and city(s, 1) == []
    assert seat_view(s)["player1"]["wonders"]["THE_PYRAMIDS"] == 2
    assert "19" not in seat_view(s)["visiblePyramid"]
    assert s.current_player == 2


def test_wonder_not_affordable_is_not_legal():
    """docs/rules.md §6: you may not build without being able to pay."""
    s = position(age=2, pyramid=PYR, p1={"wonders": ["THE_PYRAMIDS"], "coins": 7})
    assert moves_of(s, "CONSTRUCT_WONDER") == set()
    with pytest.raises(IllegalMoveError, match="THE_PYRAMIDS costs 8 coins and player 1 has 7"):
        s.apply(wonder(19, "THE_PYRAMIDS"))


def test_built_wonder_cannot_be_built_again():
    """docs/rules.md §2: each wonder is built once."""
    s = position(age=2, pyramid=PYR, p1={"cards": RICH, "wonders": {"THE_PYRAMIDS": 1}})
    with pytest.raises(IllegalMoveError, match="already built"):
        s.apply(wonder(19, "THE_PYRAMIDS"))


def test_only_own_wonders_can_be_built():
    """Prompt: the wonder must be one of your wonders with a 0."""
    s = position(age=2, pyramid=PYR, p1={"cards": RICH}, p2={"wonders": ["THE_PYRAMIDS"]})
    with pytest.raises(IllegalMoveError, match="not one of player 1's wonders"):
        s.apply(wonder(19, "THE_PYRAMIDS"))


# ---------------------------------------------------------------- one test per wonder
def test_appian_way_gives_3_takes_3_and_plays_again():
    """docs/rules.md §2: Appian Way: you take 3c, the opponent loses 3c, play again; 3 VP."""
    s = position(age=2, pyramid=PYR, p1=rich_p1("THE_APPIAN_WAY"), p2={"coins": 5})
    s = play(s, wonder(19, "THE_APPIAN_WAY"))
    assert coins(s) == (10, 2)
    assert s.step_name == "PLAY_CARD" and s.current_player == 1
    assert s.score(0)["WONDER"] == 3


def test_appian_way_never_takes_coins_below_0():
    """Checklist "Coins": never below 0; Appian Way takes at most what the opponent has."""
    s = position(age=2, pyramid=PYR, p1=rich_p1("THE_APPIAN_WAY"), p2={"coins": 2})
    s = play(s, wonder(19, "THE_APPIAN_WAY"))
    assert coins(s) == (10, 0)


def test_circus_maximus_destroys_a_grey_card_of_the_opponent():
    """docs/rules.md §2: Circus Maximus: 1 shield, then the builder puts one grey card of the
    opponent in the discard pile; the opponent's production (and so its prices) drops at once."""
    s = position(age=2, pyramid=PYR, p1={"coins": 11, "wonders": ["CIRCUS_MAXIMUS"]},
                 p2={"cards": ["QUARRY", "GLASSWORKS", "PRESS"]})
    assert wonder_price(s, 1, "CIRCUS_MAXIMUS") == 3 + 3 + 2 + 3
    assert price(s, 2, "WORKSHOP") == 0
    s = play(s, wonder(19, "CIRCUS_MAXIMUS"))
    assert s.step_name == "DESTROY_GREY" and s.current_player == 1
    assert s.military == 1
    assert moves_of(s, "DESTROY_CARD") == {destroy("GLASSWORKS"), destroy("PRESS")}
    with pytest.raises(IllegalMoveError):
        s.apply(destroy("QUARRY"))  # brown, not grey
    s = play(s, destroy("PRESS"))
    assert city(s, 2) == ["QUARRY", "GLASSWORKS"]
    assert seat_view(s)["discardedCards"] == ["PRESS"]
    assert price(s, 2, "WORKSHOP") == 2  # PAPYRUS must now be bought
    assert coins(s) == (0, 7)
    assert s.step_name == "PLAY_CARD" and s.current_player == 2
    assert s.score(0)["WONDER"] == 3


def test_circus_maximus_with_no_grey_target_still_builds_and_gives_its_shield():
    """Checklist "Zeus / Circus Maximus with no target": legal; shield and VP still apply; the
    destroy step is skipped (docs/state-format.md "Steps")."""
    s = position(age=2, pyramid=PYR, p1={"coins": 10, "wonders": ["CIRCUS_MAXIMUS"]},
                 p2={"cards": ["QUARRY"]})
    assert wonder(19, "CIRCUS_MAXIMUS") in s.legal_moves()
    s = play(s, wonder(19, "CIRCUS_MAXIMUS"))
    assert s.step_name == "PLAY_CARD" and s.current_player == 2
    assert s.military == 1
    assert city(s, 2) == ["QUARRY"] and s.discard == []
    assert s.score(0)["WONDER"] == 3


def test_statue_of_zeus_destroys_a_brown_card_of_the_opponent():
    """docs/rules.md §2: Statue of Zeus: 1 shield, then one brown card of the opponent goes to the
    discard pile; a Sawmill removed lowers the builder's WOOD price from 4 to 2."""
    s = position(age=2, pyramid=PYR, p1={"coins": 13, "wonders": ["THE_STATUE_OF_ZEUS"]},
                 p2={"cards": ["QUARRY", "SAWMILL", "GLASSWORKS"]})
    assert wonder_price(s, 1, "THE_STATUE_OF_ZEUS") == 3 + 4 + 2 + 2 + 2
    assert price(s, 1, "STABLE") == 4
    s = play(s, wonder(19, "THE_STATUE_OF_ZEUS"))
    assert s.step_name == "DESTROY_BROWN" and s.current_player == 1
    assert moves_of(s, "DESTROY_CARD") == {destroy("QUARRY"), destroy("SAWMILL")}
    with pytest.raises(IllegalMoveError):
        s.apply(destroy("GLASSWORKS"))
    s = play(s, destroy("SAWMILL"))
    assert city(s, 2) == ["QUARRY", "GLASSWORKS"]
    assert seat_view(s)["discardedCards"] == ["SAWMILL"]
    assert price(s, 1, "STABLE") == 2
    assert coins(s) == (0, 7)
    assert s.military == 1
    assert s.step_name == "PLAY_CARD" and s.current_player == 2


def test_statue_of_zeus_with_no_brown_target_still_builds_and_gives_its_shield():
    """Checklist "Zeus / Circus Maximus with no target"."""
    s = position(age=2, pyramid=PYR, p1={"coins": 10, "wonders": ["THE_STATUE_OF_ZEUS"]},
                 p2={"cards": ["GLASSWORKS"]})
    s = play(s, wonder(19, "THE_STATUE_OF_ZEUS"))
    assert s.step_name == "PLAY_CARD" and s.current_player == 2
    assert s.military == 1 and city(s, 2) == ["GLASSWORKS"]
    assert s.score(0)["WONDER"] == 3


def test_destroyed_card_can_be_rebuilt_by_the_mausoleum():
    """docs/rules.md §2: the destroyed card goes to the discard pile, so a later Mausoleum can take
    it."""
    s = position(age=2, pyramid={17: "WALLS", 18: "POSTRUM", 19: "COURTHOUSE"},
                 p1={"cards": ["LUMBER_YARD"], "coins": 30,
                     "wonders": ["THE_STATUE_OF_ZEUS"]},
                 p2={"cards": ["QUARRY"], "coins": 30, "wonders": ["THE_MAUSOLEUM"]})
    s = play(s, wonder(19, "THE_STATUE_OF_ZEUS"), destroy("QUARRY"))
    assert s.current_player == 2
    s = play(s, wonder(18, "THE_MAUSOLEUM"))
    assert s.step_name == "CONSTRUCT_FROM_DISCARD"
    s = play(s, from_discard("QUARRY"))
    assert city(s, 2) == ["QUARRY"] and s.discard == []


def test_colossus_gives_2_shields():
    """docs/rules.md §2: The Colossus: 2 shields, 3 VP (player 2 pushes towards -9)."""
    s = position(age=2, pyramid=PYR, current=2, military=1,
                 p2={"cards": RICH, "wonders": ["THE_COLOSSUS"]})
    s = play(s, wonder(19, "THE_COLOSSUS"))
    assert s.military == -1
    assert s.current_player == 1
    assert s.score(1)["WONDER"] == 3


def test_great_library_draws_3_box_tokens_keeps_1_returns_2():
    """Checklist "Great Library": draw 3 of the 5 set-aside tokens, keep and apply 1 (Agriculture:
    +6c), the other 2 go back to the box; board tokens cannot be taken. 4 VP."""
    s = position(age=2, pyramid=PYR, p1=rich_p1("THE_GREAT_LIBRARY"), board=["ECONOMY"],
                 box=["LAW", "PHILOSOPHY", "AGRICULTURE", "STRATEGY", "MASONRY"])
    s = play(s, wonder(19, "THE_GREAT_LIBRARY"))
    assert s.step_name == "CHOOSE_PROGRESS_TOKEN_FROM_DISCARD" and s.current_player == 1
    v = seat_view(s)
    assert v["tokensFromUnavailable"] == ["LAW", "PHILOSOPHY", "AGRICULTURE"]
    assert moves_of(s, "CHOOSE_PROGRESS_TOKEN_FROM_DISCARD") == {
        library_token("LAW"), library_token("PHILOSOPHY"), library_token("AGRICULTURE")}
    for bad in ("STRATEGY", "ECONOMY"):
        with pytest.raises(IllegalMoveError):
            s.apply(library_token(bad))
    s = play(s, library_token("AGRICULTURE"))
    assert tokens(s, 1) == ["AGRICULTURE"]
    assert coins(s) == (13, 7)
    assert sorted(s.tokens_box) == sorted(TOKEN_IDS[t] for t in
                                          ("LAW", "PHILOSOPHY", "STRATEGY", "MASONRY"))
    v = seat_view(s)
    assert v["tokensFromUnavailable"] == [] and v["tokensAvailable"] == ["ECONOMY"]
    assert s.step_name == "PLAY_CARD" and s.current_player == 2
    assert s.score(0)["WONDER"] == 4 and s.score(0)["PROGRESS_TOKEN"] == 4


def test_great_library_with_an_empty_box_skips_the_choice():
    """docs/state-format.md "Steps": a step with no legal option is never asked for."""
    s = position(age=2, pyramid=PYR, p1=rich_p1("THE_GREAT_LIBRARY"), board=["ECONOMY"], box=[])
    s = play(s, wonder(19, "THE_GREAT_LIBRARY"))
    assert s.step_name == "PLAY_CARD" and s.current_player == 2
    assert s.score(0)["WONDER"] == 4


def test_great_lighthouse_supplies_a_raw_unit_once_built():
    """docs/rules.md §2: The Great Lighthouse supplies 1 WOOD/BRICK/STONE each turn; 4 VP."""
    s = position(age=2, pyramid=PYR, current=2,
                 p1={"cards": ["SHELF_QUARRY"]},
                 p2={"coins": 20, "wonders": ["THE_GREAT_LIGHTHOUSE"]})
    assert price(s, 2, "WALLS") == 8
    s = play(s, wonder(19, "THE_GREAT_LIGHTHOUSE"))
    assert price(s, 2, "WALLS") == 4
    assert price(s, 1, "STABLE") == 2  # the opponent's price is unchanged
    assert s.score(1)["WONDER"] == 4


def test_hanging_gardens_gives_6_and_plays_again():
    """docs/rules.md §2: The Hanging Gardens: take 6c, play again; 3 VP."""
    s = position(age=2, pyramid=PYR, p1=rich_p1("THE_HANGING_GARDENS"))
    s = play(s, wonder(19, "THE_HANGING_GARDENS"))
    assert coins(s) == (13, 7)
    assert s.step_name == "PLAY_CARD" and s.current_player == 1
    assert s.score(0)["WONDER"] == 3


def test_mausoleum_builds_a_discarded_card_for_free_with_its_effects():
    """docs/rules.md §2: The Mausoleum: choose a card of the discard pile and build it for free;
    its effects apply (Brewery: +6c). 2 VP."""
    s = position(age=2, pyramid=PYR, p1=rich_p1("THE_MAUSOLEUM"),
                 discard=["PALISADE", "BREWERY", "STATUE"])
    s = play(s, wonder(19, "THE_MAUSOLEUM"))
    assert s.step_name == "CONSTRUCT_FROM_DISCARD" and s.current_player == 1
    assert moves_of(s, "CONSTRUCT_FROM_DISCARD") == {
        from_discard("PALISADE"), from_discard("BREWERY"), from_discard("STATUE")}
    for bad in ("POSTRUM", "WALLS"):  # in the structure / never discarded (e.g. removed at setup)
        with pytest.raises(IllegalMoveError, match="not in discardedCards"):
            s.apply(from_discard(bad))
    s = play(s, from_discard("BREWERY"))
    assert coins(s) == (13, 7)
    assert "BREWERY" in city(s, 1)
    assert seat_view(s)["discardedCards"] == ["PALISADE", "STATUE"]
    assert s.step_name == "PLAY_CARD" and s.current_player == 2
    assert s.score(0)["WONDER"] == 2


def test_mausoleum_build_of_a_coin_cost_card_is_free_and_gives_shields():
    """docs/rules.md §2: the free build counts as a construction: Pretorium (8c, 3 shields) costs
    nothing and moves the pawn 3 (into the 3-5 zone: player 2 loses 2)."""
    s = position(age=3, pyramid={18: "PALACE", 19: "OBELISK"}, p1=rich_p1("THE_MAUSOLEUM"),
                 discard=["PRETORIUM"])
    s = play(s, wonder(19, "THE_MAUSOLEUM"), from_discard("PRETORIUM"))
    assert coins(s) == (7, 5)
    assert s.military == 3


def test_mausoleum_with_an_empty_discard_pile_is_legal_and_does_nothing():
    """Checklist "Mausoleum with an empty discard": legal; the wonder is built (2 VP), no step."""
    s = position(age=2, pyramid=PYR, p1=rich_p1("THE_MAUSOLEUM"))
    assert wonder(19, "THE_MAUSOLEUM") in s.legal_moves()
    s = play(s, wonder(19, "THE_MAUSOLEUM"))
    assert s.step_name == "PLAY_CARD" and s.current_player == 2
    assert s.score(0)["WONDER"] == 2


def test_piraeus_supplies_a_manufactured_unit_and_plays_again():
    """docs/rules.md §2: Piraeus supplies 1 GLASS/PAPYRUS each turn; play again; 2 VP."""
    s = position(age=2, pyramid=PYR,
                 p1={"cards": ["LUMBER_YARD", "LOGGING_CAMP", "QUARRY", "CLAY_POOL"],
                     "wonders": ["PIRAEUS"]})
    assert wonder_price(s, 1, "PIRAEUS") == 0
    assert price(s, 1, "LABORATORY") == 4
    s = play(s, wonder(19, "PIRAEUS"))
    assert price(s, 1, "LABORATORY") == 2
    assert s.step_name == "PLAY_CARD" and s.current_player == 1
    assert s.score(0)["WONDER"] == 2


def test_pyramids_are_worth_9_and_do_not_play_again():
    """docs/rules.md §2: The Pyramids: 9 VP, no other effect."""
    s = position(age=2, pyramid=PYR, p1=rich_p1("THE_PYRAMIDS"))
    s = play(s, wonder(19, "THE_PYRAMIDS"))
    assert s.score(0)["WONDER"] == 9
    assert coins(s) == (7, 7) and s.military == 0
    assert s.current_player == 2


def test_sphinx_plays_again_and_is_worth_6():
    """docs/rules.md §2: The Sphinx: play again; 6 VP."""
    s = position(age=2, pyramid={17: "WALLS", 18: "POSTRUM", 19: "COURTHOUSE"},
                 p1=rich_p1("THE_SPHINX"))
    s = play(s, wonder(19, "THE_SPHINX"))
    assert s.current_player == 1 and s.step_name == "PLAY_CARD"
    assert s.score(0)["WONDER"] == 6
    s = play(s, discard(18))  # the extra turn is a normal turn; then the turn passes
    assert s.current_player == 2


def test_temple_of_artemis_gives_12_plays_again_worth_0():
    """docs/rules.md §2: The Temple of Artemis: take 12c, play again; 0 VP."""
    s = position(age=2, pyramid=PYR, p1=rich_p1("THE_TEMPLE_OF_ARTEMIS"), p2={"coins": 5})
    s = play(s, wonder(19, "THE_TEMPLE_OF_ARTEMIS"))
    assert coins(s) == (19, 5)  # the opponent loses nothing
    assert s.current_player == 1
    assert s.score(0)["WONDER"] == 0


# ---------------------------------------------------------------- Theology
def test_theology_gives_play_again_to_a_wonder_without_it():
    """docs/rules.md §3: THEOLOGY: every wonder you build later has "play again"."""
    s = position(age=2, pyramid=PYR, p1=rich_p1("THE_PYRAMIDS", tokens=["THEOLOGY"]))
    s = play(s, wonder(19, "THE_PYRAMIDS"))
    assert s.current_player == 1 and s.step_name == "PLAY_CARD"


def test_theology_does_not_give_a_second_extra_turn():
    """docs/rules.md §3: a wonder that already has play again does not get a second one."""
    s = position(age=2, pyramid={17: "WALLS", 18: "POSTRUM", 19: "COURTHOUSE"},
                 p1=rich_p1("THE_SPHINX", tokens=["THEOLOGY"]))
    s = play(s, wonder(19, "THE_SPHINX"))
    assert s.current_player == 1
    s = play(s, discard(18))
    assert s.current_player == 2


def test_theology_extra_turn_comes_after_the_destroy_choice():
    """docs/rules.md §9: with Theology the extra turn comes after the wonder's choice (destroy)."""
    s = position(age=2, pyramid=PYR, p1={"coins": 20, "wonders": ["THE_STATUE_OF_ZEUS"],
                                         "tokens": ["THEOLOGY"]},
                 p2={"cards": ["QUARRY"]})
    s = play(s, wonder(19, "THE_STATUE_OF_ZEUS"))
    assert s.step_name == "DESTROY_BROWN" and s.current_player == 1
    s = play(s, destroy("QUARRY"))
    assert s.step_name == "PLAY_CARD" and s.current_player == 1


def test_theology_extra_turn_comes_after_the_great_library_choice():
    """docs/rules.md §9: the extra turn comes after the Great Library token choice."""
    s = position(age=2, pyramid=PYR, p1=rich_p1("THE_GREAT_LIBRARY", tokens=["THEOLOGY"]),
                 box=["PHILOSOPHY", "STRATEGY", "MASONRY"])
    s = play(s, wonder(19, "THE_GREAT_LIBRARY"))
    assert s.step_name == "CHOOSE_PROGRESS_TOKEN_FROM_DISCARD" and s.current_player == 1
    s = play(s, library_token("PHILOSOPHY"))
    assert s.step_name == "PLAY_CARD" and s.current_player == 1


def test_theology_extra_turn_comes_after_the_mausoleum_build():
    """docs/rules.md §9: the extra turn comes after the Mausoleum build."""
    s = position(age=2, pyramid=PYR, p1=rich_p1("THE_MAUSOLEUM", tokens=["THEOLOGY"]),
                 discard=["TAVERN"])
    s = play(s, wonder(19, "THE_MAUSOLEUM"))
    assert s.current_player == 1 and s.step_name == "CONSTRUCT_FROM_DISCARD"
    s = play(s, from_discard("TAVERN"))
    assert s.current_player == 1 and s.step_name == "PLAY_CARD"
    assert coins(s) == (11, 7)


def test_theology_taken_from_the_great_library_does_not_apply_to_the_library_itself():
    """docs/rules.md §3: Theology applies to wonders built later."""
    s = position(age=2, pyramid=PYR, p1=rich_p1("THE_GREAT_LIBRARY"),
                 box=["THEOLOGY", "STRATEGY", "MASONRY"])
    s = play(s, wonder(19, "THE_GREAT_LIBRARY"), library_token("THEOLOGY"))
    assert s.current_player == 2


# ---------------------------------------------------------------- the 7-wonder limit
SEVEN_P1 = {"THE_COLOSSUS": 1, "THE_SPHINX": 1, "THE_HANGING_GARDENS": 2, "THE_PYRAMIDS": 0}
SEVEN_P2 = {"THE_APPIAN_WAY": 1, "THE_TEMPLE_OF_ARTEMIS": 2, "THE_MAUSOLEUM": 2,
            "THE_GREAT_LIBRARY": 0}


def test_eighth_wonder_is_buildable_while_only_6_are_built():
    """Control for the next test: with 6 wonders built, player 2 can build its last one."""
    s = position(age=2, pyramid=PYR, current=2, p1={"cards": RICH, "wonders": SEVEN_P1},
                 p2={"coins": 50, "wonders": SEVEN_P2})
    assert moves_of(s, "CONSTRUCT_WONDER") == {wonder(18, "THE_GREAT_LIBRARY"),
                                               wonder(19, "THE_GREAT_LIBRARY")}


def test_seventh_wonder_sends_the_last_unbuilt_one_out_of_the_game():
    """docs/rules.md ruling 7 / §11 "7th wonder built": when the 7th wonder is built the last unbuilt one
    leaves the game at once: not buildable, shown in wondersUnavailable."""
    s = position(age=2, pyramid=PYR, p1={"cards": RICH, "wonders": SEVEN_P1},
                 p2={"coins": 50, "wonders": SEVEN_P2})
    s = play(s, wonder(19, "THE_PYRAMIDS"))
    assert s.current_player == 2
    assert moves_of(s, "CONSTRUCT_WONDER") == set()
    with pytest.raises(IllegalMoveError, match="7 wonders"):
        s.apply(wonder(18, "THE_GREAT_LIBRARY"))
    v = seat_view(s)
    assert "THE_GREAT_LIBRARY" in v["wondersUnavailable"]
    assert v["player2"]["wonders"]["THE_GREAT_LIBRARY"] == 0


def test_theology_extra_turn_comes_after_a_pair_made_by_the_mausoleum_build():
    """docs/rules.md §9: with Theology, the Mausoleum's free build, then the token choice of the
    pair it makes, then the extra turn."""
    s = position(age=2, pyramid={17: "WALLS", 18: "POSTRUM", 19: "COURTHOUSE"},
                 discard=["SCHOOL"], board=["PHILOSOPHY"],
                 p1={"cards": RICH + ["APOTHECARY"], "tokens": ["THEOLOGY"],
                     "wonders": ["THE_MAUSOLEUM"]})
    s = play(s, wonder(19, "THE_MAUSOLEUM"), from_discard("SCHOOL"))
    assert s.step_name == "CHOOSE_PROGRESS_TOKEN" and s.current_player == 1
    s = play(s, token("PHILOSOPHY"))
    assert s.step_name == "PLAY_CARD" and s.current_player == 1

"""The 10 progress tokens (those not covered in the other files are here; LAW is in
test_rules_science_military.py, STRATEGY there too, THEOLOGY in test_rules_wonders.py, ECONOMY,
MASONRY and ARCHITECTURE pricing in test_rules_trading.py).

Sources: docs/rules.md §3; §11 row "Urbanism"; ruling 9.
"""

import pytest
from helpers.positions import (
    RICH,
    build,
    coins,
    discard,
    from_discard,
    library_token,
    play,
    position,
    price,
    token,
    tokens,
    wonder,
    wonder_price,
)

from duel.engine import seat_view

# Player 1 can build School (WHEEL) for free and already has Apothecary (WHEEL): a pair.
PAIR_CITY = ["APOTHECARY", "LUMBER_YARD", "PRESS", "DRYING_ROOM"]
PAIR_PYR = {18: "COURTHOUSE", 19: "SCHOOL"}


def take_token_by_pair(name, **kw):
    p1 = kw.pop("p1", {})
    p1 = {**p1, "cards": PAIR_CITY + p1.get("cards", [])}
    s = position(age=2, pyramid=kw.pop("pyramid", PAIR_PYR), p1=p1,
                 board=kw.pop("board", [name]), **kw)
    return play(s, build(19), token(name))


def test_all_ten_tokens_exist():
    """docs/rules.md §3: ten progress tokens."""
    from duel.engine.data import TOKEN_NAMES
    assert sorted(TOKEN_NAMES) == sorted(
        ["AGRICULTURE", "ARCHITECTURE", "ECONOMY", "LAW", "MASONRY", "MATHEMATICS", "PHILOSOPHY",
         "STRATEGY", "THEOLOGY", "URBANISM"])


def test_agriculture_gives_6_coins_at_once_and_4_vp():
    """docs/rules.md §3: AGRICULTURE: take 6c at once; 4 VP."""
    s = take_token_by_pair("AGRICULTURE")
    assert coins(s) == (13, 7)
    assert tokens(s, 1) == ["AGRICULTURE"]
    assert s.score(0)["PROGRESS_TOKEN"] == 4


def test_agriculture_from_the_great_library_gives_6_coins():
    """docs/rules.md §8: the Great Library's token is applied straight away."""
    s = position(age=2, pyramid=PAIR_PYR, p1={"cards": RICH, "wonders": ["THE_GREAT_LIBRARY"]},
                 box=["AGRICULTURE", "URBANISM", "PHILOSOPHY"])
    a = play(s, wonder(19, "THE_GREAT_LIBRARY"), library_token("AGRICULTURE"))
    assert coins(a) == (13, 7)
    u = play(s, wonder(19, "THE_GREAT_LIBRARY"), library_token("URBANISM"))
    assert coins(u) == (13, 7)


def test_philosophy_is_worth_7_vp():
    """docs/rules.md §3: PHILOSOPHY: 7 VP, nothing else."""
    s = take_token_by_pair("PHILOSOPHY")
    assert coins(s) == (7, 7)
    assert s.score(0)["PROGRESS_TOKEN"] == 7


@pytest.mark.parametrize("owned,vp", [
    (["MATHEMATICS"], 3),
    (["MATHEMATICS", "LAW", "STRATEGY"], 9),
    (["MATHEMATICS", "PHILOSOPHY", "AGRICULTURE"], 9 + 7 + 4),
])
def test_mathematics_is_worth_3_per_token_itself_included(owned, vp):
    """docs/rules.md §3: MATHEMATICS: 3 VP per progress token you own, this one included."""
    s = position(age=3, pyramid={19: "OBELISK"}, p1={"tokens": owned, "coins": 0})
    assert s.score(0)["PROGRESS_TOKEN"] == vp
    assert s.score(0)["TOTAL"] == vp


def test_tokens_without_vp_score_nothing():
    """docs/rules.md §3: only AGRICULTURE, PHILOSOPHY and MATHEMATICS give VP."""
    s = position(age=3, pyramid={19: "OBELISK"},
                 p1={"coins": 0, "tokens": ["ARCHITECTURE", "ECONOMY", "LAW", "MASONRY",
                                            "STRATEGY", "THEOLOGY", "URBANISM"]})
    assert s.score(0)["TOTAL"] == 0


def test_taken_token_leaves_the_board():
    """docs/rules.md §8: the chosen token is kept in your city until the end."""
    s = take_token_by_pair("PHILOSOPHY", board=["PHILOSOPHY", "STRATEGY"])
    v = seat_view(s)
    assert v["tokensAvailable"] == ["STRATEGY"]
    assert v["player1"]["tokens"] == ["PHILOSOPHY"]


def test_architecture_taken_mid_game_lowers_wonder_prices_at_once():
    """docs/rules.md §3: ARCHITECTURE applies to every wonder built afterwards. Pyramids: 3 STONE
    at 4 (papyrus produced) = 12, then 4."""
    s = position(age=2, pyramid=PAIR_PYR, board=["ARCHITECTURE"], p2={"cards": ["SHELF_QUARRY"]},
                 p1={"cards": PAIR_CITY, "wonders": ["THE_PYRAMIDS"]})
    assert wonder_price(s, 1, "THE_PYRAMIDS") == 12
    s = play(s, build(19), token("ARCHITECTURE"))
    assert wonder_price(s, 1, "THE_PYRAMIDS") == 4


def test_masonry_taken_mid_game_lowers_blue_prices_at_once():
    """docs/rules.md §3: MASONRY applies to every blue building built afterwards. Courthouse: 2
    WOOD (1 produced, 1 at 2) + 1 GLASS at 3 = 5, then 0."""
    s = position(age=2, pyramid=PAIR_PYR, board=["MASONRY"], p2={"cards": ["GLASSWORKS"]},
                 p1={"cards": PAIR_CITY})
    assert price(s, 1, "COURTHOUSE") == 5
    s = play(s, build(19), token("MASONRY"))
    assert price(s, 1, "COURTHOUSE") == 0


def test_economy_taken_mid_game_pays_the_holder_the_opponents_next_trade():
    """docs/rules.md §3: ECONOMY: from then on the opponent's trading coins go to the holder."""
    s = position(age=2, pyramid={17: "WALLS", 18: "COURTHOUSE", 19: "SCHOOL"}, board=["ECONOMY"],
                 p1={"cards": PAIR_CITY})
    s = play(s, build(19), token("ECONOMY"))
    assert s.current_player == 2
    # Walls: 2 STONE at 2 each, bought by player 2; player 1 produces no stone.
    s = play(s, build(17))
    assert coins(s) == (11, 3)


# ---------------------------------------------------------------- Urbanism
def test_urbanism_gives_6_coins_at_once():
    """docs/rules.md §3 / §11 "Urbanism": +6c once, when taken."""
    s = take_token_by_pair("URBANISM")
    assert coins(s) == (13, 7)


def test_urbanism_gives_4_coins_per_chain_build():
    """Checklist "Urbanism": +4c each time you build a building for free through a chain."""
    s = position(age=2, pyramid={18: "COURTHOUSE", 19: "STATUE"},
                 p1={"tokens": ["URBANISM"], "cards": ["THEATRE"]})
    s = play(s, build(19))
    assert coins(s) == (11, 7)


def test_urbanism_gives_nothing_for_a_paid_build():
    """Checklist "Urbanism": only chain builds pay."""
    s = position(age=2, pyramid={18: "COURTHOUSE", 19: "STATUE"},
                 p1={"tokens": ["URBANISM"]})
    s = play(s, build(19))
    assert coins(s) == (3, 7)  # 2 BRICK bought at 2


def test_urbanism_gives_nothing_for_a_free_card_that_is_not_a_chain():
    """Checklist "Urbanism": a card with no cost is not a chain build (Glassblower is free)."""
    s = position(age=2, pyramid={18: "COURTHOUSE", 19: "GLASSBLOWER"},
                 p1={"tokens": ["URBANISM"]})
    s = play(s, build(19))
    assert coins(s) == (7, 7)


def test_urbanism_gives_nothing_for_a_mausoleum_build():
    """Checklist "Urbanism": nothing for Mausoleum builds, even of a card whose prerequisite you
    own (Statue with a Theatre)."""
    s = position(age=2, pyramid=PAIR_PYR, discard=["STATUE"],
                 p1={"tokens": ["URBANISM"], "cards": RICH + ["THEATRE"],
                     "wonders": ["THE_MAUSOLEUM"]})
    s = play(s, wonder(19, "THE_MAUSOLEUM"), from_discard("STATUE"))
    assert "STATUE" in [c for c in seat_view(s)["player1"]["sortedHand"]["CIVILIAN_BUILDING"]]
    assert coins(s) == (7, 7)


def test_urbanism_taken_then_chain_build_pays_4():
    """docs/rules.md §3: Urbanism: +6 when taken, then +4 on a later chain build."""
    s = position(age=2, pyramid={17: "STATUE", 18: "COURTHOUSE", 19: "SCHOOL"},
                 board=["URBANISM"], p1={"cards": PAIR_CITY + ["THEATRE"]})
    s = play(s, build(19), token("URBANISM"))
    assert coins(s) == (13, 7)
    s = play(s, discard(18))  # player 2
    s = play(s, build(17))  # Statue, chained from the Theatre
    assert coins(s) == (17, 9)

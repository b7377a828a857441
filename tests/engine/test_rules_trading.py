"""Construction costs: trading, every price modifier, Economy and chains.

Sources: docs/rules.md §6 (trading), §1.5 (chains), §11 rows "Trading price",
"Masonry / Architecture", "Economy"; docs/rules.md rulings 1, 2 and 9; the prompt's Bruno/Antoine
trading examples.
"""

import pytest
from helpers.positions import (
    RICH,
    build,
    city,
    coins,
    from_discard,
    play,
    position,
    price,
    wonder,
    wonder_price,
)

from duel.engine import IllegalMoveError
from duel.engine.data import CARDS, CHAIN_FROM


# ---------------------------------------------------------------- the prompt's examples
def test_prompt_example_opponent_with_two_stone_makes_stone_cost_4():
    """Prompt: "Bruno produces 2 Stones with his Quarry. If Antoine wants to purchase one or more
    stones, he must pay 4 coins for each." (price = 2 + opponent's brown/grey production)."""
    s = position(age=2, pyramid={18: "WALLS", 19: "AQUEDUCT"},
                 p1={"cards": ["QUARRY", "STONE_PIT"]}, current=2)
    assert price(s, 2, "BATHS") == 4  # 1 STONE
    assert price(s, 2, "WALLS") == 8  # 2 STONE


def test_prompt_example_bruno_buys_a_third_stone_for_2():
    """Prompt: "If Bruno needs a third Stone, he must pay 2 coins, as Antoine doesn't produce any"."""
    s = position(age=2, pyramid={18: "WALLS", 19: "AQUEDUCT"},
                 p1={"cards": ["QUARRY", "STONE_PIT"]})
    assert price(s, 1, "AQUEDUCT") == 2
    s = play(s, build(19))
    assert coins(s) == (5, 7)
    assert "AQUEDUCT" in city(s, 1)


def test_prompt_example_fortifications_cost_bruno_5():
    """Prompt: Bruno (2 Stone) builds Fortifications (2 Stone, 1 Clay, 1 Papyrus); Antoine has 1
    Clay and no Papyrus, so Bruno pays 3 + 2 = 5 coins to the bank."""
    s = position(age=3, pyramid={18: "PALACE", 19: "FORTIFICATIONS"},
                 p1={"cards": ["QUARRY", "STONE_PIT"], "coins": 7},
                 p2={"cards": ["CLAY_POOL"], "coins": 7})
    assert price(s, 1, "FORTIFICATIONS") == 5
    s = play(s, build(19))
    assert coins(s) == (2, 7)  # paid to the bank, not to Antoine
    assert s.military == 2


def test_prompt_example_aqueduct_costs_antoine_12():
    """Prompt: Antoine builds the Aqueduct (3 Stone) with no Stone while Bruno produces 2: 3 x 4 =
    12 coins. With 12 coins he can; with 11 he cannot."""
    s = position(age=2, pyramid={18: "WALLS", 19: "AQUEDUCT"}, current=2,
                 p1={"cards": ["QUARRY", "STONE_PIT"]}, p2={"coins": 12})
    assert price(s, 2, "AQUEDUCT") == 12
    after = play(s, build(19))
    assert coins(after) == (7, 0)
    assert city(after, 2) == ["AQUEDUCT"]

    poor = position(age=2, pyramid={18: "WALLS", 19: "AQUEDUCT"}, current=2,
                    p1={"cards": ["QUARRY", "STONE_PIT"]}, p2={"coins": 11})
    assert build(19) not in poor.legal_moves()
    with pytest.raises(IllegalMoveError, match="AQUEDUCT costs 12 coins and player 2 has 11"):
        poor.apply(build(19))


# ---------------------------------------------------------------- the basic price
def test_sawmill_counts_as_two_units_for_the_opponents_price():
    """docs/rules.md §6: "A Sawmill counts as 2 WOOD": the opponent pays 2 + 2 = 4 per wood."""
    s = position(age=2, pyramid={18: "WALLS", 19: "COURTHOUSE"}, p1={"cards": ["SAWMILL"]})
    assert price(s, 2, "COURTHOUSE") == 4 + 4 + 2  # 2 WOOD at 4, 1 GLASS at 2


def test_opponent_yellow_cards_and_wonders_do_not_raise_prices():
    """docs/rules.md §6 / prompt: the opponent's yellow cards (Forum, Caravansery) and wonders (Great
    Lighthouse, Piraeus) are not counted in trading prices; only brown and grey cards are."""
    s = position(age=2, pyramid={18: "WALLS", 19: "COURTHOUSE"},
                 p1={"cards": ["FORUM", "CARAVANSERY"],
                     "wonders": {"THE_GREAT_LIGHTHOUSE": 1, "PIRAEUS": 2}})
    assert price(s, 2, "COURTHOUSE") == 6  # 2 WOOD + 1 GLASS, 2 each
    assert price(s, 2, "WALLS") == 4
    assert price(s, 2, "SCHOOL") == 6  # 1 WOOD + 2 PAPYRUS


def test_own_production_is_used_before_buying():
    """docs/rules.md §6: resources you produce are never used up and cost nothing."""
    s = position(age=2, pyramid={18: "WALLS", 19: "COURTHOUSE"},
                 p1={"cards": ["SAWMILL", "GLASSWORKS"]}, p2={"cards": ["QUARRY", "GLASSBLOWER"]})
    assert price(s, 1, "COURTHOUSE") == 0
    s = play(s, build(19))
    assert coins(s) == (7, 7)


def test_coin_cost_plus_resource_cost_are_both_paid():
    """docs/rules.md §6: a card with coins and resources costs its coins plus the trade (Forum: 3c +
    1 BRICK; Caravansery: 2c + 1 GLASS + 1 PAPYRUS)."""
    s = position(age=2, pyramid={18: "FORUM", 19: "CARAVANSERY"},
                 p2={"cards": ["CLAY_POOL", "GLASSWORKS"]})
    assert price(s, 1, "FORUM") == 3 + 3
    assert price(s, 1, "CARAVANSERY") == 2 + 3 + 2


# ---------------------------------------------------------------- reserves and Customs House
def test_stone_reserve_fixes_stone_at_1_whatever_the_opponent_produces():
    """Checklist "Trading price": 1c per unit with the matching reserve, even if the opponent makes
    3 Stone; other resources keep the normal price."""
    s = position(age=3, pyramid={18: "OBELISK", 19: "TOWNHALL"}, current=2,
                 p1={"cards": ["SHELF_QUARRY", "QUARRY", "GLASSWORKS"]},
                 p2={"cards": ["STONE_RESERVE"]})
    assert price(s, 2, "AQUEDUCT") == 3  # would be 3 x 5 = 15
    assert price(s, 2, "OBELISK") == 2 + 3  # 2 STONE at 1, 1 GLASS at 2 + 1
    assert wonder_price(s, 2, "THE_PYRAMIDS") == 3 + 2  # reserves apply to wonders too


def test_clay_reserve_fixes_brick_at_1():
    """Checklist "Trading price": Clay Reserve makes each BRICK cost 1."""
    s = position(age=3, pyramid={18: "ARSENAL", 19: "GARDENS"},
                 p1={"cards": ["BRICKYARD"]}, p2={"cards": ["CLAY_RESERVE"]})
    assert price(s, 2, "STATUE") == 2  # would be 2 x 4
    assert price(s, 2, "ARSENAL") == 3 + 4  # 3 BRICK at 1, 2 WOOD at 2


def test_wood_reserve_fixes_wood_at_1():
    """Checklist "Trading price": Wood Reserve makes each WOOD cost 1."""
    s = position(age=2, pyramid={18: "WALLS", 19: "COURTHOUSE"},
                 p1={"cards": ["SAWMILL"]}, p2={"cards": ["WOOD_RESERVE"]})
    assert price(s, 2, "COURTHOUSE") == 1 + 1 + 2


def test_customs_house_fixes_glass_and_papyrus_at_1():
    """Checklist "Trading price": Customs House makes GLASS and PAPYRUS cost 1 each."""
    s = position(age=2, pyramid={18: "SCHOOL", 19: "LABORATORY"}, current=2,
                 p1={"cards": ["GLASSWORKS", "GLASSBLOWER", "PRESS"]},
                 p2={"cards": ["CUSTOMS_HOUSE"]})
    assert price(s, 2, "LABORATORY") == 2 + 1 + 1  # would be 2 + 4 + 4
    assert price(s, 2, "SCHOOL") == 2 + 1 + 1  # would be 2 + 3 + 3
    assert price(s, 1, "LABORATORY") == 2  # player 1 has no Customs House: WOOD at 2


def test_clay_reserve_costs_3_coins():
    """docs/rules.md ruling 1: CLAY_RESERVE costs 3 coins (the prompt says free)."""
    s = position(age=1, pyramid={18: "QUARRY", 19: "CLAY_RESERVE"})
    assert price(s, 1, "CLAY_RESERVE") == 3
    s = play(s, build(19))
    assert coins(s) == (4, 7)


# ---------------------------------------------------------------- wildcards
def test_forum_supplies_one_glass_or_papyrus_per_construction():
    """docs/rules.md §6: Forum supplies one unit of GLASS or PAPYRUS each turn, not raw goods."""
    s = position(age=2, pyramid={18: "SCHOOL", 19: "LABORATORY"}, p1={"cards": ["FORUM"]})
    assert price(s, 1, "LABORATORY") == 2 + 2  # WOOD 2 + one GLASS 2; the other GLASS is free
    assert price(s, 1, "SCHOOL") == 2 + 2
    assert price(s, 1, "WALLS") == 4  # no raw goods from the Forum
    assert price(s, 1, "APOTHECARY") == 0


def test_caravansery_supplies_one_raw_unit_the_dearest():
    """docs/rules.md §6 / ruling 9: Caravansery supplies one WOOD, BRICK or STONE per turn; the
    engine uses it on the dearest unit (minimum total price)."""
    s = position(age=2, pyramid={18: "WALLS", 19: "HORSE_BREEDERS"},
                 p1={"cards": ["CARAVANSERY"]}, p2={"cards": ["BRICKYARD", "QUARRY", "STONE_PIT"]})
    assert price(s, 1, "WALLS") == 4  # one STONE at 4 bought, one supplied
    assert price(s, 1, "HORSE_BREEDERS") == 2  # the BRICK (4) is supplied, the WOOD (2) bought
    assert price(s, 1, "APOTHECARY") == 2  # no GLASS from the Caravansery
    assert price(s, 1, "LABORATORY") == 2 + 2  # WOOD supplied, 2 GLASS bought


def test_great_lighthouse_supplies_one_raw_unit_and_stacks_with_caravansery():
    """docs/rules.md §2/§6: the Great Lighthouse supplies one WOOD/BRICK/STONE each turn; with the
    Caravansery two raw units are supplied."""
    s = position(age=2, pyramid={18: "WALLS", 19: "HORSE_BREEDERS"},
                 p1={"wonders": {"THE_GREAT_LIGHTHOUSE": 1}},
                 p2={"cards": ["QUARRY", "STONE_PIT"]})
    assert price(s, 1, "WALLS") == 4
    both = position(age=2, pyramid={18: "WALLS", 19: "HORSE_BREEDERS"},
                    p1={"cards": ["CARAVANSERY"], "wonders": {"THE_GREAT_LIGHTHOUSE": 1}},
                    p2={"cards": ["QUARRY", "STONE_PIT"]})
    assert price(both, 1, "WALLS") == 0
    assert price(both, 1, "TOWNHALL") == 4 + 2 + 2  # 3 STONE + 2 WOOD: two STONE supplied


def test_unbuilt_great_lighthouse_supplies_nothing():
    """docs/rules.md §2: a wonder's effect only applies once it is built."""
    s = position(age=2, pyramid={18: "WALLS", 19: "HORSE_BREEDERS"},
                 p1={"wonders": {"THE_GREAT_LIGHTHOUSE": 0}}, p2={"cards": ["QUARRY"]})
    assert price(s, 1, "WALLS") == 6


def test_piraeus_supplies_one_manufactured_unit_and_stacks_with_forum():
    """docs/rules.md §2/§6: Piraeus supplies one GLASS or PAPYRUS each turn; with the Forum two."""
    s = position(age=2, pyramid={18: "SCHOOL", 19: "LABORATORY"},
                 p1={"wonders": {"PIRAEUS": 1}})
    assert price(s, 1, "LABORATORY") == 4
    both = position(age=2, pyramid={18: "SCHOOL", 19: "LABORATORY"},
                    p1={"cards": ["FORUM"], "wonders": {"PIRAEUS": 1}})
    assert price(both, 1, "LABORATORY") == 2
    assert price(both, 1, "SCHOOL") == 2


# ---------------------------------------------------------------- Masonry and Architecture
def test_masonry_waives_the_two_dearest_units_of_a_blue_card():
    """docs/rules.md ruling 9 / §11 "Masonry / Architecture": Masonry waives 2 resource units of a blue
    card; the engine waives the dearest. Palace: BRICK 2 + STONE 2 + WOOD 2 + 2 GLASS at 3."""
    plain = position(age=3, pyramid={18: "PALACE", 19: "ACADEMY"}, p2={"cards": ["GLASSWORKS"]})
    mason = position(age=3, pyramid={18: "PALACE", 19: "ACADEMY"}, p2={"cards": ["GLASSWORKS"]},
                     p1={"tokens": ["MASONRY"]})
    assert price(plain, 1, "PALACE") == 12
    assert price(mason, 1, "PALACE") == 6
    s = play(mason, build(18))
    assert coins(s) == (1, 7)


def test_masonry_does_not_apply_to_other_colours():
    """docs/rules.md §3: Masonry is for blue buildings only (Academy is green)."""
    mason = position(age=3, pyramid={18: "PALACE", 19: "ACADEMY"}, p2={"cards": ["GLASSWORKS"]},
                     p1={"tokens": ["MASONRY"]})
    assert price(mason, 1, "ACADEMY") == 2 + 2 + 3 + 3


def test_masonry_rebate_beyond_the_units_to_buy_is_lost():
    """docs/rules.md §6: if fewer than 2 units would need buying, the unused rebate is lost (no
    coins back, no negative price)."""
    s = position(age=3, pyramid={18: "OBELISK", 19: "ACADEMY"},
                 p1={"tokens": ["MASONRY"], "cards": ["QUARRY", "STONE_PIT"]})
    assert price(s, 1, "OBELISK") == 0
    assert price(s, 1, "BATHS") == 0
    s = play(s, build(18))
    assert coins(s) == (7, 7)


def test_architecture_waives_the_two_dearest_units_of_a_wonder():
    """docs/rules.md ruling 9: Architecture waives 2 units of a wonder. Pyramids: 3 STONE at 4 + 1 PAPYRUS at
    2 = 14, with Architecture 4 + 2 = 6."""
    plain = position(age=2, pyramid={18: "WALLS", 19: "COURTHOUSE"},
                     p1={"wonders": ["THE_PYRAMIDS"]}, p2={"cards": ["SHELF_QUARRY"]})
    arch = position(age=2, pyramid={18: "WALLS", 19: "COURTHOUSE"},
                    p1={"wonders": ["THE_PYRAMIDS"], "tokens": ["ARCHITECTURE"]},
                    p2={"cards": ["SHELF_QUARRY"]})
    assert wonder_price(plain, 1, "THE_PYRAMIDS") == 14
    assert wonder_price(arch, 1, "THE_PYRAMIDS") == 6
    s = play(arch, wonder(19, "THE_PYRAMIDS"))
    assert coins(s) == (1, 7)


def test_architecture_does_not_apply_to_buildings():
    """docs/rules.md §3: Architecture is for wonders only."""
    arch = position(age=2, pyramid={18: "WALLS", 19: "AQUEDUCT"},
                    p1={"tokens": ["ARCHITECTURE"]}, p2={"cards": ["SHELF_QUARRY"]})
    assert price(arch, 1, "AQUEDUCT") == 12


def test_minimum_price_uses_forum_before_masonry():
    """docs/rules.md ruling 9: the minimum over every way to pay. Pantheon (1 BRICK, 1 WOOD, 2 PAPYRUS) with
    own WOOD, a Forum and Masonry, PAPYRUS at 4: Forum covers one PAPYRUS, Masonry waives the other
    PAPYRUS and the BRICK: 0. (Waiving both PAPYRUS first would leave the BRICK: 2.)"""
    s = position(age=3, pyramid={18: "PANTHEON", 19: "ACADEMY"},
                 p1={"cards": ["LUMBER_YARD", "FORUM"], "tokens": ["MASONRY"]},
                 p2={"cards": ["PRESS", "DRYING_ROOM"]})
    assert price(s, 1, "PANTHEON") == 0
    s = play(s, build(18))
    assert coins(s) == (7, 7)


def test_minimum_price_with_forum_caravansery_and_masonry():
    """docs/rules.md ruling 9: Palace (BRICK 2, STONE 4, WOOD 2, GLASS 4, GLASS 4) with Caravansery, Forum and
    Masonry: the three units at 4 and one at 2 are covered; 2 coins remain."""
    s = position(age=3, pyramid={18: "PALACE", 19: "ACADEMY"},
                 p1={"cards": ["FORUM", "CARAVANSERY"], "tokens": ["MASONRY"]},
                 p2={"cards": ["SHELF_QUARRY", "GLASSWORKS", "GLASSBLOWER"]})
    assert price(s, 1, "PALACE") == 2


def test_minimum_price_with_piraeus_and_architecture():
    """docs/rules.md ruling 9: Mausoleum (2 BRICK at 4, 2 GLASS at 4, 1 PAPYRUS at 3) with Piraeus and
    Architecture: three units at 4 are covered, 4 + 3 = 7 remain."""
    s = position(age=2, pyramid={18: "WALLS", 19: "COURTHOUSE"},
                 p1={"wonders": {"PIRAEUS": 1, "THE_MAUSOLEUM": 0}, "tokens": ["ARCHITECTURE"]},
                 p2={"cards": ["BRICKYARD", "GLASSWORKS", "GLASSBLOWER", "PRESS"]})
    assert wonder_price(s, 1, "THE_MAUSOLEUM") == 7


def test_minimum_price_with_reserve_and_caravansery():
    """docs/rules.md ruling 9: Town Hall (3 STONE at 1 with the Stone Reserve, 2 WOOD at 4): the Caravansery
    covers a WOOD (the dearest unit), not a STONE: 3 + 4 = 7."""
    s = position(age=3, pyramid={18: "TOWNHALL", 19: "ACADEMY"},
                 p1={"cards": ["STONE_RESERVE", "CARAVANSERY"]}, p2={"cards": ["SAWMILL"]})
    assert price(s, 1, "TOWNHALL") == 7


# ---------------------------------------------------------------- Economy
def test_economy_gets_only_the_trade_part_of_a_building_price():
    """Checklist "Economy": the Economy holder receives the coins the opponent pays for trading,
    not the printed coin cost. Forum = 3c printed + 1 BRICK at 3: player 2 pays 6, player 1 gets 3."""
    s = position(age=2, pyramid={18: "WALLS", 19: "FORUM"}, current=2,
                 p1={"tokens": ["ECONOMY"], "cards": ["CLAY_POOL"]})
    assert price(s, 2, "FORUM") == 6
    s = play(s, build(19))
    assert coins(s) == (10, 1)


def test_economy_gets_nothing_from_a_coin_only_cost():
    """Checklist "Economy": coin costs printed on cards are excluded (Customs House, 4c)."""
    s = position(age=2, pyramid={18: "WALLS", 19: "CUSTOMS_HOUSE"}, current=2,
                 p1={"tokens": ["ECONOMY"], "cards": ["CLAY_POOL"]})
    s = play(s, build(19))
    assert coins(s) == (7, 3)


def test_economy_gets_the_price_actually_paid_after_the_opponents_reserve():
    """docs/rules.md §3 (ECONOMY): the opponent's reserves lower what the holder gets: Forum with a
    Clay Reserve costs 3 + 1, so player 1 gets 1."""
    s = position(age=2, pyramid={18: "WALLS", 19: "FORUM"}, current=2,
                 p1={"tokens": ["ECONOMY"], "cards": ["CLAY_POOL"]},
                 p2={"cards": ["CLAY_RESERVE"]})
    s = play(s, build(19))
    assert coins(s) == (8, 3)


def test_economy_applies_to_wonders():
    """docs/rules.md §3 (ECONOMY): applies to buildings and wonders alike. Pyramids: 3 STONE at 3
    + 1 PAPYRUS at 2 = 11, all trade, all to player 1."""
    s = position(age=2, pyramid={18: "WALLS", 19: "COURTHOUSE"}, current=2,
                 p1={"tokens": ["ECONOMY"], "cards": ["QUARRY"]},
                 p2={"coins": 11, "wonders": ["THE_PYRAMIDS"]})
    assert wonder_price(s, 2, "THE_PYRAMIDS") == 11
    s = play(s, wonder(19, "THE_PYRAMIDS"))
    assert coins(s) == (18, 0)


def test_economy_holder_pays_the_bank_for_own_trades():
    """docs/rules.md §3 (ECONOMY): only the opponent's trading goes to the holder; the holder's own
    purchases still go to the bank."""
    s = position(age=2, pyramid={18: "WALLS", 19: "COURTHOUSE"},
                 p1={"tokens": ["ECONOMY"]}, p2={"tokens": []})
    s = play(s, build(18))
    assert coins(s) == (3, 7)


# ---------------------------------------------------------------- chains
CHAIN_LINKS = [(CARDS[CHAIN_FROM[c.id]].name, c.name) for c in CARDS if CHAIN_FROM[c.id] >= 0]


def test_there_are_17_chain_links():
    """docs/rules.md §1.5: 17 chain links."""
    assert len(CHAIN_LINKS) == 17
    assert ("THEATRE", "STATUE") in CHAIN_LINKS and ("BREWERY", "ARENA") in CHAIN_LINKS
    assert ("TAVERN", "LIGHTHOUSE") in CHAIN_LINKS and ("PALISADE", "FORTIFICATIONS") in CHAIN_LINKS


@pytest.mark.parametrize("prereq,card", CHAIN_LINKS)
def test_chain_waives_coins_and_resources(prereq, card):
    """docs/rules.md §1.5: a chain build waives the whole cost, coins and resources alike."""
    s = position(age=2, pyramid={18: "WALLS", 19: "COURTHOUSE"}, p1={"cards": [prereq]})
    assert price(s, 1, card) == 0
    assert price(s, 2, card) > 0  # the prerequisite in the other city does not help


def test_chain_build_is_legal_with_no_coins_and_costs_nothing():
    """docs/rules.md §1.5: Barracks (3c) is free with Garrison; Aqueduct (3 STONE) free with Baths."""
    s = position(age=2, pyramid={18: "BARRACKS", 19: "AQUEDUCT"},
                 p1={"coins": 0, "cards": ["GARRISON", "BATHS"]}, p2={"cards": ["SHELF_QUARRY"]})
    assert build(18) in s.legal_moves() and build(19) in s.legal_moves()
    s = play(s, build(19))
    assert coins(s) == (0, 7)
    assert sorted(city(s, 1)) == ["AQUEDUCT", "BATHS", "GARRISON"]


def test_chain_needs_only_the_prerequisite_however_it_was_built():
    """docs/rules.md ruling 2: a chain only needs the prerequisite in your city, however it got there. Baths
    comes from the discard pile through the Mausoleum (Theology gives a second turn), then the
    Aqueduct is free."""
    s = position(age=2, pyramid={18: "AQUEDUCT", 19: "COURTHOUSE"}, discard=["BATHS"],
                 p1={"cards": RICH, "tokens": ["THEOLOGY"], "wonders": ["THE_MAUSOLEUM"]})
    s = play(s, wonder(19, "THE_MAUSOLEUM"), from_discard("BATHS"))
    assert s.current_player == 1 and s.step_name == "PLAY_CARD"
    assert price(s, 1, "AQUEDUCT") == 0
    s = play(s, build(18))
    assert "AQUEDUCT" in city(s, 1)
    assert coins(s) == (7, 7)


def test_chain_from_a_prerequisite_bought_by_trading():
    """docs/rules.md ruling 2 (the prompt wrongly says the prerequisite must have been built for free): Stable
    bought with a traded WOOD still makes Horse Breeders free."""
    s = position(age=2, pyramid={18: "WALLS", 19: "HORSE_BREEDERS"},
                 p1={"cards": ["STABLE"]}, p2={"cards": ["BRICKYARD", "SAWMILL"]})
    assert price(s, 1, "HORSE_BREEDERS") == 0
    s = play(s, build(19))
    assert coins(s) == (7, 7)
    assert s.military == 1

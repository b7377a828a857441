"""Card and wonder data against the printed game (docs/rules.md ruling 1, §1 and §2).
The tables below are transcribed from the printed cards, not from the engine:
(colour, cost, VP, shields, science symbol, production)."""

import pytest
from helpers.positions import position, price, wonder_price

from duel.engine.data import (
    AGE1_CARDS,
    AGE2_CARDS,
    AGE3_CARDS,
    CARD_IDS,
    CARDS,
    CHAIN_FROM,
    COLOR_NAMES,
    GUILD_CARDS,
    RESOURCE_NAMES,
    SYMBOL_NAMES,
    WONDER_IDS,
    WONDERS,
)

CARD_TABLE = {
    "LUMBER_YARD": ("BROWN", "", 0, 0, "", "1 WOOD"),
    "LOGGING_CAMP": ("BROWN", "1c", 0, 0, "", "1 WOOD"),
    "CLAY_POOL": ("BROWN", "", 0, 0, "", "1 BRICK"),
    "CLAY_PIT": ("BROWN", "1c", 0, 0, "", "1 BRICK"),
    "QUARRY": ("BROWN", "", 0, 0, "", "1 STONE"),
    "STONE_PIT": ("BROWN", "1c", 0, 0, "", "1 STONE"),
    "GLASSWORKS": ("GREY", "1c", 0, 0, "", "1 GLASS"),
    "PRESS": ("GREY", "1c", 0, 0, "", "1 PAPYRUS"),
    "THEATRE": ("BLUE", "", 3, 0, "", ""),
    "ALTER": ("BLUE", "", 3, 0, "", ""),
    "BATHS": ("BLUE", "1 STONE", 3, 0, "", ""),
    "APOTHECARY": ("GREEN", "1 GLASS", 1, 0, "WHEEL", ""),
    "WORKSHOP": ("GREEN", "1 PAPYRUS", 1, 0, "PENDULUM", ""),
    "SCRIPTORIUM": ("GREEN", "2c", 0, 0, "QUILL", ""),
    "PHARMACIST": ("GREEN", "2c", 0, 0, "MORTAR", ""),
    "GUARD_TOWER": ("RED", "", 0, 1, "", ""),
    "STABLE": ("RED", "1 WOOD", 0, 1, "", ""),
    "GARRISON": ("RED", "1 BRICK", 0, 1, "", ""),
    "PALISADE": ("RED", "2c", 0, 1, "", ""),
    "STONE_RESERVE": ("YELLOW", "3c", 0, 0, "", ""),
    "CLAY_RESERVE": ("YELLOW", "3c", 0, 0, "", ""),
    "WOOD_RESERVE": ("YELLOW", "3c", 0, 0, "", ""),
    "TAVERN": ("YELLOW", "", 0, 0, "", ""),
    "SAWMILL": ("BROWN", "2c", 0, 0, "", "2 WOOD"),
    "BRICKYARD": ("BROWN", "2c", 0, 0, "", "2 BRICK"),
    "SHELF_QUARRY": ("BROWN", "2c", 0, 0, "", "2 STONE"),
    "GLASSBLOWER": ("GREY", "", 0, 0, "", "1 GLASS"),
    "DRYING_ROOM": ("GREY", "", 0, 0, "", "1 PAPYRUS"),
    "COURTHOUSE": ("BLUE", "2 WOOD + 1 GLASS", 5, 0, "", ""),
    "STATUE": ("BLUE", "2 BRICK", 4, 0, "", ""),
    "TEMPLE": ("BLUE", "1 WOOD + 1 PAPYRUS", 4, 0, "", ""),
    "AQUEDUCT": ("BLUE", "3 STONE", 5, 0, "", ""),
    "POSTRUM": ("BLUE", "1 STONE + 1 WOOD", 4, 0, "", ""),
    "LIBRARY": ("GREEN", "1 STONE + 1 WOOD + 1 GLASS", 2, 0, "QUILL", ""),
    "DISPENSARY": ("GREEN", "2 BRICK + 1 STONE", 2, 0, "MORTAR", ""),
    "SCHOOL": ("GREEN", "1 WOOD + 2 PAPYRUS", 1, 0, "WHEEL", ""),
    "LABORATORY": ("GREEN", "1 WOOD + 2 GLASS", 1, 0, "PENDULUM", ""),
    "WALLS": ("RED", "2 STONE", 0, 2, "", ""),
    "HORSE_BREEDERS": ("RED", "1 BRICK + 1 WOOD", 0, 1, "", ""),
    "BARRACKS": ("RED", "3c", 0, 1, "", ""),
    "ARCHERY_RANGE": ("RED", "1 STONE + 1 WOOD + 1 PAPYRUS", 0, 2, "", ""),
    "PARADE_GROUND": ("RED", "2 BRICK + 1 GLASS", 0, 2, "", ""),
    "FORUM": ("YELLOW", "3c + 1 BRICK", 0, 0, "", ""),
    "CARAVANSERY": ("YELLOW", "2c + 1 GLASS + 1 PAPYRUS", 0, 0, "", ""),
    "CUSTOMS_HOUSE": ("YELLOW", "4c", 0, 0, "", ""),
    "BREWERY": ("YELLOW", "", 0, 0, "", ""),
    "PALACE": ("BLUE", "1 BRICK + 1 STONE + 1 WOOD + 2 GLASS", 7, 0, "", ""),
    "TOWNHALL": ("BLUE", "3 STONE + 2 WOOD", 7, 0, "", ""),
    "OBELISK": ("BLUE", "2 STONE + 1 GLASS", 5, 0, "", ""),
    "GARDENS": ("BLUE", "2 BRICK + 2 WOOD", 6, 0, "", ""),
    "PANTHEON": ("BLUE", "1 BRICK + 1 WOOD + 2 PAPYRUS", 6, 0, "", ""),
    "SENATE": ("BLUE", "2 BRICK + 1 STONE + 1 PAPYRUS", 5, 0, "", ""),
    "ACADEMY": ("GREEN", "1 STONE + 1 WOOD + 2 GLASS", 3, 0, "SUNDIAL", ""),
    "STUDY": ("GREEN", "2 WOOD + 1 GLASS + 1 PAPYRUS", 3, 0, "SUNDIAL", ""),
    "UNIVERSITY": ("GREEN", "1 BRICK + 1 GLASS + 1 PAPYRUS", 2, 0, "GLOBE", ""),
    "OBSERVATORY": ("GREEN", "1 STONE + 2 PAPYRUS", 2, 0, "GLOBE", ""),
    "ARSENAL": ("RED", "3 BRICK + 2 WOOD", 0, 3, "", ""),
    "PRETORIUM": ("RED", "8c", 0, 3, "", ""),
    "FORTIFICATIONS": ("RED", "2 STONE + 1 BRICK + 1 PAPYRUS", 0, 2, "", ""),
    "SIEGE_WORKSHOP": ("RED", "3 WOOD + 1 GLASS", 0, 2, "", ""),
    "CIRCUS": ("RED", "2 BRICK + 2 STONE", 0, 2, "", ""),
    "CHAMBER_OF_COMMERCE": ("YELLOW", "2 PAPYRUS", 3, 0, "", ""),
    "PORT": ("YELLOW", "1 WOOD + 1 GLASS + 1 PAPYRUS", 3, 0, "", ""),
    "ARMORY": ("YELLOW", "2 STONE + 1 GLASS", 3, 0, "", ""),
    "LIGHTHOUSE": ("YELLOW", "2 BRICK + 1 GLASS", 3, 0, "", ""),
    "ARENA": ("YELLOW", "1 BRICK + 1 STONE + 1 WOOD", 3, 0, "", ""),
    "BUILDERS_GUILD": ("PURPLE", "2 STONE + 1 BRICK + 1 WOOD + 1 GLASS", 0, 0, "", ""),
    "MONEYLENDERS_GUILD": ("PURPLE", "2 STONE + 2 WOOD", 0, 0, "", ""),
    "SCIENTISTS_GUILD": ("PURPLE", "2 BRICK + 2 WOOD", 0, 0, "", ""),
    "SHIPOWNERS_GUILD": ("PURPLE", "1 BRICK + 1 STONE + 1 GLASS + 1 PAPYRUS", 0, 0, "", ""),
    "MERCHANTS_GUILD": ("PURPLE", "1 BRICK + 1 WOOD + 1 GLASS + 1 PAPYRUS", 0, 0, "", ""),
    "MAGISTRATES_GUILD": ("PURPLE", "2 WOOD + 1 BRICK + 1 PAPYRUS", 0, 0, "", ""),
    "TACTICIANS_GUILD": ("PURPLE", "2 STONE + 1 BRICK + 1 PAPYRUS", 0, 0, "", ""),
}
CHAINS = {
    "STATUE": "THEATRE",
    "GARDENS": "STATUE",
    "TEMPLE": "ALTER",
    "PANTHEON": "TEMPLE",
    "AQUEDUCT": "BATHS",
    "SENATE": "POSTRUM",
    "LIBRARY": "SCRIPTORIUM",
    "DISPENSARY": "PHARMACIST",
    "UNIVERSITY": "SCHOOL",
    "OBSERVATORY": "LABORATORY",
    "HORSE_BREEDERS": "STABLE",
    "BARRACKS": "GARRISON",
    "FORTIFICATIONS": "PALISADE",
    "SIEGE_WORKSHOP": "ARCHERY_RANGE",
    "CIRCUS": "PARADE_GROUND",
    "LIGHTHOUSE": "TAVERN",
    "ARENA": "BREWERY",
}
WONDER_TABLE = {
    "THE_APPIAN_WAY": ("2 STONE + 2 BRICK + 1 PAPYRUS", 3),
    "CIRCUS_MAXIMUS": ("2 STONE + 1 WOOD + 1 GLASS", 3),
    "THE_COLOSSUS": ("3 BRICK + 1 GLASS", 3),
    "THE_GREAT_LIBRARY": ("3 WOOD + 1 GLASS + 1 PAPYRUS", 4),
    "THE_GREAT_LIGHTHOUSE": ("1 WOOD + 1 STONE + 2 PAPYRUS", 4),
    "THE_HANGING_GARDENS": ("2 WOOD + 1 GLASS + 1 PAPYRUS", 3),
    "THE_MAUSOLEUM": ("2 BRICK + 2 GLASS + 1 PAPYRUS", 2),
    "PIRAEUS": ("2 WOOD + 1 STONE + 1 BRICK", 2),
    "THE_PYRAMIDS": ("3 STONE + 1 PAPYRUS", 9),
    "THE_SPHINX": ("1 STONE + 1 BRICK + 2 GLASS", 6),
    "THE_STATUE_OF_ZEUS": ("1 STONE + 1 WOOD + 1 BRICK + 2 PAPYRUS", 3),
    "THE_TEMPLE_OF_ARTEMIS": ("1 WOOD + 1 STONE + 1 GLASS + 1 PAPYRUS", 0),
}


def parse(cost: str) -> tuple[int, tuple[int, ...]]:
    """'3c + 1 BRICK' -> (3, (0, 1, 0, 0, 0))."""
    coins, units = 0, [0] * 5
    for part in filter(None, (p.strip() for p in cost.split("+"))):
        if part.endswith("c"):
            coins = int(part[:-1])
        else:
            n, res = part.split()
            units[RESOURCE_NAMES.index(res)] += int(n)
    return coins, tuple(units)


def test_deck_sizes():
    """docs/rules.md §1: Age I 23, Age II 23, Age III 20, Guilds 7."""
    assert (len(AGE1_CARDS), len(AGE2_CARDS), len(AGE3_CARDS), len(GUILD_CARDS)) == (23, 23, 20, 7)
    assert set(CARD_TABLE) == set(CARD_IDS)


@pytest.mark.parametrize("name", sorted(CARD_TABLE))
def test_card_matches_the_printed_card(name):
    """docs/rules.md ruling 1: card data follows the printed cards (§1.1-§1.4)."""
    colour, cost, vp, shields, symbol, prod = CARD_TABLE[name]
    c = CARDS[CARD_IDS[name]]
    assert COLOR_NAMES[c.color] == colour
    assert (c.coins, c.cost) == parse(cost)
    if colour != "PURPLE":
        assert c.vp == vp
    assert c.shields == shields
    assert (SYMBOL_NAMES[c.symbol] if c.symbol >= 0 else "") == symbol
    assert c.produces == parse(prod)[1]


@pytest.mark.parametrize("name", sorted(CARD_TABLE))
def test_card_price_with_no_production_anywhere(name):
    """docs/rules.md §6: with no production on either side each unit costs 2: price = printed
    coins + 2 x units (checked through the public price, not the data)."""
    coins, units = parse(CARD_TABLE[name][1])
    s = position(age=1, pyramid={19: "LUMBER_YARD"} if name != "LUMBER_YARD" else {19: "QUARRY"})
    assert price(s, 1, name) == coins + 2 * sum(units)


@pytest.mark.parametrize("card", sorted(CHAINS))
def test_chain_links(card):
    """docs/rules.md §1.5: the 17 chain links."""
    assert CARDS[CHAIN_FROM[CARD_IDS[card]]].name == CHAINS[card]


def test_no_other_chain_links():
    """docs/rules.md §1.5: exactly 17 links."""
    assert {c.name for c in CARDS if CHAIN_FROM[c.id] >= 0} == set(CHAINS)


@pytest.mark.parametrize("name", sorted(WONDER_TABLE))
def test_wonder_cost_and_vp(name):
    """docs/rules.md §2: wonder costs and VP."""
    cost, vp = WONDER_TABLE[name]
    w = WONDERS[WONDER_IDS[name]]
    assert w.cost == parse(cost)[1] and w.vp == vp
    s = position(age=1, pyramid={19: "LUMBER_YARD"}, p1={"wonders": [name]})
    assert wonder_price(s, 1, name) == 2 * sum(parse(cost)[1])


def test_wonder_effects_table():
    """docs/rules.md §2: five wonders play again; shields on Colossus 2, Circus Maximus 1, Zeus 1;
    coins: Appian Way 3, Hanging Gardens 6, Artemis 12."""
    assert {w.name for w in WONDERS if w.play_again} == {
        "THE_APPIAN_WAY", "THE_HANGING_GARDENS", "PIRAEUS", "THE_SPHINX", "THE_TEMPLE_OF_ARTEMIS"}
    assert {w.name: w.shields for w in WONDERS if w.shields} == {
        "THE_COLOSSUS": 2, "CIRCUS_MAXIMUS": 1, "THE_STATUE_OF_ZEUS": 1}
    assert {w.name: w.coins for w in WONDERS if w.coins} == {
        "THE_APPIAN_WAY": 3, "THE_HANGING_GARDENS": 6, "THE_TEMPLE_OF_ARTEMIS": 12}

"""Static game data: every card, wonder and progress token of the base game.

Names are the rules prompt's spellings (``BRICK``, ``ALTER``, ``POSTRUM``...). Values follow the
printed cards (``docs/rules.md`` ruling 1): ``CLAY_RESERVE`` costs 3 coins and ``PORT``
is worth 3 VP, whatever the prompt says. Everything is indexed by small ints so the hot path works
on tuples and bitmasks; the name tables map back and forth.
"""

from __future__ import annotations

from typing import Final

# Resources, in the order used by every 5-tuple below.
WOOD: Final = 0
BRICK: Final = 1
STONE: Final = 2
GLASS: Final = 3
PAPYRUS: Final = 4
RESOURCE_NAMES: Final = ("WOOD", "BRICK", "STONE", "GLASS", "PAPYRUS")
RESOURCE_IDS: Final = {n: i for i, n in enumerate(RESOURCE_NAMES)}

# Card colours.
BROWN: Final = 0
GREY: Final = 1
BLUE: Final = 2
GREEN: Final = 3
RED: Final = 4
YELLOW: Final = 5
PURPLE: Final = 6
COLOR_NAMES: Final = ("BROWN", "GREY", "BLUE", "GREEN", "RED", "YELLOW", "PURPLE")
# The JSON state's `sortedHand` groups; brown and grey share one group.
COLOR_GROUP: Final = (
    "RAW_MATERIAL_AND_MANUFACTURED_GOOD",
    "RAW_MATERIAL_AND_MANUFACTURED_GOOD",
    "CIVILIAN_BUILDING",
    "SCIENTIFIC_BUILDING",
    "MILITARY_BUILDING",
    "COMMERCIAL_BUILDING",
    "GUILD",
)
GROUP_ORDER: Final = (
    "CIVILIAN_BUILDING",
    "SCIENTIFIC_BUILDING",
    "COMMERCIAL_BUILDING",
    "MILITARY_BUILDING",
    "RAW_MATERIAL_AND_MANUFACTURED_GOOD",
    "GUILD",
)

# Science symbols. SCALE comes only from the LAW token and never forms a pair.
SYMBOL_NAMES: Final = ("WHEEL", "PENDULUM", "QUILL", "MORTAR", "SUNDIAL", "GLOBE", "SCALE")
SCALE: Final = 6
NO_SYMBOL: Final = -1

# Once-only coin effects when a card is built ("per X in your city" or "in the city with the most").
GAIN_NONE: Final = 0
GAIN_PER_GREY: Final = 1  # Chamber of Commerce: 3 per own grey
GAIN_PER_BROWN: Final = 2  # Port: 2 per own brown
GAIN_PER_RED: Final = 3  # Armory: 1 per own red
GAIN_PER_YELLOW: Final = 4  # Lighthouse: 1 per own yellow, itself included
GAIN_PER_WONDER: Final = 5  # Arena: 2 per own built wonder
GAIN_GUILD_MOST: Final = 6  # guilds: 1 per card of `guild_colors` in the city with the most

# Guild end-game scoring kinds.
GUILD_NONE: Final = 0
GUILD_WONDERS: Final = 1  # Builders: 2 VP per wonder in the city with the most
GUILD_COINS: Final = 2  # Moneylenders: 1 VP per 3 coins in the richest city
GUILD_PER_CARD: Final = 3  # 1 VP per card of `guild_colors` in the city with the most


class Card:
    """One building card. Immutable by convention: the tables below are the only instances."""

    __slots__ = (
        "id", "name", "age", "color", "coins", "cost", "chain_from", "symbol", "vp", "shields",
        "produces", "discount_mask", "wild", "gain", "gain_amount", "instant_coins", "guild_kind",
        "guild_colors", "has_resource_cost",
    )

    def __init__(
        self,
        cid: int,
        name: str,
        age: int,
        color: int,
        coins: int = 0,
        cost: tuple[int, int, int, int, int] = (0, 0, 0, 0, 0),
        chain_from: str = "",
        symbol: int = NO_SYMBOL,
        vp: int = 0,
        shields: int = 0,
        produces: tuple[int, int, int, int, int] = (0, 0, 0, 0, 0),
        discount: tuple[int, ...] = (),
        wild: int = 0,
        gain: int = GAIN_NONE,
        gain_amount: int = 0,
        instant_coins: int = 0,
        guild_kind: int = GUILD_NONE,
        guild_colors: tuple[int, ...] = (),
    ) -> None:
        self.id = cid
        self.name = name
        self.age = age
        self.color = color
        self.coins = coins
        self.cost = cost
        self.chain_from = chain_from  # resolved to an id after all cards exist
        self.symbol = symbol
        self.vp = vp
        self.shields = shields
        self.produces = produces
        mask = 0
        for r in discount:
            mask |= 1 << r
        self.discount_mask = mask
        self.wild = wild  # 1: one of WOOD/BRICK/STONE per turn; 2: one of GLASS/PAPYRUS
        self.gain = gain
        self.gain_amount = gain_amount
        self.instant_coins = instant_coins
        self.guild_kind = guild_kind
        self.guild_colors = guild_colors
        self.has_resource_cost = any(cost)

    def __repr__(self) -> str:
        return f"Card({self.name})"


def _r(wood: int = 0, brick: int = 0, stone: int = 0, glass: int = 0, papyrus: int = 0
       ) -> tuple[int, int, int, int, int]:
    return (wood, brick, stone, glass, papyrus)


_SPECS: list[tuple[str, int, int, dict[str, object]]] = [
    # ---- Age I (23)
    ("LUMBER_YARD", 1, BROWN, {"produces": _r(wood=1)}),
    ("LOGGING_CAMP", 1, BROWN, {"coins": 1, "produces": _r(wood=1)}),
    ("CLAY_POOL", 1, BROWN, {"produces": _r(brick=1)}),
    ("CLAY_PIT", 1, BROWN, {"coins": 1, "produces": _r(brick=1)}),
    ("QUARRY", 1, BROWN, {"produces": _r(stone=1)}),
    ("STONE_PIT", 1, BROWN, {"coins": 1, "produces": _r(stone=1)}),
    ("GLASSWORKS", 1, GREY, {"coins": 1, "produces": _r(glass=1)}),
    ("PRESS", 1, GREY, {"coins": 1, "produces": _r(papyrus=1)}),
    ("THEATRE", 1, BLUE, {"vp": 3}),
    ("ALTER", 1, BLUE, {"vp": 3}),
    ("BATHS", 1, BLUE, {"cost": _r(stone=1), "vp": 3}),
    ("APOTHECARY", 1, GREEN, {"cost": _r(glass=1), "symbol": 0, "vp": 1}),
    ("WORKSHOP", 1, GREEN, {"cost": _r(papyrus=1), "symbol": 1, "vp": 1}),
    ("SCRIPTORIUM", 1, GREEN, {"coins": 2, "symbol": 2}),
    ("PHARMACIST", 1, GREEN, {"coins": 2, "symbol": 3}),
    ("GUARD_TOWER", 1, RED, {"shields": 1}),
    ("STABLE", 1, RED, {"cost": _r(wood=1), "shields": 1}),
    ("GARRISON", 1, RED, {"cost": _r(brick=1), "shields": 1}),
    ("PALISADE", 1, RED, {"coins": 2, "shields": 1}),
    ("STONE_RESERVE", 1, YELLOW, {"coins": 3, "discount": (STONE,)}),
    ("CLAY_RESERVE", 1, YELLOW, {"coins": 3, "discount": (BRICK,)}),
    ("WOOD_RESERVE", 1, YELLOW, {"coins": 3, "discount": (WOOD,)}),
    ("TAVERN", 1, YELLOW, {"instant_coins": 4}),
    # ---- Age II (23)
    ("SAWMILL", 2, BROWN, {"coins": 2, "produces": _r(wood=2)}),
    ("BRICKYARD", 2, BROWN, {"coins": 2, "produces": _r(brick=2)}),
    ("SHELF_QUARRY", 2, BROWN, {"coins": 2, "produces": _r(stone=2)}),
    ("GLASSBLOWER", 2, GREY, {"produces": _r(glass=1)}),
    ("DRYING_ROOM", 2, GREY, {"produces": _r(papyrus=1)}),
    ("COURTHOUSE", 2, BLUE, {"cost": _r(wood=2, glass=1), "vp": 5}),
    ("STATUE", 2, BLUE, {"cost": _r(brick=2), "vp": 4, "chain_from": "THEATRE"}),
    ("TEMPLE", 2, BLUE, {"cost": _r(wood=1, papyrus=1), "vp": 4, "chain_from": "ALTER"}),
    ("AQUEDUCT", 2, BLUE, {"cost": _r(stone=3), "vp": 5, "chain_from": "BATHS"}),
    ("POSTRUM", 2, BLUE, {"cost": _r(stone=1, wood=1), "vp": 4}),
    ("LIBRARY", 2, GREEN, {"cost": _r(stone=1, wood=1, glass=1), "symbol": 2, "vp": 2,
                           "chain_from": "SCRIPTORIUM"}),
    ("DISPENSARY", 2, GREEN, {"cost": _r(brick=2, stone=1), "symbol": 3, "vp": 2,
                              "chain_from": "PHARMACIST"}),
    ("SCHOOL", 2, GREEN, {"cost": _r(wood=1, papyrus=2), "symbol": 0, "vp": 1}),
    ("LABORATORY", 2, GREEN, {"cost": _r(wood=1, glass=2), "symbol": 1, "vp": 1}),
    ("WALLS", 2, RED, {"cost": _r(stone=2), "shields": 2}),
    ("HORSE_BREEDERS", 2, RED, {"cost": _r(brick=1, wood=1), "shields": 1, "chain_from": "STABLE"}),
    ("BARRACKS", 2, RED, {"coins": 3, "shields": 1, "chain_from": "GARRISON"}),
    ("ARCHERY_RANGE", 2, RED, {"cost": _r(stone=1, wood=1, papyrus=1), "shields": 2}),
    ("PARADE_GROUND", 2, RED, {"cost": _r(brick=2, glass=1), "shields": 2}),
    ("FORUM", 2, YELLOW, {"coins": 3, "cost": _r(brick=1), "wild": 2}),
    ("CARAVANSERY", 2, YELLOW, {"coins": 2, "cost": _r(glass=1, papyrus=1), "wild": 1}),
    ("CUSTOMS_HOUSE", 2, YELLOW, {"coins": 4, "discount": (GLASS, PAPYRUS)}),
    ("BREWERY", 2, YELLOW, {"instant_coins": 6}),
    # ---- Age III (20)
    ("PALACE", 3, BLUE, {"cost": _r(brick=1, stone=1, wood=1, glass=2), "vp": 7}),
    ("TOWNHALL", 3, BLUE, {"cost": _r(stone=3, wood=2), "vp": 7}),
    ("OBELISK", 3, BLUE, {"cost": _r(stone=2, glass=1), "vp": 5}),
    ("GARDENS", 3, BLUE, {"cost": _r(brick=2, wood=2), "vp": 6, "chain_from": "STATUE"}),
    ("PANTHEON", 3, BLUE, {"cost": _r(brick=1, wood=1, papyrus=2), "vp": 6,
                           "chain_from": "TEMPLE"}),
    ("SENATE", 3, BLUE, {"cost": _r(brick=2, stone=1, papyrus=1), "vp": 5,
                         "chain_from": "POSTRUM"}),
    ("ACADEMY", 3, GREEN, {"cost": _r(stone=1, wood=1, glass=2), "symbol": 4, "vp": 3}),
    ("STUDY", 3, GREEN, {"cost": _r(wood=2, glass=1, papyrus=1), "symbol": 4, "vp": 3}),
    ("UNIVERSITY", 3, GREEN, {"cost": _r(brick=1, glass=1, papyrus=1), "symbol": 5, "vp": 2,
                              "chain_from": "SCHOOL"}),
    ("OBSERVATORY", 3, GREEN, {"cost": _r(stone=1, papyrus=2), "symbol": 5, "vp": 2,
                               "chain_from": "LABORATORY"}),
    ("ARSENAL", 3, RED, {"cost": _r(brick=3, wood=2), "shields": 3}),
    ("PRETORIUM", 3, RED, {"coins": 8, "shields": 3}),
    ("FORTIFICATIONS", 3, RED, {"cost": _r(stone=2, brick=1, papyrus=1), "shields": 2,
                                "chain_from": "PALISADE"}),
    ("SIEGE_WORKSHOP", 3, RED, {"cost": _r(wood=3, glass=1), "shields": 2,
                                "chain_from": "ARCHERY_RANGE"}),
    ("CIRCUS", 3, RED, {"cost": _r(brick=2, stone=2), "shields": 2, "chain_from": "PARADE_GROUND"}),
    ("CHAMBER_OF_COMMERCE", 3, YELLOW, {"cost": _r(papyrus=2), "vp": 3, "gain": GAIN_PER_GREY,
                                        "gain_amount": 3}),
    ("PORT", 3, YELLOW, {"cost": _r(wood=1, glass=1, papyrus=1), "vp": 3, "gain": GAIN_PER_BROWN,
                         "gain_amount": 2}),
    ("ARMORY", 3, YELLOW, {"cost": _r(stone=2, glass=1), "vp": 3, "gain": GAIN_PER_RED,
                           "gain_amount": 1}),
    ("LIGHTHOUSE", 3, YELLOW, {"cost": _r(brick=2, glass=1), "vp": 3, "gain": GAIN_PER_YELLOW,
                               "gain_amount": 1, "chain_from": "TAVERN"}),
    ("ARENA", 3, YELLOW, {"cost": _r(brick=1, stone=1, wood=1), "vp": 3, "gain": GAIN_PER_WONDER,
                          "gain_amount": 2, "chain_from": "BREWERY"}),
    # ---- Guilds (7, age 3)
    ("BUILDERS_GUILD", 3, PURPLE, {"cost": _r(stone=2, brick=1, wood=1, glass=1),
                                   "guild_kind": GUILD_WONDERS}),
    ("MONEYLENDERS_GUILD", 3, PURPLE, {"cost": _r(stone=2, wood=2), "guild_kind": GUILD_COINS}),
    ("SCIENTISTS_GUILD", 3, PURPLE, {"cost": _r(brick=2, wood=2), "gain": GAIN_GUILD_MOST,
                                     "gain_amount": 1, "guild_kind": GUILD_PER_CARD,
                                     "guild_colors": (GREEN,)}),
    ("SHIPOWNERS_GUILD", 3, PURPLE, {"cost": _r(brick=1, stone=1, glass=1, papyrus=1),
                                     "gain": GAIN_GUILD_MOST, "gain_amount": 1,
                                     "guild_kind": GUILD_PER_CARD, "guild_colors": (BROWN, GREY)}),
    ("MERCHANTS_GUILD", 3, PURPLE, {"cost": _r(brick=1, wood=1, glass=1, papyrus=1),
                                    "gain": GAIN_GUILD_MOST, "gain_amount": 1,
                                    "guild_kind": GUILD_PER_CARD, "guild_colors": (YELLOW,)}),
    ("MAGISTRATES_GUILD", 3, PURPLE, {"cost": _r(wood=2, brick=1, papyrus=1),
                                      "gain": GAIN_GUILD_MOST, "gain_amount": 1,
                                      "guild_kind": GUILD_PER_CARD, "guild_colors": (BLUE,)}),
    ("TACTICIANS_GUILD", 3, PURPLE, {"cost": _r(stone=2, brick=1, papyrus=1),
                                     "gain": GAIN_GUILD_MOST, "gain_amount": 1,
                                     "guild_kind": GUILD_PER_CARD, "guild_colors": (RED,)}),
]

CARDS: Final[tuple[Card, ...]] = tuple(
    Card(i, name, age, color, **kw)  # type: ignore[arg-type]
    for i, (name, age, color, kw) in enumerate(_SPECS)
)
CARD_IDS: Final[dict[str, int]] = {c.name: c.id for c in CARDS}
CARD_NAMES: Final[tuple[str, ...]] = tuple(c.name for c in CARDS)
# chain_from as an id (-1: none)
CHAIN_FROM: Final[tuple[int, ...]] = tuple(CARD_IDS[c.chain_from] if c.chain_from else -1
                                           for c in CARDS)
AGE1_CARDS: Final = tuple(c.id for c in CARDS if c.age == 1)
AGE2_CARDS: Final = tuple(c.id for c in CARDS if c.age == 2)
AGE3_CARDS: Final = tuple(c.id for c in CARDS if c.age == 3 and c.color != PURPLE)
GUILD_CARDS: Final = tuple(c.id for c in CARDS if c.color == PURPLE)
AGE_DECKS: Final = (AGE1_CARDS, AGE2_CARDS, AGE3_CARDS)
N_CARDS: Final = len(CARDS)

assert len(AGE1_CARDS) == 23 and len(AGE2_CARDS) == 23
assert len(AGE3_CARDS) == 20 and len(GUILD_CARDS) == 7
assert sum(1 for c in CARDS if c.chain_from) == 17


# ---- Wonders
class Wonder:
    __slots__ = ("id", "name", "cost", "vp", "shields", "play_again", "coins", "opp_loses",
                 "destroy", "wild", "library", "mausoleum")

    def __init__(self, wid: int, name: str, cost: tuple[int, int, int, int, int], vp: int,
                 shields: int = 0, play_again: bool = False, coins: int = 0, opp_loses: int = 0,
                 destroy: int = -1, wild: int = 0, library: bool = False,
                 mausoleum: bool = False) -> None:
        self.id = wid
        self.name = name
        self.cost = cost
        self.vp = vp
        self.shields = shields
        self.play_again = play_again
        self.coins = coins
        self.opp_loses = opp_loses
        self.destroy = destroy  # colour of the opponent's card to discard, -1 none
        self.wild = wild
        self.library = library
        self.mausoleum = mausoleum

    def __repr__(self) -> str:
        return f"Wonder({self.name})"


WONDERS: Final[tuple[Wonder, ...]] = (
    Wonder(0, "THE_APPIAN_WAY", _r(stone=2, brick=2, papyrus=1), 3, play_again=True, coins=3,
           opp_loses=3),
    Wonder(1, "CIRCUS_MAXIMUS", _r(stone=2, wood=1, glass=1), 3, shields=1, destroy=GREY),
    Wonder(2, "THE_COLOSSUS", _r(brick=3, glass=1), 3, shields=2),
    Wonder(3, "THE_GREAT_LIBRARY", _r(wood=3, glass=1, papyrus=1), 4, library=True),
    Wonder(4, "THE_GREAT_LIGHTHOUSE", _r(wood=1, stone=1, papyrus=2), 4, wild=1),
    Wonder(5, "THE_HANGING_GARDENS", _r(wood=2, glass=1, papyrus=1), 3, play_again=True, coins=6),
    Wonder(6, "THE_MAUSOLEUM", _r(brick=2, glass=2, papyrus=1), 2, mausoleum=True),
    Wonder(7, "PIRAEUS", _r(wood=2, stone=1, brick=1), 2, play_again=True, wild=2),
    Wonder(8, "THE_PYRAMIDS", _r(stone=3, papyrus=1), 9),
    Wonder(9, "THE_SPHINX", _r(stone=1, brick=1, glass=2), 6, play_again=True),
    Wonder(10, "THE_STATUE_OF_ZEUS", _r(stone=1, wood=1, brick=1, papyrus=2), 3, shields=1,
           destroy=BROWN),
    Wonder(11, "THE_TEMPLE_OF_ARTEMIS", _r(wood=1, stone=1, glass=1, papyrus=1), 0,
           play_again=True, coins=12),
)
WONDER_IDS: Final[dict[str, int]] = {w.name: w.id for w in WONDERS}
WONDER_NAMES: Final[tuple[str, ...]] = tuple(w.name for w in WONDERS)

# ---- Progress tokens
TOKEN_NAMES: Final = ("AGRICULTURE", "ARCHITECTURE", "ECONOMY", "LAW", "MASONRY", "MATHEMATICS",
                      "PHILOSOPHY", "STRATEGY", "THEOLOGY", "URBANISM")
TOKEN_IDS: Final[dict[str, int]] = {n: i for i, n in enumerate(TOKEN_NAMES)}
AGRICULTURE: Final = 0
ARCHITECTURE: Final = 1
ECONOMY: Final = 2
LAW: Final = 3
MASONRY: Final = 4
MATHEMATICS: Final = 5
PHILOSOPHY: Final = 6
STRATEGY: Final = 7
THEOLOGY: Final = 8
URBANISM: Final = 9

BACK_NAMES: Final = ("AGE_ONE_BACK", "AGE_TWO_BACK", "AGE_THREE_BACK", "GUILD_BACK")


def back_name(card_id: int) -> str:
    """The face-down name a card shows in a view (guilds have their own back)."""
    card = CARDS[card_id]
    if card.color == PURPLE:
        return "GUILD_BACK"
    return BACK_NAMES[card.age - 1]

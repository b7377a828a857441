"""One player's city: coins, buildings, wonders, progress tokens and the caches derived from them.

Every change to what a city holds goes through one method here (`add_card` and its inverse
`remove_card`, `draft_wonder`, `build_wonder`, `add_token`), used both by the game's moves and by
the state loader, so a city read from JSON has exactly the caches a played one has. Effects that
reach outside the city (coins, the pawn, the opponent) are the game's: see ``GameState``.
"""

from __future__ import annotations

from dataclasses import dataclass

from .data import ARCHITECTURE, BROWN, CARDS, GREY, LAW, MASONRY, SCALE, WONDERS


@dataclass(slots=True, eq=False, repr=False)
class PlayerState:
    """One city. The fields are declared once, here: `new` and `copy` call this constructor.

    What changes a few times a game (production, wonders, tokens) is held in tuples, replaced
    rather than changed in place, so that copies share them: a copy is on the search's hot path.
    """

    coins: int
    built: int  # bitmask of card ids
    cards: list[int]  # in the order built (the JSON lists them so)
    color_count: list[int]  # cards of each colour
    prod: tuple[int, ...]  # brown + grey production of each resource
    discount: int  # bitmask of resources bought at 1 coin
    wild_raw: int  # wildcards for one WOOD/BRICK/STONE per construction
    wild_man: int  # wildcards for one GLASS/PAPYRUS per construction
    sym1: int  # bitmask of the science symbols owned
    sym2: int  # bitmask of the symbols owned twice (pairs)
    tokens: int  # bitmask of token ids
    token_list: tuple[int, ...]  # in the order gained (the JSON lists them so)
    wonders: tuple[int, ...]  # wonder ids in the order drafted
    wonder_age: tuple[int, ...]  # the Age each was built in, 0 if not built
    table: list[int] | None  # this city's prices in the current context (GameState._table)

    @staticmethod
    def new() -> PlayerState:
        """A city at the start of the game: 7 coins and nothing else."""
        return PlayerState(coins=7, built=0, cards=[], color_count=[0] * 7, prod=(0, 0, 0, 0, 0),
                           discount=0, wild_raw=0, wild_man=0, sym1=0, sym2=0, tokens=0,
                           token_list=(), wonders=(), wonder_age=(), table=None)

    def copy(self) -> PlayerState:
        """An independent copy (tuples and the price table are shared)."""
        # Positional, in the order of the fields above (a test checks it): keyword arguments
        # cost three times as much.
        return PlayerState(self.coins, self.built, self.cards[:], self.color_count[:], self.prod,
                           self.discount, self.wild_raw, self.wild_man, self.sym1, self.sym2,
                           self.tokens, self.token_list, self.wonders, self.wonder_age,
                           self.table)

    # ------------------------------------------------------------------ queries
    def has_token(self, token: int) -> bool:
        return bool((self.tokens >> token) & 1)

    def has_card(self, card: int) -> bool:
        return bool((self.built >> card) & 1)

    def wonders_built(self) -> int:
        return sum(1 for a in self.wonder_age if a)

    def science_count(self) -> int:
        """Distinct science symbols held (6 wins)."""
        return bin(self.sym1).count("1")

    # ------------------------------------------------------------------ changes
    def add_card(self, card: int) -> bool:
        """Put `card` in the city. True if that changes what constructions cost (production,
        discounts or wildcards), so the caller forgets its price tables."""
        c = CARDS[card]
        self.built |= 1 << card
        self.cards.append(card)
        self.color_count[c.color] += 1
        prices = False
        if c.color == BROWN or c.color == GREY:
            a, b = self.prod, c.produces
            self.prod = (a[0] + b[0], a[1] + b[1], a[2] + b[2], a[3] + b[3], a[4] + b[4])
            prices = True
        if c.discount_mask:
            self.discount |= c.discount_mask
            prices = True
        if c.wild:
            self._add_wild(c.wild, 1)
            prices = True
        if c.symbol >= 0:
            bit = 1 << c.symbol
            if self.sym1 & bit:
                self.sym2 |= bit
            self.sym1 |= bit
        return prices

    def remove_card(self, card: int) -> bool:
        """Take `card` out of the city (DESTROY_CARD): the exact inverse of `add_card`, which it
        returns the same flag as. Discount masks never overlap (data.py checks), so clearing
        the card's bits clears only its own discount."""
        c = CARDS[card]
        self.built &= ~(1 << card)
        self.cards.remove(card)
        self.color_count[c.color] -= 1
        prices = False
        if c.color == BROWN or c.color == GREY:
            a, b = self.prod, c.produces
            self.prod = (a[0] - b[0], a[1] - b[1], a[2] - b[2], a[3] - b[3], a[4] - b[4])
            prices = True
        if c.discount_mask:
            self.discount &= ~c.discount_mask
            prices = True
        if c.wild:
            self._add_wild(c.wild, -1)
            prices = True
        if c.symbol >= 0:
            bit = 1 << c.symbol
            if self.sym2 & bit:
                self.sym2 &= ~bit
            else:
                self.sym1 &= ~bit
        return prices

    def draft_wonder(self, wonder: int) -> None:
        """Take `wonder` in the draft, not built yet."""
        self.wonders += (wonder,)
        self.wonder_age += (0,)

    def build_wonder(self, wonder: int, age: int) -> bool:
        """Mark the drafted `wonder` built in `age`. True if that changes what constructions cost
        (its wildcard)."""
        i = self.wonders.index(wonder)
        self.wonder_age = self.wonder_age[:i] + (age,) + self.wonder_age[i + 1:]
        wild = WONDERS[wonder].wild
        if wild:
            self._add_wild(wild, 1)
            return True
        return False

    def add_token(self, token: int) -> bool:
        """Hold progress token `token` (its lasting effects; coins it gives once are the game's).
        True if that changes what constructions cost (Masonry, Architecture)."""
        self.tokens |= 1 << token
        self.token_list += (token,)
        if token == LAW:
            self.sym1 |= 1 << SCALE
        return token == MASONRY or token == ARCHITECTURE

    def _add_wild(self, kind: int, n: int) -> None:
        """Card and wonder wildcards alike: kind 1 raw goods, 2 manufactured goods."""
        if kind == 1:
            self.wild_raw += n
        else:
            self.wild_man += n

"""What a construction costs: the minimum coins over every way to pay (docs/rules.md ruling 9),
and the price book that memoises it for a game's states."""

from __future__ import annotations

from typing import Final

from duel.errors import InvalidStateError

from .data import CARDS, WONDERS


def trade_cost(needs: tuple[tuple[int, int], ...], prod: tuple[int, ...], discount_mask: int,
               wild_raw: int, wild_man: int, rebate: bool, opp_prod: tuple[int, ...]) -> int:
    """Coins spent buying the resource units that a cost (`needs`: (resource, units) pairs, see
    data.resource_needs) needs beyond the player's production.

    Own brown/grey production covers units first. Each raw wildcard (Caravansery, Great Lighthouse)
    then covers the dearest missing WOOD/BRICK/STONE unit and each manufactured wildcard (Forum,
    Piraeus) the dearest GLASS/PAPYRUS unit; a rebate (Masonry, Architecture) waives the two dearest
    units still missing. The two wildcard kinds never overlap, so this greedy gives the minimum.
    A unit costs 1 with the matching reserve (or Customs House), else 2 + the opponent's
    brown/grey production of it.
    """
    if not (wild_raw or wild_man or rebate):
        # Nothing waives a unit: every missing one is bought (most prices, and the fast path).
        total = 0
        for r, n in needs:
            missing = n - prod[r]
            if missing > 0:
                total += missing * (1 if (discount_mask >> r) & 1 else 2 + opp_prod[r])
        return total
    raw: list[int] = []
    man: list[int] = []
    for r, n in needs:
        missing = n - prod[r]
        if missing > 0:
            unit = 1 if (discount_mask >> r) & 1 else 2 + opp_prod[r]
            if r < 3:
                raw.extend([unit] * missing)
            else:
                man.extend([unit] * missing)
    if wild_raw and raw:
        raw.sort(reverse=True)
        del raw[:wild_raw]
    if wild_man and man:
        man.sort(reverse=True)
        del man[:wild_man]
    units = raw + man
    if rebate and units:
        units.sort(reverse=True)
        del units[:2]
    return sum(units)


# Slots of a price table: a card's id, or WONDER_KEY + a wonder's id. A list, not a dict: the
# legal-move generator reads a price per accessible card and unbuilt wonder on every call, and
# a list index is several times cheaper than a dict lookup (py-spy: a tenth of a compiled search).
WONDER_KEY: Final = len(CARDS)
TABLE_SIZE: Final = WONDER_KEY + len(WONDERS)
UNKNOWN: Final = -1  # a price not computed yet in its table
# Price contexts one book keeps before starting over (a small list each). A game sees a few
# hundred; a search from one information set about ten per iteration, so a long one starts over
# now and then, which costs only recomputation.
BOOK_LIMIT: Final = 50_000
# Width of each count in a price context (GameState._table packs them into one int). A city holds
# each card once (the state reader rejects duplicates), so its production of a resource and its
# wildcards of a kind are at most the totals over every card and wonder, checked to fit here.
CONTEXT_BITS: Final = 4
_MOST_COUNT: Final = max(
    max(sum(c.produces[r] for c in CARDS) for r in range(5)),
    sum(1 for c in CARDS if c.wild) + sum(1 for w in WONDERS if w.wild))
if _MOST_COUNT >= 1 << CONTEXT_BITS:
    raise InvalidStateError(f"a price context's field needs more than {CONTEXT_BITS} bits")

class PriceBook:
    """Memoised prices by price context, shared by a game's states.

    A context is everything a price depends on besides the card or wonder itself: both cities'
    production, the buyer's discounts, wildcards and rebate tokens, packed into one int (see
    ``GameState._table``: an int hashes far cheaper than the tuple of 14 it replaced).
    Two states in the same context pay the same prices, so `new_game` makes one book for a game
    and every clone, applied move and InfoSet sample shares it. When `limit` contexts are held the
    book starts over, which costs only recomputation.
    """

    __slots__ = ("limit", "_tables")

    def __init__(self, limit: int = BOOK_LIMIT) -> None:
        self.limit = limit
        self._tables: dict[int, list[int]] = {}

    def table(self, context: int) -> list[int]:
        """The prices known in `context` (coins by card id or WONDER_KEY + wonder id, UNKNOWN
        where not computed yet); the caller fills in the ones it computes."""
        tables = self._tables
        t = tables.get(context)
        if t is None:
            if len(tables) >= self.limit:
                tables.clear()
            t = [UNKNOWN] * TABLE_SIZE
            tables[context] = t
        return t

    def __len__(self) -> int:
        return len(self._tables)

"""What a construction costs: the minimum coins over every way to pay (docs/rules.md ruling 9)."""

from __future__ import annotations


def trade_cost(cost: tuple[int, int, int, int, int], prod: list[int], discount_mask: int,
               wild_raw: int, wild_man: int, rebate: bool, opp_prod: list[int]) -> int:
    """Coins spent buying the resource units that `cost` needs beyond the player's production.

    Own brown/grey production covers units first. Each raw wildcard (Caravansery, Great Lighthouse)
    then covers the dearest missing WOOD/BRICK/STONE unit and each manufactured wildcard (Forum,
    Piraeus) the dearest GLASS/PAPYRUS unit; a rebate (Masonry, Architecture) waives the two dearest
    units still missing. The two wildcard kinds never overlap, so this greedy gives the minimum.
    A unit costs 1 with the matching reserve (or Customs House), else 2 + the opponent's
    brown/grey production of it.
    """
    raw: list[int] = []
    man: list[int] = []
    for r in range(5):
        missing = cost[r] - prod[r]
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

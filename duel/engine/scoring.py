"""Scoring (docs/rules.md §10): the points of a city as they stand, the military track's
points, and the civilian tie-break. Functions of the two cities and the pawn, so the search's
evaluation and the end of the game count the same way."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from .city import PlayerState
from .data import (
    AGRICULTURE,
    BLUE,
    CARDS,
    GREEN,
    GUILD_COINS,
    GUILD_WONDERS,
    MATHEMATICS,
    PHILOSOPHY,
    PURPLE,
    WONDERS,
    YELLOW,
)

DRAW: Final = -2  # civilian_winner's answer when even the tie-break is tied


def military_vp(military: int, seat: int) -> int:
    """The military points of seat index `seat` with the pawn at `military` (> 0: towards
    player 2's capital)."""
    pos = military if seat == 0 else -military
    if pos <= 0:
        return 0
    if pos <= 2:
        return 2
    if pos <= 5:
        return 5
    return 10


def most_of_colors(players: Sequence[PlayerState], colors: tuple[int, ...]) -> int:
    """The most cards of `colors` either city has (what most guilds count)."""
    a = players[0].color_count
    b = players[1].color_count
    return max(sum(a[c] for c in colors), sum(b[c] for c in colors))


def city_score(players: Sequence[PlayerState], military: int, seat: int) -> dict[str, int]:
    """The score breakdown of seat index `seat`, "TOTAL" included."""
    p = players[seat]
    o = players[1 - seat]
    by_color = [0] * 7
    for card in p.cards:
        c = CARDS[card]
        if c.color == PURPLE:
            if c.guild_kind == GUILD_WONDERS:
                by_color[PURPLE] += 2 * max(p.wonders_built(), o.wonders_built())
            elif c.guild_kind == GUILD_COINS:
                by_color[PURPLE] += max(p.coins, o.coins) // 3
            else:
                by_color[PURPLE] += most_of_colors(players, c.guild_colors)
        else:
            by_color[c.color] += c.vp
    wonder_vp = sum(WONDERS[w].vp for i, w in enumerate(p.wonders) if p.wonder_age[i])
    token_vp = 0
    if p.has_token(AGRICULTURE):
        token_vp += 4
    if p.has_token(PHILOSOPHY):
        token_vp += 7
    if p.has_token(MATHEMATICS):
        token_vp += 3 * len(p.token_list)
    out = {
        "CIVILIAN_BUILDING": by_color[BLUE],
        "SCIENTIFIC_BUILDING": by_color[GREEN],
        "COMMERCIAL_BUILDING": by_color[YELLOW],
        "GUILD": by_color[PURPLE],
        "MILITARY_BUILDING": military_vp(military, seat),
        "WONDER": wonder_vp,
        "MONEY": p.coins // 3,
        "PROGRESS_TOKEN": token_vp,
    }
    out["TOTAL"] = sum(out.values())
    return out


def civilian_winner(a: dict[str, int], b: dict[str, int]) -> int:
    """Seat index 0 or 1 of the civilian winner given both breakdowns, else DRAW: the higher
    total wins, then the more civilian (blue) points (docs/rules.md §10)."""
    if a["TOTAL"] != b["TOTAL"]:
        return 0 if a["TOTAL"] > b["TOTAL"] else 1
    if a["CIVILIAN_BUILDING"] != b["CIVILIAN_BUILDING"]:
        return 0 if a["CIVILIAN_BUILDING"] > b["CIVILIAN_BUILDING"] else 1
    return DRAW

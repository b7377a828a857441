"""A hand-tuned evaluation of a position for one player (by the engine's index, 0 or 1), shared by
the rule-based agent.

Relative: what `index` has minus what the opponent has, in rough victory-point units. The weights
follow the prompt's "general order of importance": economy early (resources, discounts, coins),
military and science when they threaten supremacy, points late.
"""

from __future__ import annotations

from duel.engine.data import (
    ARCHITECTURE,
    CARDS,
    CHAIN_FROM,
    ECONOMY,
    MASONRY,
    STRATEGY,
    THEOLOGY,
    URBANISM,
)
from duel.engine.state import GameState, PlayerState
from duel.engine.steps import GAME_END

WIN = 1000.0
# Targets of chains: a card whose chain-out building is still to come is worth a little more.
_CHAIN_TARGETS: dict[int, list[int]] = {}
for _cid, _src in enumerate(CHAIN_FROM):
    if _src >= 0:
        _CHAIN_TARGETS.setdefault(_src, []).append(_cid)

# Per Age: weight of a VP, of a coin, of a new resource unit, of a discounted resource.
_W_VP = (0.6, 0.85, 1.0)
_W_COIN = (0.45, 0.4, 0.34)
_W_NEW_RES = (3.0, 2.0, 0.4)
_W_DISCOUNT = (1.6, 1.2, 0.3)
_TOKEN_BONUS = {ARCHITECTURE: 2.5, MASONRY: 2.0, STRATEGY: 2.5, THEOLOGY: 2.5, ECONOMY: 2.0,
                URBANISM: 1.0}


def _city(state: GameState, index: int) -> float:
    p: PlayerState = state.players[index]
    age = state.age - 1
    score = state.score(index)
    vp = score["TOTAL"] - score["MONEY"] - score["MILITARY_BUILDING"]
    value = vp * _W_VP[age] + p.coins * _W_COIN[age]
    # Production: the first units of each resource matter most.
    for r in range(5):
        units = p.prod[r]
        cap = 2 if r < 3 else 1
        value += min(units, cap) * _W_NEW_RES[age] + max(0, units - cap) * 0.3
        if (p.discount >> r) & 1:
            value += _W_DISCOUNT[age]
    value += (p.wild_raw + p.wild_man) * _W_NEW_RES[age] * 0.9
    # Science: distinct symbols, sharply more as supremacy nears.
    distinct = bin(p.sym1).count("1")
    value += distinct * 1.2 + (max(0, distinct - 3) ** 2) * 2.5
    for t in p.token_list:
        value += _TOKEN_BONUS.get(t, 0.0) * (1.0 if age < 2 else 0.5)
    if age < 2:
        for card in p.cards:
            for target in _CHAIN_TARGETS.get(card, ()):
                if not (p.built >> target) & 1 and CARDS[target].age > state.age - 1:
                    value += 0.8
    unbuilt = sum(1 for a in p.wonder_age if not a) if state.wonders_built < 7 else 0
    value += unbuilt * 0.5
    return value


def evaluate(state: GameState, index: int) -> float:
    """How good `state` is for `index` (positive: better than the opponent's)."""
    if state.step == GAME_END:
        return WIN * (2 * state.points(index) - 1)
    pos = state.military if index == 0 else -state.military
    military = state.military_vp(index) - state.military_vp(1 - index)
    # Pawn pressure: each step matters more near a capital.
    pressure = pos * 0.8 + (max(0, abs(pos) - 4) ** 2) * 0.9 * (1 if pos > 0 else -1)
    value = _city(state, index) - _city(state, 1 - index) + military * _W_VP[state.age - 1]
    return value + pressure

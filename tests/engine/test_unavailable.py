"""`unavailable(state)`: why each move of the structure that cannot be made is refused, in
words to the player to move; never a legal move, every card accounted for, and the reasons
true of the position (the cards on a covered one, a price over the player's coins)."""

from __future__ import annotations

import random

import pytest

from duel.engine import new_game
from duel.engine.explain import unavailable
from duel.engine.layout import COVERED_BY


@pytest.mark.parametrize("seed", range(6))
def test_refusals_over_random_games(seed: int) -> None:
    rng = random.Random(seed)
    state = new_game(seed)
    seen: set[str] = set()
    while not state.is_terminal():
        refused = unavailable(state)
        if state.step_name != "PLAY_CARD":
            assert refused == []
        else:
            legal = set(state.legal_moves())
            me = state.players[state.current]
            slots = {m.card_index for m in legal} | {m.card_index for m, _, _ in refused}
            assert slots == {s for s, c in enumerate(state.pyramid) if c >= 0}
            for move, why, price in refused:
                assert move not in legal, (move, why)
                if why.startswith("covered by "):
                    on_it = [s for s in COVERED_BY[state.age - 1][move.card_index]
                             if state.pyramid[s] >= 0]
                    assert on_it and why == "covered by " + " and ".join(map(str, on_it))
                    assert price is None and not (state.accessible >> move.card_index) & 1
                    seen.add("covered")
                elif why.startswith("costs "):
                    assert price is not None and price > me.coins
                    assert why == f"costs {price} coins, you have {me.coins}"
                    if move.kind == "CONSTRUCT_BUILDING":
                        assert price == state.card_price(state.current,
                                                         state.pyramid[move.card_index])
                    seen.add(move.kind)
                else:
                    assert why in ("already built", "seven wonders are built already")
                    assert move.kind == "CONSTRUCT_WONDER" and price is None
                    seen.add(why)
        state = state.apply(rng.choice(state.legal_moves()))
    assert {"covered", "CONSTRUCT_WONDER", "already built"} <= seen, seen

"""The guided search's tree: statistics that add up, chance nodes only where cards are revealed,
the cap on outcomes, reproducible decisions, and a budget spent as asked."""

from __future__ import annotations

import random

import pytest
from helpers.games import random_game_states

from duel.agents.guided.agent import GuidedAgent, improved_policy
from duel.agents.guided.search import GNode, Params, expand, reveals, simulate
from duel.agents.mcts import public_sample
from duel.engine import GameState, InfoSet, Move, Perspective
from duel.engine.moves import MoveKind
from duel.engine.steps import GAME_END, PLAY_CARD


class Coins:
    """A stand-in network: uniform priors, and the mover's share of the coins as its value."""

    def __init__(self) -> None:
        self.evaluations = 0

    def evaluate(self, state: GameState, moves: list[Move]) -> tuple[float, list[float]]:
        self.evaluations += 1
        me, them = state.players[state.current].coins, state.players[1 - state.current].coins
        return (me + 1) / (me + them + 2), [1 / len(moves)] * len(moves)


def _mid_age(seed: int = 5, ply: int = 20) -> GameState:
    state = random_game_states(seed)[ply]
    assert state.step == PLAY_CARD
    return state


def _grow(state: GameState, n: int, cap: int, seed: int = 0) -> GNode:
    view = Perspective.to_move(state).view(state)
    info = InfoSet.from_view(view)
    base = public_sample(info)
    root = GNode(None, base.current, 1.0)
    evaluator = Coins()
    root.value, root.visits = expand(root, base, base.legal_moves(), evaluator), 1
    rng = random.Random(seed)
    params = Params(1.5, 0.2, cap, 0.0, 0.3)
    for _ in range(n):
        simulate(root, info.sample(rng), rng, params, evaluator)
    return root


def _nodes(node: GNode) -> list[GNode]:
    out = [node]
    for ch in node.children or []:
        out += _nodes(ch)
    for o in (node.outcomes or {}).values():
        out += _nodes(o)
    return out


def test_visits_add_up_and_values_stay_expected_scores() -> None:
    root = _grow(_mid_age(), 300, cap=4)
    assert root.visits == 301
    assert sum(ch.visits for ch in root.children or []) == 300
    for node in _nodes(root):
        assert 0.0 <= node.value <= node.visits + 1e-9
        if node.outcomes:  # a chance node's visits are its outcomes' visits
            assert sum(o.visits for o in node.outcomes.values()) == node.visits
        elif node.children and node is not root:
            assert sum(ch.visits for ch in node.children) == node.visits - 1


def test_outcomes_are_capped_and_redirected_simulations_follow_existing_ones() -> None:
    capped = _grow(_mid_age(), 600, cap=3)
    free = _grow(_mid_age(), 600, cap=0)
    chance = [n for n in _nodes(capped) if n.outcomes]
    assert chance, "some move of the position reveals a card"
    assert max(len(n.outcomes or {}) for n in chance) == 3
    # Redirected simulations count as visits of an outcome but not as its own samples.
    assert any(sum(o.hits for o in (n.outcomes or {}).values()) < n.visits for n in chance)
    assert max(len(n.outcomes or {}) for n in _nodes(free)) > 3


def test_a_chance_node_only_where_cards_are_revealed() -> None:
    seen = {True: 0, False: 0}
    for seed in range(10):
        for state in random_game_states(seed):
            if state.step != PLAY_CARD:
                continue
            for move in state.legal_moves():
                if move.kind not in (MoveKind.CONSTRUCT_BUILDING, MoveKind.DISCARD):
                    continue
                after = state.clone()
                after.play(move)
                shown = reveals(state.step, state.age, state.face_up, state.draft_pick,
                                len(state.library), after)
                newly_up = after.face_up & ~state.face_up if after.age == state.age else 0
                if after.step != GAME_END and after.age == state.age and \
                        after.step == PLAY_CARD:
                    assert shown == bool(newly_up)
                seen[shown] += 1
    assert seen[True] > 50 and seen[False] > 50


def test_the_improved_policy_follows_the_values() -> None:
    root = _grow(_mid_age(), 200, cap=4)
    target = improved_policy(root, 0.5)
    assert sum(target) == pytest.approx(1.0)
    children = root.children or []
    best = max(range(len(children)), key=lambda i: (children[i].visits > 0, children[i].q()))
    assert target.index(max(target)) == best


@pytest.mark.parametrize("root", ["gumbel", "puct"])
def test_a_seeded_search_decides_the_same_and_spends_its_budget(root: str) -> None:
    state = _mid_age(7, 25)
    seen = Perspective.to_move(state)
    view, legal = seen.view(state), seen.moves_out(state.legal_moves())
    runs = [GuidedAgent(iterations=120, root=root, seed=3).analyse(view, legal,
                                                                   random.Random(9))
            for _ in range(2)]
    (a, stats_a), (b, stats_b) = runs
    assert a.move == b.move and stats_a == stats_b
    assert {k: v for k, v in a.details.items() if k != "seconds"} == \
        {k: v for k, v in b.details.items() if k != "seconds"}
    assert 120 <= a.details["iterations"] <= 120 + len(legal)
    assert sum(v for _, v, _ in stats_a) == a.details["iterations"]
    assert sum(a.details["target"]) == pytest.approx(1.0, abs=1e-3)


def test_a_time_budget_stops_in_time() -> None:
    import time

    state = _mid_age(7, 25)
    seen = Perspective.to_move(state)
    for root in ("gumbel", "puct"):
        start = time.perf_counter()
        d = GuidedAgent(time=0.2, root=root).choose(seen.view(state),
                                                      seen.moves_out(state.legal_moves()),
                                                      random.Random(0))
        assert time.perf_counter() - start < 0.6
        assert d.details["iterations"] > 10


def test_a_win_on_the_spot_is_taken_without_searching() -> None:
    from duel.agents.mcts import immediate_win

    for seed in range(200):
        for state in random_game_states(seed):
            if state.step == GAME_END:
                continue
            legal = state.legal_moves()
            if len(legal) > 1 and immediate_win(state, legal) is not None:
                seen = Perspective.to_move(state)
                d = GuidedAgent(iterations=50).choose(seen.view(state), seen.moves_out(legal),
                                                       random.Random(0))
                after = state.clone()
                after.play(seen.move_in(d.move))
                assert after.step == GAME_END and after.winner == state.current
                assert d.details == {"iterations": 0, "rule": "win now"}
                return
    raise AssertionError("no position with a win on the spot")


@pytest.mark.parametrize("reuse", [1, 0])
def test_the_tree_is_kept_between_moves_when_asked(reuse: int) -> None:
    from duel.match import play_match

    # reuse=1 runs the Python tree in every build (tests/guide/test_guide_native.py).
    result = play_match(f"mcts:guide=default,iterations=60,reuse={reuse}", "rule", seed=2)
    searched = [r.details for r in result.records
                if r.seat.index == 0 and r.details.get("evaluations")]
    kept = [d["reused"] for d in searched if "reused" in d]
    if reuse:
        assert len(kept) > len(searched) // 3 and all(0 < k < 2000 for k in kept)
    else:
        assert kept == []

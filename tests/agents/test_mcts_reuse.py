"""MCTS tree reuse: the subtree kept between a seat's decisions is the one of the moves really
played since, found from the views alone; seeded games stay reproducible; reuse=0 (the default)
keeps nothing.
The Python search's (native=0); the native search keeps the same trees
(tests/agents/test_native_mcts.py)."""

from __future__ import annotations

import random
from typing import Any

import pytest

from duel.agents import make_agent
from duel.agents.mcts import MCTSAgent, Node, public_sample
from duel.agents.rule_based import RuleAgent
from duel.engine import InfoSet, new_game
from duel.engine.perspective import Perspective
from duel.errors import SpecError
from duel.match import decide, play_match
from duel.records import MoveRecord


def test_the_subtree_kept_is_the_one_of_the_moves_played() -> None:
    """At each of the MCTS seat's decisions, the node it keeps is exactly the node reached from
    its last choice by the opponent's real moves (in the seat's labels), or none: when the tree
    has no such node, or when the moves played differ in public from the tree's (a move names a
    slot, and the card it took there was revealed after the tree's sample was drawn; the draft's
    second four wonders); and most decisions keep one."""
    kept = compared = pruned = 0
    for seed in (1, 2):
        agent = MCTSAgent(iterations=300, seed=seed, native=0, reuse=1)
        rule = RuleAgent()
        state = new_game(seed)
        me = seed % 2
        rng = random.Random(seed)
        node: Node | None = None
        while not state.is_terminal():
            seen = Perspective.to_move(state) if state.current == me else \
                Perspective.of_player(me + 1)
            if state.current == me:
                legal = seen.moves_out(state.legal_moves())
                grown = set(node.children) if node is not None else set()
                found = agent._kept(public_sample(InfoSet.from_view(seen.view(state))), legal)
                assert found is None or found is node, f"seed {seed} ply {state.ply}"
                if found is not None:
                    # Pruned to the moves legal now: the choice is always one of them.
                    assert found.children and set(found.children) <= set(legal)
                    pruned += set(found.children) != grown
                kept += found is not None
                compared += 1
                move, _, _ = decide(agent, state, rng)
                node = agent._last[0] if agent._last is not None else None
            else:
                move, _, _ = decide(rule, state, rng)
                if node is not None:
                    node = node.children.get(seen.moves_out([move])[0])
            state = state.apply(move)
    assert compared > 40 and kept > compared // 2
    assert pruned > 0  # the tree held moves that are not legal now (they crashed the choice)


def searched(records: list[MoveRecord]) -> list[dict[str, Any]]:
    """Player 1's search details, but their wall time."""
    return [{k: v for k, v in r.details.items() if k != "seconds"} for r in records
            if r.seat.index == 0 and r.details.get("top")]


def test_reuse_keeps_seeded_games_reproducible_and_counts_new_iterations() -> None:
    a = play_match("mcts:iterations=120,native=0,reuse=1", "rule", seed=4)
    b = play_match("mcts:iterations=120,native=0,reuse=1", "rule", seed=4)
    assert [r.move for r in a.records] == [r.move for r in b.records]
    assert searched(a.records) == searched(b.records)
    details = searched(a.records)
    reused = [d["reused"] for d in details if "reused" in d]
    assert len(reused) > len(details) // 2
    # `iterations=N` is N new iterations on top of what was kept.
    assert all(d["iterations"] == 120 for d in details)
    assert any(sum(m["visits"] for m in d["top"]) > 120 for d in details if "reused" in d)


@pytest.mark.parametrize("spec", ["mcts:iterations=60,reuse=0", "mcts:iterations=60"])
def test_reuse_0_grows_a_new_tree_every_move(spec: str) -> None:
    """reuse=0, the default (it played better: docs/native.md), keeps nothing."""
    result = play_match(spec, "rule", seed=4)
    assert not any("reused" in r.details for r in result.records)
    with pytest.raises(SpecError):
        make_agent("mcts:reuse=2")


def test_a_new_game_with_the_same_agent_starts_afresh() -> None:
    """The views of another game do not lead back into the last game's tree."""
    agent = MCTSAgent(iterations=80, seed=0, native=0, reuse=1)
    play_match(agent, "rule", seed=6)
    first = play_match(agent, "rule", seed=7).records
    mine = [r for r in first if r.seat.index == 0]
    assert "reused" not in mine[0].details

"""`mcts:tree=age`: the search's tree stops where the next Age starts and the playout goes on
from there; `tree=game` (the default) grows to the game's end. Runs on the Python search (the
native one grows the same tree: tests/agents/test_native_mcts.py)."""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest

from duel.agents import make_agent
from duel.agents.mcts import MCTSAgent, Node
from duel.engine import GameState, InfoSet, Perspective, Seat, new_game
from duel.engine.moves import MoveKind
from duel.engine.steps import CHOOSE_START, PLAY_CARD
from duel.errors import SpecError


def _near_an_ages_end(seed: int, age: int, left: int) -> GameState:
    """Game `seed` played at random to Age `age` with `left` cards left in its structure."""
    for attempt in range(50):
        state = new_game(seed * 100 + attempt)
        rng = random.Random(seed * 100 + attempt)
        while not state.is_terminal():
            if (state.age == age and state.remaining == left and state.step == PLAY_CARD):
                return state
            state.play(rng.choice(state.legal_moves()))
    raise AssertionError("no such position in 50 games")


def _nodes(node: Node) -> Iterator[Node]:
    for child in node.children.values():
        yield child
        yield from _nodes(child)


def _tree(state: GameState, tree: str, seed: int) -> Node:
    info = InfoSet.from_view(Perspective(Seat.of_index(state.current)).view(state))
    agent = MCTSAgent(iterations=300, native=0, tree=tree)
    root, done, _ = agent.search(info, random.Random(seed))
    assert done == 300
    return root


@pytest.mark.parametrize(("age", "left"), [(1, 1), (1, 3), (2, 2), (2, 3)])
def test_the_tree_stops_where_the_next_age_starts(age: int, left: int) -> None:
    """No node of an age tree is the next Age's first decision (who starts it); a game tree
    from the same position has them, so the test can tell the two apart."""
    for seed in range(3):
        state = _near_an_ages_end(seed, age, left)
        starts = [n for n in _nodes(_tree(state, "game", seed))
                  if n.move is not None and n.move.kind == MoveKind.CHOOSE_STARTING_PLAYER]
        assert starts, (age, left, seed)
        bounded = list(_nodes(_tree(state, "age", seed)))
        assert bounded
        assert not [n for n in bounded if n.move is not None
                    and n.move.kind == MoveKind.CHOOSE_STARTING_PLAYER]


def test_at_an_ages_start_the_tree_grows_in_that_age() -> None:
    """A search from the new Age's first decision (who starts it) grows below it: the Age the
    tree may grow in is the position's own."""
    state = _near_an_ages_end(0, 1, 1)
    rng = random.Random(0)
    while state.step != CHOOSE_START:
        state.play(rng.choice(state.legal_moves()))
    assert state.age == 2
    root = _tree(state, "age", 0)
    assert max(_depth(child) for child in root.children.values()) > 2


def _depth(node: Node) -> int:
    return 1 + max((_depth(c) for c in node.children.values()), default=0)


def test_far_from_an_ages_end_the_two_trees_are_one() -> None:
    """Where no iteration's descent reaches the next Age, tree=age is tree=game exactly."""
    state = new_game(3)
    rng = random.Random(3)
    while state.step != PLAY_CARD:
        state.play(rng.choice(state.legal_moves()))
    game, age = (_tree(state, tree, 7) for tree in ("game", "age"))
    assert [(n.move, n.visits, n.reward) for n in _nodes(game)] == \
        [(n.move, n.visits, n.reward) for n in _nodes(age)]


def test_the_option_is_checked() -> None:
    age, game = make_agent("mcts:tree=age,iterations=5"), make_agent("mcts:iterations=5")
    assert isinstance(age, MCTSAgent) and isinstance(game, MCTSAgent)
    assert (age.tree, game.tree) == ("age", "game")
    with pytest.raises(SpecError, match="tree must be 'game' or 'age'"):
        make_agent("mcts:tree=round")
    with pytest.raises(SpecError, match="tree is not a parameter of the guided search"):
        make_agent("mcts:guide=default,tree=age")

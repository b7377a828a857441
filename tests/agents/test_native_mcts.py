"""The native search (duel/native/search.cpp) grows the Python search's tree: from the same
view and seed, with an iteration budget, the same root children in the same order with the
same visits and total rewards, and the generator left in the same place; so the agent chooses
the same move. Skipped where the native core is not built."""

from __future__ import annotations

import random

import pytest

from duel.agents.mcts import MCTSAgent
from duel.engine import GameState, InfoSet, Perspective, Seat, new_game
from duel.native import available

pytestmark = pytest.mark.skipif(not available(), reason="the native core is not built")


def _position(seed: int) -> GameState:
    """A position some random plies into game `seed` (the draft, Age I, II or III)."""
    state = new_game(seed)
    rng = random.Random(seed)
    for _ in range((seed * 7) % 75):
        if state.is_terminal():
            break
        state.play(rng.choice(state.legal_moves()))
    if state.is_terminal():
        state = new_game(seed)
    return state


def _stats(agent: MCTSAgent, info: InfoSet, seed: int) -> tuple[object, ...]:
    rng = random.Random(seed)
    root, done, _ = agent.search(info, rng)
    children = [(ch.move, ch.visits, ch.reward) for ch in root.children.values()]
    return children, done, root.visits, rng.random()


@pytest.mark.parametrize(("rollout", "margin", "tree"),
                         [("mast", 0.0, "game"), ("uniform", 0.0, "game"),
                          ("heuristic", 0.3, "game"), ("mast", 0.5, "game"),
                          ("mast", 0.0, "age"), ("heuristic", 0.3, "age")])
def test_seeded_searches_agree(rollout: str, margin: float, tree: str) -> None:
    for seed in range(12):
        state = _position(seed)
        info = InfoSet.from_view(Perspective(Seat.of_index(state.current)).view(state))
        params = {"iterations": 150, "rollout": rollout, "margin": margin, "tree": tree}
        native = MCTSAgent(**params, native=1)
        python = MCTSAgent(**params, native=0)
        assert native.native and not python.native
        assert _stats(native, info, seed) == _stats(python, info, seed), seed


def test_the_agent_chooses_the_same_move_with_the_same_statistics() -> None:
    """The first decision of a seeded agent (no kept tree yet: the one place both run the
    same search, docs/native.md)."""
    for seed in range(6):
        state = _position(seed + 100)
        view = Perspective(Seat.of_index(state.current)).view(state)
        decisions = [MCTSAgent(iterations=200, seed=seed, native=n).analyse(
            view, state.legal_moves(), random.Random(0)) for n in (1, 0)]
        (a, a_children), (b, b_children) = decisions
        assert a.move == b.move and a_children == b_children
        assert a.details.get("top") == b.details.get("top")


def _game(agents: tuple[MCTSAgent, MCTSAgent], seed: int, plies: int
          ) -> list[tuple[str, dict[str, object]]]:
    """The moves of a game between `agents`, each with its details but the wall time."""
    from duel.match import decide

    state = new_game(seed)
    rngs = (random.Random(seed), random.Random(seed + 1))
    moves = []
    while not state.is_terminal() and len(moves) < plies:
        move, details, _ = decide(agents[state.current], state, rngs[state.current])
        state = state.apply(move)
        moves.append((str(move), {k: v for k, v in details.items() if k != "seconds"}))
    return moves


@pytest.mark.parametrize("seed", range(3))
def test_the_native_search_keeps_the_python_searchs_tree(seed: int) -> None:
    """Tree reuse natively (search.cpp's keep): a seeded game of two native agents is the game
    of two Python ones, move by move and detail by detail, subtrees kept included (most
    decisions keep one), through every Age to the end."""
    native = (MCTSAgent(iterations=60, seed=seed, native=1, reuse=1),
              MCTSAgent(iterations=60, seed=seed + 9, native=1, reuse=1))
    python = (MCTSAgent(iterations=60, seed=seed, native=0, reuse=1),
              MCTSAgent(iterations=60, seed=seed + 9, native=0, reuse=1))
    played = _game(native, seed, 200)
    assert played == _game(python, seed, 200)
    searched = [d for _, d in played if d.get("top")]
    assert sum("reused" in d for d in searched) > len(searched) // 2


def test_the_age_bounded_tree_is_the_same_natively_through_a_whole_game() -> None:
    """tree=age, subtrees kept: the tree stops at every Age's start in both searches alike
    (the positions near an Age's end are where the two trees differ from tree=game's)."""
    native = (MCTSAgent(iterations=80, seed=4, native=1, reuse=1, tree="age"),
              MCTSAgent(iterations=80, seed=13, native=1, reuse=1, tree="age"))
    python = (MCTSAgent(iterations=80, seed=4, native=0, reuse=1, tree="age"),
              MCTSAgent(iterations=80, seed=13, native=0, reuse=1, tree="age"))
    played = _game(native, 4, 200)
    assert played == _game(python, 4, 200)
    assert played != _game((MCTSAgent(iterations=80, seed=4, native=1, reuse=1),
                            MCTSAgent(iterations=80, seed=13, native=1, reuse=1)), 4, 200)


def test_reuse_0_keeps_no_native_tree() -> None:
    """reuse=0 natively: every search from a fresh root, as the Python search's reuse=0."""
    native = (MCTSAgent(iterations=60, seed=1, native=1, reuse=0),
              MCTSAgent(iterations=60, seed=10, native=1, reuse=0))
    python = (MCTSAgent(iterations=60, seed=1, native=0, reuse=0),
              MCTSAgent(iterations=60, seed=10, native=0, reuse=0))
    played = _game(native, 1, 40)
    assert played == _game(python, 1, 40)
    assert not any("reused" in d for _, d in played)

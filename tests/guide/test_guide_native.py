"""The guided search on the native core (duel/native/guided.h): from the same view, seed and
iteration budget the native tree makes the same simulations as the Python tree (the network
runs in Python for both): the same move, the same root statistics (exact floating-point
equality of every child's visits and total value), the same priors, improved policy and count
of evaluations, and the generator left in the same place, for both roots, with the chance
nodes' cap reached (redeals), without MAST mixing and with other constants. The features the
native tree hands the network are duel.agents.guided.features' exactly. Skipped where the native
core is not built. (The twin-game privacy test, tests/agents/test_no_peeking.py, runs the guided
specs on the native path by default, and with native=0 on the Python one.)"""

from __future__ import annotations

import random
from typing import Any

import pytest
from helpers.games import random_game_states

from duel.agents.guided.agent import GuidedAgent, feature_layout
from duel.agents.guided.features import encode, moves_slots
from duel.agents.guided.runtime import softmax
from duel.engine import GameState, InfoSet, Perspective, new_game
from duel.errors import SpecError
from duel.native import available
from duel.native.differential import sample_position

pytestmark = pytest.mark.skipif(not available(), reason="the native core is not built")




def _decide(state: GameState, native: int, seed: int, **params: Any) -> tuple[Any, ...]:
    seen = Perspective.to_move(state)
    view, legal = seen.view(state), seen.moves_out(state.legal_moves())
    agent = GuidedAgent(native=native, **params)
    assert agent.native == (native == 1)
    rng = random.Random(seed)
    decision, stats = agent.analyse(view, legal, rng)
    details = {k: v for k, v in decision.details.items() if k != "seconds"}  # wall time
    return decision.move, details, stats, rng.random()


@pytest.fixture
def native_calls(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Records the native tree's runs, so that a test knows which search ran."""
    import duel.native

    calls: list[str] = []
    run, sweep = duel.native.GuidedSearch.run, duel.native.GuidedSearch.sweep

    def counted_run(self: Any, limit: int, seconds: float) -> int:
        calls.append("run")
        return run(self, limit, seconds)

    def counted_sweep(self: Any, alive: list[int], count: int, seconds: float,
                      timed: bool) -> int:
        calls.append("sweep")
        return sweep(self, alive, count, seconds, timed)

    monkeypatch.setattr(duel.native.GuidedSearch, "run", counted_run)
    monkeypatch.setattr(duel.native.GuidedSearch, "sweep", counted_sweep)
    return calls


@pytest.mark.parametrize("params", [
    {"iterations": 200},  # the Gumbel root
    {"iterations": 200, "root": "puct"},
    {"iterations": 150, "root": "puct", "cap": 1, "mix": 0.0},  # every reveal past the first
    {"iterations": 150, "cap": 2, "c": 0.8, "fpu": 0.1, "m": 4, "noise": 0.5, "epsilon": 0.1,
     "mix": 0.6},
    {"iterations": 150, "root": "puct", "cap": 0},  # no cap: no stored states, no redeal
])
def test_seeded_searches_agree(params: dict[str, Any], native_calls: list[str]) -> None:
    for seed in range(8):
        state = sample_position(seed)
        native = _decide(state, 1, seed, **params)
        assert native_calls, "the native tree did not run"
        native_calls.clear()
        python = _decide(state, 0, seed, **params)
        assert not native_calls
        assert native == python, seed
        assert native[1]["iterations"] == params["iterations"]


def test_a_hidden_box_and_every_step_agree() -> None:
    """A game with the box closed (what the features show of it differs), through every step's
    decisions, a few plies apart."""
    state = new_game(3, open_box=False)
    rng = random.Random(3)
    checked = set()
    while not state.is_terminal():
        if len(state.legal_moves()) > 1 and state.ply % 5 == 0:
            assert _decide(state, 1, state.ply, iterations=60) == \
                _decide(state, 0, state.ply, iterations=60), state.ply
            checked.add(state.step)
        state.play(rng.choice(state.legal_moves()))
    assert len(checked) >= 2


@pytest.mark.parametrize("seed", [0, 7, 21])
def test_the_native_features_are_the_python_features(seed: int) -> None:
    """For every state of a random game and samples of its information set, the native tree
    reads the same (index, value) pairs and the same policy slots as duel.agents.guided.features."""
    from duel.native import GuidedSearch

    states = random_game_states(seed)
    for ply, state in enumerate(states[:-1]):
        info = InfoSet.from_view(Perspective.to_move(state).view(state))
        moves = state.legal_moves()
        tree = GuidedSearch(info, moves, [1.0 / len(moves)] * len(moves), 0.5, 1.5, 0.2, 11,
                            0.3, 0.3, lambda *a: (0.5, []), feature_layout())
        for sample in (state, info.sample(random.Random(ply))):
            idx: list[int] = []
            val: list[float] = []
            encode(sample, idx, val)
            assert tree.features(sample) == (idx, val, moves_slots(sample, moves)), ply


def test_the_spec_option_and_its_check() -> None:
    assert GuidedAgent(iterations=10).native
    assert not GuidedAgent(iterations=10, native=0).native
    with pytest.raises(SpecError, match="native must be 0, 1 or 2"):
        GuidedAgent(native=3)
    from duel.agents import make_agent

    agent: Any = make_agent("mcts:guide=default,iterations=10,native=0")
    assert not agent.native


def test_the_native_tree_is_the_python_tree_without_reuse_decision_after_decision() -> None:
    """reuse=0 is the default, and the native tree (which keeps nothing) is then the Python
    tree at every decision of a game, the second one included."""
    state = sample_position(5)
    seen = Perspective.to_move(state)
    agents = {n: GuidedAgent(iterations=80, native=n) for n in (0, 1)}
    assert agents[1].native and not agents[0].native
    for agent in agents.values():
        agent.analyse(seen.view(state), seen.moves_out(state.legal_moves()),
                      random.Random(1))
        assert agent._last is None
    after = state.clone()
    rng = random.Random(2)
    while after.current == state.current or len(after.legal_moves()) < 2:
        after.play(rng.choice(after.legal_moves()))
    seen = Perspective.to_move(after)
    out = [agents[n].analyse(seen.view(after), seen.moves_out(after.legal_moves()),
                             random.Random(3)) for n in (0, 1)]
    assert out[0][1] == out[1][1]
    assert out[0][0].move == out[1][0].move


def test_reuse_runs_the_python_tree_in_every_build() -> None:
    """The native tree keeps nothing, so reuse=1 is the Python tree's (the same search whether
    or not the core is built); with the network in C++ as well (native=2) it is an error."""
    assert not GuidedAgent(iterations=10, reuse=1).native
    with pytest.raises(SpecError, match="reuse=1 needs the Python tree"):
        GuidedAgent(iterations=10, reuse=1, native=2)


def test_the_native_network_is_numpys_to_a_millionth() -> None:
    """native=2's documented difference: the network in C++ (float32 summed in another order
    than OpenBLAS's) gives the numpy runtime's value and priors to about 1e-6, not the bits."""
    from duel.agents.guided.agent import native_net
    from duel.agents.guided.runtime import load_guide

    guide = load_guide("default")
    net = native_net(guide)
    worst = 0.0
    for seed in (0, 3):
        for state in random_game_states(seed)[:-1]:
            idx: list[int] = []
            val: list[float] = []
            encode(state, idx, val)
            slots = moves_slots(state, state.legal_moves())
            value, logits = guide.raw(idx, val, slots)
            priors = softmax(logits)
            n_value, n_priors = net.evaluate(idx, val, slots)
            worst = max(worst, abs(value - n_value),
                        *(abs(p - q) for p, q in zip(priors, n_priors, strict=True)))
    assert worst < 1e-5


def test_a_search_with_the_native_network() -> None:
    state = sample_position(6)
    seen = Perspective.to_move(state)
    agent = GuidedAgent(iterations=120, native=2)
    assert agent.native_net
    decision, stats = agent.analyse(seen.view(state), seen.moves_out(state.legal_moves()),
                                    random.Random(1))
    assert decision.move in state.legal_moves()
    assert decision.details["iterations"] == 120
    assert sum(visits for _, visits, _ in stats) == 120
    assert 100 <= decision.details["evaluations"] <= 121
    with pytest.raises(SpecError, match="runtime=numpy"):
        GuidedAgent(native=2, runtime="onnx")

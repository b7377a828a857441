"""The guide's features read only what the player to move sees: every sample of one information
set (and the true state) encodes alike, in the same order; the policy has an output for every
legal move of every kind."""

from __future__ import annotations

import random

from helpers.games import random_game_states
from hypothesis import given, settings
from hypothesis import strategies as st

from duel.agents.guided.features import N_FEATURES, N_POLICY, encode, move_slots
from duel.engine import InfoSet, Perspective
from duel.engine.moves import MOVE_KINDS
from duel.engine.steps import GAME_END


def _encoded(state: object) -> tuple[list[int], list[float]]:
    idx: list[int] = []
    val: list[float] = []
    encode(state, idx, val)  # type: ignore[arg-type]
    return idx, val


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), ply=st.integers(0, 120), sample=st.integers(0, 1000))
def test_samples_of_a_view_encode_like_the_true_state(seed: int, ply: int, sample: int) -> None:
    states = random_game_states(seed)
    state = states[min(ply, len(states) - 2)]
    view = Perspective.to_move(state).view(state)
    info = InfoSet.from_view(view)
    truth = _encoded(state)
    assert _encoded(info.sample(random.Random(sample))) == truth
    assert _encoded(info.sample(random.Random(sample + 1))) == truth
    idx, val = truth
    assert len(set(idx)) == len(idx) and all(0 <= i < N_FEATURES for i in idx)
    assert all(0 <= v <= 10 for v in val)  # scaled near [0, 1]


def test_every_legal_move_has_a_policy_output_and_the_pairs_are_distinct() -> None:
    kinds = set()
    for seed in range(40):
        for state in random_game_states(seed):
            if state.step == GAME_END:
                continue
            pairs = [move_slots(state, m) for m in state.legal_moves()]
            assert len(set(pairs)) == len(pairs)  # two moves never share a logit
            for (a, b), m in zip(pairs, state.legal_moves(), strict=True):
                assert 0 <= a < N_POLICY and -1 <= b < N_POLICY
                kinds.add(m.kind)
    assert kinds == set(MOVE_KINDS)

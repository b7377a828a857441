"""The learning environments: API conformance (Gymnasium, PettingZoo), masks against the engine's
legal moves, no hidden information in observations, reproducibility, illegal actions, rewards."""

from __future__ import annotations

import random
import warnings
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test, seed_test  # type: ignore[import-untyped]

from duel.agents.base import Decision
from duel.engine import InfoSet, Move, new_game, seat_view, swap_move
from duel.engine.moves import MoveKind
from duel.engine.perspective import Perspective
from duel.engine.state import GameState
from duel.learning.rl.encoding import A_START, N_ACTIONS, action_of, encode_view, move_of
from duel.learning.rl.envs import (
    AGENTS,
    DuelAECEnv,
    DuelEnv,
    env,
    observation_space,
    seat_observation,
)

SPACE = observation_space()


def random_states(seed: int) -> Iterator[GameState]:
    """Every state of a random game (moves from random.Random(seed)), the final one included."""
    state = new_game(seed)
    rng = random.Random(seed)
    yield state.clone()
    while not state.is_terminal():
        state.play(rng.choice(state.legal_moves()))
        yield state.clone()


def expected_actions(state: GameState, seat: int) -> set[int]:
    if state.is_terminal() or state.current_player != seat:
        return set()
    return {action_of(swap_move(m) if seat == 1 else m) for m in state.legal_moves()}


def play_episode(e: DuelEnv, seed: int, policy_seed: int
                 ) -> tuple[list[np.ndarray], list[float], dict[str, object]]:
    obs, info = e.reset(seed=seed)
    rng = random.Random(policy_seed)
    observations = [obs["observation"]]
    rewards: list[float] = []
    done = False
    while not done:
        obs, reward, done, truncated, info = e.step(rng.choice(e.legal_actions()))
        assert not truncated
        observations.append(obs["observation"])
        rewards.append(reward)
    return observations, rewards, info


# ---------------------------------------------------------------------------- API conformance
def test_gymnasium_check_env() -> None:
    # The checker steps with unmasked random actions, which only a forfeiting env survives.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the checker's advice (no spec, no render modes) only
        check_env(DuelEnv(opponent="random", on_illegal="lose").unwrapped,
                  skip_render_check=True)


def test_gymnasium_check_env_with_the_default_env_meets_an_illegal_action() -> None:
    # Documents why the check above forfeits: the default env refuses unmasked actions.
    with pytest.raises(ValueError, match="legal actions"):
        check_env(DuelEnv(opponent="random").unwrapped, skip_render_check=True)


def test_pettingzoo_api_test() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # e.g. "all-zero mask" for the seat not to move
        api_test(DuelAECEnv(), num_cycles=200)
        seed_test(env, num_cycles=100)


def test_aec_full_games_select_the_seat_to_move_and_reward_the_winner() -> None:
    aec = DuelAECEnv()
    for seed in range(6):
        aec.reset(seed=seed)
        rng = random.Random(seed)
        totals = dict.fromkeys(AGENTS, 0.0)
        for agent in aec.agent_iter():
            obs, reward, terminated, truncated, info = aec.last()
            totals[agent] += reward
            if terminated or truncated:
                aec.step(None)
                continue
            seat = AGENTS.index(agent) + 1
            assert aec.state.current_player == seat
            other = seat_observation(aec.state, 3 - seat)
            assert not other["action_mask"].any()
            aec.step(rng.choice(np.flatnonzero(obs["action_mask"]).tolist()))
        result = aec.state.result()
        assert result is not None
        winner = result.winner_label
        for i, agent in enumerate(AGENTS):
            want = 0.0 if winner == "draw" else (1.0 if winner == i + 1 else -1.0)
            assert totals[agent] == want
        assert aec.agents == []


# ---------------------------------------------------------------------------- masks
def test_mask_is_exactly_the_legal_moves_for_both_seats() -> None:
    # 60 whole games, every ply, both seats (150 took 15 s of the default run's 20 minutes).
    for seed in range(60):
        for state in random_states(seed):
            for seat in (1, 2):
                obs = seat_observation(state, seat)
                assert SPACE.contains(obs), f"seed {seed} ply {state.ply}: out of bounds"
                masked = set(np.flatnonzero(obs["action_mask"]).tolist())
                assert masked == expected_actions(state, seat)
                legal = state.legal_moves()
                for a in masked:
                    move = move_of(a)
                    assert (swap_move(move) if seat == 1 else move) in legal


def test_gym_env_mask_info_and_legal_actions_agree() -> None:
    e = DuelEnv(opponent="random")
    for seed in range(8):
        obs, info = e.reset(seed=seed)
        rng = random.Random(seed)
        done = False
        while not done:
            assert e.state.current_player == e.learner
            want = expected_actions(e.state, e.learner)
            assert set(np.flatnonzero(obs["action_mask"]).tolist()) == want
            assert np.array_equal(obs["action_mask"], info["action_mask"])
            assert e.legal_actions() == sorted(want)
            assert np.array_equal(e.action_masks(), obs["action_mask"].astype(bool))
            obs, _, done, _, info = e.step(rng.choice(e.legal_actions()))
        assert not obs["action_mask"].any() and e.legal_actions() == []


def test_choose_starting_player_is_read_in_the_seats_labels() -> None:
    # "Player 2 starts" is the seat itself in its labels, whichever seat it truly is.
    found = set()
    for seed in range(60):
        for state in random_states(seed):
            if state.step_name != "CHOOSE_STARTING_PLAYER" or state.current_player in found:
                continue
            seat = state.current_player
            found.add(seat)
            e = DuelAECEnv()
            e.reset()
            e.state = state.clone()
            e.agent_selection = AGENTS[seat - 1]
            e.step(A_START + 1)
            assert e.state.current_player == seat
        if found == {1, 2}:
            return
    pytest.fail(f"no CHOOSE_STARTING_PLAYER decision found for seats {sorted({1, 2} - found)}")


# ---------------------------------------------------------------------------- hidden information
def differs_in_hidden_cards(a: GameState, b: GameState) -> bool:
    return a.pyramid != b.pyramid or a.deal != b.deal


def test_states_differing_only_in_hidden_cards_look_the_same() -> None:
    state = next(s for s in random_states(5) if s.step_name == "PLAY_CARD" and s.age == 2
                 and s.remaining <= 15)
    for seat in (1, 2):
        view = Perspective.of_player(seat).view(state)
        obs = encode_view(view)
        # Samples of the seat's own view keep its labels: the seat is their player2.
        own = [InfoSet.from_view(view).sample(random.Random(k)) for k in range(6)]
        # Samples of the true-labelled view keep the true labels.
        true_view = seat_view(state)
        true = [InfoSet.from_view(true_view).sample(random.Random(k)) for k in range(6)]
        for samples in (own, true):
            assert any(differs_in_hidden_cards(a, b) for a in samples for b in samples)
            assert any(differs_in_hidden_cards(a, state) for a in samples)
        for sample in own:
            assert np.array_equal(encode_view(Perspective.of_player(2).view(sample)), obs)
        for sample in true:
            assert np.array_equal(encode_view(Perspective.of_player(seat).view(sample)), obs)


def test_hidden_cards_never_change_observations_over_many_games() -> None:
    for seed in range(40):
        for state in random_states(seed):
            if state.ply % 3:
                continue
            true_view = seat_view(state)
            for seat in (1, 2):
                obs = seat_observation(state, seat)["observation"]
                for k in range(2):
                    sample = InfoSet.from_view(true_view).sample(random.Random(k))
                    again = encode_view(Perspective.of_player(seat).view(sample))
                    assert np.array_equal(again, obs), f"seed {seed} ply {state.ply} seat {seat}"


# ---------------------------------------------------------------------------- reproducibility
@pytest.mark.parametrize("opponent", ["random", "rule"])
def test_seeded_episodes_are_reproducible(opponent: str) -> None:
    for seed in (0, 11):
        first = play_episode(DuelEnv(opponent=opponent), seed, policy_seed=3)
        second = play_episode(DuelEnv(opponent=opponent), seed, policy_seed=3)
        assert len(first[0]) == len(second[0])
        for a, b in zip(first[0], second[0], strict=True):
            assert np.array_equal(a, b)
        assert first[1] == second[1]
        assert first[2]["result"] == second[2]["result"]
    other = play_episode(DuelEnv(opponent="random"), 1, policy_seed=3)
    assert not np.array_equal(other[0][0], first[0][0]) or other[1] != first[1]


def test_seat_none_draws_both_seats_and_a_fixed_seat_is_kept() -> None:
    e = DuelEnv(opponent="random")
    seats = set()
    for seed in range(16):
        e.reset(seed=seed)
        seats.add(e.learner)
    assert seats == {1, 2}
    fixed = DuelEnv(opponent="random", seat=1)
    for seed in range(4):
        fixed.reset(seed=seed)
        assert fixed.learner == 1
    fixed.reset(seed=0, options={"seat": 2})
    assert fixed.learner == 2 and fixed.state.current_player == 2


# ---------------------------------------------------------------------------- illegal actions
def test_illegal_action_raises_and_changes_nothing() -> None:
    e = DuelEnv(opponent="random")
    rng = random.Random(0)
    for seed in range(4):
        e.reset(seed=seed)
        for _ in range(1 + seed * 7):  # reach different steps of the game
            e.step(rng.choice(e.legal_actions()))
        legal = set(e.legal_actions())
        bad = [a for a in range(N_ACTIONS) if a not in legal][::37] + [-1, N_ACTIONS]
        for action in bad:
            before = seat_view(e.state)
            ply = e.state.ply
            with pytest.raises(ValueError, match=rf"action {action} .*legal actions: \["):
                e.step(action)
            assert seat_view(e.state) == before and e.state.ply == ply
        e.step(min(legal))  # the env still plays on


def test_aec_illegal_action_raises_and_changes_nothing() -> None:
    aec = DuelAECEnv()
    aec.reset(seed=2)
    before = seat_view(aec.state)
    agent = aec.agent_selection
    mask = aec.observe(agent)["action_mask"]
    bad = int(np.flatnonzero(mask == 0)[0])
    with pytest.raises(ValueError, match=f"action {bad} "):
        aec.step(bad)
    assert seat_view(aec.state) == before and aec.agent_selection == agent
    with pytest.raises(ValueError):
        aec.step(None)


def test_on_illegal_lose_forfeits() -> None:
    e = DuelEnv(opponent="random", on_illegal="lose")
    e.reset(seed=4)
    before = seat_view(e.state)
    bad = next(a for a in range(N_ACTIONS) if a not in e.legal_actions())
    obs, reward, done, truncated, info = e.step(bad)
    assert (reward, done, truncated) == (-1.0, True, False)
    assert info["result"].winner_label == 3 - e.learner and info["illegal_action"] == bad
    assert seat_view(e.state) == before and not obs["action_mask"].any()
    with pytest.raises(RuntimeError):
        e.step(0)


# ---------------------------------------------------------------------------- rewards
@pytest.mark.parametrize("opponent", ["random", "rule"])
def test_rewards_come_at_the_end_and_match_the_winner(opponent: str) -> None:
    e = DuelEnv(opponent=opponent)
    outcomes = set()
    for seed in range(12):
        _, rewards, info = play_episode(e, seed, policy_seed=seed)
        assert all(r == 0.0 for r in rewards[:-1])
        assert rewards[-1] in (-1.0, 0.0, 1.0)
        result = e.state.result()
        assert result is not None and info["result"] == result
        winner = result.winner_label
        want = 0.0 if winner == "draw" else (1.0 if winner == e.learner else -1.0)
        assert rewards[-1] == want
        outcomes.add(rewards[-1])
    assert {-1.0, 1.0} <= outcomes or opponent == "rule"


def test_shaping_adds_the_score_margin() -> None:
    plain = play_episode(DuelEnv(opponent="random"), 9, policy_seed=1)
    shaped_env = DuelEnv(opponent="random", shaping=0.5)
    shaped = play_episode(shaped_env, 9, policy_seed=1)
    me = shaped_env.state.score(shaped_env.learner - 1)["TOTAL"]
    them = shaped_env.state.score(2 - shaped_env.learner)["TOTAL"]
    assert shaped[1][:-1] == plain[1][:-1]
    assert shaped[1][-1] == pytest.approx(plain[1][-1] + 0.5 * (me - them) / 100)


def test_moves_are_true_labels_inside_the_env() -> None:
    # A learner in seat 1 sees itself as player2; its "start myself" must start seat 1.
    assert swap_move(move_of(A_START + 1)) == Move(MoveKind.CHOOSE_STARTING_PLAYER, player_number=1)


class Resigner:
    """An opponent that gives up at its first move (as an LLM agent may under fallback=forfeit)."""

    spec = "resigner"

    def choose(self, view: dict[str, Any], legal: Sequence[Move],
               rng: random.Random) -> Decision:
        return Decision(legal[0], forfeit=True)


def test_an_opponent_that_resigns_loses() -> None:
    e = DuelEnv(opponent=Resigner(), seat=1)
    e.reset(seed=0)
    obs, reward, done, _, info = e.step(e.legal_actions()[0])
    assert (reward, done) == (1.0, True)
    assert info["result"].winner_label == 1 and info["result"].victory == "forfeit"
    assert not obs["action_mask"].any() and e.legal_actions() == []

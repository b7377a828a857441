"""The observation's prior block (the rule agent's judgement of each action) and what the DQN
learns from a searching teacher: its root statistics and their distillation."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest

from duel.agents.rule_based import preferences
from duel.engine import InfoSet, new_game, seat_view, swap_move
from duel.engine.perspective import Perspective
from duel.learning.rl.encoding import (
    A_SELECT,
    N_ACTIONS,
    PRIOR_START,
    action_mask,
    action_of,
    encode_view,
)


def _mover_positions(seeds: range):  # type: ignore[no-untyped-def]
    for seed in seeds:
        state = new_game(seed)
        rng = random.Random(seed)
        while not state.is_terminal():
            seat = state.current_player
            legal = state.legal_moves()
            yield state, seat, [swap_move(m) for m in legal] if seat == 1 else legal
            state.play(rng.choice(legal))


def test_prior_is_zero_for_the_rule_agents_pick_and_one_off_the_legal_moves() -> None:
    checked = 0
    for state, seat, shown in _mover_positions(range(12)):
        view = Perspective.of_player(seat).view(state)
        prior = encode_view(view)[PRIOR_START:]
        assert prior.shape == (N_ACTIONS,) and ((prior >= 0) & (prior <= 1)).all()
        mask = action_mask(shown).astype(bool)
        assert (prior[~mask] == 1.0).all()
        scores, _, _ = preferences(InfoSet.from_view(view).sample(random.Random(0)), shown)
        best = max(scores.values())
        for move, score in scores.items():
            expected = min(1.0, (best - score) / 10.0)
            assert prior[action_of(move)] == pytest.approx(expected, abs=1e-6)
        assert prior[mask].min() == 0.0
        checked += 1
    assert checked > 500


def test_a_seat_not_to_move_has_no_prior() -> None:
    for state, seat, _ in _mover_positions(range(3)):
        other = Perspective.of_player(3 - seat).view(state)
        assert (encode_view(other)[PRIOR_START:] == 1.0).all()
    final = new_game(0)
    rng = random.Random(0)
    while not final.is_terminal():
        final.play(rng.choice(final.legal_moves()))
    assert (encode_view(seat_view(final))[PRIOR_START:] == 1.0).all()


torch = pytest.importorskip("torch")

from duel.learning.rl.demos import teacher_episode  # noqa: E402
from duel.learning.rl.dqn import Config, Trainer  # noqa: E402


def test_a_searching_teacher_records_its_root_statistics() -> None:
    ep = teacher_episode((4, 2, "random", "mcts:iterations=40"))
    assert len(ep.teacher_q) == len(ep.teacher_w) == len(ep.actions) > 10
    for mask, q, w, a in zip(ep.masks, ep.teacher_q, ep.teacher_w, ep.actions, strict=True):
        legal = mask.astype(bool)
        assert (w[~legal] == 0).all() and (q[~legal] == 0).all()
        assert ((q >= -1) & (q <= 1)).all()
        if legal.sum() == 1:
            assert w.sum() == 0  # a forced move teaches nothing
            continue
        assert w.sum() == pytest.approx(1.0, abs=1e-5)
        assert w[a] == w.max()  # the final move is the most visited one


def test_a_non_searching_teacher_records_no_statistics() -> None:
    ep = teacher_episode((4, 2, "random", "rule"))
    assert ep.teacher_q == [] and ep.teacher_w == [] and ep.actions


def _batch(trainer: Trainer, n: int) -> dict[str, torch.Tensor]:
    ep = teacher_episode((7, 1, "random", "mcts:iterations=30"))
    trainer.demos.add_episode(ep, 0.99, 5)
    return trainer.demos.sample(np.random.default_rng(0), n)


def test_distillation_is_the_visit_weighted_error_on_searched_rows(tmp_path: Path) -> None:
    cfg = Config(hidden=32, adv_penalty=0.0, batch=32, demo_episodes=2)
    trainer = Trainer(cfg, tmp_path)
    batch = _batch(trainer, 32)
    assert float((batch["tw"].sum(1) > 0).float().mean()) > 0.5
    trainer.cfg.distill_weight = 100.0
    with torch.no_grad():
        q_now = trainer.net(batch["obs"])
        base = float(trainer._loss({**batch, "tw": batch["tw"] * 0}, 0))  # TD only
        # Targets equal to the network's own values: the distillation adds nothing.
        same = float(trainer._loss({**batch, "tq": q_now}, 32))
        # One higher on every visited action: the visit shares sum to 1, so 1 per row.
        shifted = float(trainer._loss({**batch, "tq": q_now + 1.0}, 32))
    assert same == pytest.approx(base, rel=1e-4, abs=1e-5)
    assert shifted == pytest.approx(base + 100.0, rel=1e-3)


def test_the_advantage_penalty_only_counts_legal_actions(tmp_path: Path) -> None:
    cfg = Config(hidden=32, batch=16, demo_episodes=2, adv_penalty=1.0)
    trainer = Trainer(cfg, tmp_path)
    batch = _batch(trainer, 64)
    play_rows = batch["mask"][:, :A_SELECT].any(1) & ~batch["mask"][:, A_SELECT:].any(1)
    only_play = {k: v[play_rows] for k, v in batch.items()}
    other = {k: v[~play_rows] for k, v in batch.items()}
    assert len(only_play["obs"]) and len(other["obs"])
    with torch.no_grad():
        before = (float(trainer._loss(only_play, 0)), float(trainer._loss(other, 0)))
        trainer.net.other_head.bias[:] = 50.0  # huge advantages on the non-slot actions only
        after = (float(trainer._loss(only_play, 0)), float(trainer._loss(other, 0)))
    assert after[0] == pytest.approx(before[0], rel=1e-5)  # illegal there: not counted
    assert after[1] > before[1] + 100  # legal there (draft, tokens...): penalised

"""The masked DQN: a short seeded training run, its checkpoint, resuming, the ONNX export and the
`dqn` agent that plays it without torch."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest

from duel.engine.perspective import Perspective

torch = pytest.importorskip("torch")

from duel.agents.spec import make_agent  # noqa: E402
from duel.engine import new_game, swap_move  # noqa: E402
from duel.errors import SpecError  # noqa: E402
from duel.learning.rl.dqn import NEG, Config, QNet, Replay, Trainer, play_episode, train  # noqa: E402
from duel.learning.rl.encoding import A_SELECT, N_ACTIONS, OBS_SIZE, action_mask, encode_view  # noqa: E402
from duel.learning.rl.policy import DQNAgent, QModel, masked_argmax, shipped_model  # noqa: E402
from duel.match import play_match  # noqa: E402

TINY = dict(teacher="rule", demo_episodes=4, pretrain_steps=30, episodes=6, eval_every=3,
            eval_games=2, jobs=1, batch=16, buffer=4000, updates_per_episode=2, hidden=64)


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("dqn")
    train(Config(**TINY), out, quiet=True)  # type: ignore[arg-type]
    return out


def _observations(n: int) -> tuple[np.ndarray, np.ndarray]:
    """Real observations and masks from random games, both seats."""
    obs, masks = [], []
    rng = random.Random(5)
    seed = 0
    while len(obs) < n:
        state = new_game(seed)
        seed += 1
        while not state.is_terminal() and len(obs) < n:
            seat = state.current_player
            legal = state.legal_moves()
            obs.append(encode_view(Perspective.of_player(seat).view(state)))
            masks.append(action_mask([swap_move(m) for m in legal] if seat == 1 else legal))
            state.play(rng.choice(legal))
    return np.stack(obs), np.stack(masks)


def test_a_short_seeded_run_writes_everything(run_dir: Path) -> None:
    for name in ("checkpoint.pt", "model.onnx", "learning_curve.png", "curve.json",
                 "train.json"):
        assert (run_dir / name).stat().st_size > 0, name
    ck = torch.load(run_dir / "checkpoint.pt", weights_only=False)
    assert ck["episodes"] == TINY["episodes"] and ck["pretrained"] == TINY["pretrain_steps"]
    net = QNet(TINY["hidden"])  # type: ignore[arg-type]
    net.load_state_dict(ck["net"])  # the checkpoint loads into a fresh network
    assert [c["episodes"] for c in ck["curve"]] == [0, 3, 6]


def test_a_finished_run_resumes_without_redoing_work(run_dir: Path) -> None:
    before = torch.load(run_dir / "checkpoint.pt", weights_only=False)
    trainer = train(Config(**{**TINY, "episodes": 8}), run_dir, quiet=True)  # type: ignore[arg-type]
    assert trainer.episodes == 8
    assert trainer.pretrained == before["pretrained"]  # no second pre-training
    assert trainer.demos.n == before["demos"]["n"]  # no second demonstration phase
    assert trainer.steps == before["steps"] + 2 * TINY["updates_per_episode"]  # type: ignore[operator]


def test_onnx_and_torch_choose_the_same_actions(run_dir: Path) -> None:
    ck = torch.load(run_dir / "best.pt") if (run_dir / "best.pt").exists() else None
    net = QNet(TINY["hidden"])  # type: ignore[arg-type]
    net.load_state_dict(ck if ck is not None else
                        torch.load(run_dir / "checkpoint.pt", weights_only=False)["net"])
    obs, masks = _observations(300)
    with torch.no_grad():
        q_torch = net(torch.from_numpy(obs)).numpy()
    q_onnx = QModel(run_dir / "model.onnx").q_values(obs)
    assert q_onnx.shape == (300, N_ACTIONS)
    np.testing.assert_allclose(q_onnx, q_torch, rtol=1e-4, atol=1e-4)
    assert (masked_argmax(q_onnx, masks) == masked_argmax(q_torch, masks)).all()


def test_masked_argmax_never_picks_an_illegal_action() -> None:
    obs, masks = _observations(200)
    q = np.random.default_rng(0).normal(size=(200, N_ACTIONS)) * 100
    picks = masked_argmax(q, masks)
    assert all(masks[i, a] for i, a in enumerate(picks))


def test_targets_ignore_illegal_actions() -> None:
    """A huge Q-value on illegal actions must not leak into the TD target."""
    trainer = Trainer(Config(**{**TINY, "hidden": 32}), Path("unused"))  # type: ignore[arg-type]
    obs, masks = _observations(60)
    # A card-play position: only slot actions are legal, so every other action is illegal.
    j = next(i for i in range(1, 60) if masks[i].any() and not masks[i, A_SELECT:].any())
    with torch.no_grad():
        for p in trainer.target.parameters():
            p.zero_()
        trainer.target.other_head.bias[:] = 1e6
    batch = {"obs": torch.from_numpy(obs[:1]), "mask": torch.from_numpy(masks[:1].astype(bool)),
             "action": torch.tensor([int(np.flatnonzero(masks[0])[0])]),
             "ret": torch.tensor([0.0]), "next_obs": torch.from_numpy(obs[j:j + 1]),
             "next_mask": torch.from_numpy(masks[j:j + 1].astype(bool)),
             "discount": torch.tensor([0.9])}
    assert float(trainer._loss(batch, 0)) < 1e3  # the illegal 1e6 never entered the target
    assert NEG < -1e6


def test_margin_loss_is_zero_when_the_teacher_action_leads_by_the_margin() -> None:
    trainer = Trainer(Config(**{**TINY, "hidden": 32}), Path("unused"))  # type: ignore[arg-type]
    q = torch.full((1, N_ACTIONS), NEG)
    q[0, 3], q[0, 5] = 2.0, 0.5
    mask = torch.zeros((1, N_ACTIONS), dtype=torch.bool)
    mask[0, 3] = mask[0, 5] = True
    lead_ok = trainer._margin(q, torch.tensor([3]))
    lead_bad = trainer._margin(q, torch.tensor([5]))
    assert float(lead_ok) == 0.0
    assert float(lead_bad) == pytest.approx(2.0 + trainer.cfg.margin - 0.5)


def test_replay_n_step_returns() -> None:
    ep = play_episode(3, 2, "random", lambda o, m, v, s, r: int(np.flatnonzero(m)[0]))
    replay = Replay(1000)
    replay.add_episode(ep, gamma=0.5, n_step=3)
    t = len(ep.actions)
    assert replay.n == t
    assert replay.discount[t - 1] == 0.0 and replay.ret[t - 1] == ep.reward
    assert replay.discount[t - 3] == 0.0 and replay.ret[t - 3] == ep.reward * 0.25
    assert replay.discount[0] == 0.125 and replay.ret[0] == 0.0
    assert (replay.next_obs[0] == ep.obs[3]).all()
    assert ep.reward in (-1.0, 0.0, 1.0)


def test_the_dqn_agent_plays_legal_games_with_a_model_file(run_dir: Path) -> None:
    spec = f"dqn:{run_dir / 'model.onnx'}"
    for seed in range(3):
        result = play_match(spec, "random", seed=seed)  # play_match checks every move
        assert result.result.winner_label in (1, 2, "draw")
        result = play_match("rule", spec, seed=seed)
        assert result.result.winner_label in (1, 2, "draw")


def test_the_shipped_model_loads_and_plays() -> None:
    assert shipped_model().is_file(), "the package ships duel/learning/rl/models/dqn.onnx"
    agent = make_agent("dqn")
    assert isinstance(agent, DQNAgent)
    assert agent.model.q_values(np.zeros(OBS_SIZE, np.float32)).shape == (1, N_ACTIONS)
    assert play_match("dqn", "random", seed=1).result.winner_label in (1, 2, "draw")


def test_bad_model_paths_are_spec_errors(tmp_path: Path) -> None:
    with pytest.raises(SpecError, match="no model file"):
        make_agent(f"dqn:{tmp_path / 'missing.onnx'}")
    junk = tmp_path / "junk.onnx"
    junk.write_bytes(b"not a model")
    with pytest.raises(SpecError, match="not a readable ONNX model"):
        make_agent(f"dqn:{junk}")

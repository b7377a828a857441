"""Training the masked deep-Q network that the `dqn` agent plays: `train` runs one resumable run.

What produced the shipped model (the README's section on the learned agent has the figures):
distilling a searching teacher on top of the rule agent's prior. MCTS plays the learner's seat
against the opponent; every decision keeps the root's statistics, each searched action's mean
value and share of the visits. Pre-training fits the Q-values to those values (squared error
weighted by the visit share), together with the double-DQN n-step TD loss and a penalty that keeps
advantages near 0 where nothing moves them; the network starts from the rule agent's judgement
(the prior in every observation) and learns where to differ from it. A teacher that does not
search gives no values, so its actions are learnt with a large-margin loss instead.

RL episodes against the opponent may follow (epsilon-greedy, learning from its own replay buffer
and the demonstrations), but they did not raise the score, so by default there are none. A run
keeps its best greedy evaluation (`best.pt`) and exports that, so episodes cannot make it worse.
Illegal actions are masked before every max and argmax, in targets as in play.

The parts live in modules named for their job: `config`, `network`, `episodes`, `demos`, `replay`,
`trainer`, `export` and `plots`. Needs the ``train`` extra (PyTorch); playing the exported model
needs only onnxruntime (`duel.learning.rl.policy`).
"""

from __future__ import annotations

import json
import time
from dataclasses import asdict
from pathlib import Path

import torch

from duel.learning.rl.config import Config
from duel.learning.rl.episodes import Episode, play_episode
from duel.learning.rl.export import export_onnx
from duel.learning.rl.network import QNet
from duel.learning.rl.plots import plot_curve
from duel.learning.rl.replay import Replay
from duel.learning.rl.trainer import NEG, Trainer

__all__ = ["NEG", "Config", "Episode", "QNet", "Replay", "Trainer", "export_onnx", "play_episode",
           "plot_curve", "train"]


def train(cfg: Config, out: Path, resume: bool = True, quiet: bool = False) -> Trainer:
    """Collect demonstrations, pre-train, then train for `cfg.episodes` episodes, evaluating and
    checkpointing every `cfg.eval_every`; a run in `out` resumes where its checkpoint left off.
    Writes `model.onnx` (the best evaluation), `learning_curve.png` and `train.json` to `out`."""
    from tqdm import tqdm

    torch.set_num_threads(1)
    trainer = Trainer(cfg, out)
    ck = out / "checkpoint.pt"
    if resume and ck.exists():
        trainer.load(ck)
    start = time.perf_counter()
    if trainer.demos.n == 0 and cfg.demo_episodes:
        with tqdm(total=cfg.demo_episodes, desc=f"demos ({cfg.teacher})", disable=quiet) as bar:
            trainer.collect_demos(bar.update)
        trainer.save()
    if trainer.pretrained < cfg.pretrain_steps:
        with tqdm(total=cfg.pretrain_steps, initial=trainer.pretrained, desc="pre-training",
                  disable=quiet) as bar:
            trainer.pretrain(bar.update)
        trainer.target.load_state_dict(trainer.net.state_dict())
        trainer.curve.append({"episodes": 0, "score_rate": trainer.evaluate(cfg.eval_games)})
        torch.save(trainer.net.state_dict(), out / "best.pt")  # the first candidate
        trainer.save()
    with tqdm(total=cfg.episodes, initial=trainer.episodes, desc=f"training vs {cfg.opponent}",
              disable=quiet) as bar:
        recent: list[float] = []
        while trainer.episodes < cfg.episodes:
            recent = (recent + [trainer.train_episode().won])[-100:]
            bar.update(1)
            bar.set_postfix(eps=f"{trainer.epsilon():.3f}",
                            won=f"{sum(recent) / len(recent):.2f}")
            if trainer.episodes % cfg.eval_every == 0 or trainer.episodes == cfg.episodes:
                rate = trainer.evaluate(cfg.eval_games)
                trainer.curve.append({"episodes": trainer.episodes, "score_rate": rate})
                if rate >= max(c["score_rate"] for c in trainer.curve):
                    torch.save(trainer.net.state_dict(), out / "best.pt")
                trainer.save()
    elapsed = time.perf_counter() - start
    meta = {"config": asdict(cfg), "curve": trainer.curve, "demo_stats": trainer.demo_stats,
            "seconds_this_run": round(elapsed, 1), "steps": trainer.steps}
    (out / "train.json").write_text(json.dumps(meta, indent=1))
    best = out / "best.pt"
    final = QNet(cfg.hidden)
    final.load_state_dict(torch.load(best) if best.exists() else trainer.net.state_dict())
    export_onnx(final, out / "model.onnx")
    plot_curve(trainer.curve, out / "learning_curve.png", cfg.opponent)
    return trainer

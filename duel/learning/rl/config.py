"""The settings of one `duel train dqn` run.

The defaults are the run that produced the shipped model (``duel/learning/rl/models/dqn.onnx``):
600 games of an MCTS teacher, 6000 pre-training steps distilling its root values, and no RL
episodes after them (they did not raise the score; see the README's section on the learned agent).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class Config:
    opponent: str = "rule"
    teacher: str = "mcts:iterations=300"
    demo_episodes: int = 600
    pretrain_steps: int = 6000
    episodes: int = 0  # RL episodes after pre-training; best.pt keeps whichever evaluation won
    hidden: int = 256
    gamma: float = 0.99
    n_step: int = 10
    lr: float = 2.5e-4
    batch: int = 128
    buffer: int = 200_000
    demo_ratio: float = 0.25  # share of each batch drawn from the demonstrations
    margin: float = 0.8  # large-margin loss: how far the teacher's action must lead
    margin_weight: float = 1.0  # for demonstrations without search statistics
    distill_weight: float = 1.0  # for a searching teacher's root values
    adv_penalty: float = 0.1  # keeps advantages near 0 where nothing moves them
    eps_start: float = 0.10
    eps_end: float = 0.01
    eps_episodes: int = 1500
    updates_per_episode: int = 16
    target_every: int = 500  # gradient steps between target-network copies
    eval_every: int = 250
    eval_games: int = 100
    jobs: int = 2
    seed: int = 0

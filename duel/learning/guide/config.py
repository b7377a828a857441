"""The settings of one `duel train guide` run (no torch or numpy needed to read them: the CLI's
defaults come from here).

The defaults are the run that produced the shipped model
(``duel/agents/guided/models/default.onnx``); docs/guide.md gives its figures.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import Any


@dataclass
class GuideConfig:
    """One run's settings; the defaults are the run that produced the shipped model."""

    bootstrap_spec: str = "mcts:iterations=500"
    bootstrap_games: int = 600
    explore: int = 10  # bootstrap decisions per game drawn in proportion to visits
    generations: int = 2
    games_per_generation: int = 400
    guided_spec: str = "iterations=200,root=gumbel,mix=0.3"  # guide=netK/model.onnx is added
    guided_explore: int = 0  # the Gumbel root's own noise explores
    window: int = 3  # generations of games a net learns from (the bootstrap included)
    hidden: int = 256
    depth: int = 1
    epochs: int = 12
    batch: int = 256
    lr: float = 1e-3
    weight_decay: float = 1e-4
    q_weight: float = 1.0  # measured: docs/guide.md
    value_weight: float = 1.0
    eval_games: int = 30
    eval_spec: str = "iterations=300"  # both sides get it: guide=... added to one
    jobs: int = 1
    seed: int = 0
    first_seed: int = 1_000_000  # deals of self-play (benchmarks use seeds from 0)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @staticmethod
    def from_json(obj: dict[str, Any]) -> GuideConfig:
        known = {f.name for f in fields(GuideConfig)}
        return GuideConfig(**{k: v for k, v in obj.items() if k in known})

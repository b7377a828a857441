"""duel where LLM agents are trained: one text environment (`TextEnv`) under every framework,
its rewards (`rewards`), and the framework seat it plays (`seat`). The framework owns the model
call; duel owns the game. Integrations: duel.envs.trl (TRL's GRPOTrainer), duel.envs.openenv
(an OpenEnv server and client), duel.envs.positions (decision positions as a dataset and a
reward). Docs: docs/training.md."""

from __future__ import annotations

from duel.envs.text import EpisodeOverError, Observation, StepResult, TextEnv

__all__ = ["EpisodeOverError", "Observation", "StepResult", "TextEnv"]

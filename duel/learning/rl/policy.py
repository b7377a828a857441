"""The learned agent at play time: an ONNX Q-network run with onnxruntime (no torch needed).

Spec: ``dqn`` plays the model shipped in the package; ``dqn:PATH`` plays a model file.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from duel.agents.base import Decision
from duel.engine import Move
from duel.errors import SpecError
from duel.learning.rl.encoding import action_mask, action_of, encode_view, move_of
from duel.util import onnx

SHIPPED = "dqn.onnx"


def shipped_model() -> Path:
    return Path(str(resources.files("duel.learning.rl").joinpath("models", SHIPPED)))


_shown = onnx.shown


def masked_argmax(q: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """The best legal action of each row: illegal actions count as -inf."""
    best: np.ndarray = np.where(mask.astype(bool), q, -np.inf).argmax(axis=-1)
    return best


class QModel:
    """An ONNX Q-network: observations (N, OBS_SIZE) float32 in, Q-values (N, N_ACTIONS) out."""

    def __init__(self, path: str | Path) -> None:
        path = Path(path)
        try:
            found = path.is_file()
        except OSError as exc:  # a name too long for the file system, a path through a file
            raise SpecError(f"dqn: cannot open model file {_shown(path)}: "
                            f"{exc.strerror or exc}") from None
        if not found:
            raise SpecError(f"dqn: no model file {_shown(path)}")
        self.session = onnx.session(path, "dqn")
        self.input = self.session.get_inputs()[0].name
        self.path = path

    def q_values(self, obs: np.ndarray) -> np.ndarray:
        batch = obs.reshape(-1, obs.shape[-1]).astype(np.float32, copy=False)
        out: np.ndarray = self.session.run(None, {self.input: batch})[0]
        return out


class DQNAgent:
    """Greedy over the network's Q-values among the legal moves."""

    def __init__(self, path: str | Path | None = None) -> None:
        self.model = QModel(path or shipped_model())
        self.spec = "dqn" if path is None else f"dqn:{path}"

    def choose(self, view: dict[str, Any], legal: Sequence[Move],
               rng: random.Random) -> Decision:
        obs = encode_view(view)
        mask = action_mask(legal)
        q = self.model.q_values(obs)[0]
        action = int(masked_argmax(q, mask))
        return Decision(move_of(action), {"q": round(float(q[action]), 4)})


def parse_dqn_spec(rest: str) -> DQNAgent:
    """The agent of spec ``dqn`` (the shipped model) or ``dqn:PATH`` (a model file)."""
    return DQNAgent(rest.strip() or None)


__all__ = ["DQNAgent", "QModel", "action_of", "masked_argmax", "parse_dqn_spec", "shipped_model"]

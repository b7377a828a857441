"""The guide's network (PyTorch, for training) and its export: ONNX for onnxruntime, the same
weights as arrays for the numpy path (duel.agents.guided.runtime), and the metadata.

Features in (:data:`~duel.agents.guided.features.N_FEATURES`, sparse: mostly 0/1), a shared
trunk of `depth` + 1 fully connected ReLU layers, then two heads: the policy, one logit per
card-indexed output (:data:`~duel.agents.guided.features.N_POLICY`; a move's logit is one
output or the sum of two), and the value, a logit of the mover's expected score (win 1, draw
1/2, loss 0).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from duel.agents.guided.features import FEATURES_VERSION, N_FEATURES, N_POLICY


class GuideNet(nn.Module):
    def __init__(self, hidden: int = 256, depth: int = 1, value_hidden: int = 64) -> None:
        super().__init__()
        self.hidden = hidden
        self.depth = depth
        self.value_hidden = value_hidden
        self.inp = nn.Linear(N_FEATURES, hidden)
        self.body = nn.ModuleList(nn.Linear(hidden, hidden) for _ in range(depth))
        self.policy = nn.Linear(hidden, N_POLICY)
        self.value1 = nn.Linear(hidden, value_hidden)
        self.value2 = nn.Linear(value_hidden, 1)
        # Start from a uniform policy and a value of 1/2: the first generation's search is then
        # an unbiased PUCT until training moves them.
        nn.init.zeros_(self.policy.weight)
        nn.init.zeros_(self.policy.bias)
        nn.init.zeros_(self.value2.weight)
        nn.init.zeros_(self.value2.bias)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """(policy outputs (batch, N_POLICY), value logits (batch, 1))."""
        h = torch.relu(self.inp(x))
        for layer in self.body:
            h = torch.relu(layer(h))
        return self.policy(h), self.value2(torch.relu(self.value1(h)))

    def settings(self) -> dict[str, int]:
        return {"hidden": self.hidden, "depth": self.depth, "value_hidden": self.value_hidden}


def export(net: GuideNet, path: Path, info: dict[str, Any]) -> Path:
    """Write ``path`` (.onnx), its .npz weights and its .json metadata (`info` added)."""
    net.eval()
    path = path.with_suffix(".onnx")
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.stem + ".tmp.onnx")
    torch.onnx.export(net, (torch.zeros(1, N_FEATURES),), str(tmp), input_names=["features"],
                      output_names=["policy", "value"],
                      dynamic_axes={"features": {0: "batch"}, "policy": {0: "batch"},
                                    "value": {0: "batch"}},
                      opset_version=17, dynamo=False)
    arrays = {k: v.detach().cpu().numpy().astype(np.float32)
              for k, v in net.state_dict().items()}
    np.savez(path.with_suffix(".npz"), **arrays)
    meta = {"features_version": FEATURES_VERSION, "n_features": N_FEATURES,
            "n_policy": N_POLICY, **net.settings(), **info}
    path.with_suffix(".json").write_text(json.dumps(meta, indent=1) + "\n")
    tmp.replace(path)
    return path

"""The trained network as an ONNX file: what the `dqn` agent plays with onnxruntime alone."""

from __future__ import annotations

from pathlib import Path

import torch

from duel.learning.rl.encoding import OBS_SIZE
from duel.learning.rl.network import QNet


def export_onnx(net: QNet, path: Path) -> None:
    """The Q-network as ONNX (opset 17, dynamic batch), the format the `dqn` agent plays."""
    net.eval()
    dummy = torch.zeros(1, OBS_SIZE)
    path.parent.mkdir(parents=True, exist_ok=True)
    torch.onnx.export(net, (dummy,), str(path), input_names=["obs"], output_names=["q"],
                      dynamic_axes={"obs": {0: "batch"}, "q": {0: "batch"}}, opset_version=17,
                      dynamo=False)

"""Opening an ONNX model for one game's decisions, as the learned agents (the DQN's Q-network,
the guide's network on its onnx runtime) do."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from duel.errors import SpecError


def shown(path: Path) -> str:
    """A model file's name as an error quotes it: long names cut, so the error stays a line."""
    text = str(path)
    return repr(text if len(text) <= 80 else text[:77] + "...")


def session(path: Path, what: str) -> Any:
    """An onnxruntime session of `path` on one thread (one game, one thread: tournaments run
    games in parallel processes instead); SpecError naming `what` (the spec kind) and the file
    when onnxruntime cannot read it."""
    import onnxruntime as ort  # type: ignore[import-untyped]

    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    try:
        return ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
    except Exception as exc:  # onnxruntime raises its own types for unreadable files
        raise SpecError(f"{what}: {shown(path)} is not a readable ONNX model: {exc}") from None

"""The guide's network at play time: a value and move priors for a position, with numpy or with
onnxruntime (no torch needed).

A model is three files with one stem: ``NAME.onnx`` (the network, what onnxruntime runs),
``NAME.npz`` (the same weights as arrays, what the numpy path runs) and ``NAME.json`` (its
metadata: the feature layout's version, sizes, how it was trained). ``guide=default`` is the one
shipped in the package (``duel/agents/guided/models/``); any other value is a path to a
``.onnx`` file.

Both runtimes compute the same function (a test checks they agree). The numpy path exploits the
sparse input: the first layer is the sum of the weight rows of the few hundred features present,
so one evaluation costs a few microseconds of arithmetic and a few numpy calls;
onnxruntime multiplies the dense vector of every feature. `duel bench guide` times both;
the faster (numpy, on this machine) is the default (`runtime=numpy`).

This module is plain Python (never compiled): the search (compiled) calls `evaluate` through it.
"""

from __future__ import annotations

import json
import math
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from duel.agents.guided.features import FEATURES_VERSION, N_FEATURES, N_POLICY, encode, moves_slots
from duel.engine import GameState, Move
from duel.errors import SpecError
from duel.util import onnx

SHIPPED = "default"
RUNTIMES = ("numpy", "onnx")


def shipped_model() -> Path:
    return Path(str(resources.files("duel.agents.guided").joinpath("models", SHIPPED + ".onnx")))


def model_path(name: str) -> Path:
    """The .onnx file `name` stands for: the shipped model for "default", else a path."""
    if name in ("", SHIPPED):
        return shipped_model()
    path = Path(name)
    if path.suffix != ".onnx":
        path = path.with_suffix(".onnx") if path.suffix in (".npz", ".json") else path
    return path


_shown = onnx.shown


def read_meta(path: Path) -> dict[str, Any]:
    meta_file = path.with_suffix(".json")
    try:
        meta: dict[str, Any] = json.loads(meta_file.read_text())
    except (OSError, ValueError) as exc:
        raise SpecError(f"guide: cannot read the model's metadata {_shown(meta_file)}: {exc}"
                        ) from None
    if meta.get("features_version") != FEATURES_VERSION or \
            meta.get("n_features") != N_FEATURES or meta.get("n_policy") != N_POLICY:
        raise SpecError(f"guide: {_shown(path)} was trained on another feature layout "
                        f"(version {meta.get('features_version')}, this duel reads "
                        f"{FEATURES_VERSION}); train it again")
    return meta


class Guide:
    """A loaded model. `evaluate(state, moves)`: the mover's expected score (0..1) and the
    moves' prior probabilities (summing to 1). `evaluations` counts the calls."""

    runtime = ""

    def __init__(self, path: Path) -> None:
        try:
            found = path.is_file()
        except OSError as exc:
            raise SpecError(f"guide: cannot open model file {_shown(path)}: "
                            f"{exc.strerror or exc}") from None
        if not found:
            raise SpecError(f"guide: no model file {_shown(path)}")
        self.path = path
        self.meta = read_meta(path)
        self.evaluations = 0

    def evaluate(self, state: GameState, moves: list[Move]) -> tuple[float, list[float]]:
        idx: list[int] = []
        val: list[float] = []
        encode(state, idx, val)
        slots = moves_slots(state, moves) if moves else []
        value, logits = self.raw(idx, val, slots)
        self.evaluations += 1
        return value, softmax(logits)

    def raw(self, idx: list[int], val: list[float], slots: list[int]
            ) -> tuple[float, list[float]]:
        """The value and each move's logit (moves given as `moves_slots` pairs)."""
        raise NotImplementedError


def softmax(logits: list[float]) -> list[float]:
    if not logits:
        return []
    top = max(logits)
    exps = [math.exp(x - top) for x in logits]
    total = sum(exps)
    return [e / total for e in exps]


class NumpyGuide(Guide):
    """The network's arithmetic in numpy, the first layer as a sum of rows."""

    runtime = "numpy"

    def __init__(self, path: Path) -> None:
        super().__init__(path)
        try:
            with np.load(path.with_suffix(".npz")) as w:
                arrays = {k: w[k].astype(np.float32) for k in w.files}
        except (OSError, ValueError) as exc:
            raise SpecError(f"guide: cannot read the model's weights "
                            f"{_shown(path.with_suffix('.npz'))}: {exc}") from None
        # Rows of the first layer by feature, and each later layer as (out, in).
        self.w_in = np.ascontiguousarray(arrays["inp.weight"].T)  # (features, hidden)
        self.b_in = arrays["inp.bias"]
        self.body = [(arrays[f"body.{i}.weight"], arrays[f"body.{i}.bias"])
                     for i in range(int(self.meta.get("depth", 1)))]
        self.w_pol = np.ascontiguousarray(arrays["policy.weight"])  # (policy, hidden)
        self.b_pol = arrays["policy.bias"]
        self.w_v1, self.b_v1 = arrays["value1.weight"], arrays["value1.bias"]
        self.w_v2, self.b_v2 = arrays["value2.weight"][0], float(arrays["value2.bias"][0])

    def raw(self, idx: list[int], val: list[float], slots: list[int]
            ) -> tuple[float, list[float]]:
        h = np.asarray(val, dtype=np.float32) @ self.w_in[idx] + self.b_in
        np.maximum(h, 0.0, out=h)
        for w, b in self.body:
            h = w @ h + b
            np.maximum(h, 0.0, out=h)
        v = self.w_v1 @ h + self.b_v1
        np.maximum(v, 0.0, out=v)
        value = 1.0 / (1.0 + math.exp(-(float(self.w_v2 @ v) + self.b_v2)))
        if not slots:
            return value, []
        first = slots[0::2]
        rows = self.w_pol[first] @ h + self.b_pol[first]
        logits: list[float] = rows.tolist()
        for i in range(len(first)):
            j = slots[2 * i + 1]
            if j >= 0:
                logits[i] += float(self.w_pol[j] @ h) + float(self.b_pol[j])
        return value, logits


class OnnxGuide(Guide):
    """The ONNX network run with onnxruntime on one thread (dense input)."""

    runtime = "onnx"

    def __init__(self, path: Path) -> None:
        super().__init__(path)
        self.session = onnx.session(path, "guide")
        self.input = self.session.get_inputs()[0].name
        self.x = np.zeros((1, N_FEATURES), dtype=np.float32)

    def raw(self, idx: list[int], val: list[float], slots: list[int]
            ) -> tuple[float, list[float]]:
        x = self.x
        x[0, idx] = val
        policy, value = self.session.run(None, {self.input: x})
        x[0, idx] = 0.0
        v = 1.0 / (1.0 + math.exp(-float(value[0, 0])))
        p = policy[0]
        logits = [float(p[slots[2 * i]]) + (float(p[slots[2 * i + 1]])
                                             if slots[2 * i + 1] >= 0 else 0.0)
                  for i in range(len(slots) // 2)]
        return v, logits

    def batch(self, rows: list[tuple[list[int], list[float]]]) -> tuple[np.ndarray, np.ndarray]:
        """Many positions in one call: (policy outputs, values 0..1), for the benchmark."""
        x = np.zeros((len(rows), N_FEATURES), dtype=np.float32)
        for r, (idx, val) in enumerate(rows):
            x[r, idx] = val
        policy, value = self.session.run(None, {self.input: x})
        return policy, 1.0 / (1.0 + np.exp(-value[:, 0]))


_CACHE: dict[tuple[str, str], Guide] = {}


def load_guide(name: str, runtime: str = "numpy") -> Guide:
    """The model `name` ("default" or a path) on `runtime`, loaded once per process."""
    if runtime not in RUNTIMES:
        raise SpecError(f"guide: runtime must be one of {', '.join(RUNTIMES)}, got {runtime!r}")
    path = model_path(name)
    key = (str(path), runtime)
    guide = _CACHE.get(key)
    if guide is None:
        guide = NumpyGuide(path) if runtime == "numpy" else OnnxGuide(path)
        _CACHE[key] = guide
    return guide

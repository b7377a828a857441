"""The guide's network at play time: the shipped model loads from the package, numpy and
onnxruntime compute the same thing, bad model files are named, and no torch is needed."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from helpers.games import random_game_states

from duel.agents.guided.runtime import NumpyGuide, OnnxGuide, load_guide, shipped_model
from duel.agents.spec import make_agent
from duel.engine.steps import GAME_END
from duel.errors import SpecError


def test_the_shipped_model_is_small_and_installed_with_the_package() -> None:
    path = shipped_model()
    for suffix in (".onnx", ".npz", ".json"):
        size = path.with_suffix(suffix).stat().st_size
        assert 0 < size < 5_000_000, suffix
    assert load_guide("default") is load_guide("default")  # loaded once per process


def test_numpy_and_onnxruntime_agree() -> None:
    a, b = NumpyGuide(shipped_model()), OnnxGuide(shipped_model())
    compared = 0
    for seed in range(6):
        for state in random_game_states(seed)[::5]:
            if state.step == GAME_END:
                continue
            moves = state.legal_moves()
            va, pa = a.evaluate(state, moves)
            vb, pb = b.evaluate(state, moves)
            assert 0 < va < 1 and va == pytest.approx(vb, abs=1e-4)
            assert pa == pytest.approx(pb, abs=1e-4) and sum(pa) == pytest.approx(1.0)
            compared += 1
    assert compared > 50


def test_bad_model_files_are_named(tmp_path: Path) -> None:
    with pytest.raises(SpecError, match="no model file"):
        make_agent(f"mcts:guide={tmp_path / 'none.onnx'}")
    broken = tmp_path / "broken.onnx"
    broken.write_text("not a model")
    with pytest.raises(SpecError, match="metadata"):
        make_agent(f"mcts:guide={broken}")
    for suffix in (".onnx", ".npz", ".json"):
        shutil.copy(shipped_model().with_suffix(suffix), (tmp_path / "old").with_suffix(suffix))
    meta = json.loads((tmp_path / "old.json").read_text())
    (tmp_path / "old.json").write_text(json.dumps({**meta, "features_version": 0}))
    with pytest.raises(SpecError, match="another feature layout"):
        make_agent(f"mcts:guide={tmp_path / 'old.onnx'}")
    (tmp_path / "old.json").write_text(json.dumps(meta))
    (tmp_path / "old.onnx").write_text("garbage")
    with pytest.raises(SpecError, match="not a readable ONNX model"):
        make_agent(f"mcts:guide={tmp_path / 'old.onnx'},runtime=onnx")


@pytest.mark.parametrize("spec", ["mcts:cap=3", "mcts:guide=default,rollout=mast",
                                  "mcts:guide=default,runtime=cuda", "mcts:guide=default,root=x"])
def test_parameters_of_the_other_search_are_refused(spec: str) -> None:
    with pytest.raises(SpecError):
        make_agent(spec)


def test_the_guided_search_plays_without_torch() -> None:
    code = (
        "import sys\n"
        "sys.modules['torch'] = None  # any import of torch now raises ImportError\n"
        "from duel.match import play_match\n"
        "r = play_match('mcts:guide=default,iterations=20', 'random', seed=11)\n"
        "assert r.result is not None and sys.modules['torch'] is None\n"
        "print('ok')\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"

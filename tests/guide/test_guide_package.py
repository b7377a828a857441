"""The shipped guide is installed with the package: every file of duel/agents/guided/models/
matches pyproject's package data for duel.agents.guided (a wheel built with `pip wheel` holds
them; docs/guide.md), and the model stays small."""

from __future__ import annotations

import fnmatch
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_shipped_model_is_package_data_and_small() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    patterns = config["tool"]["setuptools"]["package-data"]["duel.agents.guided"]
    models = ROOT / "duel" / "agents" / "guided" / "models"
    files = sorted(p.relative_to(models.parent).as_posix() for p in models.iterdir())
    assert {"models/default.onnx", "models/default.npz", "models/default.json"} <= set(files)
    for name in files:
        assert any(fnmatch.fnmatch(name, pat) for pat in patterns), f"{name} is not installed"
    assert sum(p.stat().st_size for p in models.iterdir()) < 8_000_000

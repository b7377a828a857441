"""The source stays lint-clean and fully typed: `mypy --strict` over the package is what lets
the engine's hot path be compiled (mypyc) from the very same source later."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=600)


def test_ruff_finds_nothing() -> None:
    done = _run("ruff", "check", "duel", "server", "tests")
    assert done.returncode == 0, done.stdout + done.stderr


def test_mypy_strict_finds_nothing() -> None:
    done = _run("mypy", "--strict", "duel", "server")
    assert done.returncode == 0, done.stdout + done.stderr


def test_test_files_have_unique_names() -> None:
    """Test folders have no __init__.py (pytest imports each file by its basename), so two files
    of the same name in two layers would collide at collection."""
    names = [p.name for p in (ROOT / "tests").rglob("*.py") if p.name != "conftest.py"]
    assert sorted({n for n in names if names.count(n) > 1}) == []

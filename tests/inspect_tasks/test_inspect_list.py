"""The installed package's tasks as Inspect lists them: `inspect list tasks` (the real CLI, on
the installed package's folder) finds duel/match and duel/positions, and Inspect's registry,
once it has loaded duel's entry point, holds them with their parameters, which
`python -m duel.inspect` prints."""

from __future__ import annotations

import inspect
import json
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("inspect_ai")

import duel  # noqa: E402
from duel.inspect.match import match  # noqa: E402
from duel.inspect.positions import positions  # noqa: E402

BIN = Path(sys.executable).parent


def named(task: object) -> list[str]:
    """The task's `-T` names: its signature's, less the **kwargs that refuses a typo."""
    return [n for n, p in inspect.signature(task).parameters.items()  # type: ignore[arg-type]
            if p.kind is not p.VAR_KEYWORD]


def test_inspect_list_tasks_finds_both_in_the_installed_package() -> None:
    package = Path(duel.__file__).resolve().parent  # wherever pip put it
    done = subprocess.run([str(BIN / "inspect"), "list", "tasks", "--json", "inspect"],
                          cwd=package, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    found = {(Path(t["file"]).name, t["name"]) for t in json.loads(done.stdout)}
    assert found == {("match.py", "match"), ("positions.py", "positions")}


def test_the_registry_holds_both_tasks_with_their_parameters(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "duel.inspect"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    listed: dict[str, list[str]] = {}
    task = ""
    for line in done.stdout.splitlines():
        if line.startswith("  -T "):
            listed[task].append(line[5:].partition("=")[0])
        else:
            task = line.strip()
            listed[task] = []
    assert listed == {"duel/match": named(match), "duel/positions": named(positions)}
    assert {"opponent", "games", "tools", "quality"} <= set(listed["duel/match"])
    assert "  -T opponent=mcts:iterations=1000" in done.stdout.splitlines()

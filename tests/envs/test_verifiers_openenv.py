"""verifiers 0.4 over duel: its OpenEnv taskset loads tasks over a `duel openenv` server and plays
them as its OpenEnvEnv does (tests/envs/verifiers_openenv_client.py), whole games to the end.

verifiers 0.4.0 pins mcp==2.0.0 and duel needs mcp>=2.3,<3, so verifiers cannot be installed in
duel's environment: it runs in a Python of its own, named by DUEL_VERIFIERS_PYTHON (made with
`python3 -m venv V && V/bin/pip install 'verifiers[openenv]==0.4.0'`, about 800 MB), or else one
the test makes that way from the package registry (a slow test: CI runs it). Skipped, saying
why, only where the registry cannot be reached."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("openenv", reason="the openenv extra is not installed (duel[openenv])")
VF_PYTHON = os.environ.get("DUEL_VERIFIERS_PYTHON")
VERIFIERS = "verifiers[openenv]==0.4.0"
pytestmark = pytest.mark.slow  # a venv of verifiers' own: about 800 MB installed

from helpers.openenv_server import OpenEnvServer  # noqa: E402

CLIENT = Path(__file__).with_name("verifiers_openenv_client.py")


@pytest.fixture(scope="module")
def vf_python(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A Python holding verifiers: DUEL_VERIFIERS_PYTHON's, or a venv made here."""
    if VF_PYTHON:
        return VF_PYTHON
    venv = tmp_path_factory.mktemp("verifiers") / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    done = subprocess.run([str(venv / "bin" / "pip"), "install", "-q", VERIFIERS],
                          capture_output=True, text=True, timeout=1800)
    if done.returncode != 0:
        pytest.skip(f"{VERIFIERS} could not be installed from the package registry (it pins "
                    f"mcp==2.0.0, so it needs a venv of its own): {done.stderr[-400:]}")
    return str(venv / "bin" / "python")


@pytest.fixture()
def server(tmp_path: Path) -> Iterator[OpenEnvServer]:
    s = OpenEnvServer(tmp_path, "--seat", "1", "--opponent", "random")
    yield s
    s.stop()


def test_verifiers_openenv_taskset_plays_whole_games(server: OpenEnvServer,
                                                     vf_python: str) -> None:
    done = subprocess.run([vf_python, str(CLIENT), server.url], capture_output=True, text=True,
                          timeout=600, env={k: v for k, v in os.environ.items()
                                            if k != "PYTHONPATH"})
    assert done.returncode == 0, done.stderr[-3000:]
    games = [json.loads(line) for line in done.stdout.splitlines()]
    assert [g["name"] for g in games] == [f"{server.url}#0", f"{server.url}#1"]
    for g in games:
        assert g["steps"] > 15 and g["result"]["victory"]
        you_won = g["result"]["winner"] == 1
        assert g["reward"] == pytest.approx(1.0 if you_won else
                                            0.0 if g["result"]["winner"] is None else -1.0)

"""verifiers 0.4 over duel: its OpenEnv taskset loads tasks over a `duel openenv` server and plays
them as its OpenEnvEnv does (tests/envs/verifiers_openenv_client.py), whole games to the end.

verifiers 0.4.0 pins mcp==2.0.0 and duel needs mcp>=2.3,<3, so verifiers cannot be installed in
duel's environment: it runs in a Python of its own, named by DUEL_VERIFIERS_PYTHON (made with
`python3 -m venv V && V/bin/pip install 'verifiers[openenv]==0.4.0'`, about 800 MB), and the test
is skipped without one."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("openenv", reason="the openenv extra is not installed (duel[openenv])")
VF_PYTHON = os.environ.get("DUEL_VERIFIERS_PYTHON")
pytestmark = pytest.mark.skipif(
    not VF_PYTHON, reason="set DUEL_VERIFIERS_PYTHON to a Python with verifiers[openenv]==0.4.0 "
    "(it pins mcp==2.0.0, which duel's environment cannot hold)")

from helpers.openenv_server import OpenEnvServer  # noqa: E402

CLIENT = Path(__file__).with_name("verifiers_openenv_client.py")


@pytest.fixture()
def server(tmp_path: Path) -> Iterator[OpenEnvServer]:
    s = OpenEnvServer(tmp_path, "--seat", "1", "--opponent", "random")
    yield s
    s.stop()


def test_verifiers_openenv_taskset_plays_whole_games(server: OpenEnvServer) -> None:
    assert VF_PYTHON is not None
    done = subprocess.run([VF_PYTHON, str(CLIENT), server.url], capture_output=True, text=True,
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

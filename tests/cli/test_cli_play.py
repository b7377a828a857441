"""`duel play --vs SPEC`: a server of its own on a free loopback port, the game created through
the REST API, the play page's address printed (with the seat's token in the fragment only),
and the page and the seat's moves served there."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import pytest

from duel.cli.play import opponent, seat_name

ROOT = Path(__file__).resolve().parents[2]


def _address(proc: subprocess.Popen[str], seconds: float = 60.0) -> str:
    deadline = time.monotonic() + seconds
    assert proc.stdout is not None
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if line.startswith("Play at "):
            return line.split()[2]
        if not line and proc.poll() is not None:
            break
    raise AssertionError(f"no address printed (exit {proc.poll()})")


@pytest.mark.parametrize("seat", [1, 2])
def test_duel_play_serves_the_game_it_created(tmp_path: Path, seat: int) -> None:
    db = tmp_path / "games.sqlite"
    proc = subprocess.Popen(
        [sys.executable, "-m", "duel.cli", "play", "--vs", "mcts:time=1", "--seed", "3",
         "--seat", str(seat), "--no-browser", "--db", str(db)],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)})
    try:
        url = _address(proc)
        parts = urlsplit(url)
        assert parts.hostname == "127.0.0.1" and parts.path.endswith("/play")
        assert not parts.query and parts.fragment.startswith("token=")
        token = parts.fragment.removeprefix("token=")
        base = f"{parts.scheme}://{parts.netloc}"
        code = parts.path.split("/")[2]
        page = httpx.get(base + parts.path, timeout=30)
        assert page.status_code == 200 and "Board.setCatalogue" in page.text
        info = httpx.get(f"{base}/games/{code}/info",
                         headers={"Authorization": f"Bearer {token}"}, timeout=30).json()
        assert info["you"] == seat
        assert info["players"][str(3 - seat)] == "mcts:time=1"
        assert info["players"][str(seat)] == "external"
        assert httpx.get(base + "/", timeout=30).status_code == 200  # the lobby
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(30)
    assert db.exists()


def test_a_spec_the_catalogue_refuses_is_configured_by_name() -> None:
    assert opponent("mcts:time=1") == ("mcts:time=1", {})
    spec = "llm:compat:qwen2.5@http://127.0.0.1:9/v1,timeout=5"
    assert opponent(spec) == ("llm-qwen2.5", {"llm-qwen2.5": spec})
    assert seat_name("llm:openai:gpt-5-mini,reasoning_effort=low") == "llm-gpt-5-mini"
    assert seat_name("dqn:/models/x.onnx") == "dqn-x.onnx"
    assert seat_name("dqn") == "dqn"


def test_a_search_over_the_caps_or_an_unknown_agent_stops_in_one_line(
        capsys: pytest.CaptureFixture[str]) -> None:
    from duel.cli import main

    assert main(["play", "--vs", "mcts:time=100", "--no-browser"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("duel play: mcts budget too large") and "\n" not in err
    assert main(["play", "--vs", "bogus", "--no-browser"]) == 2
    assert "unknown agent" in capsys.readouterr().err

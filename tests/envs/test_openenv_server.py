"""`duel openenv` for real: the CLI's server in a subprocess on a loopback port, played by
openenv-core's own WebSocket client (DuelEnvClient): whole games to the end against random and
MCTS, each observation exactly TextEnv's (the twin-deal test there shows it holds no hidden
card), bad input as observations or one-line errors, the session cap refused with the server up,
an idle session expired with a clear error. Skipped without the openenv extra."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

pytest.importorskip("openenv", reason="the openenv extra is not installed (duel[openenv])")

from helpers.live_server import free_port  # noqa: E402
from helpers.openenv_server import OpenEnvServer  # noqa: E402

from duel.envs import TextEnv  # noqa: E402
from duel.envs.openenv import DuelAction  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture()
def serve(tmp_path: Path) -> Iterator[type]:
    servers: list[OpenEnvServer] = []

    def start(*options: str) -> OpenEnvServer:
        servers.append(OpenEnvServer(tmp_path, *options))
        return servers[-1]

    yield start  # type: ignore[misc]
    for s in servers:
        s.stop()


@pytest.mark.parametrize("opponent", ["random", "mcts:iterations=20"])
def test_whole_games_through_openenv_s_client(serve, opponent: str, tmp_path: Path) -> None:
    server = serve("--opponent", opponent, "--seat", "2", "--transcripts", str(tmp_path / "t"))
    local = TextEnv(opponent=opponent, seat=2, reward="outcome+legal")
    rng = random.Random(0)
    with server.client() as client:
        result = client.reset(seed=21)
        mine = local.reset(seed=21)
        steps = 0
        while not result.done:
            obs = result.observation
            assert (obs.text, obs.chat, obs.view, obs.legal) == (
                mine.text, mine.chat, mine.view, mine.legal)
            reply = json.dumps(rng.choice(obs.legal))
            result = client.step(DuelAction(reply=reply))
            theirs = local.step(reply)
            assert result.reward == pytest.approx(theirs.reward)
            mine = theirs.observation  # type: ignore[assignment]
            steps += 1
        assert steps > 15 and result.observation.info["result"] == theirs.info["result"]
        state = client.state()
        assert state.done and state.seat == 2 and state.result == theirs.info["result"]
        assert Path(result.observation.info["transcript"]).exists()
        with pytest.raises(RuntimeError, match="the episode is over"):
            client.step(DuelAction(reply="{}"))


@pytest.mark.slow  # over 15 s on 2 cores: the slow pass (CI runs it too)
def test_bad_input_the_session_cap_and_idle_expiry(serve) -> None:
    server = serve("--max-sessions", "2", "--idle-timeout", "1")
    with server.client() as a, server.client() as b:
        r = a.reset(seed=3)
        r = a.step(DuelAction(reply="no move here"))  # a refused reply is the re-ask
        assert not r.done and r.observation.info["legal"] is False
        assert r.observation.text.startswith("Your move was not accepted")
        with pytest.raises(RuntimeError, match="seed must be a whole number"):
            a.reset(seed=-4)
        b.reset(seed=4)
        # A third session is refused with openenv-core's error, then closed (its client sees
        # the error, or the closed socket if it sent first): the server stays up.
        from websockets.sync.client import connect

        with connect(server.url.replace("http", "ws") + "/ws") as ws:
            error = json.loads(ws.recv(timeout=30))
        assert error["type"] == "error" and error["data"]["code"] == "CAPACITY_REACHED"
        assert error["data"]["max_sessions"] == 2
        assert httpx.get(server.url + "/health", timeout=5).status_code == 200
        time.sleep(7)  # the reaper looks every 5 s for sessions idle past 1 s
        with pytest.raises(RuntimeError, match="closed|idle|connect again"):
            a.step(DuelAction(reply="{}"))
    with server.client() as d:  # the expired sessions made room
        assert d.reset(seed=6).observation.legal


def test_a_bad_opponent_stops_the_server_before_it_listens() -> None:
    done = subprocess.run([sys.executable, "-m", "duel.cli", "openenv", "--opponent",
                           "mcts:iterations=x", "--port", str(free_port())], cwd=ROOT,
                          capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 2 and "iterations" in done.stderr


@pytest.mark.slow  # over 15 s on 2 cores: the slow pass (CI runs it too)
def test_openenv_validate_passes_against_the_running_server(serve) -> None:
    """`openenv validate --url`: what of it runs offline (the running server's endpoints)."""
    server = serve()
    done = subprocess.run([sys.executable, "-m", "openenv.cli", "validate", "--url", server.url],
                          capture_output=True, text=True, timeout=120)
    report = json.loads(done.stdout)
    assert done.returncode == 0 and report["summary"]["failed_criteria"] == [], report
    assert report["summary"]["passed_count"] >= 6


def test_the_action_is_the_reply_or_the_move_s_json_itself() -> None:
    """verifiers' OpenEnv taskset sends the model's JSON reply as the action: a move object is
    that reply; anything else must be {"reply": ...} (openenv-core's models forbid extras)."""
    from pydantic import ValidationError

    move = {"move": "DISCARD", "moveData": {"cardIndex": 1}}
    assert json.loads(DuelAction.model_validate(move).reply) == move
    assert DuelAction.model_validate({"reply": "words"}).reply == "words"
    with pytest.raises(ValidationError):
        DuelAction.model_validate({"text": "words"})
    with pytest.raises(ValidationError):
        DuelAction(reply="x" * 20_001)

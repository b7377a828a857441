"""`duel mcp` as MCP clients start it: a subprocess over stdio (the 2026 protocol, and the
initialize handshake older clients use), and `--http PORT` (streamable HTTP on loopback, whose
Host check keeps web pages out). Whole games are played; bad input never takes the process down."""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
from helpers.live_server import ROOT
from helpers.mcp_client import call, http_server, play_out, refused, run
from mcp import Client
from mcp.client.stdio import StdioServerParameters

import duel


def stdio(tmp_path: Path, *options: str) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "duel.cli", "mcp", "--transcripts", str(tmp_path / "games"), *options],
        cwd=str(ROOT))


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_a_whole_game_over_stdio(tmp_path: Path, mode: str) -> None:
    async def body(c: Client) -> None:
        assert c.server_info is not None and c.server_info.name == "duel"
        # Bad input first: the process must go on answering.
        assert "no game" in await refused(c, "get_state", {"game": "nope"})
        assert "is not of type" in await refused(c, "new_game", {"seat": [1]})
        start = await call(c, "new_game", {"opponent": "random", "seat": 2, "seed": 21})
        end = await play_out(c, start["game"], random.Random(5))
        assert end["result"]["victory"] in ("military", "science", "civilian")

    run(stdio(tmp_path), body, mode=mode)
    (path,) = (tmp_path / "games").iterdir()
    duel.replay(path)


def test_streamable_http_on_loopback(tmp_path: Path) -> None:
    with http_server(tmp_path / "mcp.log", "--no-transcripts") as (url, proc):
        async def body(c: Client) -> None:
            start = await call(c, "new_game", {"opponent": "rule", "seed": 4})
            end = await play_out(c, start["game"], random.Random(1))
            assert end["over"]

        run(url, body)
        # A page of another site reaching the loopback server through DNS rebinding.
        r = httpx.post(url, headers={"Host": "evil.example", "Content-Type": "application/json",
                                     "Accept": "application/json, text/event-stream"},
                       json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
        assert r.status_code in (400, 403, 421), r.text
        assert proc.poll() is None


def test_bad_options_are_one_line_and_exit_2(tmp_path: Path) -> None:
    for options, words in ((["--http", "70000"], "--http takes a port"),
                           (["--agent", "x"], "--agent takes NAME=SPEC"),
                           (["--agent", "bad=nonsense:kind"], "bad=nonsense:kind"),
                           (["--server", "http://127.0.0.1:1", "--agent", "a=rule"],
                            "with --server"),
                           (["--server", "http://127.0.0.1:1", "--games", str(tmp_path)],
                            "--games keeps hosted games")):
        done = subprocess.run([sys.executable, "-m", "duel.cli", "mcp", *options], cwd=ROOT,
                              capture_output=True, text=True, timeout=60)
        assert done.returncode == 2, done.stderr
        assert words in done.stderr and "Traceback" not in done.stderr

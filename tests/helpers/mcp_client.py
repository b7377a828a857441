"""Driving `duel mcp` with the official SDK's client (in process, over stdio or over HTTP): one
call's answer or tool error, and a whole game played through the tools."""

from __future__ import annotations

import random
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import anyio
from mcp import Client

Answer = dict[str, Any]


async def call(client: Client, tool: str, arguments: dict[str, Any]) -> Answer:
    """A tool's structured answer; AssertionError (with the server's words) if it is a tool
    error."""
    r = await client.call_tool(tool, arguments)
    assert not r.is_error, f"{tool}({arguments}) failed: {r.content[0].text}"  # type: ignore[union-attr]
    assert isinstance(r.structured_content, dict)
    return r.structured_content


async def refused(client: Client, tool: str, arguments: Any) -> str:
    """The text of the tool error a call gets (AssertionError if it succeeds)."""
    r = await client.call_tool(tool, arguments)
    text = r.content[0].text  # type: ignore[union-attr]
    assert r.is_error, f"{tool}({str(arguments)[:200]}) was not refused: {text[:300]}"
    return str(text)


async def play_out(client: Client, game: str, rng: random.Random,
                   check: Callable[[Answer], Awaitable[None]] | None = None) -> Answer:
    """Play `game` to its end with random legal moves (each simulated first); `check` is
    awaited with each state answer. The last get_state answer."""
    while True:
        state = await call(client, "get_state", {"game": game})
        if check is not None:
            await check(state)
        if state["over"]:
            return state
        assert state["your_turn"], state
        legal = await call(client, "legal_moves", {"game": game})
        m = rng.choice(legal["moves"])
        move = {"game": game, "move": m["move"], "moveData": m["moveData"]}
        sim = await call(client, "simulate", move)
        assert sim["price"] == m["price"]
        answer = await call(client, "make_move", move)
        assert answer["played"], answer
        assert answer["ply"] > state["ply"]


def run(target: Any, body: Callable[[Client], Awaitable[Any]], **kw: Any) -> Any:
    """`body(client)` with a client of `target` (an MCPServer, a URL or stdio parameters)."""
    async def main() -> Any:
        async with Client(target, **kw) as client:
            return await body(client)

    return anyio.run(main)


@contextmanager
def http_server(log_path: Path, *options: str) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """`duel mcp --http PORT *options` as a process, once it answers: its URL and process
    (its output in `log_path`); terminated at the end."""
    import httpx
    from helpers.live_server import ROOT, free_port

    port = free_port()
    log = log_path.open("wb")
    proc = subprocess.Popen([sys.executable, "-m", "duel.cli", "mcp", "--http", str(port),
                             *options], cwd=ROOT, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}/mcp"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                httpx.get(url, timeout=2)
                break
            except httpx.HTTPError:
                assert proc.poll() is None, log_path.read_text()
                assert time.monotonic() < deadline, "duel mcp --http did not start"
                time.sleep(0.2)
        yield url, proc
    finally:
        proc.terminate()
        proc.wait(15)
        log.close()

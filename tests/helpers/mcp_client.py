"""Driving `duel mcp` with the official SDK's client (in process, over stdio or over HTTP): one
call's answer or tool error, and a whole game played through the tools."""

from __future__ import annotations

import random
from collections.abc import Awaitable, Callable
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

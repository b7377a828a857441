"""`duel mcp --server URL` against a real `duel serve`: the same tools play a seat of a server
game through its REST API. A game made by new_game is played to its end against the server's
agent; a lobby game with two external seats is played from one MCP client holding both seats'
tokens; the tools' legal moves and prices are the server's own; a wrong token, a game that is not
there and a move out of turn are tool errors."""

from __future__ import annotations

import random
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import httpx
import pytest
from helpers.live_server import ROOT, Server, start
from helpers.mcp_client import call, play_out, refused, run
from mcp import Client
from mcp.client.stdio import StdioServerParameters

import duel


def mcp_on(server: Server, wait: float = 60) -> StdioServerParameters:
    return StdioServerParameters(command=sys.executable,
                                 args=["-m", "duel.cli", "mcp", "--server", server.url,
                                       "--wait", str(wait), "--no-transcripts"],
                                 cwd=str(ROOT))


def test_new_game_on_the_server_is_played_to_its_end(servers: list[Server],
                                                     tmp_path: Path) -> None:
    """In process (so that the test can read the seat's token and ask the REST API the same
    questions), then over stdio as an MCP client runs it."""
    from duel.mcp.games import Games
    from duel.mcp.remote import Server as Rest
    from duel.mcp.server import build

    server = start(servers, tmp_path / "duel.db", tmp_path)
    asked: Counter[str] = Counter()

    def count(request: httpx.Request) -> None:
        parts = request.url.path.strip("/").split("/")  # games/{code}[/what]
        asked[parts[2] if len(parts) > 2 else "state"] += 1

    games = Games(server=Rest(server.url, httpx.Client(timeout=30,
                                                       event_hooks={"request": [count]})),
                  wait=60)
    code = ""
    turns = 0

    async def body(c: Client) -> dict[str, Any]:
        nonlocal code
        tools = [t.name for t in (await c.list_tools()).tools]
        assert tools[:2] == ["new_game", "join_game"]
        first = await call(c, "new_game", {"opponent": "rule", "seat": 2, "seed": 9})
        code = first["game"]
        assert first["your_turn"] and first["seat"] == 2
        token = games.games[code].table.token  # type: ignore[union-attr]

        async def same_as_rest(state: dict[str, Any]) -> None:
            """The tools' legal moves, prices and refusals are the REST API's."""
            nonlocal turns
            if not state["your_turn"]:
                return
            turns += 1
            rest = httpx.get(f"{server.url}/games/{code}/moves",
                             headers={"Authorization": f"Bearer {token}"}).json()
            mine = await call(c, "legal_moves", {"game": code, "why_not": True})
            assert [{k: m[k] for k in ("move", "moveData", "price")}
                    for m in mine["moves"]] == rest["moves"]
            assert [(r["move"], r["moveData"], r["reason"].removeprefix("face down, "))
                    for r in mine["unavailable"]] == \
                [(r["move"], r["moveData"], r["reason"]) for r in rest["unavailable"]]

        return await play_out(c, code, random.Random(3), check=same_as_rest)

    end = run(build(games), body)
    # One request a tool call (the state's headers say its ply), plus the move and its event
    # stream: a seat's turn is not a burst of reads that meets the per-address rate limit.
    # /info is read when the seat joins and once for the result.
    assert asked["info"] <= 2, asked
    assert sum(asked.values()) <= 10 * turns + 4, (asked, turns)  # 9.2 when written
    info = httpx.get(f"{server.url}/games/{code}/info").json()
    assert info["over"] and end["over"]
    assert end["result"]["victory"] == info["victory"]
    assert end["result"]["winner"] == (None if info["winner"] == "draw" else info["winner"])
    transcript = tmp_path / "game.jsonl"
    transcript.write_text(httpx.get(f"{server.url}/games/{code}/transcript").text)
    duel.replay(transcript)

    async def over_stdio(c: Client) -> dict[str, Any]:
        first = await call(c, "new_game", {"opponent": "random", "seat": 1})
        return await play_out(c, first["game"], random.Random(4))

    assert run(mcp_on(server), over_stdio)["over"]


@pytest.mark.slow  # about 20 s: two servers, a whole game
def test_a_lobby_game_is_played_from_both_seats(servers: list[Server],
                                                tmp_path: Path) -> None:
    server = start(servers, tmp_path / "duel.db", tmp_path)
    created = httpx.post(f"{server.url}/games",
                         json={"player1": "external", "player2": "external", "seed": 4}).json()
    code, tokens = created["code"], created["tokens"]

    async def body(c: Client) -> dict[str, Any]:
        one = await call(c, "join_game", {"code": code, "token": tokens["1"]})
        two = await call(c, "join_game", {"code": code, "token": tokens["2"]})
        ids = {1: one["game"], 2: two["game"]}
        assert ids == {1: code, 2: f"{code}-p2"}
        assert one["your_turn"] and not two["your_turn"]
        legal = (await call(c, "legal_moves", {"game": ids[1]}))["moves"]
        move = {"move": legal[0]["move"], "moveData": legal[0]["moveData"]}
        text = await refused(c, "make_move", {"game": ids[2], **move})
        assert "not your turn" in text
        assert "already joined" in await refused(c, "join_game", {"code": code,
                                                                  "token": tokens["2"]})
        assert "unknown token" in await refused(c, "join_game", {"code": code, "token": "x"})
        assert "404" in await refused(c, "join_game", {"code": "NoSuchGm", "token": "x"})
        rng = random.Random(8)
        while True:
            states = {n: await call(c, "get_state", {"game": g}) for n, g in ids.items()}
            if states[1]["over"]:
                assert states[2]["over"]
                return states[1]
            mover = 1 if states[1]["your_turn"] else 2
            assert states[mover]["your_turn"] and not states[3 - mover]["your_turn"]
            m = rng.choice((await call(c, "legal_moves", {"game": ids[mover]}))["moves"])
            answer = await call(c, "make_move", {"game": ids[mover], "move": m["move"],
                                                 "moveData": m["moveData"]})
            assert answer["played"]

    # Each make_move waits --wait seconds for the other seat, which this client plays itself.
    end = run(mcp_on(server, wait=0.2), body)
    assert end["result"]["victory"] in ("military", "science", "civilian")


def test_an_unreachable_server_is_a_tool_error(tmp_path: Path) -> None:
    from helpers.live_server import free_port

    url = f"http://127.0.0.1:{free_port()}"

    async def body(c: Client) -> None:
        text = await refused(c, "new_game", {"opponent": "rule"})
        assert f"cannot reach the duel server at {url}" in text
        assert "no game" in await refused(c, "get_state", {"game": "x"})

    run(StdioServerParameters(command=sys.executable,
                              args=["-m", "duel.cli", "mcp", "--server", url,
                                    "--no-transcripts"], cwd=str(ROOT)),
        body)


def test_a_busy_server_is_waited_for_as_it_asks() -> None:
    """Issue 39: the remote seat's requests wait out a 429/503 as its retry-after says, and try
    a connection that never reached the server again, before they count as a refusal."""
    import httpx

    from duel.mcp.remote import Server

    answers = [httpx.Response(429, headers={"retry-after-ms": "30"}, json={"detail": "busy"}),
               httpx.Response(503, headers={"retry-after": "0"}, json={"detail": "busy"}),
               httpx.Response(200, json={"ok": True})]
    seen: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request.url.path)
        if len(seen) == 1:
            raise httpx.ConnectError("refused", request=request)
        return answers.pop(0)

    server = Server("http://duel.test", client=httpx.Client(transport=httpx.MockTransport(handler)))
    assert server.request("GET", "/games/x/info") == {"ok": True}
    assert seen == ["/games/x/info"] * 4

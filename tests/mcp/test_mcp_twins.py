"""Twin games through `duel mcp`: two hosted games whose deals differ only in cards the client
has not seen (the Age II and III decks, the removed cards, the guilds, the box's order), under
the same game code, against the same opponent (a rule agent, and an MCTS search that must not
peek either). Through all of Age I, every tool answers both alike, byte for byte."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from helpers.mcp_client import call, run
from helpers.seat_tables import twin_deal
from mcp import Client

from duel.agents.spec import make_agent
from duel.engine import Seat, new_game
from duel.engine.data import CARD_NAMES, TOKEN_NAMES, WONDER_NAMES
from duel.mcp.games import Games
from duel.mcp.hosted import HostedGame
from duel.mcp.server import build

CODE = "Tw1nMcp0"
NAMES = (*CARD_NAMES[::3], *WONDER_NAMES, *TOKEN_NAMES)


def hosted(deal: Any, seat: Seat, opponent: str) -> Games:
    games = Games(transcripts=None)
    game = HostedGame("g1", seat, make_agent(opponent), 7, None, open_box=False, code=CODE,
                      deal=deal)
    game.start()
    games._add("g1", game)
    return games


async def answers(c: Client) -> list[str]:
    """Every tool's answer to the client at this moment (make_move aside)."""
    out = []

    async def ask(tool: str, arguments: dict[str, Any]) -> Any:
        r = await c.call_tool(tool, {"game": "g1", **arguments})
        out.append(f"{tool} {arguments} {r.is_error} "
                   + (json.dumps(r.structured_content, sort_keys=True) if not r.is_error
                      else r.content[0].text))  # type: ignore[union-attr]
        return r.structured_content

    await ask("get_state", {})
    legal = await ask("legal_moves", {"why_not": True})
    for name in NAMES:
        await ask("explain", {"name": name})
    for m in legal["moves"]:
        await ask("simulate", {"move": m["move"], "moveData": m["moveData"]})
    return out


@pytest.mark.parametrize(("seed", "seat", "opponent"), [
    (5, Seat.P1, "rule"), (8, Seat.P2, "mcts:iterations=150")])
def test_twin_games_answer_every_tool_alike(seed: int, seat: Seat, opponent: str) -> None:
    deal = new_game(seed).deal
    other = twin_deal(deal)
    pair = [hosted(d, seat, opponent) for d in (deal, other)]
    rng = random.Random(seed)

    async def both(clients: list[Client]) -> None:
        plies = 0
        while True:
            seen = [await answers(c) for c in clients]
            for a, b in zip(seen[0], seen[1], strict=True):
                assert a == b, f"twins differ:\n{a[:2000]}\n---\n{b[:2000]}"
            state = json.loads(seen[0][0].split(" ", 3)[3])
            if state["state"]["age"] > 1 or state["state"]["step"] == "CHOOSE_STARTING_PLAYER":
                break  # Age II shows the decks that differ
            legal = await call(clients[0], "legal_moves", {"game": "g1"})
            m = rng.choice(legal["moves"])
            move = {"game": "g1", "move": m["move"], "moveData": m["moveData"]}
            played = [await call(c, "make_move", move) for c in clients]
            if played[0]["state"]["age"] > 1:
                break  # the opponent went on into Age II, whose cards differ
            assert json.dumps(played[0], sort_keys=True) == json.dumps(played[1],
                                                                       sort_keys=True)
            plies += 1
        assert plies >= 10

    async def body(first: Client) -> None:
        async with Client(build(pair[1])) as second:
            await both([first, second])

    run(build(pair[0]), body)

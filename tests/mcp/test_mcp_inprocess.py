"""`duel mcp` in process, through the SDK's own client: the published tools are the tool set's,
whole games are played in either seat and recorded as transcripts that replay (sealed until the
game is over), every bad input is a tool error naming what was wrong and changes nothing, the
opponents are the operator's, and the rules come as a resource and a prompt."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from helpers.mcp_client import call, play_out, refused, run
from mcp import Client

import duel
from duel.agents.base import Decision
from duel.agents.tools import TOOLS
from duel.mcp.games import GAME_PARAM, NEW_GAME, Games
from duel.mcp.server import RULES_URI, build
from duel.prompts import get_variant
from duel.transcripts import read
from server.work.catalogue import Catalogue


def test_the_published_tools_are_the_tool_sets(tmp_path: Path) -> None:
    async def body(c: Client) -> None:
        listed = {t.name: t for t in (await c.list_tools()).tools}
        assert list(listed) == ["new_game", *(t.name for t in TOOLS)]
        assert listed["new_game"].input_schema == NEW_GAME.schema()
        for tool in TOOLS:
            published = listed[tool.name].input_schema
            assert published["properties"]["game"] == GAME_PARAM["game"]
            assert published["required"][0] == "game"
            mine = tool.schema()
            for key, schema in mine["properties"].items():
                assert published["properties"][key] == schema
            assert listed[tool.name].annotations.read_only_hint is (not tool.commits)

    run(build(Games(transcripts=tmp_path)), body)


@pytest.mark.parametrize(("seat", "opponent", "seed"), [(1, "rule", 11), (2, "random", 12)])
def test_whole_games_are_played_and_recorded(tmp_path: Path, seat: int, opponent: str,
                                             seed: int) -> None:
    games = Games(transcripts=tmp_path)

    async def body(c: Client) -> dict[str, Any]:
        start = await call(c, "new_game", {"opponent": opponent, "seat": seat, "seed": seed})
        assert start["seat"] == seat and start["your_turn"] and not start["over"]
        assert start["state"]["currentPlayerNumber"] == 2  # the seat is player2 in its view
        (path,) = tmp_path.iterdir()
        header = json.loads(path.read_text().splitlines()[0])
        assert header["sealed"] is True and "deal" not in header and "seed" not in header
        return await play_out(c, start["game"], random.Random(seed))

    end = run(build(games), body)
    result = end["result"]
    assert result["winner"] in (1, 2, None) and result["victory"] in (
        "military", "science", "civilian")
    (path,) = tmp_path.iterdir()
    final = duel.replay(path)  # the complete transcript, every fact checked
    t = read(path)
    assert t.header["players"][str(seat)]["spec"] == "mcp"
    assert t.header["players"][str(3 - seat)]["spec"] == opponent
    assert t.header["seed"] == seed and t.footer is not None
    truth = final.result()
    assert truth is not None and truth.victory == result["victory"]
    assert result["winner"] == (None if truth.winner is None else truth.winner.player)
    mine = [m for m in t.moves if m["player"] == seat]
    assert mine and all("tool_calls" in m["details"] for m in mine)
    assert {c["tool"] for c in mine[0]["details"]["tool_calls"]} >= {"get_state",
                                                                     "legal_moves", "simulate"}
    from duel.viewer import render

    assert "<html" in render(t, title="mcp game").lower()


def test_bad_input_is_a_tool_error_naming_it_and_changes_nothing(tmp_path: Path) -> None:
    async def body(c: Client) -> None:
        g = (await call(c, "new_game", {"opponent": "rule", "seed": 3}))["game"]
        before = await call(c, "get_state", {"game": g})
        legal = (await call(c, "legal_moves", {"game": g}))["moves"]
        cases: list[tuple[str, Any, str]] = [
            ("get_state", {"game": "g99"}, "no game 'g99'"),
            ("get_state", {}, "needs the game's id"),
            ("get_state", {"game": 7}, "needs the game's id"),
            ("get_state", {"game": "x" * 10_000}, "no game"),
            ("get_state", {"game": g, "wait": -1}, "wait must be a number"),
            ("legal_moves", {"game": g, "why_not": "yes"}, "not of type 'boolean'"),
            ("explain", {"game": g, "name": ["BATHS"]}, "not of type 'string'"),
            ("explain", {"game": g, "name": "BATHS" * 1000}, "at most 2000"),
            ("simulate", {"game": g, "move": "DISCARD", "moveData": {"cardIndex": 99}},
             "cardIndex must be 0-19"),
            ("make_move", {"game": g, "move": "DISCARD", "moveData": {"cardIndex": 3}},
             "not a move of step WONDER_SELECTION"),
            ("make_move", {"game": g, "move": "SELECT_WONDER",
                           "moveData": {"wonder": "THE_PYRAMIDS", "x": 1}},
             "unexpected field"),
            ("make_move", {"game": g, "move": legal[0]["move"]}, "needs argument(s) ['moveData']"),
            ("make_move", {"game": g, **{k: legal[0][k] for k in ("move", "moveData")},
                           "ply": 0}, "no argument(s) ['ply']"),
            ("new_game", {"opponent": "llm:openai:gpt-5-mini"}, "not offered by this server"),
            ("new_game", {"opponent": "http:http://127.0.0.1:1/agents/move"}, "not offered"),
            ("new_game", {"opponent": "mcts:time=3600"}, "budget too large"),
            ("new_game", {"opponent": "mcts:iterations=１０"}, "ASCII digits"),
            ("new_game", {"seat": 3}, "3 is not one of [1, 2]"),
            ("new_game", {"seat": "one"}, "'one' is not of type 'integer'"),
            ("new_game", {"seed": -1}, "less than the minimum of 0"),
            ("new_game", {"seed": 2**64}, "greater than the maximum"),
            ("new_game", {"seed": True}, "is not of type 'integer'"),
            ("new_game", {"seed": "1.5"}, "'1.5' is not of type 'integer'"),
            ("new_game", {"opponent": ""}, "should be non-empty"),
            ("join_game", {"code": "A", "token": "B"}, "Unknown tool"),
        ]
        for tool, arguments, words in cases:
            text = await refused(c, tool, arguments)
            assert words.lower() in text.lower(), (tool, arguments, text)
        assert await call(c, "get_state", {"game": g}) == before

    run(build(Games(transcripts=tmp_path)), body)


def test_a_finished_game_refuses_moves_but_answers_reads(tmp_path: Path) -> None:
    async def body(c: Client) -> None:
        g = (await call(c, "new_game", {"opponent": "random", "seed": 8}))["game"]
        end = await play_out(c, g, random.Random(2))
        assert end["over"] and not end["your_turn"]
        legal = await call(c, "legal_moves", {"game": g})
        assert legal["moves"] == [] and legal["over"] is True
        text = await refused(c, "make_move", {"game": g, "move": "DISCARD",
                                              "moveData": {"cardIndex": 0}})
        assert "the game is over" in text
        assert (await call(c, "explain", {"game": g, "name": "BATHS"}))["kind"] == "card"

    run(build(Games(transcripts=tmp_path)), body)


def test_opponents_are_the_operators_and_the_public_built_ins(tmp_path: Path) -> None:
    catalogue = Catalogue({"house": "rule"})

    async def body(c: Client) -> None:
        g = (await call(c, "new_game", {"opponent": "house", "seat": 2, "seed": 1}))["game"]
        assert (await call(c, "get_state", {"game": g}))["your_turn"]
        await call(c, "new_game", {"opponent": "mcts:iterations=50,seed=2", "seed": 1})
        text = await refused(c, "new_game", {"opponent": "llm:local"})
        assert "offered: random, rule, mcts, dqn, house" in text

    run(build(Games(catalogue, transcripts=tmp_path)), body)
    specs = sorted(read(p).header["players"]["1"]["spec"] for p in tmp_path.iterdir())
    assert specs == ["house", "mcp"]


class BrokenAgent:
    spec = "broken"

    def choose(self, view: Any, legal: Any, rng: Any) -> Decision:
        raise OSError("the opponent's machine caught fire")


class BrokenCatalogue(Catalogue):
    def build(self, seat: str) -> Any:
        return BrokenAgent()


def test_an_opponent_that_fails_forfeits_and_the_server_goes_on(tmp_path: Path) -> None:
    async def body(c: Client) -> None:
        start = await call(c, "new_game", {"opponent": "rule", "seat": 2})
        assert start["over"] and start["result"]["victory"] == "forfeit"
        assert start["result"]["you"] == "won" and start["result"]["forfeit"] == 1
        assert start["played"] == ["Player 1 resigned"]

    run(build(Games(BrokenCatalogue(), transcripts=tmp_path)), body)
    (path,) = tmp_path.iterdir()
    assert duel.replay(path).ply == 0


def test_games_are_capped_and_finished_ones_make_room(tmp_path: Path) -> None:
    async def body(c: Client) -> None:
        first = (await call(c, "new_game", {"opponent": "random", "seed": 1}))["game"]
        await call(c, "new_game", {"opponent": "random", "seed": 2})
        assert "holds 2 games already" in await refused(c, "new_game", {"opponent": "random"})
        await play_out(c, first, random.Random(0))
        third = (await call(c, "new_game", {"opponent": "random"}))["game"]
        assert "no game" in await refused(c, "get_state", {"game": first})
        assert (await call(c, "get_state", {"game": third}))["your_turn"]

    run(build(Games(transcripts=tmp_path, max_games=2)), body)


def test_the_rules_are_a_resource_and_the_rules_prompt_a_prompt(tmp_path: Path) -> None:
    async def body(c: Client) -> None:
        resources = (await c.list_resources()).resources
        assert [str(r.uri) for r in resources] == [RULES_URI]
        text = (await c.read_resource(RULES_URI)).contents[0].text  # type: ignore[union-attr]
        assert text == get_variant("baseline").system
        prompt = await c.get_prompt("play_duel", {"opponent": "rule", "seat": "2"})
        body_text = prompt.messages[0].content.text  # type: ignore[union-attr]
        assert body_text.startswith(text) and "new_game(opponent='rule', seat=2)" in body_text
        assert "player2" in (c.instructions or "")

    run(build(Games(transcripts=tmp_path)), body)

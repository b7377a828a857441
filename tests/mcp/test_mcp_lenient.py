"""Over MCP, a move is the same move however a client slipped in sending it: the same game
played with moveData as an object, as a JSON string, and as one whole move object in `move`
makes the same moves and the same transcript (each repair named in the tool record); the
tools' answers (the JSON the server sends) are the same too."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from helpers.mcp_client import call, refused, run
from mcp import Client

from duel.mcp.games import Games
from duel.mcp.server import build
from duel.transcripts import read


def sent(how: str, game: str, m: dict[str, Any]) -> dict[str, Any]:
    if how == "object":
        return {"game": game, "move": m["move"], "moveData": m["moveData"]}
    if how == "string":
        return {"game": game, "move": m["move"], "moveData": json.dumps(m["moveData"])}
    return {"game": game, "move": {"move": m["move"], "moveData": m["moveData"]}}


def play(tmp: Path, how: str) -> tuple[list[Any], list[dict[str, Any]]]:
    """The game of seed 13 with `how` moves; the transcript's moves and every answer."""
    answers: list[dict[str, Any]] = []

    async def body(c: Client) -> None:
        rng = random.Random(13)
        answer = await call(c, "new_game", {"opponent": "random", "seed": "13"})
        game = answer["game"]
        while not answer["over"]:
            m = rng.choice((await call(c, "legal_moves", {"game": game}))["moves"])
            answers.append(await call(c, "simulate", sent(how, game, m)))
            answer = await call(c, "make_move", sent(how, game, m))
            answers.append(answer)

    run(build(Games(transcripts=tmp)), body)
    (path,) = tmp.iterdir()
    t = read(path)
    return [untimed(m) for m in t.moves] + [t.footer and {k: v for k, v in t.footer.items()
                                                          if k != "seconds"}], answers


def untimed(move: dict[str, Any]) -> dict[str, Any]:
    """A transcript's move without its times and the repairs (which name how it was sent)."""
    details = dict(move["details"])
    if "tool_calls" in details:
        details["tool_calls"] = [{k: v for k, v in c.items() if k not in ("seconds", "repairs")}
                                 for c in details["tool_calls"]]
    return {**{k: v for k, v in move.items() if k != "seconds"}, "details": details}


def test_a_move_sent_as_a_string_or_an_object_plays_the_same_game(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # a game's code is random (the view holds it, and so its hash): the same for the three
    monkeypatch.setattr("duel.mcp.hosted.random_code", lambda rng: "SAMECODE")
    games = {how: play(tmp_path / how, how) for how in ("object", "string", "whole")}
    moves, answers = games["object"]
    assert len(moves) > 40 and moves[-1] is not None
    for how in ("string", "whole"):
        assert games[how][0] == moves, how
        assert games[how][1] == answers, how
    t = read(next((tmp_path / "string").iterdir()))
    simulated = [c for m in t.moves for c in m["details"].get("tool_calls", ())
                 if c["tool"] == "simulate"]
    assert simulated and all(c["repairs"] == ["moveData: parsed from a JSON string"]
                             for c in simulated)
    t = read(next((tmp_path / "object").iterdir()))
    assert not any("repairs" in c for m in t.moves for c in m["details"].get("tool_calls", ()))


@pytest.mark.parametrize(("arguments", "words"), [
    ({"move": "SELECT_WONDER", "moveData": "{wonder: THE_SPHINX}"},
     'needs a "moveData" object; expected {"move": "SELECT_WONDER", "moveData": {"wonder": '),
    ({"move": '{"move": "SELECT_WONDER"}'}, 'SELECT_WONDER needs a "moveData" object; expected'),
    ({"move": 3, "moveData": {}}, 'a move needs a string "move" field; expected'),
])
def test_what_cannot_be_read_is_refused_with_the_shape_wanted(tmp_path: Path,
                                                              arguments: Any,
                                                              words: str) -> None:
    async def body(c: Client) -> None:
        g = (await call(c, "new_game", {"opponent": "random", "seed": 2}))["game"]
        text = await refused(c, "make_move", {"game": g, **arguments})
        assert words in text and "Traceback" not in text

    run(build(Games(transcripts=tmp_path)), body)

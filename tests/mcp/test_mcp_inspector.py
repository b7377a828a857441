"""`duel mcp` driven by the official MCP Inspector's CLI, as a user of MCP tooling would: its
tools/list finds no portability problem, and a whole game is played to the end over streamable
HTTP and over stdio, where the Inspector starts one `duel mcp` process per call (the game is
kept with `--games DIR`). Every legal move sent is accepted: moveData typed in as JSON (which
the Inspector converts by the schema) and, verbatim, as a JSON string; seed as "11"."""

from __future__ import annotations

import json
import random
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from helpers.inspector import Inspector, install
from helpers.live_server import ROOT
from helpers.mcp_client import http_server

import duel
from duel.agents.tools import SeatStatus
from duel.engine import CARDS, Seat

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def launcher() -> Path:
    return install()


@pytest.fixture
def http_url(tmp_path: Path) -> Iterator[str]:
    options = ("--transcripts", str(tmp_path / "games"))
    with http_server(tmp_path / "mcp.log", *options) as (url, _):
        yield url


def stdio_target(tmp_path: Path) -> list[str]:
    """A client configuration file, in the shape Claude Desktop and Cursor read, for the
    Inspector to start `duel mcp` from."""
    config = {"mcpServers": {"duel": {
        "command": sys.executable,
        "args": ["-m", "duel.cli", "mcp", "--games", str(tmp_path / "kept"),
                 "--transcripts", str(tmp_path / "games")],
        "cwd": str(ROOT)}}}
    path = tmp_path / "mcp.json"
    path.write_text(json.dumps(config))
    return ["--config", str(path), "--server", "duel"]


def legal(answer: dict[str, Any]) -> list[dict[str, Any]]:
    """The seat's legal moves from the state an answer holds, by the engine's generator from
    the view (what legal_moves answers): one Inspector call a turn, not two."""
    status = SeatStatus(Seat.P2, answer["state"], None, False)
    return [m.to_json() for m in status.info.template.legal_moves()]


def choose(answer: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """The red card with the most shields when one can be built, else a random legal move:
    a game that ends early by military supremacy costs fewer calls (each starts node, and
    over stdio duel mcp too)."""
    t = SeatStatus(Seat.P2, answer["state"], None, False).info.template
    moves = legal(answer)
    shields = {i: CARDS[c].shields for i, c in enumerate(t.pyramid) if c >= 0}
    red = [m for m in moves if m["move"] == "CONSTRUCT_BUILDING"
           and shields.get(m["moveData"]["cardIndex"], 0)]
    if red:
        return max(red, key=lambda m: shields[m["moveData"]["cardIndex"]])
    return rng.choice(moves)


def play_game(inspector: Inspector, seed_as: Any, rng: random.Random) -> dict[str, Any]:
    """A whole game against the random agent: moveData typed in on even turns, a JSON string
    sent verbatim on odd ones. Every move is legal, and every one must be accepted."""
    ok, answer = inspector.call("new_game", {"opponent": "random", "seed": seed_as},
                                as_json=True)
    assert ok, answer
    assert isinstance(answer, dict)
    game = answer["game"]
    ok, listed = inspector.call("legal_moves", {"game": game})
    assert ok and isinstance(listed, dict)
    assert [{k: m[k] for k in ("move", "moveData")} for m in listed["moves"]] == legal(answer)
    turns = 0
    while not answer["over"]:
        assert answer["your_turn"], answer
        move = choose(answer, rng)
        if turns % 2:
            ok, answer = inspector.call("make_move", {
                "game": game, "move": move["move"], "moveData": json.dumps(move["moveData"])},
                as_json=True)
        else:
            ok, answer = inspector.call("make_move", {"game": game, **move})
        assert ok, f"a legal move was refused: {move}: {answer}"
        assert isinstance(answer, dict)
        turns += 1
    assert answer["result"]["victory"] in ("military", "science", "civilian")
    assert turns >= 10 and answer["ply"] >= 2 * turns - 1, (turns, answer["ply"])
    return answer


def test_tools_list_has_no_portability_problem(launcher: Path, tmp_path: Path) -> None:
    inspector = Inspector(launcher, stdio_target(tmp_path), tmp_path / "home")
    rc, out = inspector.run("--method", "tools/list", "--strict")
    assert rc == 0, out
    assert out.get("schemaFindings", []) == [], out["schemaFindings"]
    names = [t["name"] for t in out["result"]["tools"]]
    assert names[0] == "new_game" and "make_move" in names


def test_a_whole_game_over_http(launcher: Path, http_url: str, tmp_path: Path) -> None:
    end = play_game(Inspector(launcher, [http_url], tmp_path / "home"), 12, random.Random(3))
    assert end["result"]["victory"] == "military"  # the seed and moves of a short game
    (path,) = (tmp_path / "games").iterdir()
    duel.replay(path)


def test_a_whole_game_over_stdio_one_process_per_call(launcher: Path, tmp_path: Path) -> None:
    inspector = Inspector(launcher, stdio_target(tmp_path), tmp_path / "home")
    play_game(inspector, "12", random.Random(3))  # seed typed as a string, as some send it
    (path,) = (tmp_path / "games").iterdir()
    duel.replay(path)  # the complete transcript, written once the game was over
    ok, text = inspector.call("get_state", {"game": "g9"})
    assert not ok and "no game 'g9'" in str(text)

"""`duel mcp --games DIR`: a hosted game kept in a folder goes on in any process that keeps
games there, as a client that starts one process per call needs; the moves, the look-up log,
the opponent's generator and the sealed transcript come out as one process would have made
them."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

import duel
from duel.errors import DuelError
from duel.mcp.games import Games
from duel.transcripts import read


def play(games_of: Any, seed: int, tmp: Path) -> tuple[list[Any], dict[str, Any]]:
    """A whole game, each call through `games_of(i)`'s Games; the moves and the transcript."""
    rng = random.Random(seed)
    i = 0

    def call(name: str, args: dict[str, Any]) -> dict[str, Any]:
        nonlocal i
        i += 1
        g = games_of(i)
        try:
            return g.new_game(args) if name == "new_game" else g.call(name, args)
        finally:
            if g is not shared:
                g.close()  # the process ends

    shared = games_of(0)
    gid = call("new_game", {"opponent": "random", "seat": 2, "seed": seed})["game"]
    while not (state := call("get_state", {"game": gid}))["over"]:
        m = rng.choice(call("legal_moves", {"game": gid})["moves"])
        call("simulate", {"game": gid, "move": m["move"], "moveData": m["moveData"]})
        call("make_move", {"game": gid, "move": m["move"], "moveData": m["moveData"]})
    (path,) = [p for p in tmp.iterdir() if p.suffix == ".jsonl"]
    duel.replay(path)
    t = read(path)
    return [(m["player"], m["move"], untimed(m["details"])) for m in t.moves], state


def untimed(details: dict[str, Any]) -> dict[str, Any]:
    """A move's details without the look-ups' times (they differ from run to run)."""
    calls = [{k: v for k, v in c.items() if k != "seconds"}
             for c in details.get("tool_calls", ())]
    return {**details, **({"tool_calls": calls} if calls else {})}


def test_a_game_kept_in_a_folder_plays_the_same_across_processes(tmp_path: Path) -> None:
    one, kept = tmp_path / "one", tmp_path / "kept"
    single = Games(transcripts=one)
    moves_one, end_one = play(lambda i: single, 17, one)
    moves_kept, end_kept = play(lambda i: Games(transcripts=kept, keep=kept / "games"), 17, kept)
    # the opponent's generator went on where it was, and each move's look-ups were kept
    assert moves_kept == moves_one
    assert all(d["tool_calls"] for (player, _, d) in moves_one if player == 2)
    assert end_kept["result"] == end_one["result"]
    snap = json.loads((kept / "games" / "g1.json").read_text())
    assert snap["format"] == 1 and snap["opponent"] == "random"


def test_a_kept_game_is_sealed_between_processes_and_ids_never_repeat(tmp_path: Path) -> None:
    keep = tmp_path / "games"
    a = Games(transcripts=tmp_path / "t", keep=keep)
    first = a.new_game({"opponent": "random", "seed": 3})
    a.close()
    (path,) = (tmp_path / "t").iterdir()
    header = json.loads(path.read_text().splitlines()[0])
    assert header["sealed"] is True and "seed" not in header  # the game goes on elsewhere
    b = Games(transcripts=tmp_path / "t", keep=keep)
    assert b.call("get_state", {"game": first["game"]})["ply"] == first["ply"]
    assert b.new_game({"opponent": "random"})["game"] == "g2"
    m = b.call("legal_moves", {"game": "g1"})["moves"][0]
    c = Games(transcripts=tmp_path / "t", keep=keep)
    c.call("make_move", {"game": "g1", "move": m["move"], "moveData": m["moveData"]})
    # b's copy is older than the folder's: it reads the game again
    assert b.call("get_state", {"game": "g1"})["ply"] > first["ply"]
    with pytest.raises(DuelError, match="no game 'g9'"):
        b.call("get_state", {"game": "g9"})
    with pytest.raises(DuelError, match="no game"):
        b.call("get_state", {"game": "../g1"})

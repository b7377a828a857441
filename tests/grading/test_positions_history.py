"""`duel grade --positions` with a ``history=`` variant: each position's seat is told the moves
of its game before it (from the transcript the suite names, checked by SHA-256), from its own
views, exactly once; a suite whose games are missing or changed is refused before any call."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from helpers.fake_llm_server import FakeLLMServer, Scripted, openai_reply
from helpers.suites import make_suite

from duel.agents.llm.framing.memory import move_line
from duel.cli import main
from duel.engine import Perspective
from duel.grading.positions.suite import Suite
from duel.records import view_hash
from duel.transcripts import read, replay

HEAD = "The game so far"


@pytest.fixture(scope="module")
def suite(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Suite]:
    return make_suite(tmp_path_factory.mktemp("suite"), per_kind=3)


def turn(body: dict[str, Any]) -> str:
    return str(body["messages"][1]["content"])


def first_legal(s: Suite) -> Any:
    by_id = s.by_id()

    def reply(body: dict[str, Any]) -> Scripted:
        text = turn(body)
        view, _ = json.JSONDecoder().raw_decode(text, text.index("{"))
        return openai_reply(json.dumps(by_id[view_hash(view)].legal[0].to_json()))
    return reply


def args(srv: FakeLLMServer, suite_path: Path, out: Path) -> list[str]:
    return ["grade", "--positions", str(suite_path), "--variants", "history=all", "--model",
            f"llm:compat:fake@{srv.url}/v1,mode=text", "--out", str(out), "--jobs", "2",
            "--no-progress"]


def told(path: str, ply: int, player: int) -> list[str]:
    """The moves before `ply` of the game at `path` in the words a seat of `player` reads."""
    seen = Perspective.of_player(player)
    return [f"{i:3d}. {move_line(seen.view(s.before), seen.move_out(s.move), seen.view(s.after))}"
            for i, s in enumerate((s for s in replay(read(path)) if s.ply < ply), 1)]


def test_each_position_s_seat_is_told_its_game_s_moves_before_it(
        suite: tuple[Path, Suite], tmp_path: Path) -> None:
    path, s = suite
    with FakeLLMServer(responder=first_legal(s)) as srv:
        assert main(args(srv, path, tmp_path / "out")) == 0
        bodies = [r["body"] for r in srv.requests]
    by_id = s.by_id()
    with_history = [b for b in bodies if HEAD in turn(b)]
    assert len(with_history) == len(s.positions)  # history=all's, once each
    assert not [b for b in bodies if b not in with_history and "The game so far" in turn(b)]
    for body in with_history:
        text = turn(body)
        view, _ = json.JSONDecoder().raw_decode(text, text.index("{"))
        pos = by_id[view_hash(view)]
        src = pos.source
        lines = [ln for ln in text.split("\n") if re.match(r"^\s*\d+\. ", ln)]
        # every move before it, once, in its seat's words (positions of one game do not
        # carry into each other)
        assert lines == told(src["transcript"], src["ply"], src["player"]), pos.id
        if src["ply"] == 1:
            assert "no move has been played yet" in text


def test_the_games_are_found_beside_a_moved_suite_and_checked(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path, s = make_suite(tmp_path / "made", per_kind=2)
    moved = tmp_path / "moved"
    moved.mkdir()
    shutil.copy(path, moved / "suite.json")
    kept = tmp_path / "kept"
    shutil.move(path.parent, kept)
    games = sorted(str(kept / Path(p.source["transcript"]).name) for p in s.positions)
    games = sorted(set(games))
    with FakeLLMServer(responder=first_legal(s)) as srv:
        # not there at all: refused before any call, naming the game
        assert main(args(srv, moved / "suite.json", tmp_path / "out1")) == 2
        assert srv.requests == []
        assert "history needs the game it was taken from" in capsys.readouterr().err
        # beside the suite but changed: refused
        for g in games:
            shutil.copy(g, moved / Path(g).name)
        changed = moved / Path(games[0]).name
        changed.write_text(changed.read_text() + "\n")
        assert main(args(srv, moved / "suite.json", tmp_path / "out2")) == 2
        assert srv.requests == []
        assert "SHA-256 differs" in capsys.readouterr().err
        # beside the suite as they were: graded
        shutil.copy(games[0], changed)
        assert main(args(srv, moved / "suite.json", tmp_path / "out3")) == 0
        assert len([r for r in srv.requests if HEAD in turn(r["body"])]) == len(s.positions)

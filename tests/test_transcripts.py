"""Transcripts: written as the game goes, schema-valid, and replayed with every fact checked."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from test_llm_agent import ScriptedProvider

from duel.agents import make_agent
from duel.agents.llm.agent import LLMAgent
from duel.cli import main
from duel.engine import new_game
from duel.match import play_match
from duel.prompts import get_variant
from duel.schemas import schema_error
from duel.transcripts import TranscriptError, TranscriptWriter, check_result, read, replay


def write_game(path: Path, p1: Any, p2: Any, seed: int) -> None:
    agents = tuple(make_agent(a) if isinstance(a, str) else a for a in (p1, p2))
    deal = new_game(seed).deal
    writer = TranscriptWriter(path, seed, deal, agents)
    result = play_match(agents[0], agents[1], seed=seed, deal=deal, on_move=writer.record)
    writer.finish(result)


def replay_all(path: Path) -> int:
    t = read(path)
    final = None
    n = 0
    for step in replay(t):
        final = step.after
        n += 1
    assert final is not None
    check_result(t, final)
    return n


def lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


@pytest.mark.parametrize("p1, p2, seed", [("rule", "random", 1), ("mcts:iterations=20", "rule", 2),
                                          ("random", "random", 3)])
def test_every_transcript_validates_and_replays_cleanly(tmp_path: Path, p1: str, p2: str,
                                                       seed: int) -> None:
    path = tmp_path / "game.jsonl"
    write_game(path, p1, p2, seed)
    records = lines(path)
    for rec in records:
        assert schema_error("transcript", rec) is None
        assert json.loads(json.dumps(rec)) == rec
    assert records[0]["type"] == "header" and records[-1]["type"] == "result"
    assert records[0]["players"]["1"]["spec"] == p1
    assert replay_all(path) == len(records) - 2


def test_llm_transcript_keeps_every_attempt(tmp_path: Path) -> None:
    provider = ScriptedProvider(["not json"] * 1000)
    agent = LLMAgent(provider, get_variant("errata"), "llm:scripted", fallback="random",
                     max_attempts=2)
    path = tmp_path / "llm.jsonl"
    write_game(path, agent, "rule", 4)
    records = lines(path)
    assert records[0]["players"]["1"]["prompt"] == {"name": "errata",
                                                    "hash": get_variant("errata").hash}
    llm_moves = [r for r in records if r["type"] == "move" and r["player"] == 1
                 and "llm" in r["details"]]
    assert llm_moves
    calls = llm_moves[0]["details"]["llm"]["calls"]
    assert [c["category"] for c in calls] == ["UNPARSABLE", "UNPARSABLE"]
    assert calls[0]["raw"] == "not json"
    totals = records[-1]["totals"]["1"]
    assert totals["fallbacks"] == totals["moves"] and totals["first_try_legal"] == 0.0
    assert replay_all(path) > 0


def test_a_killed_match_leaves_a_readable_partial_file(tmp_path: Path) -> None:
    path = tmp_path / "partial.jsonl"
    agents = (make_agent("random"), make_agent("random"))
    deal = new_game(5).deal
    writer = TranscriptWriter(path, 5, deal, agents)

    class Killed(Exception):
        pass

    def on_move(record: Any, before: Any, after: Any) -> None:
        writer.record(record, before, after)
        if record.ply == 12:
            raise Killed

    with pytest.raises(Killed):
        play_match(*agents, seed=5, deal=deal, on_move=on_move)
    t = read(path)  # the file is flushed line by line: nothing lost before the kill
    assert len(t.moves) == 12 and t.footer is None and not t.problems
    assert sum(1 for _ in replay(t)) == 12
    with pytest.raises(TranscriptError, match="ends after ply 12 without a result"):
        check_result(t, new_game(5))


def _tamper(path: Path, out: Path, edit: Any) -> None:
    records = lines(path)
    edit(records)
    out.write_text("".join(json.dumps(r) + "\n" for r in records))


def test_replay_catches_a_tampered_move(tmp_path: Path) -> None:
    path = tmp_path / "g.jsonl"
    write_game(path, "rule", "rule", 6)

    def edit(records: list[dict[str, Any]]) -> None:
        rec = next(r for r in records if r["type"] == "move" and r["step"] == "PLAY_CARD")
        rec["move"] = {"move": "CONSTRUCT_BUILDING", "moveData": {"cardIndex": 0}}  # covered

    bad = tmp_path / "bad.jsonl"
    _tamper(path, bad, edit)
    with pytest.raises(TranscriptError, match=r"ply 9: field move is illegal: card 0 is covered"):
        replay_all(bad)
    assert main(["replay", str(bad)]) == 1


def test_replay_catches_a_tampered_deal(tmp_path: Path) -> None:
    path = tmp_path / "g.jsonl"
    write_game(path, "rule", "random", 7)

    def edit(records: list[dict[str, Any]]) -> None:
        age1 = records[0]["deal"]["age1"]
        age1[14], age1[15] = age1[15], age1[14]  # two face-up Age I cards trade places

    bad = tmp_path / "bad.jsonl"
    _tamper(path, bad, edit)
    with pytest.raises(TranscriptError, match=r"ply 9: field view_hash differs"):
        replay_all(bad)


def test_replay_catches_a_tampered_result(tmp_path: Path) -> None:
    path = tmp_path / "g.jsonl"
    write_game(path, "rule", "random", 8)

    def edit(records: list[dict[str, Any]]) -> None:
        records[-1]["winner"] = 2 if records[-1]["winner"] == 1 else 1

    bad = tmp_path / "bad.jsonl"
    _tamper(path, bad, edit)
    with pytest.raises(TranscriptError, match="result: field winner"):
        replay_all(bad)


def test_replay_cli_reports_a_truncated_file_without_crashing(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "g.jsonl"
    write_game(path, "random", "random", 9)
    text = path.read_text().splitlines()
    cut = tmp_path / "cut.jsonl"
    cut.write_text("\n".join(text[:21]) + "\n" + text[21][:30])
    assert main(["replay", str(cut)]) == 1
    err = capsys.readouterr().err
    assert "line 22 is not JSON" in err and "ends after ply 20 without a result" in err


def test_replay_at_prints_the_state_as_a_seat_sees_it(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "g.jsonl"
    write_game(path, "rule", "random", 10)
    assert main(["replay", str(path), "--at", "12", "--seat", "1"]) == 0
    view = json.loads(capsys.readouterr().out)
    assert schema_error("state", view) is None
    assert view["step"] in ("PLAY_CARD", "CHOOSE_PROGRESS_TOKEN", "DESTROY_BROWN", "DESTROY_GREY",
                            "CONSTRUCT_FROM_DISCARD", "CHOOSE_PROGRESS_TOKEN_FROM_DISCARD")
    assert main(["replay", str(path), "--at", "999"]) == 2


def test_newer_format_versions_are_refused_clearly(tmp_path: Path) -> None:
    path = tmp_path / "g.jsonl"
    write_game(path, "random", "random", 11)
    future = tmp_path / "future.jsonl"
    _tamper(path, future, lambda r: r[0].update(format_version=99))
    with pytest.raises(TranscriptError, match="format_version 99 is not supported"):
        read(future)


def test_match_cli_writes_a_transcript_that_replays(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "m.jsonl"
    assert main(["match", "--p1", "rule", "--p2", "random", "--seed", "3", "--transcript",
                 str(path)]) == 0
    assert "Transcript:" in capsys.readouterr().out
    assert main(["replay", str(path)]) == 0
    assert "every recorded fact matches" in capsys.readouterr().out

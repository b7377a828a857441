"""Transcripts: written as the game goes, schema-valid, and replayed with every fact checked."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from helpers.scripted import ScriptedProvider

from duel.agents import make_agent
from duel.agents.llm.agent import LLMAgent
from duel.cli import main
from duel.engine import new_game
from duel.errors import TranscriptError
from duel.match import play_match
from duel.prompts import get_variant
from duel.schemas import schema_error
from duel.transcripts import (
    TranscriptWriter,
    check_result,
    default_path,
    initial_state,
    read,
    replay,
)


def write_game(path: Path, p1: Any, p2: Any, seed: int) -> None:
    agents = tuple(make_agent(a) if isinstance(a, str) else a for a in (p1, p2))
    deal = new_game(seed).deal
    writer = TranscriptWriter.for_match(path, seed, deal, agents)
    result = play_match(agents[0], agents[1], seed=seed, deal=deal, on_move=writer.record)
    writer.finish(result.result)


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
    writer = TranscriptWriter.for_match(path, 5, deal, agents)

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
    # the header says the deal is the seed's, which the replay checks first
    with pytest.raises(TranscriptError, match=r"header: field deal is not the deal of seed 7"):
        replay_all(bad)
    assert main(["replay", str(bad)]) == 1
    # without that claim (the server's transcripts: random codes, explicit deals), the views'
    # hashes catch it at the first ply the swapped cards show
    bare = tmp_path / "bare.jsonl"
    _tamper(bad, bare, lambda r: r[0].pop("deal_from_seed"))
    with pytest.raises(TranscriptError, match=r"ply 9: field view_hash differs"):
        replay_all(bare)


def test_replay_catches_a_tampered_unseen_card_and_seed(tmp_path: Path) -> None:
    path = tmp_path / "g.jsonl"
    write_game(path, "rule", "random", 7)
    assert lines(path)[0]["deal_from_seed"] is True
    removed = tmp_path / "removed.jsonl"  # a removed card no view ever shows
    _tamper(path, removed, lambda r: r[0]["deal"]["removed"]["age3"].reverse())
    with pytest.raises(TranscriptError, match=r"header: field deal is not the deal of seed 7"):
        replay_all(removed)
    seed = tmp_path / "seed.jsonl"
    _tamper(path, seed, lambda r: r[0].update(seed=8))
    with pytest.raises(TranscriptError, match=r"not the deal of seed 8"):
        replay_all(seed)


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


@pytest.mark.parametrize("name, edit, message", [
    ("details not an object", lambda r: r[12].update(details=[]),
     r"ply 12: field details: \[\] is not of type 'object'"),
    ("move missing", lambda r: r[12].pop("move"), r"ply 12: field move is missing"),
    ("malformed move", lambda r: r[12].update(move={"move": "DISCARD", "moveData": {}}),
     r"ply 12: field move: move schema: at moveData: 'cardIndex' is a required property"),
    ("seat out of range", lambda r: r[12].update(player=3), r"ply 12: field player: 3 is not"),
    ("price", lambda r: r[12].update(price=r[12]["price"] + 1), r"ply 12: field price is"),
    ("step", lambda r: r[12].update(step="DESTROY_BROWN"), r"ply 12: field step is"),
    ("scores not an object", lambda r: r[-1].update(scores=5),
     r"result: field scores: 5 is not of type 'object'"),
    ("one score line", lambda r: r[-1]["scores"]["player2"].update(MONEY=99),
     r"result: field scores.player2.MONEY is 99, replay gives"),
    ("move count", lambda r: r[-1].update(moves=3), r"result: field moves is 3, the file has"),
    ("forfeit", lambda r: r[-1].update(forfeit=2),
     r"result: field (forfeit is 2, but player 1 was to move|victory is '\w+', replay gives "
     r"'forfeit')"),
    ("forfeit not a seat", lambda r: r[-1].update(forfeit="x"), r"result: field forfeit: 'x'"),
    ("options not an object", lambda r: r[0].update(options="x"),
     r"header: field options: 'x' is not of type 'object'"),
    ("players missing", lambda r: r[0].pop("players"), r"header: field players is missing"),
    ("a line after the result", lambda r: r.append(r[-2]),
     r"line \d+: a 'move' record after the result line"),
    ("a second result", lambda r: r.append(r[-1]),
     r"line \d+: a 'result' record after the result line"),
    ("a second header", lambda r: r.insert(1, r[0]), r"line 2: unexpected record 'header'"),
    ("a stray line", lambda r: r.insert(3, [1, 2]), r"line 4: unexpected record 'None'"),
])
def test_replay_reports_every_damaged_fact_without_crashing(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, edit: Any,
        message: str) -> None:
    path = tmp_path / "g.jsonl"
    write_game(path, "rule", "random", 13)
    bad = tmp_path / "bad.jsonl"
    _tamper(path, bad, edit)
    with pytest.raises(TranscriptError, match=message):
        replay_all(bad)
    capsys.readouterr()
    assert main(["replay", str(bad)]) == 1  # a mismatch, never a traceback
    assert "mismatch: " in capsys.readouterr().err


def test_replay_checks_the_llm_totals_and_attempts(tmp_path: Path) -> None:
    provider = ScriptedProvider(["not json"] * 1000)
    agent = LLMAgent(provider, get_variant("baseline"), "llm:scripted", fallback="random",
                     max_attempts=2)
    path = tmp_path / "llm.jsonl"
    write_game(path, "rule", agent, 14)

    def cost(r: list[dict[str, Any]]) -> None:
        r[-1]["totals"]["2"]["input_tokens"] += 1

    bad = tmp_path / "totals.jsonl"
    _tamper(path, bad, cost)
    with pytest.raises(TranscriptError, match=r"result: field totals.2 differs"):
        replay_all(bad)

    def no_raw(r: list[dict[str, Any]]) -> None:
        rec = next(x for x in r if x["type"] == "move" and x["player"] == 2)
        del rec["details"]["llm"]["calls"][0]["raw"]

    raw = tmp_path / "raw.jsonl"
    _tamper(path, raw, no_raw)
    with pytest.raises(TranscriptError, match=r"field details.llm.calls.0.raw is missing"):
        replay_all(raw)


def test_a_forfeit_is_recorded_with_its_attempts_and_replays(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    agent = LLMAgent(ScriptedProvider(["nope"] * 10), get_variant("baseline"), "llm:scripted",
                     fallback="forfeit", max_attempts=2)
    path = tmp_path / "forfeit.jsonl"
    write_game(path, "rule", agent, 15)
    records = lines(path)
    for rec in records:
        assert schema_error("transcript", rec) is None
    last, footer = records[-2], records[-1]
    assert last["details"]["forfeit"] is True and last["player"] == 2
    assert [c["raw"] for c in last["details"]["llm"]["calls"]] == ["nope", "nope"]
    assert footer["forfeit"] == 2 and footer["winner"] == 1 and footer["moves"] == last["ply"]
    assert footer["totals"]["2"]["fallbacks"] == 1
    replay_all(path)
    assert main(["replay", str(path)]) == 0
    assert "player 2 forfeits" in capsys.readouterr().out
    # a forfeit must end the game, and the result must name it
    early = tmp_path / "early.jsonl"
    _tamper(path, early, lambda r: r.insert(-2, {**r[-2], "ply": r[-2]["ply"]}))
    with pytest.raises(TranscriptError, match=r"field details.forfeit is true, but 1 more"):
        replay_all(early)
    unnamed = tmp_path / "unnamed.jsonl"
    _tamper(path, unnamed, lambda r: r[-1].update(forfeit=None))
    with pytest.raises(TranscriptError, match=r"field forfeit is null, but ply \d+ records"):
        replay_all(unnamed)


def test_older_forfeit_files_without_the_forfeit_record_still_replay(tmp_path: Path) -> None:
    agent = LLMAgent(ScriptedProvider([]), get_variant("baseline"), "llm:scripted",
                     fallback="forfeit", max_attempts=1)
    path = tmp_path / "forfeit.jsonl"
    write_game(path, agent, "rule", 16)
    assert [r["type"] for r in lines(path)] == ["header", "move", "result"]
    old = tmp_path / "old.jsonl"
    _tamper(path, old, lambda r: r.pop(-2))  # as written before the record was kept
    t = read(old)
    assert t.moves == [] and t.footer is not None and t.footer["moves"] == 1
    assert list(replay(t)) == []
    check_result(t, initial_state(t))


def test_a_mismatch_names_a_different_rules_version(tmp_path: Path) -> None:
    path = tmp_path / "g.jsonl"
    write_game(path, "rule", "random", 17)
    bad = tmp_path / "bad.jsonl"

    def edit(r: list[dict[str, Any]]) -> None:
        r[0]["rules_version"] = "0"
        r[-1]["victory"] = "science" if r[-1]["victory"] != "science" else "civilian"

    _tamper(path, bad, edit)
    with pytest.raises(TranscriptError, match=r"written under rules version '0'"):
        replay_all(bad)
    ok = tmp_path / "ok.jsonl"
    _tamper(path, ok, lambda r: r[0].update(rules_version="0"))
    replay_all(ok)  # a clean replay is clean whatever the version says


def test_format_version_below_one_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "g.jsonl"
    write_game(path, "random", "random", 18)
    for value in (0, "1", None):
        bad = tmp_path / "bad.jsonl"
        _tamper(path, bad, lambda r, v=value: r[0].update(format_version=v))
        with pytest.raises(TranscriptError, match="is not supported"):
            read(bad)


@pytest.mark.parametrize("extra", [[], ["--hidden-box"]])
def test_match_cli_transcripts_replay(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                      extra: list[str]) -> None:
    path = tmp_path / "m.jsonl"
    assert main(["match", "--p1", "random", "--p2", "rule", "--seed", "19", "--transcript",
                 str(path), *extra]) == 0
    for rec in lines(path):
        assert schema_error("transcript", rec) is None
    capsys.readouterr()
    assert main(["replay", str(path)]) == 0
    out = capsys.readouterr().out
    assert out.count("\n") > len(lines(path)) and "every recorded fact matches" in out
    assert main(["replay", str(path), "--at", "30", "--seat", "2"]) == 0
    assert schema_error("state", json.loads(capsys.readouterr().out)) is None


def test_default_path_never_overwrites(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("duel.transcripts.time.strftime", lambda fmt, t=None: "20260101-000000")
    first = default_path("ABCDEFGH", str(tmp_path))
    first.write_text("x")
    second = default_path("ABCDEFGH", str(tmp_path))
    assert second != first and second.name.endswith("-ABCDEFGH-2.jsonl")

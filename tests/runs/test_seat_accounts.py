"""Whose moves every figure counts: a seat that falls back (an `http:` seat whose server is not
there) is named on the tournament's headline, in games.jsonl, in the ratings and ladder tables,
in the leaderboard's rows and in game grading's report; built-in seats are all their own."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers.live_server import free_port

from duel.agents.account import SeatAccount, call_cause, decision_cause
from duel.cli import main
from duel.errors import InvalidStateError


@pytest.fixture(scope="module")
def down() -> str:
    """An http: seat whose server is down, told to play on (stop_after=0) at once."""
    return (f"http:http://127.0.0.1:{free_port()},max_attempts=1,transport_retries=0,"
            "stop_after=0")


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory, down: str) -> Path:
    out = tmp_path_factory.mktemp("accounts") / "t"
    assert main(["tournament", "--p1", "rule", "--p2", down, "--games", "2", "--out", str(out),
                 "--no-progress"]) == 0
    return out


def test_games_jsonl_carries_each_seat_s_account(played: Path, down: str) -> None:
    for line in (played / "games.jsonl").read_text().splitlines():
        g = json.loads(line)
        theirs = g["accounts"]["1" if g["player1"] == down else "2"]
        mine = g["accounts"]["2" if g["player1"] == down else "1"]
        assert theirs["own"] == 0 and theirs["fallbacks"] == theirs["moves"] > 10
        assert theirs["causes"] == {"transport": theirs["moves"]}
        assert mine == {"moves": mine["moves"], "own": mine["moves"], "reasks": 0,
                        "fallbacks": 0, "forfeits": 0, "causes": {}}


def test_ratings_and_the_leaderboard_mark_a_player_whose_moves_were_not_its_own(
        played: Path, down: str, capsys: pytest.CaptureFixture[str]) -> None:
    from duel.leaderboard import build

    capsys.readouterr()
    assert main(["ratings", str(played)]) == 0
    out = capsys.readouterr().out
    assert "moves its own" in out and "partly not its own (transport" in out
    rule_row = next(line for line in out.splitlines() if line.startswith("| rule "))
    assert "partly" not in rule_row
    board = build([str(played)], resamples=20)
    rows = {r["player"]: r for r in board.players}
    assert rows[down]["partly_not_own"] and rows[down]["own_moves"] == 0
    assert rows[down]["not_own"] == {"transport": rows[down]["moves_counted"]}
    assert not rows["rule"]["partly_not_own"]
    assert rows["rule"]["own_moves"] == rows["rule"]["moves_counted"] > 10
    assert main(["leaderboard", str(played), "--out", str(played.parent / "site")]) == 0
    page = (played.parent / "site" / "index.html").read_text()
    assert "partly not its own: 0 of" in page


def test_a_transcript_s_accounts_are_those_of_its_games_line(played: Path, down: str) -> None:
    from duel.transcripts import read, verified_summary

    line = json.loads((played / "games.jsonl").read_text().splitlines()[0])
    summary = verified_summary(read(played / line["transcript"]))
    assert {p: a.to_json() for p, a in (summary.accounts or {}).items()} == line["accounts"]


def test_causes_name_what_failed() -> None:
    assert call_cause({"category": "TRANSPORT", "status": 429}) == "busy"
    assert call_cause({"category": "TRANSPORT", "error": "openai: HTTP 503: overloaded"}) == \
        "busy"
    assert call_cause({"category": "TRANSPORT", "error": "ReadTimeout: timed out"}) == "timeout"
    assert call_cause({"category": "TRANSPORT", "error": "ConnectError: refused"}) == \
        "transport"
    assert call_cause({"category": "ILLEGAL"}) == "illegal"
    assert call_cause({"category": "TOOLS"}) is None
    server_clock = {"fallback": "random", "timeout": True}
    assert decision_cause(server_clock) == "timeout"
    assert decision_cause({"expired": True, "forfeit": True}) == "expired"
    assert decision_cause({"mcts": {"iterations": 10}}) is None
    forfeit = {"llm": {"attempts": 3, "legal_at_attempt": None, "fallback": "forfeit",
                       "calls": [{"category": "UNPARSABLE"}, {"category": "TRUNCATED"}]},
               "forfeit": True}
    account = SeatAccount.of_decisions([forfeit, {}, {"llm": {"attempts": 2, "calls": [],
                                                              "legal_at_attempt": 2,
                                                              "fallback": None}}])
    assert account.to_json() == {"moves": 3, "own": 2, "reasks": 3, "fallbacks": 0,
                                 "forfeits": 1, "causes": {"truncated": 1}}
    assert account.brief() == "1 forfeit not its own (truncated 1)"
    assert SeatAccount.from_json(account.to_json()) == account
    with pytest.raises(InvalidStateError, match="account.own must be a count"):
        SeatAccount.from_json({**account.to_json(), "own": -1})


def test_grading_s_report_names_an_opponent_whose_moves_were_not_its_own() -> None:
    from duel.grading.report import GameOutcome, markdown, summarise

    theirs = SeatAccount(moves=30, own=10, fallbacks=20, causes={"busy": 20})
    llm = {"llm": {"attempts": 1, "legal_at_attempt": 1, "fallback": None, "calls": [
        {"category": "OK", "latency_s": 0.1, "input_tokens": 1, "output_tokens": 1,
         "cached_tokens": 0, "cost_usd": 0.0, "attempt": 1}]}}
    from duel.accounting.games import llm_totals

    rows = [GameOutcome("baseline", s, 1, 1.0, 3, llm_totals([llm]), moves=1,
                        account=SeatAccount.of_decisions([llm]), opponent_account=theirs)
            for s in (0, 1)]
    table = summarise(rows)
    assert table[0]["opponent_not_own"] == 40 and table[0]["own_moves"] == 2
    text = markdown(table)
    assert "**baseline: its opponent: 40 of 60 moves were fallbacks (busy 40).**" in text


def test_the_ladder_marks_a_player_whose_moves_were_not_its_own(
        down: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["ladder", "--player", down, "--rungs", "5,10", "--games", "2", "--out",
                 str(tmp_path / "ladder"), "--no-progress", "--resamples", "20"]) == 0
    out = capsys.readouterr().out
    assert "(itself: " in out  # each pairing's headline names the player's own fallbacks
    row = next(line for line in out.splitlines() if line.startswith(f"| {down} "))
    assert "partly not its own (transport" in row
    rung = next(line for line in out.splitlines() if line.startswith("| mcts:iterations=5 "))
    assert "partly" not in rung

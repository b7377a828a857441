"""Clocks and fallbacks: an external seat out of time gets its fallback's move or forfeits; an
agent seat that fails (a crash, an LLM on a closed port) falls back or resigns, and the game goes
on to a transcript that replays."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from helpers.play_helpers import WAIT, legal, live, play_out, stored_moves, wait_turn
from helpers.server_helpers import (
    ManualClock,
    assert_valid_state,
    bearer,
    check_transcript,
    create,
    footer,
    move_body,
    wait_until,
)

from server.main import create_app

CLOSED_PORT_LLM = "llm:compat:test-model@http://127.0.0.1:9/v1,transport_retries=0,backoff=0.01"
# LLM seats are the operator's: configured by name, the only way a game gets one.
LLM_AGENTS = {"closed": CLOSED_PORT_LLM, "closed-forfeit": CLOSED_PORT_LLM + ",fallback=forfeit"}


@pytest.fixture
def llm_client(db: str) -> Iterator[TestClient]:
    with TestClient(create_app(db, agents=LLM_AGENTS)) as c:
        yield c


def test_slow_external_seat_gets_a_random_move(db: str) -> None:
    """The seat's clock is the test's: it strikes when the test says, so whether the bot or
    the clock moves first is decided, never raced."""
    clock = ManualClock()
    with TestClient(create_app(db, sleep=clock.sleep)) as client:
        code, tokens = create(client, "external", "rule", seed=15, time_per_move=1.0,
                              fallback="random")
        # Seat 1 sleeps through its first pick: its clock strikes and picks for it, then the
        # rule seat picks twice (the draft goes 1, 2, 2, 1).
        wait_until(lambda: clock.pending() == 1, WAIT, "the seat's clock")
        clock.strike()
        wait_until(lambda: len(stored_moves(client, code)) >= 3, WAIT, "a timed-out move")
        first = stored_moves(client, code)[0]
        assert first.seat.player == 1
        assert first.details == {"fallback": "random", "timeout": True}
        assert not live(client, code).over
        # The bot is back: a stale ply (the move the clock made for it) is refused, a move in
        # time is played as sent (its clock waits for the test).
        m = wait_turn(client, code, tokens["1"])
        stale = client.post(f"/games/{code}/moves", headers=bearer(tokens["1"]),
                            json=move_body(m["moves"][0], m["ply"] - 1))
        assert stale.status_code == 409
        r = client.post(f"/games/{code}/moves", headers=bearer(tokens["1"]),
                        json=move_body(m["moves"][-1], m["ply"]))
        assert r.status_code == 200, r.text
        row = stored_moves(client, code)[m["ply"]]
        assert row.seat.player == 1 and "timeout" not in row.details
        # Asleep again: at its next turn the clock plays for it.
        m = wait_turn(client, code, tokens["1"])
        wait_until(lambda: clock.pending() == 1, WAIT, "the seat's clock")
        clock.strike()
        wait_until(lambda: len(stored_moves(client, code)) > m["ply"], WAIT, "the clock's move")
        again = stored_moves(client, code)[m["ply"]]
        assert again.seat.player == 1 and again.details == {"fallback": "random",
                                                             "timeout": True}


@pytest.mark.parametrize("external_seat", [1, 2])
def test_slow_external_seat_forfeits(client: TestClient, tmp_path: Path,
                                     external_seat: int) -> None:
    seats = ["external", "rule"] if external_seat == 1 else ["rule", "external"]
    code, tokens = create(client, *seats, seed=16, time_per_move=0.25, fallback="forfeit")
    token = tokens[str(external_seat)]
    wait_until(lambda: live(client, code).over, WAIT, "the forfeit")
    winner = 3 - external_seat
    mine = client.get(f"/games/{code}", headers=bearer(token)).json()
    public = client.get(f"/games/{code}").json()
    for view, who in ((mine, "seat view"), (public, "public view")):
        assert view["step"] == "GAME_END", who
        assert_valid_state(view, who)
    assert mine["player2"]["won"] is False and mine["player1"]["won"] is True
    assert public[f"player{winner}"]["won"] is True
    assert public[f"player{external_seat}"]["won"] is False
    assert legal(client, code, token)["yourTurn"] is False
    r = client.post(f"/games/{code}/moves", headers=bearer(token), json={
        "move": "SELECT_WONDER", "moveData": {"wonder": "PIRAEUS"},
        "ply": live(client, code).state.ply})
    assert r.status_code == 409 and "over" in r.text
    t = check_transcript(client.get(f"/games/{code}/transcript").text, tmp_path / "f.jsonl")
    assert footer(t)["forfeit"] == external_seat
    assert footer(t)["winner"] == winner and footer(t)["victory"] == "forfeit"
    assert t.moves[-1]["details"]["forfeit"] is True and t.moves[-1]["details"]["timeout"]


@pytest.mark.parametrize("fallback", ["random", "rule"])
def test_a_failing_agent_falls_back_and_the_game_goes_on(
        client: TestClient, tmp_path: Path, test_agents: None, fallback: str) -> None:
    code, tokens = create(client, "testfail", "external", seed=17, fallback=fallback)
    play_out(client, code, tokens, random.Random(17))
    rows = stored_moves(client, code)
    theirs = [r for r in rows if r.seat.player == 1]
    assert theirs
    for row in theirs:
        assert row.details["fallback"] == fallback
        assert "RuntimeError" in row.details["error"]
    assert live(client, code).state.is_terminal()
    check_transcript(client.get(f"/games/{code}/transcript").text, tmp_path / "t.jsonl")


def test_a_failing_agent_with_forfeit_fallback_forfeits(
        client: TestClient, test_agents: None) -> None:
    """fallback=forfeit is "what plays when ... an agent seat fails": the failing seat
    resigns, it does not play a random move."""
    code, _ = create(client, "testfail", "external", seed=18, fallback="forfeit")
    wait_until(lambda: stored_moves(client, code), WAIT, "the failing agent's turn")
    public = client.get(f"/games/{code}").json()
    row = stored_moves(client, code)[0]
    assert public["step"] == "GAME_END" and public["player2"]["won"] is True, (
        f"the failing seat played {row.move} with details {row.details} instead of forfeiting")
    assert row.details.get("forfeit") is True


def test_llm_seat_on_a_closed_port_falls_back_and_the_game_goes_on(
        llm_client: TestClient, tmp_path: Path) -> None:
    client = llm_client
    code, tokens = create(client, "closed", "external", seed=19)
    play_out(client, code, tokens, random.Random(19))
    theirs = [r for r in stored_moves(client, code) if r.seat.player == 1]
    assert theirs and all(r.details["llm"]["fallback"] == "random" for r in theirs)
    assert all(c["category"] == "TRANSPORT" for r in theirs for c in r.details["llm"]["calls"])
    check_transcript(client.get(f"/games/{code}/transcript").text, tmp_path / "t.jsonl")


def test_llm_seat_with_forfeit_fallback_resigns(llm_client: TestClient, tmp_path: Path) -> None:
    client = llm_client
    code, tokens = create(client, "closed-forfeit", "external", seed=20)
    wait_until(lambda: live(client, code).over, WAIT, "the LLM seat to resign")
    view = client.get(f"/games/{code}", headers=bearer(tokens["2"])).json()
    assert view["step"] == "GAME_END" and view["player2"]["won"] is True
    t = check_transcript(client.get(f"/games/{code}/transcript").text, tmp_path / "t.jsonl")
    assert footer(t)["forfeit"] == 1 and footer(t)["winner"] == 2


"""Restarts on the same database (a SQLite file, and a PostgreSQL database): a game resumed
mid-turn with nothing half done, finished and unfinished games kept, an agent that cannot be
built any more replaced by its fallback, and a damaged game left out without stopping the
server."""

from __future__ import annotations

import random
import threading
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from helpers.play_helpers import WAIT, legal, live, manager, play, play_out, stored_moves
from helpers.server_helpers import (
    BACKENDS,
    TEST_AGENTS,
    GatedAgent,
    bearer,
    check_transcript,
    create,
    hidden_card_ids,
    wait_until,
)

from duel.engine import Perspective
from server.main import create_app
from server.store import GameRow, open_store

pytestmark = pytest.mark.parametrize("db", BACKENDS, indirect=True)


def test_restart_resumes_the_game_and_the_agent_turn(db: str, tmp_path: Path,
                                                     test_agents: None) -> None:
    gate = threading.Event()
    GatedAgent.gates.append(gate)
    try:
        with TestClient(create_app(db, agents=TEST_AGENTS)) as first:
            code, tokens = create(first, "external", "testgate", seed=22)
            play(first, code, tokens["1"], random.Random(1))
            # The agent seat is to move (it picks two wonders) and is held at its gate.
            assert live(first, code).state.current_player == 2
            before = {who: first.get(f"/games/{code}", headers=h).json() for who, h in
                      (("1", bearer(tokens["1"])), ("public", {}))}
            moves_before = [r.move for r in stored_moves(first, code)]
            # Shut down while the agent thinks; its gate opens once the shutdown has cancelled
            # its turn (the app waits for the thread on its way out).
            turn = live(first, code).task
            assert turn is not None and not turn.done()

            def open_after_cancel() -> None:
                try:
                    wait_until(turn.done, WAIT, "the agent's turn to be cancelled")
                finally:
                    gate.set()

            opener = threading.Thread(target=open_after_cancel, daemon=True)
            opener.start()
        opener.join(WAIT)
        assert turn.cancelled()
        store = open_store(db)
        try:
            assert [r.move for r in store.moves(code)] == moves_before  # nothing half-done
        finally:
            store.close()

        second_gate = threading.Event()
        GatedAgent.gates.append(second_gate)
        with TestClient(create_app(db, agents=TEST_AGENTS)) as second:
            game = live(second, code)
            assert game.state.ply == 1 and game.state.current_player == 2
            for who, headers in (("1", bearer(tokens["1"])), ("public", {})):
                assert second.get(f"/games/{code}", headers=headers).json() == before[who]
            assert legal(second, code, tokens["1"])["yourTurn"] is False
            second_gate.set()  # the resumed agent seat moves by itself
            wait_until(lambda: live(second, code).state.ply >= 3, WAIT, "the agent's picks")
            assert [r.seat.player for r in stored_moves(second, code)] == [1, 2, 2]
            # The old token still works and the game goes on to its end.
            play_out(second, code, tokens, random.Random(2))
            check_transcript(second.get(f"/games/{code}/transcript").text,
                             tmp_path / "resumed.jsonl")
    finally:
        for g in GatedAgent.gates:
            g.set()
        del GatedAgent.gates[1:]


def test_restart_keeps_unfinished_and_finished_games(db: str, tmp_path: Path) -> None:
    rng = random.Random(23)
    with TestClient(create_app(db)) as first:
        code, tokens = create(first, "external", "rule", seed=23)
        done, done_tokens = create(first, "external", "random", seed=24)
        for _ in range(7):
            play(first, code, tokens["1"], rng)
        wait_until(lambda: live(first, code).state.current_player == 1, WAIT, "the agent")
        play_out(first, done, done_tokens, rng)
        state = live(first, code).state
        views = (first.get(f"/games/{code}", headers=bearer(tokens["1"])).json(),
                 first.get(f"/games/{code}").json())
        transcript = first.get(f"/games/{done}/transcript").text
    with TestClient(create_app(db)) as second:
        restored = live(second, code).state
        assert restored.ply == state.ply
        assert Perspective.of_player(1).view(restored) == Perspective.of_player(1).view(state)
        assert hidden_card_ids(restored) == hidden_card_ids(state)
        assert (second.get(f"/games/{code}", headers=bearer(tokens["1"])).json(),
                second.get(f"/games/{code}").json()) == views
        assert second.get(f"/games/{done}/transcript").text == transcript
        assert live(second, done).over
        r = second.post(f"/games/{done}/moves", headers=bearer(done_tokens["1"]), json={
            "move": "DISCARD", "moveData": {"cardIndex": 0}, "ply": live(second, done).state.ply})
        assert r.status_code == 409
        play_out(second, code, tokens, rng)
        check_transcript(second.get(f"/games/{code}/transcript").text, tmp_path / "r.jsonl")


def test_restart_without_an_agent_s_api_key_falls_back_and_goes_on(
        db: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An LLM seat whose provider key is gone after a restart: the server starts, the seat's
    turns fall back as configured, and the game goes on to its end."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-used")
    agents = {"gpt": "llm:openai:gpt-4o"}
    with TestClient(create_app(db, agents=agents)) as first:
        # Seat 1 (external) drafts first: the LLM seat never gets a turn before the restart.
        code, tokens = create(first, "external", "gpt", seed=61, fallback="rule")
    monkeypatch.delenv("OPENAI_API_KEY")
    with TestClient(create_app(db, agents=agents)) as second:
        rng = random.Random(61)
        for _ in range(200):
            # One look at the state: the fallback may move between two looks (a look at
            # whether the game is over, then another at whose turn it is, once saw the
            # fallback's last move in between, and waited for a move after the end).
            state = live(second, code).state
            if state.is_terminal():
                break
            if state.current_player == 1:
                play(second, code, tokens["1"], rng)
            else:
                wait_until(lambda ply=state.ply: live(second, code).state.ply > ply, WAIT,
                           "the fallback")
        assert live(second, code).state.is_terminal()
        theirs = [r for r in manager(second).store.moves(code) if r.seat.player == 2]
        assert theirs and all(r.details["fallback"] == "rule" for r in theirs)
        assert all("OPENAI_API_KEY" in r.details["error"] for r in theirs)
        check_transcript(second.get(f"/games/{code}/transcript").text, tmp_path / "t.jsonl")


def test_a_damaged_game_does_not_stop_the_server(db: str) -> None:
    with TestClient(create_app(db)) as first:
        code, tokens = create(first, "external", "external", seed=62)
        play(first, code, tokens["1"], random.Random(1))
    store = open_store(db)
    try:
        store.create_game(GameRow("Broken01", ["external", "rule"], {}, {
            "seed": None, "deal": {"nonsense": True}, "open_box": True, "time_per_move": None,
            "fallback": "random"}, 0, False), {})
    finally:
        store.close()
    with TestClient(create_app(db)) as second:
        assert second.get("/games/Broken01").status_code == 404
        assert live(second, code).state.ply == 1
        play(second, code, tokens["2"], random.Random(2))


"""An LLM seat with harness settings in a server game: its note (notes=on) is private to the seat
until the game is over, through every endpoint that shows a move's details (the log, the partial
transcript), and its history (history=all) holds the game's moves, told by the server's turns."""

from __future__ import annotations

import random

import pytest
from fastapi.testclient import TestClient
from helpers.fake_harness_model import HarnessModel
from helpers.fake_llm_server import FakeLLMServer
from helpers.play_helpers import live, play, play_unless_over, stored_moves
from helpers.server_helpers import create, wait_until

from server.games.notes import SEALED
from server.main import create_app


@pytest.fixture(autouse=True)
def _keys(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DUEL_COMPAT_API_KEY", "sk-test")


def texts(client: TestClient, code: str) -> dict[str, str]:
    """What players and spectators can read of the game's moves now."""
    log = client.get(f"/games/{code}/log")
    partial = client.get(f"/games/{code}/transcript", params={"partial": "true"})
    assert log.status_code == 200, log.text
    assert partial.status_code == 200, partial.text
    return {"log": log.text, "transcript": partial.text}


def test_notes_stay_private_until_the_game_is_over_and_history_reaches_the_model(
        db: str) -> None:
    with FakeLLMServer(HarnessModel(note="SECRET-PLAN-{n}")) as fake:
        agents = {"planner": f"llm:compat:m@{fake.url}/v1,mode=text,notes=on,history=all,"
                             "transport_retries=0"}
        with TestClient(create_app(db, agents=agents)) as client:
            code, tokens = create(client, "planner", "external", seed=3)
            rng = random.Random(0)
            checked = 0
            while not live(client, code).over:
                seen = texts(client, code)
                if live(client, code).over:
                    break  # it ended while being read: the note may show now
                assert "SECRET-PLAN" not in seen["log"] + seen["transcript"]
                checked += SEALED in seen["transcript"]  # the planner has moved by now
                play_unless_over(client, code, tokens["2"], rng)
            assert checked > 10
            done = client.get(f"/games/{code}/transcript")
            assert done.status_code == 200
            assert "SECRET-PLAN-1" in done.text and SEALED not in done.text
        turns = [r["body"]["messages"][1]["content"] for r in fake.requests]
        assert "Your note from your last move: SECRET-PLAN-1" in turns[1]
        assert turns[0].startswith("The game so far: no move has been played yet.")
        # the external seat's moves reached the planner's history through the server's turns
        assert "Player 1 takes" in turns[-1] and "Player 2 (you)" in turns[-1]


def _history(turn: str) -> list[str]:
    """The numbered move lines of a turn's text (history=all)."""
    return [line for line in turn.splitlines() if line[:3].strip().isdigit()
            and line[3:5] == ". "]


def external_turn(client: TestClient, code: str) -> bool:
    """Whether the game waits for the external seat (player 2)."""
    game = live(client, code)
    return not game.over and game.state.current_player == 2


def test_history_and_note_survive_a_restart(db: str) -> None:
    """The server's restart resumes the game from its stored moves: the seat hears them again
    (its history is the same lines) and gets back the note it kept with its last move."""
    with FakeLLMServer(HarnessModel(note="PLAN-{n}")) as fake:
        agents = {"planner": f"llm:compat:m@{fake.url}/v1,mode=text,notes=on,history=all,"
                             "transport_retries=0"}
        rng = random.Random(1)
        with TestClient(create_app(db, agents=agents)) as client:
            code, tokens = create(client, "planner", "external", seed=3)
            while len(fake.requests) < 6:
                play(client, code, tokens["2"], rng)
            wait_until(lambda: live(client, code).state.current_player == 2, 30,
                       "the planner's move")
            mine = [r for r in stored_moves(client, code) if r.seat.player == 1]
            kept = mine[-1].details["llm"]["note"]
            asked = len(fake.requests)
        with TestClient(create_app(db, agents=agents)) as client:
            # The external seat plays until the planner is asked again: one of its moves can
            # give it the next decision too (a progress token to choose, a wonder's extra
            # turn), and how many moves were played before the restart is not fixed (the loop
            # above may play once more while the planner's sixth call is on its way).
            played = live(client, code).state.ply
            while len(fake.requests) <= asked:
                played = play(client, code, tokens["2"], rng)["ply"]
                wait_until(lambda: len(fake.requests) > asked or external_turn(client, code),
                           30, "the planner's next call")
        turn = fake.requests[asked]["body"]["messages"][1]["content"]
        assert kept.startswith("PLAN-")
        assert f"Your note from your last move: {kept}" in turn, turn
        lines = _history(turn)
        assert len(lines) == played  # every move so far, the external seat's last one too
        before = _history(fake.requests[asked - 1]["body"]["messages"][1]["content"])
        assert lines[:len(before)] == before

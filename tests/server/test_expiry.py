"""Abandoned games end: an unfinished game with no move for the server's idle expiry is ended,
the player to move forfeiting, recorded as expired; its moves are kept, its transcript is
complete and replays, its event streams end, and an agent still thinking in it is stopped. The
clock is the test's (`expire_idle(now)`), never a real wait."""

from __future__ import annotations

import random
import threading
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from helpers.play_helpers import live, manager, play
from helpers.server_helpers import (
    TEST_AGENTS,
    GatedAgent,
    check_transcript,
    create,
    parse_sse,
    wait_until,
)

from server.main import create_app
from server.settings import Limits


def _expire(client: TestClient, now: float) -> list[str]:
    m = manager(client)
    assert client.portal is not None
    ended: list[str] = client.portal.call(m.expire_idle, now)
    return ended


def test_an_idle_game_expires_and_keeps_its_moves(client: TestClient, tmp_path: Path) -> None:
    code, tokens = create(client, "external", "external", seed=21)
    rng = random.Random(21)
    for _ in range(5):
        play(client, code, tokens[str(live(client, code).state.current_player)], rng)
    game = live(client, code)
    idle = manager(client).limits.idle_expiry
    events: list[str] = []

    def read() -> None:
        with client.stream("GET", f"/games/{code}/events") as r:
            for line in r.iter_lines():
                events.append(line)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    wait_until(lambda: events, 30, "the stream's first event")
    assert _expire(client, game.moved_at + idle - 1) == []  # not idle long enough
    mover = game.state.current_player
    assert _expire(client, game.moved_at + idle + 1) == [code]
    assert game.over and game.result is not None and game.result.victory == "forfeit"
    reader.join(30)
    assert not reader.is_alive(), "the event stream did not end with the game"
    assert list(parse_sse(events))[-1]["id"] == "6"
    t = check_transcript(client.get(f"/games/{code}/transcript").text, tmp_path / "g.jsonl")
    assert len(t.moves) == 6 and t.moves[-1]["player"] == mover
    assert t.moves[-1]["details"] == {"expired": True, "idle_seconds": round(idle + 1),
                                      "forfeit": True}
    assert client.get(f"/games/{code}/info").json()["over"] is True
    # The state's headers say so too (a forfeit is over with no move on the board).
    r = client.get(f"/games/{code}")
    assert (r.headers["duel-ply"], r.headers["duel-over"]) == ("6", "true")
    assert _expire(client, game.moved_at + 10 * idle) == []  # once


def test_an_agent_thinking_in_an_expired_game_is_stopped(db: str, test_agents: None) -> None:
    gate = threading.Event()
    GatedAgent.gates.append(gate)
    try:
        with TestClient(create_app(db, agents=TEST_AGENTS)) as c:
            code, _ = create(c, "testgate", "external", seed=4)
            game = live(c, code)
            assert game.task is not None and not game.task.done()  # the agent is thinking
            thinking = game.task
            assert _expire(c, game.moved_at + manager(c).limits.idle_expiry + 1) == [code]
            wait_until(thinking.done, 30, "the agent's turn to end")
            assert game.over and len(manager(c).store.moves(code)) == 1
    finally:
        gate.set()
        GatedAgent.gates.remove(gate)


def test_there_is_a_default_cap_on_live_games() -> None:
    limits = Limits()
    assert limits.max_live_games == 1000 and limits.idle_expiry == 86400
    with pytest.raises(Exception, match="idle-expiry must be a positive number"):
        Limits(idle_expiry=0)

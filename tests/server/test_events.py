"""Event streams: one `state` event per ply for a seat and for a spectator, none skipped even for
a reader that fell behind, past states from the recent ones or a replay, and the stream's end."""

from __future__ import annotations

import asyncio
import json
import random
import threading
import time
from typing import Any

import pytest
from fastapi.testclient import TestClient
from helpers.play_helpers import WAIT, live, manager, play, play_out, states_by_ply
from helpers.server_helpers import assert_no_leak, assert_valid_state, create, parse_sse, wait_until

from duel.engine import GameState, Perspective, Seat
from server.games.live import LiveGame
from server.games.manager import GameManager


def _collect_events(client: TestClient, code: str, token: str | None,
                    out: list[dict[str, Any]], errors: list[BaseException]) -> None:
    try:
        params = {"token": token} if token else {}
        with client.stream("GET", f"/games/{code}/events", params=params) as r:
            assert r.status_code == 200, r.read()
            assert r.headers["content-type"].startswith("text/event-stream")
            out.extend(parse_sse(r.iter_lines()))
    except BaseException as exc:  # noqa: BLE001 - reported by the test thread
        errors.append(exc)


def test_event_stream_one_event_per_change(client: TestClient) -> None:
    code, tokens = create(client, "external", "external", seed=13)
    seat_events: list[dict[str, Any]] = []
    public_events: list[dict[str, Any]] = []
    errors: list[BaseException] = []
    readers = [threading.Thread(target=_collect_events, daemon=True,
                                args=(client, code, tokens["1"], seat_events, errors)),
               threading.Thread(target=_collect_events, daemon=True,
                                args=(client, code, None, public_events, errors))]
    for t in readers:
        t.start()
    states: dict[int, GameState] = {0: live(client, code).state}
    rng = random.Random(13)
    for _ in range(200):
        game = live(client, code)
        ply = game.state.ply

        def seen(ply: int = ply) -> bool:
            return bool(errors) or (any(e["id"] == str(ply) for e in seat_events)
                                    and any(e["id"] == str(ply) for e in public_events))

        wait_until(seen, WAIT, f"the events of ply {ply}")
        assert not errors, errors
        if game.over:
            break
        play(client, code, tokens[str(game.state.current_player)], rng)
        states[ply + 1] = live(client, code).state
    for t in readers:
        t.join(WAIT)
        assert not t.is_alive(), "the event stream did not end after the game-over event"
    assert not errors, errors
    final = live(client, code).state.ply
    assert [int(e["id"]) for e in seat_events] == list(range(final + 1))
    assert [int(e["id"]) for e in public_events] == list(range(final + 1))
    for events, seat in ((seat_events, 1), (public_events, None)):
        for e in events:
            assert e["event"] == "state"
            state = states[int(e["id"])]
            data = json.loads(e["data"])
            assert data == Perspective.of_player(seat).view(state)
            assert_valid_state(data, f"event {e['id']}")
            assert_no_leak(data, state, f"event {e['id']}")
        assert json.loads(events[-1]["data"])["step"] == "GAME_END"


def test_event_stream_of_an_agent_game_and_of_a_finished_game(client: TestClient) -> None:
    code, tokens = create(client, "external", "rule", seed=14)
    events: list[dict[str, Any]] = []
    errors: list[BaseException] = []
    reader = threading.Thread(target=_collect_events, daemon=True,
                              args=(client, code, tokens["1"], events, errors))
    reader.start()
    wait_until(lambda: events or errors, WAIT, "the first event")
    play_out(client, code, tokens, random.Random(14))
    reader.join(WAIT)
    assert not reader.is_alive() and not errors, errors
    ids = [int(e["id"]) for e in events]
    assert ids == sorted(set(ids)) and ids[0] == 0 and ids[-1] == live(client, code).state.ply
    final = json.loads(events[-1]["data"])
    assert final == Perspective.of_player(1).view(live(client, code).state)
    for e in events:
        assert_valid_state(json.loads(e["data"]))
    # A finished game: one event, the final state, then the stream ends.
    again: list[dict[str, Any]] = []
    _collect_events(client, code, None, again, errors)
    assert not errors, errors
    assert len(again) == 1 and json.loads(again[0]["data"])["step"] == "GAME_END"


def test_a_stream_that_fell_behind_gets_every_ply(client: TestClient,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """A reader busy while several moves happen still gets one event per ply, each with the
    state of that ply (not the latest state under an old id, nor a skipped id)."""
    code, tokens = create(client, "external", "external", seed=63)
    original = GameManager.views
    held: list[bool] = []

    async def slow_views(self: GameManager, game: LiveGame, first: int, last: int,
                         seat: Seat | None) -> list[tuple[int, dict[str, Any]]]:
        if not held:  # the first event waits until three more moves have been played
            held.append(True)
            deadline = time.monotonic() + WAIT
            while game.row.ply < 3 and time.monotonic() < deadline:
                await asyncio.sleep(0.01)
        return await original(self, game, first, last, seat)

    monkeypatch.setattr(GameManager, "views", slow_views)
    events: list[dict[str, Any]] = []
    errors: list[BaseException] = []

    def read() -> None:
        try:
            with client.stream("GET", f"/games/{code}/events",
                               params={"token": tokens["2"]}) as r:
                assert r.status_code == 200
                events.extend(parse_sse(r.iter_lines()))
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    wait_until(lambda: held, WAIT, "the stream to start")
    rng = random.Random(63)
    for _ in range(300):
        if live(client, code).over:
            break
        play(client, code, tokens[str(live(client, code).state.current_player)], rng)
    reader.join(WAIT)
    assert not reader.is_alive() and not errors, errors
    states = states_by_ply(client, code)
    assert [int(e["id"]) for e in events] == sorted(states)
    for e in events:
        assert json.loads(e["data"]) == Perspective.of_player(2).view(states[int(e["id"])]), e["id"]


def test_past_views_come_from_recent_states_or_a_replay(client: TestClient) -> None:
    code, tokens = create(client, "external", "external", seed=64)
    rng = random.Random(64)
    while not live(client, code).over:
        play(client, code, tokens[str(live(client, code).state.current_player)], rng)
    game = live(client, code)
    states = states_by_ply(client, code)
    assert min(game.recent) > 0  # the early plies are only in storage now
    for seat in (None, Seat.P1, Seat.P2):
        views = client.portal.call(manager(client).views, game, 0, game.row.ply, seat)
        assert [ply for ply, _ in views] == sorted(states)
        for ply, view in views:
            assert view == Perspective(seat).view(states[ply]), (seat, ply)


"""Caps on the server's work: concurrent searches per caller and in total (429 with retry-after
on /agents/move, a fair queue for games' seats), game creation per client address, the games in
play, and finished games leaving memory while still served from the store."""

from __future__ import annotations

import asyncio
import random
import re
import threading
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient
from helpers.play_helpers import WAIT, live, manager, play_out
from helpers.server_helpers import TEST_AGENTS, GatedAgent, bearer, create, from_address, wait_until

from duel.engine import Perspective, new_game
from duel.errors import BusyError
from server.main import create_app
from server.settings import Limits
from server.work.caps import Caps


# ---------------------------------------------------------------------------- the caps
def test_caps_refuse_past_the_caller_s_share_and_the_total() -> None:
    async def scenario() -> None:
        caps = Caps("searches", limit=2, per_caller=1, retry_after=1)
        async with caps.now("a"):
            with pytest.raises(BusyError, match="yours are all taken") as mine:
                async with caps.now("a"):
                    pass
            assert mine.value.retry_after == 1
            async with caps.now("b"):
                with pytest.raises(BusyError, match="the server's are all taken"):
                    async with caps.now("c"):
                        pass
                assert caps.running == 2
        assert caps.running == 0 and not caps.by_caller

    asyncio.run(scenario())


def test_queued_callers_are_served_in_turn() -> None:
    """One caller with many waiting moves does not starve another: slots go to the waiting
    callers in turn, and each caller's moves in the order they came."""
    async def scenario() -> list[str]:
        caps = Caps("searches", limit=1, per_caller=1, retry_after=1)
        served: list[str] = []

        async def move(caller: str, name: str) -> None:
            async with caps.queued(caller):
                served.append(name)
                await asyncio.sleep(0)

        async with caps.queued("first"):
            waiting = [asyncio.create_task(move(c, n)) for c, n in
                       [("a", "a1"), ("a", "a2"), ("a", "a3"), ("b", "b1"), ("c", "c1")]]
            await asyncio.sleep(0.01)
            assert served == [] and caps.running == 1
            waiting[1].cancel()  # a waiter that gives up leaves the line
        await asyncio.gather(*waiting, return_exceptions=True)
        assert caps.running == 0 and not caps.waiting
        return served

    assert asyncio.run(scenario()) == ["a1", "b1", "c1", "a3"]


def test_a_waiter_cancelled_as_the_slot_frees_does_not_keep_it() -> None:
    """A game's next turn cancelled (its game moved on) in the same step as the slot it waits
    for is freed: the slot is not handed to the cancelled waiter, so the caller's later moves
    still get one (a slot kept by nobody stalled a game for good)."""
    async def scenario() -> None:
        caps = Caps("searches", limit=1, per_caller=1, retry_after=1)
        served: list[str] = []

        async def move(name: str) -> None:
            async with caps.queued("game"):
                served.append(name)

        async with caps.queued("game"):
            waiter = asyncio.create_task(move("cancelled"))
            await asyncio.sleep(0)
            waiter.cancel()  # its task has not run yet when the slot is freed below
        with pytest.raises(asyncio.CancelledError):
            await waiter
        assert caps.running == 0 and not caps.by_caller and not caps.waiting
        await asyncio.wait_for(move("next"), WAIT)  # the next move gets the slot
        assert served == ["next"]

    asyncio.run(scenario())


@pytest.fixture
def capped(db: str, test_agents: None) -> Iterator[TestClient]:
    limits = Limits(searches=2, searches_per_caller=1)
    with TestClient(create_app(db, limits=limits, agents=TEST_AGENTS)) as c:
        yield c


def test_agents_move_past_the_caller_s_share_is_429_but_others_go_on(capped: TestClient
                                                                      ) -> None:
    m = manager(capped)
    gate = threading.Event()
    GatedAgent.gates.append(gate)
    state = Perspective.of_player(1).view(new_game(seed=3))
    answers: list[int] = []
    asker = threading.Thread(target=lambda: answers.append(capped.post(
        "/agents/move", json={"agent": "testgate", "state": state}).status_code), daemon=True)
    try:
        asker.start()
        wait_until(lambda: m.searches.running == 1, WAIT, "the first search")
        r = capped.post("/agents/move", json={"agent": "rule", "state": state})
        assert r.status_code == 429 and r.headers["retry-after"] == "1", r.text
        assert "busy" in r.json()["detail"]
        # A seat token from the same address adds no share (tokens are free to make) ...
        code, tokens = create(capped, "external", "external", seed=3)
        r = capped.post("/agents/move", json={"agent": "rule", "state": state},
                        headers=bearer(tokens["1"]))
        assert r.status_code == 429, r.text
        # ... another address has its own.
        with from_address(capped, "192.0.2.5"):
            r = capped.post("/agents/move", json={"agent": "rule", "state": state})
        assert r.status_code == 200, r.text
    finally:
        gate.set()
    asker.join(WAIT)
    GatedAgent.gates.remove(gate)
    assert answers == [200] and m.searches.running == 0


def test_games_seats_wait_for_a_slot_instead_of_failing(capped: TestClient) -> None:
    """Three held seats of one creator: one thinks (its share), the others wait, and all move
    once the gate opens; none falls back."""
    gate = threading.Event()
    GatedAgent.gates.append(gate)
    try:
        codes = [create(capped, "testgate", "external", seed=i)[0] for i in range(3)]
        m = manager(capped)
        wait_until(lambda: m.searches.running == 1 and
                   sum(len(q) for q in m.searches.waiting.values()) == 2, WAIT,
                   "one seat thinking, two waiting")
    finally:
        gate.set()
    wait_until(lambda: all(live(capped, c).state.ply == 1 for c in codes), WAIT, "the moves")
    GatedAgent.gates.remove(gate)
    for code in codes:
        assert "fallback" not in manager(capped).store.moves(code)[0].details


# ---------------------------------------------------------------------------- creation
def test_game_creation_is_rate_limited_per_address(db: str) -> None:
    app = create_app(db, limits=Limits(create_per_minute=6, create_burst=2), agents=TEST_AGENTS)
    with TestClient(app) as c, TestClient(app, client=("192.0.2.7", 1)) as other:
        statuses = [c.post("/games", json={"player1": "external", "player2": "external"}
                           ).status_code for _ in range(3)]
        assert statuses == [201, 201, 429]
        r = c.post("/games", json={"player1": "external", "player2": "external"})
        assert r.status_code == 429 and "too many games" in r.json()["detail"]
        assert 1 <= int(r.headers["retry-after"]) <= 10
        assert other.post("/games", json={"player1": "external", "player2": "external"}
                          ).status_code == 201
        assert len(manager(c).games) == 3


def test_the_games_in_play_can_be_capped(db: str) -> None:
    with TestClient(create_app(db, limits=Limits(max_live_games=1), agents=TEST_AGENTS)) as c:
        code, tokens = create(c, "external", "random", seed=8)
        r = c.post("/games", json={"player1": "external", "player2": "external"})
        assert r.status_code == 429 and "full" in r.json()["detail"], r.text
        assert int(r.headers["retry-after"]) > 0
        play_out(c, code, tokens, random.Random(8))
        create(c, "external", "external", seed=9)  # a finished game leaves room


# ---------------------------------------------------------------------------- memory
def _same(text: str) -> str:
    """A response's text without the page's nonce, which is new in every response."""
    return re.sub(r' nonce="[^"]*"', "", text)


def test_finished_games_leave_memory_and_are_served_from_the_store(db: str) -> None:
    limits = Limits(finished_grace=0.2)
    with TestClient(create_app(db, limits=limits, agents=TEST_AGENTS)) as c:
        code, tokens = create(c, "external", "random", seed=10)
        play_out(c, code, tokens, random.Random(10))
        seat = bearer(tokens["1"])
        before = {path: (_same(c.get(f"/games/{code}{path}", headers=seat).text),
                         _same(c.get(f"/games/{code}{path}").text))
                  for path in ("", "/transcript", "/view", "/events")}
        m = manager(c)
        wait_until(lambda: code not in m.games, WAIT, "the finished game to leave memory")
        assert not m.tokens.holds(tokens["1"])
        after = {path: (_same(c.get(f"/games/{code}{path}", headers=seat).text),
                        _same(c.get(f"/games/{code}{path}").text)) for path in before}
        assert after == before
        assert c.get(f"/games/{code}/moves", headers=seat).json()["yourTurn"] is False
        assert c.post(f"/games/{code}/moves", headers=seat, json={
            "move": "DISCARD", "moveData": {"cardIndex": 0}, "ply": 0}).status_code == 409
        assert c.get("/games/NOSUCHGAME").status_code == 404


def test_at_most_the_kept_number_of_finished_games_stay_in_memory(db: str) -> None:
    with TestClient(create_app(db, limits=Limits(finished_kept=1), agents=TEST_AGENTS)) as c:
        m = manager(c)
        first = create(c, "random", "random", seed=11)[0]
        wait_until(lambda: live(c, first).over, WAIT, "the first game's end")
        second = create(c, "random", "random", seed=12)[0]
        wait_until(lambda: first not in m.games and second in m.games and
                   m.games[second].over, WAIT, "the second game's end")
        assert c.get(f"/games/{first}").json()["step"] == "GAME_END"  # read back ...
        assert first in m.games and second not in m.games  # ... the other one leaves

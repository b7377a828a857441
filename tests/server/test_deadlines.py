"""Deadlines of agent moves, enforced from outside the agent: a search sized in iterations is cut
at the deadline, a search worker past it is killed (and only that one), an agent that hangs gets
its seat's fallback, and an LLM move's total time is bounded whatever its attempts, retries and
timeouts."""

from __future__ import annotations

import asyncio
import os
import socket
import threading
import time
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient
from helpers.play_helpers import WAIT, live, manager, stored_moves
from helpers.server_helpers import TEST_AGENTS, GatedAgent, HangingAgent, create, wait_until

from duel.agents.spec import make_agent
from duel.engine import Perspective, new_game
from duel.errors import DeadlineError
from server.main import create_app
from server.settings import Limits
from server.work.pool import Pool
from server.work.thinking import Thinker, search

BIG = "mcts:iterations=200000"  # took 73-80 s before searches had a deadline


@pytest.fixture
def quick(db: str) -> Iterator[TestClient]:
    """The app with one-second deadlines."""
    limits = Limits(search_deadline=1.0, llm_deadline=1.0)
    with TestClient(create_app(db, limits=limits, agents=TEST_AGENTS)) as c:
        yield c


def test_a_large_search_on_agents_move_answers_within_the_deadline(quick: TestClient) -> None:
    state = Perspective.of_player(1).view(new_game(seed=4))
    # A first, small search starts the worker process: the deadline counts from a ready one.
    assert quick.post("/agents/move", json={"agent": "mcts:iterations=20",
                                            "state": state}).status_code == 200
    start = time.monotonic()
    r = quick.post("/agents/move", json={"agent": BIG, "state": state})
    took = time.monotonic() - start
    assert r.status_code == 200, r.text
    assert took < 3.0, f"the answer took {took:.1f}s with a 1s deadline"
    details = r.json()["details"]
    assert 0 < details["iterations"] < 200_000 and details["seconds"] <= 1.0, details


def test_a_large_search_in_a_seat_plays_its_own_move_within_the_deadline(
        quick: TestClient) -> None:
    code, _ = create(quick, BIG, "external", seed=4)
    wait_until(lambda: live(quick, code).state.ply >= 1, WAIT, "the search's move")
    first = stored_moves(quick, code)[0]
    assert first.seat.player == 1 and "fallback" not in first.details, first.details
    assert 0 < first.details["iterations"] < 200_000
    # Worker start-up included (the first search of this app): well under the 73 s of before.
    assert first.seconds < 20, first.seconds


def test_a_seat_s_search_runs_in_a_worker_process(quick: TestClient) -> None:
    """Not on the server's threads: a search never holds the event loop or the GIL that every
    other game and request needs."""
    m = manager(quick)
    code, _ = create(quick, "mcts:time=0.5", "external", seed=5)
    workers = wait_until(lambda: {slot.pid for slot in m.thinker.pool.busy}, WAIT,
                         "the seat's search")
    assert os.getpid() not in workers and live(quick, code).state.ply == 0
    wait_until(lambda: live(quick, code).state.ply >= 1, WAIT, "the search's move")


def test_the_worker_decides_from_its_arguments_alone() -> None:
    state = new_game(seed=9)
    seen = Perspective.to_move(state)
    view, legal = seen.view(state), seen.moves_out(state.legal_moves())
    answers = [search("mcts:iterations=40", view, legal, 7, 30.0) for _ in range(3)]
    assert len({a.move for a in answers}) == 1
    assert {a.details["iterations"] for a in answers} == {40}
    # A search sized in iterations keeps its size (the default too), the time only cuts it.
    assert search("mcts", view, legal, 7, 30.0).details["iterations"] == 1000


def test_a_worker_past_its_deadline_is_killed_and_replaced_alone() -> None:
    async def scenario() -> tuple[float, int]:
        pool = Pool()
        try:
            # Two workers: one overruns its deadline, the other answers meanwhile.
            late = asyncio.create_task(pool.run(1.0, time.sleep, 60))
            quick = asyncio.create_task(pool.run(30.0, sum, [1, 2, 3]))
            assert await quick == 6
            while not pool.busy:  # the late one's worker may still be starting
                await asyncio.sleep(0.01)
            busy = {slot.pid for slot in pool.busy}
            start = time.monotonic()
            with pytest.raises(DeadlineError, match="no answer within 1s"):
                await late
            took = time.monotonic() - start
            assert len(busy) == 1 and not pool.busy
            (pid,) = busy
            assert await pool.run(30.0, pow, 2, 5) == 32  # the pool goes on
            assert pid not in {slot.pid for slot in pool.idle}
            return took, pid
        finally:
            await pool.close()

    took, pid = asyncio.run(scenario())
    assert took < 3.0

    def gone() -> bool:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        return False

    wait_until(gone, 10, f"worker {pid} to be killed")


def test_an_agent_that_hangs_gets_its_seat_s_fallback(db: str, test_agents: None) -> None:
    gate = threading.Event()
    GatedAgent.gates.append(gate)
    try:
        limits = Limits(search_deadline=0.5)
        with TestClient(create_app(db, limits=limits, agents=TEST_AGENTS)) as c:
            code, _ = create(c, "testgate", "external", seed=5, fallback="rule")
            wait_until(lambda: live(c, code).state.ply >= 1, WAIT, "the fallback's move")
            first = stored_moves(c, code)[0]
            assert first.details["fallback"] == "rule" and first.details["timeout"] is True
            assert "no answer within 0.5s" in first.details["error"]
            assert first.seconds < 5
    finally:
        gate.set()
        GatedAgent.gates.remove(gate)


def test_an_async_agent_that_hangs_is_cancelled_and_falls_back(db: str,
                                                               test_agents: None) -> None:
    HangingAgent.cancelled.clear()
    with TestClient(create_app(db, limits=Limits(llm_deadline=0.5), agents=TEST_AGENTS)) as c:
        code, _ = create(c, "testhang", "external", seed=6)
        wait_until(lambda: live(c, code).state.ply >= 1, WAIT, "the fallback's move")
        first = stored_moves(c, code)[0]
        assert first.details["fallback"] == "random" and first.details["timeout"] is True
        wait_until(lambda: HangingAgent.cancelled, 10, "the agent's wait to be cancelled")


class Silent:
    """A loopback listener that accepts connections and never answers; it records when each
    connection is closed by the other side."""

    def __init__(self) -> None:
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.opened = 0
        self.closed: list[float] = []
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.opened += 1
            threading.Thread(target=self._hold, args=(conn,), daemon=True).start()

    def _hold(self, conn: socket.socket) -> None:
        with conn:
            conn.settimeout(60)
            try:
                while conn.recv(65536):
                    pass
            except OSError:
                return
            self.closed.append(time.monotonic())

    def close(self) -> None:
        self.sock.close()


def test_an_llm_move_has_a_total_deadline_whatever_its_settings() -> None:
    """An endpoint that never answers, a huge per-call timeout and a billion attempts: the move
    still ends at the deadline, and its request is abandoned (the connection closed)."""
    silent = Silent()
    spec = (f"llm:compat:m@http://127.0.0.1:{silent.port}/v1,timeout=100000,"
            "max_attempts=1000000000,transport_retries=1000,backoff=0")
    agent = make_agent(spec)
    state = new_game(seed=7)
    seen = Perspective.to_move(state)
    thinker = Thinker(Limits(llm_deadline=1.0))

    async def ask() -> None:
        await thinker.choose(agent, spec, seen.view(state), seen.moves_out(state.legal_moves()),
                             0, "addr:test", queue=False)

    try:
        start = time.monotonic()
        with pytest.raises(DeadlineError, match="no answer within 1s"):
            asyncio.run(ask())
        assert time.monotonic() - start < 3.0
        assert silent.opened == 1
        wait_until(lambda: silent.closed, 10, "the abandoned request's connection to close")
        assert thinker.llm.running == 0
    finally:
        asyncio.run(thinker.close())
        silent.close()

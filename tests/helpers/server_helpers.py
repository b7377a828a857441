"""Shared helpers of the server tests: hidden cards, leak and schema checks, event-stream
parsing, transcript checks, bounded waiting and test-only agents."""

from __future__ import annotations

import asyncio
import json
import random
import re
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, ClassVar

from duel import transcripts
from duel.agents import runner
from duel.agents.base import Decision
from duel.agents.spec import AgentKind, register, unregister
from duel.engine import CARD_NAMES, Deal, GameState, Move, new_game
from duel.schemas import schema_error

WONDER_SELECTION = "WONDER_SELECTION"
# The stores the tests that run on both use: `pytest.mark.parametrize("db", BACKENDS,
# indirect=True)` (the `db` fixture of conftest.py makes a fresh database of each).
BACKENDS = ["sqlite", "postgresql"]


# ---------------------------------------------------------------------------- hidden cards
def hidden_card_ids(state: GameState) -> set[int]:
    """Every card no seat has seen: the removed cards, the decks of later ages (all of them
    during the wonder draft) and the face-down cards of the structure on the table."""
    deal = state.deal
    hidden = set(deal.removed1) | set(deal.removed2) | set(deal.removed3)
    hidden |= set(deal.removed_guilds)
    drafting = state.step_name == WONDER_SELECTION
    for age in (1, 2, 3):
        if drafting or age > state.age:
            hidden |= set(deal.age(age))
    if not drafting:
        for slot, card in enumerate(state.pyramid):
            if card >= 0 and not (state.face_up >> slot) & 1:
                hidden.add(card)
    return hidden


def leaked_names(obj: Any, state: GameState) -> list[str]:
    """Names of hidden cards found anywhere in `obj` (keys, values, free text), as whole words.

    A card once seen stays seen, so checking against a state at or after the moment `obj` was
    produced never misses a leak that mattered then."""
    text = obj if isinstance(obj, str) else json.dumps(obj)
    found = []
    for card in hidden_card_ids(state):
        name = CARD_NAMES[card]
        if re.search(rf"(?<![A-Za-z0-9_]){re.escape(name)}(?![A-Za-z0-9_])", text, re.IGNORECASE):
            found.append(name)
    return sorted(found)


def assert_no_leak(obj: Any, state: GameState, what: str = "response") -> None:
    leaks = leaked_names(obj, state)
    assert not leaks, f"{what} shows face-down or unseen cards {leaks}"


def assert_valid_state(view: Any, what: str = "view") -> None:
    problem = schema_error("state", view)
    assert problem is None, f"{what} does not validate against the state schema: {problem}"


# ---------------------------------------------------------------------------- events
def parse_sse(lines: Iterable[str]) -> Iterator[dict[str, Any]]:
    """Server-sent events from text lines: dicts with event, id and data (joined lines).
    Comment lines (pings) are skipped; an event is emitted at each blank line."""
    fields: dict[str, str] = {}
    data: list[str] = []
    for line in lines:
        line = line.rstrip("\r")
        if line == "":
            if data or fields:
                yield {"event": fields.get("event", "message"), "id": fields.get("id"),
                       "data": "\n".join(data)}
            fields, data = {}, []
            continue
        if line.startswith(":"):
            continue
        name, _, value = line.partition(":")
        value = value.removeprefix(" ")
        if name == "data":
            data.append(value)
        else:
            fields[name] = value
    if data:
        yield {"event": fields.get("event", "message"), "id": fields.get("id"),
               "data": "\n".join(data)}


# ---------------------------------------------------------------------------- transcripts
def check_transcript(text: str, path: Path) -> transcripts.Transcript:
    """Save a transcript, check every line against the transcript schema, replay it through the
    engine and check its result; returns it."""
    path.write_text(text)
    for i, line in enumerate(text.splitlines(), 1):
        problem = schema_error("transcript", json.loads(line))
        assert problem is None, f"transcript line {i}: {problem}"
    t = transcripts.read(path)
    assert t.problems == [], t.problems
    assert t.footer is not None, "the transcript has no result line"
    final = new_game(deal=Deal.from_json(t.header["deal"]),
                     open_box=bool(t.header["options"]["open_box"]), code=t.header["code"])
    for step in transcripts.replay(t):
        final = step.after
    transcripts.check_result(t, final)
    return t


def footer(t: transcripts.Transcript) -> dict[str, Any]:
    assert t.footer is not None, "the transcript has no result line"
    return t.footer


# ---------------------------------------------------------------------------- waiting
def wait_until(predicate: Callable[[], Any], timeout: float, what: str,
               interval: float = 0.02) -> Any:
    """Poll `predicate` until it returns something truthy; fail after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:g}s waiting for {what}")
        time.sleep(interval)


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def move_body(move: dict[str, Any], ply: int) -> dict[str, Any]:
    return {"move": move["move"], "moveData": move["moveData"], "ply": ply}


# ---------------------------------------------------------------------------- test agents
class FailingAgent:
    """An agent seat that always raises (a crashed bot, a bug)."""

    def __init__(self) -> None:
        self.spec = "testfail"

    def choose(self, view: dict[str, Any], legal: Sequence[Move],
               rng: random.Random) -> Decision:
        raise RuntimeError("this agent always fails")


class GatedAgent:
    """A random agent that waits until the current gate opens (at most 60 s): it lets a test
    hold an agent seat in the middle of its turn."""

    gates: ClassVar[list[threading.Event]] = [threading.Event()]

    def __init__(self) -> None:
        self.spec = "testgate"

    def choose(self, view: dict[str, Any], legal: Sequence[Move],
               rng: random.Random) -> Decision:
        self.gates[-1].wait(60)
        return Decision(rng.choice(list(legal)))


class HangingAgent:
    """An agent with `achoose`, as LLM players have, that never answers: the server must cut
    it off from outside. Each cancellation of its wait is recorded."""

    cancelled: ClassVar[list[float]] = []

    def __init__(self) -> None:
        self.spec = "testhang"

    def choose(self, view: dict[str, Any], legal: Sequence[Move],
               rng: random.Random) -> Decision:
        return runner.run(self.achoose(view, legal, rng))

    async def achoose(self, view: dict[str, Any], legal: Sequence[Move],
                      rng: random.Random) -> Decision:
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            self.cancelled.append(time.monotonic())
            raise
        raise AssertionError("an event nobody sets was set")


TEST_KINDS = {
    "testfail": AgentKind("testfail", "always raises (tests)", {}, FailingAgent),
    "testgate": AgentKind("testgate", "random, once its gate opens (tests)", {}, GatedAgent),
    "testhang": AgentKind("testhang", "an async agent that never answers (tests)", {},
                          HangingAgent),
}


# The test agents as the operator configures them for the test client: by name.
TEST_AGENTS = {name: name for name in TEST_KINDS}


def register_test_agents() -> None:
    for kind in TEST_KINDS.values():
        register(kind)


def unregister_test_agents() -> None:
    for name in TEST_KINDS:
        unregister(name)


def create(client: Any, p1: str, p2: str, **options: Any) -> tuple[str, dict[str, str]]:
    """POST /games with two seats; the game's code and the external seats' tokens."""
    r = client.post("/games", json={"player1": p1, "player2": p2, **options})
    assert r.status_code == 201, r.text
    body = r.json()
    return body["code"], body["tokens"]


@contextmanager
def from_address(client: Any, host: str) -> Iterator[Any]:
    """The test client's requests come from `host` for the block (the server keys every
    per-client limit by address)."""
    transport = client._transport
    before = transport.client
    transport.client = (host, 50000)
    try:
        yield client
    finally:
        transport.client = before


class ManualClock:
    """The seats' clock of a test (create_app's `sleep`): a clock's wait ends when the test
    strikes it, never by itself, so a test decides whether the bot or the clock moves first."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._waiting: list[tuple[asyncio.AbstractEventLoop, asyncio.Future[None]]] = []

    async def sleep(self, seconds: float) -> None:
        loop = asyncio.get_running_loop()
        done: asyncio.Future[None] = loop.create_future()
        with self._lock:
            self._waiting.append((loop, done))
        try:
            await done
        finally:
            with self._lock:
                self._waiting = [(lp, f) for lp, f in self._waiting if f is not done]

    def pending(self) -> int:
        """The clocks waiting now (a cancelled one, its turn played, is gone)."""
        with self._lock:
            return sum(1 for _, f in self._waiting if not f.done())

    def strike(self) -> None:
        """End every clock's wait now (from the test's thread)."""
        with self._lock:
            waiting = list(self._waiting)
        for loop, done in waiting:
            loop.call_soon_threadsafe(lambda f=done: f.done() or f.set_result(None))

"""The `http:URL` agent: another server that speaks `POST /agents/move` (duel's own, an older
duel from a second checkout, a user's bot) decides each move.

Each attempt is one request ``{"agent": AGENT, "state": <the seat's view>}`` with a timeout.
Busy is not broken: a 429 or 503 is waited for (its retry-after or retry-after-ms honoured, else
backoff), and a connection refused or reset is tried again with backoff (`transport_retries`),
neither using up an attempt, for at most `busy_wait` seconds a decision; each try is recorded.
The reply is then judged like an LLM's: `TRANSPORT` (no connection after the retries, the wait
used up, the request's own timeout, another 5xx), `REFUSED` (another 4xx), `UNPARSABLE` (not a
JSON object), `SCHEMA` (the engine's move parser), `ILLEGAL` (the engine's legal moves). After
`max_attempts` the fallback plays (`random`, `rule`) or the seat resigns (`forfeit`): the
attempt policy of LLM seats (attempts.py), which also stops the game after `stop_after`
fallbacks in a row that the server, not the agent, caused. A bad reply never raises.

Spec: ``http:URL[,agent=NAME,timeout=S,max_attempts=N,fallback=F,busy_wait=S,
transport_retries=N,stop_after=N]``, e.g. ``http:http://127.0.0.1:8001,agent=mcts:time=1``;
``http://HOST:PORT`` alone works too. In `agent`, write ``;`` for the commas of the remote spec
(``agent=mcts:time=1;c=0.5``). Only an operator may configure one on a server (`duel serve
--agent NAME=http:...`): a request cannot make the server call out.
"""

from __future__ import annotations

import asyncio
import json
import time
from dataclasses import dataclass
from types import TracebackType
from typing import Any
from urllib.parse import urlsplit

import httpx

from duel.agents.attempts import (
    AskingSeat,
    AttemptPolicy,
    Category,
    ConversationBase,
    Verdict,
    Wording,
)
from duel.agents.builtin import HTTP
from duel.agents.kinds import parse_params
from duel.agents.waiting import backoff_wait, retry_after
from duel.engine import Move
from duel.errors import SpecError

SHOWN = 2000  # characters of a reply kept in the record
BUSY = (429, 503)  # statuses that mean "come back later": waited for, no attempt spent
MAX_REPLY = 64 * 1024  # bytes of a reply read at most: a bot cannot flood the transcript
# The engine's refusals as the records word them.
WORDING = Wording(malformed="the move is malformed", illegal="the move is not legal")


class HTTPAgent(AskingSeat):
    """Asks `url`'s ``POST /agents/move`` for each move (see the module's docstring)."""

    def __init__(self, url: str, agent: str = "mcts", timeout: float = 10.0,
                 max_attempts: int = 2, fallback: str = "random", busy_wait: float = 300.0,
                 transport_retries: int = 4, backoff: float = 0.5,
                 stop_after: int | None = None) -> None:
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise SpecError(f"http: {url!r} is not an http(s) URL with a host")
        if not timeout > 0:
            raise SpecError(f"http: timeout must be > 0 seconds, got {timeout}")
        if busy_wait < 0 or transport_retries < 0 or backoff < 0:
            raise SpecError("http: busy_wait, transport_retries and backoff must not be "
                            "negative")
        self.policy = AttemptPolicy(max_attempts, fallback, "http", stop_after)
        self.busy_wait = busy_wait
        self.transport_retries = transport_retries
        self.backoff = backoff
        self.spec = f"http:{url}"
        self.url = url.rstrip("/") + "/agents/move"
        self.agent = agent.replace(";", ",")
        self.timeout = timeout

    def conversation(self, view: dict[str, Any], legal: list[Move]) -> _Conversation:
        return _Conversation(self, view)


@dataclass
class HTTPCall:
    """One request: its attempt, the HTTP status and the reply (None and "" when none came),
    the latency, what became of it and why."""

    attempt: int
    status: int | None = None
    reply: str = ""
    latency_s: float = 0.0
    category: str = ""
    error: str | None = None
    retry_in_s: float | None = None  # a busy or unreachable server: waited, then asked again

    def to_json(self) -> dict[str, Any]:
        # the key orders records have always had: a request without a reply records why
        # before its latency
        out: dict[str, Any] = {"attempt": self.attempt, "status": self.status,
                               "reply": self.reply}
        if self.category == Category.TRANSPORT:
            out = {**out, "category": self.category, "error": self.error,
                   "latency_s": self.latency_s}
            return out if self.retry_in_s is None else {**out, "retry_in_s": self.retry_in_s}
        out.update(latency_s=self.latency_s, category=self.category)
        if self.error is not None:
            out["error"] = self.error
        return out


class _Conversation(ConversationBase):
    """One decision's requests, over one connection pool. The protocol carries a state only:
    a refused answer is followed by the same question (no reason to tell)."""

    key = "http"
    wording = WORDING

    def __init__(self, seat: HTTPAgent, view: dict[str, Any]) -> None:
        self.seat = seat
        self.body = {"agent": seat.agent, "state": view}
        self.calls: list[HTTPCall] = []
        self.client = httpx.AsyncClient(timeout=seat.timeout)
        self.deadline = time.monotonic() + seat.busy_wait  # the decision's wait for the server

    async def __aenter__(self) -> _Conversation:
        await self.client.__aenter__()
        return self

    async def __aexit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                        tb: TracebackType | None) -> None:
        await self.client.__aexit__(kind, exc, tb)

    async def ask(self, attempt: int) -> Verdict | Any | None:
        """One attempt: a request, asked again while the server is busy or unreachable (for at
        most the seat's busy_wait a decision); None if no reply came (the attempt is spent)."""
        seat = self.seat
        unreachable = 0
        while True:
            call = HTTPCall(attempt)
            self.calls.append(call)
            start = time.perf_counter()
            wait: float | None = None
            try:
                text, status, retry_after = await _post(self.client, seat.url, self.body)
            except httpx.TimeoutException as exc:  # the agent's own time: the attempt is spent
                _failed(call, start, f"{type(exc).__name__}: timed out after {seat.timeout:g}s")
                return None
            except httpx.HTTPError as exc:  # refused, reset, unreachable: tried again first
                _failed(call, start, f"{type(exc).__name__}: {exc}")
                unreachable += 1
                if unreachable <= seat.transport_retries:
                    wait = backoff_wait(unreachable, seat.backoff)
            else:
                call.latency_s = round(time.perf_counter() - start, 4)
                if status >= 500 and status not in BUSY:  # the bot failed: the attempt is spent
                    # recorded as before busy servers were waited for: no status, no reply
                    call.category = Category.TRANSPORT.value
                    call.error = f"HTTPStatusError: HTTP {status}: {text[:200]}"
                    return None
                call.status, call.reply = status, text[:SHOWN]
                if status not in BUSY:
                    return _read(status, text)
                call.category = Category.TRANSPORT.value
                call.error = f"HTTP {status}: {text[:200]}"
                # busy: waited for, as the server asks
                wait = backoff_wait(len(self.calls), seat.backoff, retry_after=retry_after)
            if wait is None:
                return None
            if time.monotonic() + wait > self.deadline:
                call.error = f"{call.error}; gave up: waited {seat.busy_wait:g}s (busy_wait)"
                return None
            call.retry_in_s = round(wait, 3)
            await asyncio.sleep(wait)

    def fields(self) -> tuple[dict[str, Any], dict[str, Any]]:
        return {"agent": self.seat.agent}, {}


def _failed(call: HTTPCall, start: float, error: str) -> None:
    call.category = Category.TRANSPORT.value
    call.error = error
    call.latency_s = round(time.perf_counter() - start, 4)


async def _post(client: httpx.AsyncClient, url: str, body: dict[str, Any]
                ) -> tuple[str, int, float | None]:
    """The reply's text (at most MAX_REPLY bytes), its status, and the retry-after it asks
    for."""
    async with client.stream("POST", url, json=body) as response:
        chunks = []
        size = 0
        async for chunk in response.aiter_bytes():
            chunks.append(chunk)
            size += len(chunk)
            if size >= MAX_REPLY:
                break
        text = b"".join(chunks)[:MAX_REPLY].decode("utf-8", errors="replace")
        return text, response.status_code, retry_after(response.headers)


def _read(status: int, text: str) -> Verdict | dict[str, Any]:
    """A reply the seat refuses itself (a refusal, not a JSON object), or the move object in
    it (its ``move`` and ``moveData``: a bot may add fields of its own)."""
    if status != 200:
        return Verdict(Category.REFUSED, None, f"HTTP {status}")
    try:
        obj = json.loads(text)
    except ValueError:
        return Verdict(Category.UNPARSABLE, None, "the reply is not JSON")
    if not isinstance(obj, dict):
        return Verdict(Category.UNPARSABLE, None,
                       f"the reply is a JSON {type(obj).__name__}, not an object")
    return {k: obj[k] for k in ("move", "moveData") if k in obj}


def parse_http_spec(rest: str) -> HTTPAgent:
    """`rest` is what follows ``http:`` in the spec: a URL, then ``,k=v`` options. In
    ``http://HOST`` the ``//HOST`` part is what follows."""
    url, _, options = rest.partition(",")
    url = url.strip()
    if url.startswith("//"):
        url = "http:" + url
    if not url:
        raise SpecError("http: needs a URL, e.g. http:http://127.0.0.1:8001,agent=rule")
    agent = HTTPAgent(url, **parse_params(HTTP, options))
    agent.spec = f"http:{rest.strip()}"  # as written: the remote agent shows in results
    return agent

"""The `http:URL` agent: another server that speaks `POST /agents/move` (duel's own, an older
duel from a second checkout, a user's bot) decides each move.

Each attempt is one request ``{"agent": AGENT, "state": <the seat's view>}`` with a timeout.
The reply is judged like an LLM's: `TRANSPORT` (no connection, the timeout, a 5xx or a 429),
`REFUSED` (another 4xx), `UNPARSABLE` (not a JSON object), `SCHEMA` (the engine's move parser),
`ILLEGAL` (the engine's legal moves). Every attempt is recorded (category, status, latency,
the reply, why it was refused); after `max_attempts` the fallback plays (`random`, `rule`) or
the seat resigns (`forfeit`), as for LLM seats. A bad reply never raises.

Spec: ``http:URL[,agent=NAME,timeout=S,max_attempts=N,fallback=F]``, e.g.
``http:http://127.0.0.1:8001,agent=mcts:time=1``; ``http://HOST:PORT`` alone works too. In
`agent`, write ``;`` for the commas of the remote spec (``agent=mcts:time=1;c=0.5``). Only an
operator may configure one on a server (`duel serve --agent NAME=http:...`): a request cannot
make the server call out.
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Sequence
from typing import Any
from urllib.parse import urlsplit

import httpx

from duel.agents.base import Decision, RandomAgent
from duel.agents.builtin import HTTP
from duel.agents.kinds import parse_params
from duel.agents.llm import runner
from duel.engine import InfoSet, Move
from duel.errors import InvalidMoveError, SpecError

FALLBACKS = ("forfeit", "random", "rule")
OK, TRANSPORT, REFUSED, UNPARSABLE, SCHEMA, ILLEGAL = (
    "OK", "TRANSPORT", "REFUSED", "UNPARSABLE", "SCHEMA", "ILLEGAL")
SHOWN = 2000  # characters of a reply kept in the record
MAX_REPLY = 64 * 1024  # bytes of a reply read at most: a bot cannot flood the transcript



class HTTPAgent:
    """Asks `url`'s ``POST /agents/move`` for each move (see the module's docstring)."""

    def __init__(self, url: str, agent: str = "mcts", timeout: float = 10.0,
                 max_attempts: int = 2, fallback: str = "random") -> None:
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise SpecError(f"http: {url!r} is not an http(s) URL with a host")
        if not timeout > 0:
            raise SpecError(f"http: timeout must be > 0 seconds, got {timeout}")
        if max_attempts < 1:
            raise SpecError(f"http: max_attempts must be >= 1, got {max_attempts}")
        if fallback not in FALLBACKS:
            raise SpecError(f"http: fallback must be one of {', '.join(FALLBACKS)}")
        self.spec = f"http:{url}"
        self.url = url.rstrip("/") + "/agents/move"
        self.agent = agent.replace(";", ",")
        self.timeout = timeout
        self.max_attempts = max_attempts
        self.fallback = fallback

    def choose(self, view: dict[str, Any], legal: Sequence[Move],
               rng: random.Random) -> Decision:
        return runner.run(self.achoose(view, legal, rng))

    async def achoose(self, view: dict[str, Any], legal: Sequence[Move],
                      rng: random.Random) -> Decision:
        legal = list(legal)
        calls: list[dict[str, Any]] = []
        body = {"agent": self.agent, "state": view}
        async with httpx.AsyncClient(timeout=self.timeout) as client:
            for attempt in range(1, self.max_attempts + 1):
                start = time.perf_counter()
                record: dict[str, Any] = {"attempt": attempt, "status": None, "reply": ""}
                calls.append(record)
                try:
                    text, status = await _post(client, self.url, body)
                except httpx.HTTPError as exc:
                    record.update(category=TRANSPORT, error=f"{type(exc).__name__}: {exc}")
                    record["latency_s"] = round(time.perf_counter() - start, 4)
                    continue
                record["latency_s"] = round(time.perf_counter() - start, 4)
                record.update(status=status, reply=text[:SHOWN])
                category, move, reason = _judge(status, text, view, legal)
                record["category"] = category
                if reason:
                    record["error"] = reason
                if move is not None:
                    return Decision(move, self._details(calls, attempt, None))
        return self._fallback(view, legal, rng, calls)

    def _fallback(self, view: dict[str, Any], legal: list[Move], rng: random.Random,
                  calls: list[dict[str, Any]]) -> Decision:
        if self.fallback == "forfeit":
            return Decision(legal[0], self._details(calls, None, "forfeit"), forfeit=True)
        if self.fallback == "rule":
            from duel.agents.rule_based import RuleAgent

            played = RuleAgent().choose(view, legal, rng).move
        else:
            played = RandomAgent().choose(view, legal, rng).move
        return Decision(played, self._details(calls, None, self.fallback))

    def _details(self, calls: list[dict[str, Any]], legal_at: int | None,
                 fallback: str | None) -> dict[str, Any]:
        return {"http": {"agent": self.agent, "calls": calls, "attempts": len(calls),
                         "legal_at_attempt": legal_at, "fallback": fallback}}


async def _post(client: httpx.AsyncClient, url: str, body: dict[str, Any]) -> tuple[str, int]:
    """The reply's text (at most MAX_REPLY bytes) and status; a 5xx or 429 raises as a
    transport failure."""
    async with client.stream("POST", url, json=body) as response:
        chunks = []
        size = 0
        async for chunk in response.aiter_bytes():
            chunks.append(chunk)
            size += len(chunk)
            if size >= MAX_REPLY:
                break
        text = b"".join(chunks)[:MAX_REPLY].decode("utf-8", errors="replace")
        if response.status_code >= 500 or response.status_code == 429:
            raise httpx.HTTPStatusError(f"HTTP {response.status_code}: {text[:200]}",
                                        request=response.request, response=response)
        return text, response.status_code


def _judge(status: int, text: str, view: dict[str, Any], legal: list[Move]
           ) -> tuple[str, Move | None, str]:
    """The category of a reply, the move if it is legal, and why it is not."""
    if status != 200:
        return REFUSED, None, f"HTTP {status}"
    try:
        obj = json.loads(text)
    except ValueError:
        return UNPARSABLE, None, "the reply is not JSON"
    if not isinstance(obj, dict):
        return UNPARSABLE, None, f"the reply is a JSON {type(obj).__name__}, not an object"
    try:
        move = Move.from_json({k: obj[k] for k in ("move", "moveData") if k in obj})
    except InvalidMoveError as exc:
        return SCHEMA, None, f"the move is malformed: {exc}"
    if move not in legal:
        state = InfoSet.from_view(view).sample(random.Random(0))  # for the reason only
        return ILLEGAL, None, f"the move is not legal: {state.why_illegal(move)}"
    return OK, move, ""


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

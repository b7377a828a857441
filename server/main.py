"""The FastAPI app: routes, storage, the agents on offer, the operator's limits, the rate limit
and the body limit;
errors answer as server/errors.py says."""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from contextlib import asynccontextmanager
from urllib.parse import unquote_plus

from fastapi import FastAPI, Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from duel.errors import BusyError, DuelError, MisdirectedError, SlowClientError, TooLargeError
from server import errors
from server.catalogue import Catalogue
from server.deps import caller_of
from server.hosts import answers_to
from server.manager import GameManager
from server.ratelimit import MAX_BUCKETS, RateLimiter
from server.routes import agents as agent_routes
from server.routes import docs, games, leaderboard, pages
from server.routes import log as log_routes
from server.settings import Limits
from server.store import open_store

__all__ = ["MAX_BODY", "MAX_BUCKETS", "HostCheck", "RateLimiter", "RedactTokens", "create_app"]
MAX_BODY = 64 * 1024


class RedactTokens(logging.Filter):
    """Hides the value of every query pair whose name is a token's, however it is spelled, in
    log records (uvicorn's access log prints the raw query string; an event stream's token
    travels there because EventSource cannot set headers). A name counts once decoded (as often
    as it takes: `%74oken`, `%2574oken`) and case-folded, if it holds "token"."""

    PAIR = re.compile(r"([?&;])([^=&;\s\"#?]*)=([^&;\s\"#]*)")

    @staticmethod
    def _decoded(name: str) -> str:
        for _ in range(5):
            once = unquote_plus(name)
            if once == name:
                break
            name = once
        return name.strip().casefold()

    def _redact(self, text: str) -> str:
        def pair(m: re.Match[str]) -> str:
            if "token" in self._decoded(m.group(2)):
                return f"{m.group(1)}{m.group(2)}=***"
            return m.group(0)

        return self.PAIR.sub(pair, text)

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.args, tuple):
            record.args = tuple(self._redact(a) if isinstance(a, str) else a
                                for a in record.args)
        if isinstance(record.msg, str):
            record.msg = self._redact(record.msg)
        return True


# The loggers that may print a request's query: uvicorn's access and error logs, and ours.
REDACTED_LOGGERS = ("uvicorn.access", "uvicorn.error", "duel.server")


def _redact_logs() -> None:
    for name in REDACTED_LOGGERS:
        logger = logging.getLogger(name)
        if not any(isinstance(f, RedactTokens) for f in logger.filters):
            logger.addFilter(RedactTokens())


class RateLimit:
    """The per-caller rate limit (429 with retry-after), as plain ASGI middleware: starlette's
    BaseHTTPMiddleware (what `@app.middleware` builds) streams every response through a task
    and a queue of its own, a tenth of a move's time under load (py-spy)."""

    def __init__(self, app: ASGIApp, limiter: RateLimiter) -> None:
        self.app = app
        self.limiter = limiter

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and not self.limiter.allow(caller_of(Request(scope))):
            response = errors.error_response(BusyError("rate limit exceeded", retry_after=1))
            await response(scope, receive, send)
            return
        await self.app(scope, receive, send)


class BodyLimit:
    """Reads each request's body in full before the app sees it: at most `limit` bytes (413
    beyond) within `seconds` of the request's start (408 beyond, and the connection is closed:
    a client trickling its body a byte a second must not hold a connection and a task for
    ever). A declared Content-Length is checked before reading; a body without one (chunked)
    is limited as it is read (FastAPI would otherwise turn a failed read into a parse
    error)."""

    def __init__(self, app: ASGIApp, limit: int, seconds: float) -> None:
        self.app = app
        self.limit = limit
        self.seconds = seconds

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = dict(scope["headers"])
        if b"content-length" not in headers and b"transfer-encoding" not in headers:
            # No body (HTTP/1.1 has one only with either header): nothing to wait for, and no
            # timer to arm for each of the bots' GETs.
            await self.app(scope, receive, send)
            return
        too_large = TooLargeError(f"request body over {self.limit} bytes")
        declared = headers.get(b"content-length")
        if declared is not None and (not declared.isdigit() or int(declared) > self.limit):
            await self._refuse(too_large, scope, receive, send)
            return
        try:
            async with asyncio.timeout(self.seconds):
                chunks = await self._read(receive)
        except TimeoutError:
            await self._refuse(SlowClientError(
                f"request body not received within {self.seconds:g}s"), scope, receive, send)
            return
        if chunks is None:
            await self._refuse(too_large, scope, receive, send)
            return

        async def replay() -> Message:
            return chunks.pop(0) if chunks else await receive()

        await self.app(scope, replay, send)

    async def _read(self, receive: Receive) -> list[Message] | None:
        """The body's messages, or None once they hold more than the limit."""
        chunks: list[Message] = []
        seen = 0
        while True:
            message = await receive()
            chunks.append(message)
            if message["type"] != "http.request":
                return chunks
            seen += len(message.get("body", b""))
            if seen > self.limit:
                return None
            if not message.get("more_body", False):
                return chunks

    async def _refuse(self, exc: DuelError, scope: Scope, receive: Receive, send: Send) -> None:
        await errors.error_response(exc)(scope, receive, send)


class HostCheck:
    """Refuses (421) a request whose Host header names none of `allowed`, or none at all
    (server/hosts.py: DNS rebinding)."""

    def __init__(self, app: ASGIApp, allowed: frozenset[str]) -> None:
        self.app = app
        self.allowed = allowed

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] in ("http", "websocket"):
            host = next((v.decode("latin-1") for k, v in scope["headers"] if k == b"host"), "")
            if not answers_to(self.allowed, host):
                shown = host[:60] or "(none)"
                refusal = MisdirectedError(
                    f"this server does not answer to the host name {shown!r}; it answers to "
                    f"{', '.join(sorted(self.allowed))}")
                await errors.error_response(refusal)(scope, receive, send)
                return
        await self.app(scope, receive, send)


def create_app(db: str = "duel.db", rate: float = 200.0, burst: int = 400,
               limits: Limits | None = None, agents: Mapping[str, str] | None = None,
               admin_token: str | None = None,
               allowed_hosts: frozenset[str] | None = None,
               agents_all_restricted: bool = False,
               sleep: Callable[[float], Awaitable[None]] = asyncio.sleep) -> FastAPI:
    """The app, storing games in `db` (a path, sqlite:///PATH or postgresql://...), within
    the operator's `limits` (the defaults of `Limits` without), offering the built-in agents and the
    operator's `agents` (name -> spec; callers use them by name). With `admin_token`, the
    configured agents that reach out (`agents_all_restricted`: every configured agent) are for
    that token alone. With `allowed_hosts`, a request
    naming another host is refused (421; server/hosts.py). `sleep`: how the seats' clocks wait
    (tests give a clock of their own)."""
    limits = limits or Limits()
    catalogue = Catalogue(agents, admin_token, agents_all_restricted)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        store = open_store(db, limits.lease)
        manager = GameManager(store, limits, catalogue=catalogue, sleep=sleep)
        app.state.manager = manager
        await manager.start()
        try:
            yield
        finally:
            await manager.stop()
            store.close()

    # /docs and /redoc are ours (server/routes/docs.py): FastAPI's load their scripts from a CDN.
    app = FastAPI(title="duel", version="0.1.0", lifespan=lifespan, docs_url=None,
                  redoc_url=None,
                  description="7 Wonders Duel for LLM agents, MCTS and external bots. States and "
                              "moves use the rules prompt's JSON format.")
    limiter = RateLimiter(rate, burst)
    _redact_logs()

    app.add_middleware(RateLimit, limiter=limiter)
    errors.install(app)
    app.include_router(games.router)
    app.include_router(agent_routes.router)
    app.include_router(pages.router)
    app.include_router(docs.router)
    app.include_router(leaderboard.router)
    app.include_router(log_routes.router)
    app.add_middleware(BodyLimit, limit=MAX_BODY, seconds=limits.body_timeout)
    if allowed_hosts is not None:
        app.add_middleware(HostCheck, allowed=allowed_hosts)  # the outermost: checked first
    return app

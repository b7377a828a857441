"""The FastAPI app: routes, storage, the agents on offer, the rate limit and the body limit;
errors answer as server/errors.py says."""

from __future__ import annotations

import logging
import re
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from contextlib import asynccontextmanager
from urllib.parse import unquote_plus

from fastapi import FastAPI, Request
from fastapi.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from duel.errors import AuthError, BusyError, TooLargeError
from server import errors
from server.catalogue import Catalogue
from server.deps import request_token
from server.manager import GameManager
from server.routes import agents as agent_routes
from server.routes import games
from server.seats import token_hash
from server.store import open_store

MAX_BODY = 64 * 1024
MAX_BUCKETS = 10_000


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


class RateLimiter:
    """A token bucket per client (a seat's token, else an address): `rate` requests a second,
    bursts of `burst`."""

    def __init__(self, rate: float, burst: int) -> None:
        self.rate = rate
        self.burst = burst
        self.buckets: dict[str, tuple[float, float]] = {}

    def allow(self, key: str) -> bool:
        now = time.monotonic()
        if key not in self.buckets and len(self.buckets) >= MAX_BUCKETS:
            self._prune(now)
        tokens, last = self.buckets.get(key, (float(self.burst), now))
        tokens = min(float(self.burst), tokens + (now - last) * self.rate)
        if tokens < 1.0:
            self.buckets[key] = (tokens, now)
            return False
        self.buckets[key] = (tokens - 1.0, now)
        return True

    def _prune(self, now: float) -> None:
        """Forget the buckets that have refilled (they are as good as new), so the table stays
        small; if every bucket is busy, forget the oldest half."""
        full = [k for k, (tokens, last) in self.buckets.items()
                if tokens + (now - last) * self.rate >= self.burst]
        for k in full:
            del self.buckets[k]
        if len(self.buckets) >= MAX_BUCKETS:
            oldest = sorted(self.buckets, key=lambda k: self.buckets[k][1])
            for k in oldest[:len(oldest) // 2]:
                del self.buckets[k]


class BodyLimit:
    """Refuses bodies over `limit` bytes with 413. A declared Content-Length is checked before
    reading; a body without one (chunked) is read up to the limit first and then handed on, so
    it is limited too (FastAPI would otherwise turn a failed read into a parse error)."""

    def __init__(self, app: ASGIApp, limit: int) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope["headers"]).get(b"content-length")
        if declared is not None:
            if not declared.isdigit() or int(declared) > self.limit:
                await self._refuse(scope, receive, send)
            else:
                await self.app(scope, receive, send)
            return
        chunks: list[Message] = []
        seen = 0
        while True:
            message = await receive()
            chunks.append(message)
            if message["type"] != "http.request":
                break
            seen += len(message.get("body", b""))
            if seen > self.limit:
                await self._refuse(scope, receive, send)
                return
            if not message.get("more_body", False):
                break

        async def replay() -> Message:
            return chunks.pop(0) if chunks else await receive()

        await self.app(scope, replay, send)

    async def _refuse(self, scope: Scope, receive: Receive, send: Send) -> None:
        response = errors.error_response(TooLargeError(f"request body over {self.limit} bytes"))
        await response(scope, receive, send)


def create_app(db: str = "duel.db", rate: float = 200.0, burst: int = 400,
               agents: Mapping[str, str] | None = None,
               admin_token: str | None = None) -> FastAPI:
    """The app, storing games in `db` (a path or sqlite:///PATH), offering the built-in agents
    and the operator's `agents` (name -> spec; callers use them by name). With `admin_token`,
    the configured agents that reach out are for that token alone."""
    catalogue = Catalogue(agents, admin_token)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        store = open_store(db)
        manager = GameManager(store, catalogue=catalogue)
        app.state.manager = manager
        await manager.start()
        try:
            yield
        finally:
            await manager.stop()
            store.close()

    app = FastAPI(title="duel", version="0.1.0", lifespan=lifespan,
                  description="7 Wonders Duel for LLM agents, MCTS and external bots. States and "
                              "moves use the rules prompt's JSON format.")
    limiter = RateLimiter(rate, burst)
    _redact_logs()

    @app.middleware("http")
    async def limits(request: Request,
                     call_next: Callable[[Request], Awaitable[Response]]) -> Response:
        # Per seat token when a valid one is given (many bots may share an address), else per
        # address: a made-up token must not buy a fresh bucket.
        client = "addr:" + (request.client.host if request.client else "?")
        try:
            token = request_token(request)
        except AuthError:
            token = None  # the route refuses it; here it only holds no seat
        manager: GameManager | None = getattr(request.app.state, "manager", None)
        if token and manager is not None and manager.tokens.holds(token):
            client = "seat:" + token_hash(token)
        if not limiter.allow(client):
            return errors.error_response(BusyError("rate limit exceeded", retry_after=1))
        return await call_next(request)

    errors.install(app)
    app.include_router(games.router)
    app.include_router(agent_routes.router)
    app.add_middleware(BodyLimit, limit=MAX_BODY)
    return app

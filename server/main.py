"""The FastAPI app: routes, storage, limits and error mapping."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from server.games import GameError, GameManager
from server.routes import agents, games
from server.store import open_store

MAX_BODY = 64 * 1024


class RateLimiter:
    """A token bucket per client address: `rate` requests a second, bursts of `burst`."""

    def __init__(self, rate: float, burst: int) -> None:
        self.rate = rate
        self.burst = burst
        self.buckets: dict[str, tuple[float, float]] = {}

    def allow(self, key: str) -> bool:
        now = time.monotonic()
        tokens, last = self.buckets.get(key, (float(self.burst), now))
        tokens = min(float(self.burst), tokens + (now - last) * self.rate)
        if tokens < 1.0:
            self.buckets[key] = (tokens, now)
            return False
        self.buckets[key] = (tokens - 1.0, now)
        return True


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
        response = JSONResponse({"detail": f"request body over {self.limit} bytes"}, 413)
        await response(scope, receive, send)


def create_app(db: str = "duel.db", rate: float = 200.0, burst: int = 400) -> FastAPI:
    """The app, storing games in `db` (a path or sqlite:///PATH)."""

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        store = open_store(db)
        manager = GameManager(store)
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

    @app.middleware("http")
    async def limits(request: Request,
                     call_next: Callable[[Request], Awaitable[Response]]) -> Response:
        # Per token when there is one (many bots may share an address), else per address.
        auth = request.headers.get("authorization") or request.query_params.get("token")
        client = auth or (request.client.host if request.client else "?")
        if not limiter.allow(client):
            return JSONResponse({"detail": "rate limit exceeded"}, 429,
                                headers={"retry-after": "1"})
        return await call_next(request)

    @app.exception_handler(GameError)
    async def game_error(request: Request, exc: GameError) -> JSONResponse:
        headers = {"www-authenticate": "Bearer"} if exc.status == 401 else None
        return JSONResponse({"detail": exc.detail}, exc.status, headers=headers)

    @app.exception_handler(RequestValidationError)
    async def bad_request(request: Request, exc: RequestValidationError) -> JSONResponse:
        errors = [{"loc": list(e.get("loc", ())), "msg": e.get("msg", "")}
                  for e in exc.errors()]
        return JSONResponse({"detail": errors}, 422)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> Response:
        # Starlette answers an undecodable body (not UTF-8, not JSON) with a bare 400; it is a
        # malformed request like any other, so it gets the documented 422.
        status = 422 if exc.status_code == 400 else exc.status_code
        return JSONResponse({"detail": exc.detail}, status, headers=exc.headers)

    app.include_router(games.router)
    app.include_router(agents.router)
    app.add_middleware(BodyLimit, limit=MAX_BODY)
    return app

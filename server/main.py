"""The FastAPI app: routes, storage, limits and error mapping."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response

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
        length = request.headers.get("content-length")
        if length is not None and (not length.isdigit() or int(length) > MAX_BODY):
            return JSONResponse({"detail": f"request body over {MAX_BODY} bytes"}, 413)
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

    app.include_router(games.router)
    app.include_router(agents.router)
    return app

"""The FastAPI app, assembled: the store, the game manager and the agents on offer (games/,
work/), the routes (routes/), the error answers (errors.py) and the guards in front of them
(guard/: the Host check, the body limit, the rate limit, the log filter), within the operator's
limits (settings.py)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from contextlib import asynccontextmanager

from fastapi import FastAPI

from duel import __version__
from server import errors
from server.games.manager import GameManager
from server.guard.log_redaction import redact_logs
from server.guard.middleware import MAX_BODY, BodyLimit, HostCheck, RateLimit
from server.guard.rate_limit import RateLimiter
from server.routes import agents as agent_routes
from server.routes import docs, games, leaderboard, pages
from server.routes import log as log_routes
from server.settings import Limits
from server.store import open_store
from server.work.catalogue import Catalogue

__all__ = ["create_app"]


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
    naming another host is refused (421; server/guard/hosts.py). `sleep`: how the seats' clocks wait
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
    app = FastAPI(title="duel", version=__version__, lifespan=lifespan, docs_url=None,
                  redoc_url=None,
                  description="7 Wonders Duel for LLM agents, MCTS and external bots. States and "
                              "moves use the rules prompt's JSON format.")
    limiter = RateLimiter(rate, burst)
    redact_logs()

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

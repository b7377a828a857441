"""The app's ASGI middlewares, outermost first as `create_app` adds them: the Host check (DNS
rebinding, server/guard/hosts.py), the body limit (size and time) and the per-caller rate limit.
Each refusal answers as server/errors.py says."""

from __future__ import annotations

import asyncio

from fastapi import Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from duel.errors import BusyError, DuelError, MisdirectedError, SlowClientError, TooLargeError
from server import errors
from server.deps import caller_of
from server.guard.hosts import answers_to
from server.guard.rate_limit import RateLimiter

__all__ = ["MAX_BODY", "BodyLimit", "HostCheck", "RateLimit"]
MAX_BODY = 64 * 1024


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
    (server/guard/hosts.py: DNS rebinding)."""

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

"""Connections: how long a client may take to send a request's line and headers (uvicorn only
times idle keep-alive connections, so a client trickling its headers a byte a second would be
held open for ever), the uvicorn settings `duel serve` runs with, and its way of stopping."""

from __future__ import annotations

import asyncio
import socket
from typing import Any

import h11
import uvicorn
from fastapi import FastAPI
from uvicorn.protocols.http.h11_impl import H11Protocol

from server.settings import Limits

MAX_HEAD = 16 * 1024  # bytes of a request's line and headers (h11's limit, stated here)
SHUTDOWN_GRACE = 2  # seconds open requests get to finish when the server is told to stop


def header_timeout_protocol(seconds: float) -> type[H11Protocol]:
    """uvicorn's h11 protocol, closing a connection that has not sent a whole request line and
    headers within `seconds` of its opening, or of the first byte of its next request (between
    requests, uvicorn's keep-alive timeout closes an idle connection)."""

    class HeaderTimeout(H11Protocol):
        timer: asyncio.TimerHandle | None = None

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            self._arm()

        def data_received(self, data: bytes) -> None:
            super().data_received(data)
            if self.conn.their_state is not h11.IDLE:  # a request's head has arrived
                self._disarm()
            elif self.timer is None:  # the first bytes of the next request's head
                self._arm()

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            super().connection_lost(exc)

        def _arm(self) -> None:
            self._disarm()
            self.timer = self.loop.call_later(seconds, self._expire)

        def _disarm(self) -> None:
            if self.timer is not None:
                self.timer.cancel()
                self.timer = None

        def _expire(self) -> None:
            self.timer = None
            if self.conn.their_state is h11.IDLE and not self.transport.is_closing():
                self.transport.close()

    return HeaderTimeout


def server_config(app: FastAPI, host: str, port: int, log_level: str, limits: Limits
                  ) -> uvicorn.Config:
    """uvicorn's settings: the header timeout above, idle connections closed after
    `keep_alive` seconds, request heads of at most MAX_HEAD bytes, at most `max_connections`
    at once, and SHUTDOWN_GRACE seconds for open requests when the server stops (then they are
    cancelled, so SIGTERM stops the server within a few seconds)."""
    return uvicorn.Config(
        app, host=host, port=port, log_level=log_level, loop="auto",  # uvloop when installed
        http=header_timeout_protocol(limits.header_timeout),
        timeout_keep_alive=limits.keep_alive, h11_max_incomplete_event_size=MAX_HEAD,
        limit_concurrency=limits.max_connections, timeout_graceful_shutdown=SHUTDOWN_GRACE)


class Server(uvicorn.Server):
    """uvicorn's server, stopping the games' agent work first when told to stop (SIGTERM):
    searches are killed and requests waiting for an agent answer at once (429, "the server is
    stopping") instead of holding the shutdown until they are cancelled."""

    def __init__(self, config: uvicorn.Config, app: FastAPI) -> None:
        super().__init__(config)
        self.app = app

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        manager: Any = getattr(self.app.state, "manager", None)
        if manager is not None:
            await manager.stop()
        await super().shutdown(sockets)

"""Connections: how long a client may take to send a request's line and headers (uvicorn only
times idle keep-alive connections, so a client trickling its headers a byte a second would be
held open for ever) and how long they may be, the uvicorn settings `duel serve` runs with, and
its way of stopping.

The HTTP parser is httptools (llhttp, in C) when it is installed, as uvicorn itself prefers:
h11's parsing was a sixth of a move's server time under load, httptools's about a third of that
(py-spy, `duel bench server`). h11 (pure Python) is the fallback and `--http h11` asks for it.
Both get the header timeout. A head over MAX_HEAD is refused by h11 itself while incomplete
(400) and by our own count with httptools (431), which sets no limit of its own;
tests/server/test_connections.py runs against both."""

from __future__ import annotations

import asyncio
import importlib.util
import json
import socket
from collections.abc import Sequence
from typing import Any

import h11
import uvicorn
from fastapi import FastAPI
from uvicorn.protocols.http.h11_impl import H11Protocol

from duel.errors import BusyError, UsageError
from server.guard.address_shares import ConnectionShares
from server.settings import Limits

MAX_HEAD = 16 * 1024  # bytes of a request's line and headers
SHUTDOWN_GRACE = 2  # seconds open requests get to finish when the server is told to stop
PARSERS = ("auto", "httptools", "h11")


class _Timer:
    """What both parsers' protocols add to uvicorn's: the header timeout's timer (armed when a
    connection opens and at the first byte of each request, disarmed once the request's head is
    in), and the connection's place in its address's share (server/guard/address_shares.py): a
    connection past the address's cap is answered 429 and closed before it is read."""

    timer: asyncio.TimerHandle | None = None
    loop: asyncio.AbstractEventLoop
    transport: asyncio.Transport
    header_seconds: float
    shares: ConnectionShares | None = None
    share_key: str | None = None

    def _admit(self, transport: asyncio.Transport) -> bool:
        """Count the connection in its address's share; False (and answered 429, closed) when
        the address holds its most already."""
        if self.shares is None:
            return True
        peer = transport.get_extra_info("peername")
        host = peer[0] if isinstance(peer, tuple | list) and peer else None
        try:
            self.share_key = self.shares.enter(host)
        except BusyError as exc:
            body = json.dumps({"detail": str(exc)}).encode()
            transport.write(b"HTTP/1.1 429 Too Many Requests\r\n"
                            b"content-type: application/json\r\nretry-after: 1\r\n"
                            b"content-length: %d\r\nconnection: close\r\n\r\n%s"
                            % (len(body), body))
            transport.close()
            return False
        return True

    def _release(self) -> None:
        if self.shares is not None:
            self.shares.leave(self.share_key)
            self.share_key = None

    def _arm(self) -> None:
        self._disarm()
        self.timer = self.loop.call_later(self.header_seconds, self._expire)

    def _disarm(self) -> None:
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None

    def _expire(self) -> None:
        self.timer = None
        if self._waiting_for_head() and not self.transport.is_closing():
            self.transport.close()

    def _waiting_for_head(self) -> bool:
        raise NotImplementedError


def h11_protocol(seconds: float, shares: ConnectionShares | None = None
                 ) -> type[H11Protocol]:
    """uvicorn's h11 protocol with the header timeout and the per-address share of
    connections (h11 refuses an incomplete head over MAX_HEAD itself,
    `h11_max_incomplete_event_size`, answering 400)."""

    class HeaderTimeout(_Timer, H11Protocol):
        header_seconds = seconds

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            if self._admit(transport):
                self._arm()

        def data_received(self, data: bytes) -> None:
            super().data_received(data)
            if not self._waiting_for_head():  # a request's head has arrived
                self._disarm()
            elif self.timer is None:  # the first bytes of the next request's head
                self._arm()

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            self._release()
            super().connection_lost(exc)

        def _waiting_for_head(self) -> bool:
            return self.conn.their_state is h11.IDLE

    HeaderTimeout.shares = shares
    return HeaderTimeout


class HeadTooLarge(Exception):
    """Raised in the parser's callback to stop reading a head over MAX_HEAD bytes."""


def httptools_protocol(seconds: float, shares: ConnectionShares | None = None) -> type[Any]:
    """uvicorn's httptools protocol with the header timeout, the per-address share of
    connections, and a head over MAX_HEAD bytes answered 431 and the connection closed (llhttp
    sets no limit of its own)."""
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

    class HeadLimits(_Timer, HttpToolsProtocol):
        header_seconds = seconds
        head = -1  # bytes of the current request's head so far; -1 when none is being read

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            if self._admit(transport):
                self._arm()

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            self._release()
            super().connection_lost(exc)

        def on_message_begin(self) -> None:  # the first byte of a request
            self.head = 0
            if self.timer is None:  # else the connection's first request: timed since it opened
                self._arm()
            super().on_message_begin()

        def on_url(self, url: bytes) -> None:
            self._count(len(url))
            super().on_url(url)

        def on_header(self, name: bytes, value: bytes) -> None:
            self._count(len(name) + len(value) + 4)  # ": " and CRLF
            super().on_header(name, value)

        def on_headers_complete(self) -> None:
            self.head = -1
            self._disarm()
            super().on_headers_complete()

        def _count(self, n: int) -> None:
            self.head += n
            if self.head > MAX_HEAD:
                raise HeadTooLarge  # uvicorn turns it into send_400_response, below

        def send_400_response(self, msg: str) -> None:
            if self.head <= MAX_HEAD:
                super().send_400_response(msg)
                return
            text = f"request line and headers over {MAX_HEAD} bytes".encode()
            self.transport.write(b"HTTP/1.1 431 Request Header Fields Too Large\r\n"
                                 b"content-type: text/plain; charset=utf-8\r\n"
                                 b"content-length: %d\r\nconnection: close\r\n\r\n%s"
                                 % (len(text), text))
            self.transport.close()

        def _waiting_for_head(self) -> bool:
            return self.head >= 0 or self.cycle is None or self.cycle.response_complete

    HeadLimits.shares = shares
    return HeadLimits


def parser_protocol(http: str, seconds: float, shares: ConnectionShares | None = None
                    ) -> type[Any]:
    """The protocol class for parser `http` ("auto": httptools when installed, else h11)."""
    if http not in PARSERS:
        raise UsageError(f"unknown HTTP parser {http!r}; one of {', '.join(PARSERS)}")
    if http == "auto":
        http = "httptools" if importlib.util.find_spec("httptools") else "h11"
    return httptools_protocol(seconds, shares) if http == "httptools" \
        else h11_protocol(seconds, shares)


def server_config(app: FastAPI, host: str, port: int, log_level: str, limits: Limits,
                  http: str = "auto", forwarded_allow_ips: Sequence[str] = ()
                  ) -> uvicorn.Config:
    """uvicorn's settings on parser `http`: the header timeout above, at most
    `connections_per_address` open connections from one address
    (server/guard/address_shares.py), idle connections closed after `keep_alive` seconds,
    request heads of at most MAX_HEAD bytes, at most `max_connections` at once, and
    SHUTDOWN_GRACE seconds for open requests when the server stops (then they are cancelled,
    so SIGTERM stops the server within a few seconds).

    X-Forwarded-For and X-Forwarded-Proto are read only from the proxies the operator names
    (`forwarded_allow_ips`, addresses or networks, "*" for any peer): uvicorn's own default
    trusts them from 127.0.0.1, where any local program could claim to be anyone."""
    if log_level == "trace":
        raise UsageError("--log-level trace writes every request's headers, seat and operator "
                         "tokens included; use debug (tokens are redacted at every other level)")
    trusted = [t.strip() for t in forwarded_allow_ips if t.strip()]
    shares = ConnectionShares(limits.connections_per_address, trusted)
    return uvicorn.Config(
        app, host=host, port=port, log_level=log_level, loop="auto",  # uvloop when installed
        http=parser_protocol(http, limits.header_timeout, shares),
        timeout_keep_alive=limits.keep_alive, h11_max_incomplete_event_size=MAX_HEAD,
        limit_concurrency=limits.max_connections, timeout_graceful_shutdown=SHUTDOWN_GRACE,
        proxy_headers=bool(trusted), forwarded_allow_ips=trusted or None)


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

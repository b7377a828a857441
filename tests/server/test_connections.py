"""Slow and oversized clients against a real `duel serve` on loopback, on both HTTP parsers
(httptools, the default, and h11): a client trickling its request line and headers, or its
body, a byte at a time is cut off in bounded time, and so is an idle keep-alive connection; a
request head over the limit is refused and its connection closed."""

from __future__ import annotations

import select
import socket
import time
from collections.abc import Iterator

import pytest
from helpers.live_server import Server

from server.guard.connections import MAX_HEAD

LIMITS = ("--header-timeout", "1", "--body-timeout", "1", "--keep-alive", "3")
STEP = 0.25  # seconds between trickled bytes
MAX_BYTES = 40  # the trickle's bound: 10 s at most


@pytest.fixture(scope="module", params=["httptools", "h11"])
def parser(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture(scope="module")
def server(parser: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    folder = tmp_path_factory.mktemp("connections")
    s = Server(folder / "db.sqlite", folder / "server.log", (*LIMITS, "--http", parser))
    try:
        s.wait_ready()
        yield s
    finally:
        s.stop()


def connect(server: Server) -> socket.socket:
    return socket.create_connection(("127.0.0.1", server.port), timeout=10)


def closed_within(sock: socket.socket, seconds: float) -> tuple[bool, bytes]:
    """Whether the server closes the connection within `seconds`, and what it sent first."""
    got = b""
    deadline = time.monotonic() + seconds
    while (left := deadline - time.monotonic()) > 0:
        if select.select([sock], [], [], left)[0]:
            try:
                data = sock.recv(65536)
            except ConnectionResetError:
                return True, got
            if not data:
                return True, got
            got += data
    return False, got


def trickle(sock: socket.socket, data: bytes) -> tuple[float | None, bytes]:
    """Send `data` a byte every STEP seconds (at most MAX_BYTES of it); the seconds until the
    server closed the connection (None if it never did) and what it sent."""
    start = time.monotonic()
    got = b""
    for byte in data[:MAX_BYTES]:
        try:
            sock.sendall(bytes([byte]))
        except (BrokenPipeError, ConnectionResetError):
            return time.monotonic() - start, got
        closed, more = closed_within(sock, STEP)
        got += more
        if closed:
            return time.monotonic() - start, got
    return None, got


def request(sock: socket.socket, head: bytes) -> bytes:
    """Send a whole request and read its whole response (Content-Length bodies only)."""
    sock.sendall(head)
    got = b""
    while b"\r\n\r\n" not in got:
        got += sock.recv(65536)
    head_part, _, body = got.partition(b"\r\n\r\n")
    length = next(int(line.split(b":")[1]) for line in head_part.split(b"\r\n")
                  if line.lower().startswith(b"content-length:"))
    while len(body) < length:
        body += sock.recv(65536)
    return head_part


def test_a_client_trickling_its_headers_is_cut_off(server: Server) -> None:
    with connect(server) as sock:
        took, got = trickle(sock, b"GET /games/NOSUCHGAME HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: "
                            + b"a" * MAX_BYTES)
    assert took is not None, "the server kept a trickling client for 10 s"
    assert took < 4, took
    assert got == b""  # no request was ever read


def test_a_connection_that_sends_nothing_is_closed(server: Server) -> None:
    with connect(server) as sock:
        start = time.monotonic()
        closed, got = closed_within(sock, 10)
    assert closed and got == b"" and time.monotonic() - start < 4


def test_the_next_request_on_a_kept_alive_connection_is_timed_too(server: Server) -> None:
    with connect(server) as sock:
        head = request(sock, b"GET /games/NOSUCHGAME HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 404")
        took, _ = trickle(sock, b"GET /games/NOSUCHGAME HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: "
                          + b"a" * MAX_BYTES)
    assert took is not None and took < 4, took


def test_a_client_trickling_its_body_gets_408_and_is_cut_off(server: Server) -> None:
    body = b'{"player1": "external", "player2": "external"}'
    with connect(server) as sock:
        sock.sendall(b"POST /games HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                     b"Content-Type: application/json\r\nContent-Length: %d\r\n\r\n" % len(body))
        took, got = trickle(sock, body)
    assert took is not None and took < 4, took
    assert got.startswith(b"HTTP/1.1 408"), got[:200]
    assert b"not received within 1s" in got


def test_an_idle_connection_is_closed(server: Server) -> None:
    with connect(server) as sock:
        request(sock, b"GET /games/NOSUCHGAME HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        start = time.monotonic()
        closed, _ = closed_within(sock, 10)
    assert closed and time.monotonic() - start < 6


def test_a_whole_request_sent_at_once_is_served(server: Server) -> None:
    body = b'{"player1": "external", "player2": "external"}'
    with connect(server) as sock:
        head = request(sock, b"POST /games HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: "
                       b"application/json\r\nContent-Length: %d\r\n\r\n" % len(body) + body)
    assert head.startswith(b"HTTP/1.1 201"), head


def test_a_head_over_the_limit_is_refused_and_the_connection_closed(server: Server,
                                                                    parser: str) -> None:
    # A head growing past MAX_HEAD (16 KiB) before its end arrives: what the limit is for (a
    # client must not make the server buffer headers without end). h11 answers 400 (its
    # limit on an incomplete event), httptools, which sets no limit of its own, 431.
    with connect(server) as sock:
        sock.sendall(b"GET /games/NOSUCHGAME HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: "
                     + b"a" * (MAX_HEAD + 1))
        closed, got = closed_within(sock, 0.5)
        if not closed:
            try:
                sock.sendall(b"\r\n\r\n")
            except (BrokenPipeError, ConnectionResetError):
                pass
            closed, more = closed_within(sock, 5)
            got += more
    assert closed
    expected = b"HTTP/1.1 431" if parser == "httptools" else b"HTTP/1.1 400"
    assert got.startswith(expected), got[:200]


def test_a_head_just_under_the_limit_is_served(server: Server) -> None:
    with connect(server) as sock:
        head = request(sock, b"GET /games/NOSUCHGAME HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: "
                       + b"a" * (MAX_HEAD - 200) + b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 404"), head[:200]

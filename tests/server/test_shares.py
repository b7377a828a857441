"""Each client address has a share of what the server holds at once, below the global caps: its
open connections (idle, trickling their headers, or streaming), its event streams, its searches
and its request rate. One address holding all of its share leaves the others served. Proxy
headers count only from proxies the operator names."""

from __future__ import annotations

import socket
import time
from pathlib import Path

import httpx
import pytest
from fastapi.testclient import TestClient
from helpers.live_server import Server, start
from helpers.server_helpers import create, from_address

from duel.errors import BusyError, UsageError
from server.guard.address_shares import ConnectionShares, Shares, client_key
from server.main import create_app
from server.settings import Limits


def test_a_client_is_its_address_and_an_ipv6_client_its_64() -> None:
    assert client_key("192.0.2.7") == "192.0.2.7"
    assert client_key("2001:db8:1:2:aaaa::1") == client_key("2001:db8:1:2:bbbb::9") \
        == "2001:db8:1:2::/64"
    assert client_key("2001:db8:1:3::1") != client_key("2001:db8:1:2::1")
    assert client_key("::ffff:192.0.2.7") == "192.0.2.7"
    assert client_key(None) == "?"


def test_shares_are_counted_and_given_back() -> None:
    streams = Shares("event streams", 2)
    held = [streams.take("a"), streams.take("a")]
    with pytest.raises(BusyError, match="holds 2 event streams"):
        streams.take("a")
    streams.take("b").release()
    held[0].release()
    held[0].release()  # once only
    assert streams.held == {"a": 1}
    with streams.hold("a"), pytest.raises(BusyError):
        streams.take("a")
    conns = ConnectionShares(1, trusted=["10.0.0.0/8"])
    key = conns.enter("192.0.2.1")
    with pytest.raises(BusyError):
        conns.enter("192.0.2.1")
    assert conns.enter("10.1.2.3") is None  # a trusted proxy's are not counted
    conns.leave(key)
    assert conns.open == {}


def test_a_share_stays_below_the_global_cap() -> None:
    with pytest.raises(UsageError, match="below max-connections"):
        Limits(max_connections=50)  # 64 connections per address by default
    assert Limits(max_connections=50, connections_per_address=10, streams_per_address=5)


def test_event_streams_are_capped_per_address(db: str) -> None:
    with TestClient(create_app(db, limits=Limits(streams_per_address=2))) as c:
        code, _ = create(c, "external", "external", seed=2)
        with c.stream("GET", f"/games/{code}/events") as one, \
                c.stream("GET", f"/games/{code}/events") as two:
            assert one.status_code == two.status_code == 200
            r = c.get(f"/games/{code}/events")
            assert r.status_code == 429 and "event streams" in r.json()["detail"]
            with from_address(c, "198.51.100.4"), \
                    c.stream("GET", f"/games/{code}/events") as other:
                assert other.status_code == 200
        with c.stream("GET", f"/games/{code}/events") as again:  # given back when they ended
            assert again.status_code == 200


def _open(url: str, source: str) -> socket.socket:
    host, port = url.removeprefix("http://").split(":")
    sock = socket.create_connection((host, int(port)), timeout=10, source_address=(source, 0))
    return sock


def test_one_address_holding_its_connections_leaves_others_served(
        servers: list[Server], tmp_path: Path) -> None:
    """127.0.0.1 opens its 8 connections and trickles their headers; its 9th is refused at
    once (429), while 127.0.0.2 is served."""
    server = start(servers, tmp_path / "db.sqlite", tmp_path, "--connections-per-address", "8",
                   "--header-timeout", "30")
    held = [_open(server.url, "127.0.0.1") for _ in range(8)]
    try:
        for sock in held:
            sock.sendall(b"GET /agents HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
        time.sleep(0.5)
        ninth = _open(server.url, "127.0.0.1")
        ninth.sendall(b"GET /agents HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        assert ninth.recv(4096).startswith(b"HTTP/1.1 429"), "the ninth was not refused"
        ninth.close()
        transport = httpx.HTTPTransport(local_address="127.0.0.2")
        with httpx.Client(transport=transport, timeout=10) as other:
            for _ in range(5):
                assert other.get(server.url + "/agents").status_code == 200
    finally:
        for sock in held:
            sock.close()
    time.sleep(0.5)
    with httpx.Client(timeout=10) as again:  # the share came back with the closed sockets
        assert again.get(server.url + "/agents").status_code == 200


def test_forwarded_addresses_count_only_from_named_proxies(db: str) -> None:
    """uvicorn trusts X-Forwarded-For from 127.0.0.1 by default; duel serve names no proxy
    unless told, so a local client cannot claim other addresses to get more shares."""
    from server.guard.connections import server_config

    plain = server_config(create_app(db), "127.0.0.1", 0, "warning", Limits())
    assert plain.proxy_headers is False
    named = server_config(create_app(db), "127.0.0.1", 0, "warning", Limits(), "auto",
                          ["10.0.0.1", "10.2.0.0/16"])
    assert named.proxy_headers is True and named.forwarded_allow_ips == ["10.0.0.1",
                                                                           "10.2.0.0/16"]


def test_a_made_up_forwarded_address_is_not_a_new_client(servers: list[Server],
                                                          tmp_path: Path) -> None:
    server = start(servers, tmp_path / "db.sqlite", tmp_path, "--rate", "0.01", "--burst", "3")
    statuses = [httpx.get(server.url + "/agents", timeout=10,
                          headers={"X-Forwarded-For": f"203.0.113.{i}"}).status_code
                for i in range(5)]
    # (The readiness check took one of the 3.) Each made-up address drew on the same bucket.
    assert statuses == [200, 200, 429, 429, 429]

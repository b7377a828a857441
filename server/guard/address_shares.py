"""Each client's share of what the server can hold at once, keyed by the client's address.

A client is its address (an IPv6 client by its /64 network, which one host usually holds
whole): seat tokens are free to make (`POST /games` hands them out), so a share keyed by token
would let one address take as many shares as it likes. A proxy is trusted only when the
operator names it (`--forwarded-allow-ips`); then the address is the one it forwards.

- `Shares`: how many of something (event streams) each address holds, with a cap per
  address; past it, BusyError (429).
- `ConnectionShares`: the open connections of each peer address, counted by the HTTP
  protocol itself (server/guard/connections.py), where a connection that trickles its headers or
  idles is seen before any request exists. Past the cap the connection gets a 429 and is
  closed; a trusted proxy's connections are not counted (it carries many clients).
"""

from __future__ import annotations

import ipaddress
from collections import Counter
from collections.abc import Iterable, Iterator
from contextlib import contextmanager

from duel.errors import BusyError

IPV6_PREFIX = 64


def client_key(host: str | None) -> str:
    """The key of a client address: the address itself, an IPv6 one's /64 network, "?" for
    none (a Unix socket)."""
    if not host:
        return "?"
    try:
        ip = ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return host
    if ip.version == 6:
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.ip_network(f"{ip}/{IPV6_PREFIX}", strict=False))
    return str(ip)


class Shares:
    """How many of `what` each client holds, at most `per_client` each."""

    def __init__(self, what: str, per_client: int, retry_after: float = 5) -> None:
        self.what = what
        self.per_client = per_client
        self.retry_after = retry_after
        self.held: Counter[str] = Counter()

    def take(self, client: str) -> Held:
        """One of `what` for `client`, until its `release`; BusyError past its cap."""
        if self.held[client] >= self.per_client:
            raise BusyError(f"your address holds {self.held[client]} {self.what}, the most "
                            "one address may hold; close one first", retry_after=self.retry_after)
        self.held[client] += 1
        return Held(self, client)

    @contextmanager
    def hold(self, client: str) -> Iterator[None]:
        """One of `what` for `client` while the block runs; BusyError past its cap."""
        held = self.take(client)
        try:
            yield
        finally:
            held.release()

    def _give_back(self, client: str) -> None:
        self.held[client] -= 1
        if self.held[client] <= 0:
            del self.held[client]


class Held:
    """One share taken; `release` gives it back (once, however often it is called)."""

    def __init__(self, shares: Shares, client: str) -> None:
        self.shares: Shares | None = shares
        self.client = client

    def release(self) -> None:
        if self.shares is not None:
            self.shares._give_back(self.client)
            self.shares = None


class ConnectionShares:
    """Open connections per peer address, at most `per_client` each; `trusted` proxies'
    connections are not counted ("*": every peer is a trusted proxy)."""

    def __init__(self, per_client: int, trusted: Iterable[str] = ()) -> None:
        self.per_client = per_client
        self.open: Counter[str] = Counter()
        names = [t.strip() for t in trusted if t.strip()]
        self.trust_all = "*" in names
        self.trusted = [ipaddress.ip_network(t, strict=False) for t in names if t != "*"]

    def is_trusted(self, host: str | None) -> bool:
        if self.trust_all:
            return True
        try:
            ip = ipaddress.ip_address((host or "").strip("[]"))
        except ValueError:
            return False
        return any(ip in net for net in self.trusted)

    def enter(self, host: str | None) -> str | None:
        """Count a new connection from `host`: its key, or None when it is not counted (a
        trusted proxy). BusyError when the address already holds its most."""
        if self.is_trusted(host):
            return None
        key = client_key(host)
        if self.open[key] >= self.per_client:
            raise BusyError(f"your address holds {self.open[key]} open connections, the most "
                            "one address may hold", retry_after=1)
        self.open[key] += 1
        return key

    def leave(self, key: str | None) -> None:
        if key is None:
            return
        self.open[key] -= 1
        if self.open[key] <= 0:
            del self.open[key]

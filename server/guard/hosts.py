"""Which Host names a server answers to.

A server bound to a loopback address answers only to loopback names: `localhost`,
`127.0.0.1` (any of 127.0.0.0/8) and `[::1]`, plus the names its operator adds
(`duel serve --allowed-host NAME`). A web page can make a visitor's browser send requests to
a name its own DNS then points at 127.0.0.1 (DNS rebinding); the browser sends that page's
name in the Host header, so refusing unknown names (421) keeps such a page away from a local
`duel serve` or `duel play`, their games and their agents. A server bound elsewhere checks
names only when its operator lists some.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable

LOOPBACK_NAMES = ("localhost", "127.0.0.1", "[::1]")


def is_loopback(host: str) -> bool:
    """Whether a bind address (or a name) is a loopback one."""
    host = host.strip("[]")
    if host.lower().rstrip(".") == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def host_name(header: str) -> str:
    """The name in a Host header, without its port, lower-cased, without a trailing dot; an
    IPv6 literal keeps its brackets."""
    header = header.strip().lower()
    if header.startswith("["):
        return header[:header.find("]") + 1] if "]" in header else header
    name = header.rsplit(":", 1)[0] if header.count(":") == 1 else header
    return name.rstrip(".")


def allowed_hosts(bind: str, extra: Iterable[str] = ()) -> frozenset[str] | None:
    """The names a server bound to `bind` answers to: the loopback names and `extra` on a
    loopback address; `extra` alone elsewhere (None: any name, when there are none)."""
    names = {host_name(n) for n in extra if n.strip()}
    if is_loopback(bind):
        names.update(LOOPBACK_NAMES)
    return frozenset(names) if names else None


def answers_to(allowed: frozenset[str], header: str) -> bool:
    """Whether a server answering to `allowed` names answers a request with Host `header`."""
    name = host_name(header)
    if name in allowed:
        return True
    # 127.0.0.0/8 is all loopback: 127.0.0.2 is as local as 127.0.0.1.
    return "127.0.0.1" in allowed and name[:4] == "127." and is_loopback(name)

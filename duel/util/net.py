"""Local servers: a free loopback port, and waiting until a server answers (one HTTP client for
both: httpx)."""

from __future__ import annotations

import socket
import time
from collections.abc import Callable

from duel.errors import DuelError


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port free on `host` now (another process may take it before it is used)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((host, 0))
        return int(s.getsockname()[1])


def wait_ready(url: str, seconds: float, what: str = "the server",
               alive: Callable[[], bool] = lambda: True, interval: float = 0.1) -> None:
    """Return once GET `url` answers 2xx; DuelError after `seconds`, or as soon as `alive()`
    says the server's process has exited."""
    import httpx

    deadline = time.monotonic() + seconds
    while True:
        try:  # straight to the server, whatever proxy the environment names
            if httpx.get(url, timeout=min(5.0, seconds), trust_env=False).is_success:
                return
        except httpx.HTTPError:
            pass
        if not alive():
            raise DuelError(f"{what} exited before it answered")
        if time.monotonic() > deadline:
            raise DuelError(f"{what} did not answer within {seconds:g}s")
        time.sleep(interval)

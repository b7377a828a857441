"""One event loop in a background thread for every LLM call of the process.

Agents keep a sync `choose` (the match runner is sync) while their clients, connection pools and
per-provider concurrency caps live on one long-lived loop, so many games can share them.
"""

from __future__ import annotations

import asyncio
import os
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")

_loop: asyncio.AbstractEventLoop | None = None
_lock = threading.Lock()
_semaphores: dict[tuple[int, str], asyncio.Semaphore] = {}


def _forget_after_fork() -> None:
    """A forked child (a tournament worker) inherits the loop object but not its thread, and
    maybe a held lock: it starts afresh, or its first LLM call would wait forever."""
    global _loop, _lock
    _loop = None
    _lock = threading.Lock()
    _semaphores.clear()


os.register_at_fork(after_in_child=_forget_after_fork)


def loop() -> asyncio.AbstractEventLoop:
    global _loop
    with _lock:
        if _loop is None:
            _loop = asyncio.new_event_loop()
            thread = threading.Thread(target=_loop.run_forever, name="duel-llm", daemon=True)
            thread.start()
        return _loop


def run(coro: Coroutine[Any, Any, T]) -> T:
    """Run `coro` on the shared loop and wait for its result."""
    return asyncio.run_coroutine_threadsafe(coro, loop()).result()


def semaphore(key: str, limit: int) -> asyncio.Semaphore:
    """The concurrency cap of one provider endpoint, shared by every agent that calls it
    (the first agent's limit holds). Kept per event loop: a semaphore belongs to one loop."""
    full = (id(asyncio.get_running_loop()), key)
    with _lock:
        sem = _semaphores.get(full)
        if sem is None:
            sem = asyncio.Semaphore(limit)
            _semaphores[full] = sem
    return sem

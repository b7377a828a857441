"""A limit on one provider and model's requests shared by every process of a Ray cluster: at
most `in_flight` requests at once and `per_minute` started in any minute, so a hundred workers
do not exceed one API key's rate limit (`--llm-limit` of duel tournament and duel grade with
--ray). One Ray actor per provider and model keeps the count (`RequestLimit`, found by name);
each LLM request takes a slot from it first.

Without a limit set (a local run) `slot` takes nothing: the process's own cap per endpoint
(the spec's `concurrency`) is the only one. A slot is given back when its request ends; one
whose worker died is taken back after `SLOT_SECONDS`."""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

from duel.errors import UsageError

NAMESPACE = "duel"
SLOT_SECONDS = 900.0  # a slot not given back by then belonged to a dead worker
POLL = 0.05  # seconds between looks while a request waits for its slot


@dataclass(frozen=True)
class LimitSpec:
    in_flight: int
    per_minute: int
    window: float = 60.0  # seconds of the per-minute count (tests shorten it)

    @staticmethod
    def parse(text: str) -> LimitSpec:
        """`IN_FLIGHT/PER_MINUTE`, e.g. `8/500` (UsageError naming what is wrong)."""
        head, sep, tail = text.partition("/")
        if not sep or not head.strip().isdigit() or not tail.strip().isdigit() \
                or int(head) < 1 or int(tail) < 1:
            raise UsageError(f"--llm-limit {text!r}: give IN_FLIGHT/PER_MINUTE, two positive "
                             "whole numbers, e.g. 8/500")
        return LimitSpec(int(head), int(tail))


class RequestCounter:
    """The count behind a limit (the actor's state): slots in use and recent starts."""

    def __init__(self, spec: LimitSpec) -> None:
        self.spec = spec
        self.holders: dict[int, float] = {}  # slot number -> when it was taken
        self.starts: deque[float] = deque()
        self.next_slot = 0
        self.peak = 0

    def take(self, now: float) -> int | None:
        """A slot number if a request may start now, else None."""
        for slot, since in list(self.holders.items()):
            if now - since > SLOT_SECONDS:
                del self.holders[slot]
        while self.starts and now - self.starts[0] >= self.spec.window:
            self.starts.popleft()
        if len(self.holders) >= self.spec.in_flight or \
                len(self.starts) >= self.spec.per_minute:
            return None
        self.next_slot += 1
        self.holders[self.next_slot] = now
        self.starts.append(now)
        self.peak = max(self.peak, len(self.holders))
        return self.next_slot

    def give_back(self, slot: int) -> None:
        self.holders.pop(slot, None)


class RequestLimit:
    """The Ray actor of one provider and model (an async actor: waiting requests do not block
    each other)."""

    def __init__(self, spec: LimitSpec) -> None:
        self.counter = RequestCounter(spec)

    async def acquire(self) -> int:
        while True:
            slot = self.counter.take(time.monotonic())
            if slot is not None:
                return slot
            await asyncio.sleep(POLL)

    def release(self, slot: int) -> None:
        self.counter.give_back(slot)

    def stats(self) -> dict[str, Any]:
        return {"peak": self.counter.peak, "in_flight": len(self.counter.holders),
                "started": self.counter.next_slot}


_spec: LimitSpec | None = None
_actors: dict[str, Any] = {}


def use(spec: LimitSpec | None) -> None:
    """Limit this process's LLM requests by `spec`, cluster-wide (None: no shared limit)."""
    global _spec
    _spec = spec
    _actors.clear()


def key_of(agent: Any) -> str | None:
    """The limit's key of an LLM agent (provider:model), None for another agent."""
    provider = getattr(agent, "provider", None)
    if provider is None:
        return None
    return f"{provider.name}:{provider.model}"


def actor(key: str, spec: LimitSpec) -> Any:
    """The limit actor of `key` (provider:model). The run's driver makes one for each LLM
    agent it plays before any game starts (an actor lives as long as the process that made
    it); a worker finds it by name (or makes it, for a key the driver did not know)."""
    found = _actors.get(key)
    if found is None:
        import ray

        found = ray.remote(num_cpus=0)(RequestLimit).options(
            name=f"llm-limit:{key}", namespace=NAMESPACE, get_if_exists=True,
            max_concurrency=1000).remote(spec)
        _actors[key] = found
    return found


@asynccontextmanager
async def slot(key: str) -> AsyncIterator[None]:
    """Hold a slot of `key`'s cluster-wide limit for the length of one request (nothing
    without a limit set)."""
    spec = _spec
    if spec is None:
        yield
        return
    limit = actor(key, spec)
    number = await limit.acquire.remote()
    try:
        yield
    finally:
        limit.release.remote(number)

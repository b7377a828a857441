"""Caps on concurrent agent work (searches, or LLM moves), per caller and in total.

A request that asks for work now (POST /agents/move) is refused past a cap (BusyError: 429 with
retry-after). A game's agent seat waits its turn instead: waiting callers are served in turn,
one move each, so a caller with many games cannot starve the others, and each caller's moves
are served in the order they came."""

from __future__ import annotations

import asyncio
from collections import Counter, OrderedDict, deque
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from duel.errors import BusyError


class Caps:
    def __init__(self, what: str, limit: int, per_caller: int, retry_after: float) -> None:
        self.what = what  # "searches", "LLM moves": named in the refusal
        self.limit = limit
        self.per_caller = per_caller
        self.retry_after = retry_after
        self.running = 0
        self.by_caller: Counter[str] = Counter()
        # Callers waiting, in the order they are served next; each with its waiters in order.
        self.waiting: OrderedDict[str, deque[asyncio.Future[None]]] = OrderedDict()

    def _free_for(self, caller: str) -> bool:
        return self.running < self.limit and self.by_caller[caller] < self.per_caller

    def _take(self, caller: str) -> None:
        self.running += 1
        self.by_caller[caller] += 1

    def _release(self, caller: str) -> None:
        self.running -= 1
        self.by_caller[caller] -= 1
        if self.by_caller[caller] <= 0:
            del self.by_caller[caller]
        self._grant()

    def _grant(self) -> None:
        """Hand free slots to the waiting callers in turn; a caller served goes to the back."""
        while self.running < self.limit:
            caller = next((c for c in self.waiting if self.by_caller[c] < self.per_caller),
                          None)
            if caller is None:
                return
            queue = self.waiting.pop(caller)
            waiter = queue.popleft()
            if queue:
                self.waiting[caller] = queue
            if waiter.done():
                # Cancelled, its task not yet run to forget it: a slot given to it would
                # never come back.
                continue
            self._take(caller)
            waiter.set_result(None)

    @asynccontextmanager
    async def now(self, caller: str) -> AsyncIterator[None]:
        """A slot for `caller` at once, or BusyError past either cap."""
        if not self._free_for(caller):
            whose = "yours" if self.running < self.limit else "the server's"
            raise BusyError(f"busy: {self.running} {self.what} are running ({whose} are all "
                            "taken); retry later", retry_after=self.retry_after)
        self._take(caller)
        try:
            yield
        finally:
            self._release(caller)

    @asynccontextmanager
    async def queued(self, caller: str) -> AsyncIterator[None]:
        """A slot for `caller` once its turn comes (see the module's docstring)."""
        if self._free_for(caller) and caller not in self.waiting:
            self._take(caller)
        else:
            waiter = asyncio.get_running_loop().create_future()
            self.waiting.setdefault(caller, deque()).append(waiter)
            try:
                await waiter
            except asyncio.CancelledError:
                if waiter.done() and not waiter.cancelled():
                    self._release(caller)  # granted as it was cancelled: give it back
                else:
                    self._forget(caller, waiter)
                raise
        try:
            yield
        finally:
            self._release(caller)

    def _forget(self, caller: str, waiter: asyncio.Future[None]) -> None:
        queue = self.waiting.get(caller)
        if queue is not None and waiter in queue:
            queue.remove(waiter)
            if not queue:
                del self.waiting[caller]

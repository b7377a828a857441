"""Worker processes for CPU-bound searches, so that a search never holds the event loop (or the
GIL) that every other game and request needs.

Each worker is a one-process executor of its own (a "slot"): a search past its deadline is
abandoned by killing its worker's process group (the worker and whatever processes its search
started) and only that slot is replaced; the other searches go on. Workers start from a fork
server (spawn where there is none), never by forking the threaded server."""

from __future__ import annotations

import asyncio
import contextlib
import multiprocessing
import os
import signal
from collections.abc import Awaitable, Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from multiprocessing.context import BaseContext
from typing import Any, TypeVar

from duel.errors import BusyError, DeadlineError
from duel.util.orphans import die_with_parent, mark_parent

T = TypeVar("T")
STARTUP = 60.0  # seconds a new worker may take to start: the machine may be loaded
CLOSE_WAIT = 2.0  # seconds the killed workers' executors get to wind down on close
# Imported once by the fork server, not by every worker; duel.util.orphans makes the fork server die
# with the server (see _context).
PRELOAD = ["duel.util.orphans", "duel.agents.builtin"]


def _detach() -> None:
    """A new worker leads a process group of its own: killing the group ends the worker and
    any processes its search started (MCTS's root parallelism). It dies with its parent (the
    fork server, which dies with the server): a server killed by any signal leaves no search
    running (duel/orphans.py)."""
    with contextlib.suppress(OSError):
        os.setsid()
    die_with_parent()


def _context() -> BaseContext:
    mark_parent()  # the fork server started for this process dies with it
    methods = multiprocessing.get_all_start_methods()
    if "forkserver" in methods:
        context = multiprocessing.get_context("forkserver")
        context.set_forkserver_preload(PRELOAD)
        return context
    return multiprocessing.get_context("spawn")


async def within(seconds: float, work: Awaitable[T]) -> T:
    """`work`, or DeadlineError once `seconds` have passed (the work is then cancelled). A
    TimeoutError of the work's own is not the deadline's and is raised as it is."""
    timer = asyncio.timeout(seconds)
    try:
        async with timer:
            return await work
    except TimeoutError:
        if not timer.expired():
            raise
        raise DeadlineError(f"no answer within {seconds:g}s", retry_after=1) from None


class Slot:
    """One worker process, started on creation (`start`), killed with its group (`kill`)."""

    def __init__(self, context: BaseContext) -> None:
        self.executor = ProcessPoolExecutor(1, mp_context=context, initializer=_detach)
        self.pid = 0

    async def start(self) -> None:
        self.pid = await asyncio.wait_for(
            asyncio.wrap_future(self.executor.submit(os.getpid)), STARTUP)

    def kill(self) -> None:
        if self.pid:
            try:
                os.killpg(self.pid, signal.SIGKILL)
            except OSError:
                with contextlib.suppress(OSError):
                    os.kill(self.pid, signal.SIGKILL)
        self.executor.shutdown(wait=False, cancel_futures=True)


class Pool:
    """Slots for searches, created as needed (the caps bound how many run at once) and kept
    between searches while they are healthy."""

    def __init__(self) -> None:
        self.context = _context()
        self.idle: list[Slot] = []
        self.busy: set[Slot] = set()
        self.closed = False

    async def _slot(self) -> Slot:
        if self.idle:
            return self.idle.pop()
        slot = Slot(self.context)
        try:
            await slot.start()
        except BaseException:
            slot.kill()
            raise
        return slot

    async def run(self, seconds: float, fn: Callable[..., T], *args: Any) -> T:
        """`fn(*args)` in a worker; DeadlineError after `seconds` (counted once the worker is
        ready), and the worker is killed. An exception `fn` raises comes back as is."""
        if self.closed:
            raise BusyError("the server is stopping", retry_after=1)
        slot = await self._slot()
        self.busy.add(slot)
        future = slot.executor.submit(fn, *args)
        try:
            return await within(seconds, asyncio.wrap_future(future))
        finally:
            self.busy.discard(slot)
            healthy = (future.done() and not future.cancelled()
                       and not isinstance(future.exception(), BrokenProcessPool))
            if healthy and not self.closed:
                self.idle.append(slot)
            else:
                slot.kill()

    async def close(self) -> None:
        """Kill every worker, searching or idle (the server is stopping), and wait a moment
        for their executors to wind down."""
        self.closed = True
        slots = [*self.busy, *self.idle]
        self.busy.clear()
        self.idle.clear()
        for slot in slots:
            slot.kill()
        if slots:
            await asyncio.wait([asyncio.ensure_future(asyncio.to_thread(
                slot.executor.shutdown, True)) for slot in slots], timeout=CLOSE_WAIT)

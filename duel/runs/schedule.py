"""Starting games one at a time under a gate: a budget or a stopping rule decides, before each
game starts, whether it may (the games in flight always finish)."""

from __future__ import annotations

import enum
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, wait
from typing import Any, TypeVar

T = TypeVar("T")


class Gate(enum.Enum):
    START = "start"  # start this task now
    LATER = "later"  # not this task yet; a later one may start
    HOLD = "hold"  # start nothing until a task in flight finishes
    SKIP = "skip"  # never start this task
    STOP = "stop"  # start no task any more


def now(fn: Callable[..., Any], *args: Any) -> Future[Any]:
    """Run `fn` here and now, as a finished future (a run with one job needs no pool)."""
    f: Future[Any] = Future()
    try:
        f.set_result(fn(*args))
    except Exception as exc:  # handed to the caller through the future, as a pool would
        f.set_exception(exc)
    return f


def run_gated(tasks: Sequence[T], submit: Callable[[T], Future[Any]], jobs: int,
              gate: Callable[[T], Gate], on_done: Callable[[T, Any], None]) -> list[T]:
    """Start `tasks` in order, at most `jobs` at once, each when `gate` allows it; call
    `on_done(task, result)` as each finishes (in this thread, so the gate sees every result).
    A task's error is raised at once (the caller's pool decides about the tasks still in flight).
    Returns the tasks never started, those the gate skipped excepted."""
    pending = list(tasks)
    in_flight: dict[Future[Any], T] = {}
    stopped = False
    while True:
        i = 0
        while not stopped and len(in_flight) < max(1, jobs) and i < len(pending):
            verdict = gate(pending[i])
            if verdict is Gate.START:
                task = pending.pop(i)
                in_flight[submit(task)] = task
            elif verdict is Gate.SKIP:
                pending.pop(i)
            elif verdict is Gate.LATER:
                i += 1
            elif verdict is Gate.HOLD:
                break
            else:
                stopped = True
        if not in_flight:
            return pending
        done, _ = wait(in_flight, return_when=FIRST_COMPLETED)
        for f in done:
            on_done(in_flight.pop(f), f.result())


def seat_swapped(a: str, b: str, games: int, seed: int) -> list[tuple[int, str, str]]:
    """`games` games on games/2 deals (seeds seed, seed+1, ...), each deal played twice, `a`
    as player 1 and then as player 2: (seed, player 1's spec, player 2's) in playing order."""
    return [(seed + i // 2, *((a, b) if i % 2 == 0 else (b, a))) for i in range(games)]

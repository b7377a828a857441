"""A map over worker processes with a progress bar: results in the tasks' order."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import Executor, ProcessPoolExecutor
from typing import TypeVar

from duel.errors import UsageError

T = TypeVar("T")
R = TypeVar("R")


def parallel_map(fn: Callable[[T], R], tasks: Sequence[T], jobs: int, progress: bool = False,
                 unit: str = "task", pool: Executor | None = None) -> list[R]:
    """`fn` over `tasks` in `jobs` worker processes (or on `pool`, an executor of the caller's,
    kept after), here when `jobs` is 1; the results in the tasks' order."""
    from tqdm import tqdm

    if jobs < 1:
        raise UsageError(f"--jobs must be at least 1, got {jobs}")
    if jobs == 1 or len(tasks) <= 1:
        return [fn(t) for t in tqdm(tasks, disable=not progress, unit=unit, leave=False)]
    own = pool is None
    executor = pool if pool is not None else ProcessPoolExecutor(max_workers=jobs)
    try:
        futures = [executor.submit(fn, t) for t in tasks]
        return [f.result() for f in tqdm(futures, disable=not progress, unit=unit,
                                         leave=False)]
    finally:
        if own:
            executor.shutdown(wait=True, cancel_futures=True)

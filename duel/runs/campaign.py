"""The one campaign runner: what every command that plays many games (tournaments, ladders,
game grading) or asks many positions (position grading) does around each task.

- Resume: the caller scans its folder first; the tasks found done are given with their cost,
  counted as earlier money, and not played again.
- Money: each task belongs to a budget group (duel.runs.budget); a task starts only when the
  budget (and the caller's own gate, a stopping rule) lets it, and the progress bar shows the
  money spent.
- Where: here (`jobs` at once, in processes or threads) or as tasks of a Ray cluster
  (duel.runs.cluster), the LLM seats' requests under a cluster-wide limit.
- Stop: at the first failure or Ctrl-C the tasks in flight finish and the rest is left for a
  later run to resume; the budget's summary line says how the run ended.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence
from concurrent.futures import Executor, Future, ProcessPoolExecutor, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from tqdm import tqdm

from duel.runs.budget import Budget, GameCost
from duel.runs.schedule import Gate, now, run_gated

T = TypeVar("T", bound=Hashable)
R = TypeVar("R")


@dataclass
class Campaign(Generic[T, R]):
    """How to run one kind of task. `play(*args(task))` runs a task here (a module-level
    function when `processes`, so that it pickles); `remote(*args(task))` runs it as a Ray task
    (default: `play`). `done(task, result)` records a finished task and returns its cost;
    `group(task)` is its budget group; `gate(task)`, when given, may hold or skip a task before
    the budget is asked."""

    play: Callable[..., R]
    args: Callable[[T], tuple[Any, ...]]
    done: Callable[[T, R], GameCost]
    group: Callable[[T], Hashable] = lambda task: "all"
    gate: Callable[[T], Gate] | None = None
    remote: Callable[..., Any] | None = None
    processes: bool = False  # local jobs in processes (CPU-bound games), else threads (I/O)
    unit: str = "game"
    agents: Sequence[Any] = field(default_factory=list)  # the LLM seats' limits come from them


def run(campaign: Campaign[T, R], tasks: Sequence[T], earlier: Mapping[T, GameCost],
        budget: Budget, jobs: int = 1, progress: bool = True, ray: str | None = None,
        llm_limit: Any = None, show_money: bool = True) -> list[str]:
    """Run the `tasks` not in `earlier` (found done by the caller's resume scan, with their
    costs); the lines that say how the run ended (its money)."""
    for task, cost in earlier.items():
        budget.add_earlier(campaign.group(task), cost)
    todo = [t for t in tasks if t not in earlier]
    finished = len(tasks) - len(todo)
    bar = tqdm(total=len(tasks), initial=finished, disable=not progress, unit=campaign.unit)
    if show_money:
        bar.set_postfix_str(budget.money())

    def gate(task: T) -> Gate:
        verdict = campaign.gate(task) if campaign.gate is not None else Gate.START
        return budget.gate(campaign.group(task)) if verdict is Gate.START else verdict

    def done(task: T, result: R) -> None:
        nonlocal finished
        finished += 1
        budget.finished(campaign.group(task), campaign.done(task, result))
        bar.update(1)
        if show_money:
            bar.set_postfix_str(budget.money())

    remote = None
    if ray is not None:
        from duel.runs.cluster import RayPool, connect

        cpus = connect(ray, jobs or None)
        jobs = jobs or cpus
        remote = RayPool(campaign.remote or campaign.play, llm_limit, campaign.agents)
    pool: Executor | None = None
    if remote is None and jobs > 1:
        pool = (ProcessPoolExecutor if campaign.processes else ThreadPoolExecutor)(jobs)

    def submit(task: T) -> Future[Any]:
        budget.started(campaign.group(task))
        args = campaign.args(task)
        if remote is not None:
            return remote.submit(*args)
        return pool.submit(campaign.play, *args) if pool is not None else now(campaign.play,
                                                                               *args)

    try:  # at the first failure (or Ctrl-C) the tasks in flight finish; the rest resumes
        run_gated(todo, submit, max(1, jobs), gate, done)
    finally:
        bar.close()
        if pool is not None:
            # On an interrupt or an error, do not wait for the tasks not yet started.
            pool.shutdown(wait=True, cancel_futures=True)
        if remote is not None:
            remote.shutdown()
    return [line for line in (budget.summary(finished, len(tasks)),) if line]


"""How the server runs an agent's decision, within a deadline enforced from outside the agent.

- A search (a kind sized in time or iterations: MCTS) runs in a worker process (server/work/pool.py)
  with its time budget cut short of the deadline (`cut`), whatever else sizes it, so it answers
  with the best move it found; past the deadline its worker is killed. The worker gets only the
  spec, the view, the legal moves, a seed and the time: the decision depends on nothing else.
- An agent with `achoose` (an LLM player) runs on the event loop of the LLM calls; at the
  deadline its coroutine is cancelled, whatever attempts, retries and timeouts it was built
  with.
- Any other agent (random, rule, the shipped DQN) runs on a thread of its own, abandoned at the
  deadline: threads run only agents that answer in milliseconds.

Searches and LLM moves first take a slot of their caps (server/work/caps.py); the deadline runs from
the moment the slot is theirs. In a game's seat, random and rule answer at once, outside the
caps: a slow search must never hold up a game that needs no search."""

from __future__ import annotations

import asyncio
import random
import threading
from collections.abc import Callable, Sequence
from typing import Any, Protocol, TypeVar, runtime_checkable

from duel.agents import runner
from duel.agents.base import Agent, Decision
from duel.agents.spec import make_agent
from duel.engine import Move
from duel.errors import BusyError
from server.settings import Limits
from server.work.caps import Caps
from server.work.pool import Pool, within
from server.work.search_budget import check_budget, is_search

T = TypeVar("T")
INSTANT = frozenset({"random", "rule"})  # kinds that answer in milliseconds


@runtime_checkable
class AsyncAgent(Protocol):
    async def achoose(self, view: dict[str, Any], legal: Sequence[Move],
                      rng: random.Random) -> Decision: ...


@runtime_checkable
class Timed(Protocol):
    time: float  # the search's budget in seconds; 0 for none (it is sized otherwise)


def _inner(agent: Agent) -> Agent:
    """The agent that decides: an operator's agent (server/work/privacy.py) wraps another."""
    inner: Agent = getattr(agent, "inner", agent)
    return inner


def _spec(agent: Agent, spec: str) -> str:
    """The spec that builds the deciding agent again (in a worker process): a configured
    agent's is the operator's, which callers know only by name."""
    configured = getattr(agent, "configured_spec", None)
    return configured if isinstance(configured, str) else spec


def search(spec: str, view: dict[str, Any], legal: Sequence[Move], seed: int, seconds: float
           ) -> Decision:
    """A search's decision, in a worker process: its agent is built afresh from the spec (and
    its budget checked again), so the answer depends on the arguments alone. Its time is cut
    to `seconds`; a search sized in iterations stops at whichever limit comes first."""
    check_budget(spec)
    agent = make_agent(spec)
    if isinstance(agent, Timed):
        agent.time = min(agent.time, seconds) if agent.time > 0 else seconds
    return agent.choose(view, legal, random.Random(seed))


def cut(seconds: float) -> float:
    """How long a search may run to answer within `seconds`: a quarter of the deadline, at
    most a second, is left for it to return its move."""
    return seconds - min(1.0, seconds / 4)


async def in_thread(fn: Callable[..., T], *args: Any) -> T:
    """`fn(*args)` on a daemon thread of its own: cancelling the wait abandons the thread, and
    a thread that never returns cannot keep the server from exiting."""
    loop = asyncio.get_running_loop()
    done: asyncio.Future[T] = loop.create_future()

    def settle(setter: Callable[[Any], None], value: Any) -> None:
        if not done.done():  # not abandoned meanwhile
            setter(value)

    def deliver(setter: Callable[[Any], None], value: Any) -> None:
        try:
            loop.call_soon_threadsafe(settle, setter, value)
        except RuntimeError:
            pass  # the loop is closed: the server stopped while the agent thought

    def work() -> None:
        try:
            result = fn(*args)
        except BaseException as exc:  # noqa: BLE001 - handed to the waiting task
            deliver(done.set_exception, exc)
        else:
            deliver(done.set_result, result)

    threading.Thread(target=work, name="duel-agent", daemon=True).start()
    return await done


async def on_llm_loop(agent: AsyncAgent, view: dict[str, Any], legal: Sequence[Move],
                      seed: int) -> Decision:
    """An LLM agent's decision on the LLM calls' loop; cancelling the wait cancels it there."""
    future = asyncio.run_coroutine_threadsafe(
        agent.achoose(view, legal, random.Random(seed)), runner.loop())
    try:
        return await asyncio.wrap_future(future)
    finally:
        future.cancel()


class Thinker:
    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self.pool = Pool()
        self.searches = Caps("searches", limits.searches, limits.searches_per_caller,
                             retry_after=1)
        self.llm = Caps("LLM moves", limits.llm_calls, limits.llm_calls_per_caller,
                        retry_after=5)
        self.thinking: set[asyncio.Task[Decision]] = set()
        self.closed = False

    async def choose(self, agent: Agent, spec: str, view: dict[str, Any],
                     legal: Sequence[Move], seed: int, caller: str, queue: bool) -> Decision:
        """`agent`'s decision in `view` (`spec` built it), within its deadline: DeadlineError
        past it. `queue` (a game's seat): wait for a slot of the caps rather than be refused
        with BusyError."""
        llm = isinstance(_inner(agent), AsyncAgent)
        caps = self.llm if llm else self.searches
        if queue and _spec(agent, spec).strip().partition(":")[0] in INSTANT:
            return await self._run(agent, spec, view, legal, seed)
        async with caps.queued(caller) if queue else caps.now(caller):
            return await self._run(agent, spec, view, legal, seed)

    async def _run(self, agent: Agent, spec: str, view: dict[str, Any], legal: Sequence[Move],
                   seed: int) -> Decision:
        """The decision, made in a task of its own that `close` can stop: the request or the
        turn waiting for it then gets BusyError ("the server is stopping") rather than being
        cancelled itself."""
        if self.closed:
            raise stopping()
        task = asyncio.ensure_future(self._think(agent, spec, view, legal, seed))
        self.thinking.add(task)
        task.add_done_callback(self.thinking.discard)
        try:
            return await task
        except asyncio.CancelledError:
            waiter = asyncio.current_task()
            if self.closed and waiter is not None and not waiter.cancelling():
                raise stopping() from None
            raise

    async def _think(self, agent: Agent, spec: str, view: dict[str, Any],
                     legal: Sequence[Move], seed: int) -> Decision:
        if isinstance(_inner(agent), AsyncAgent) and isinstance(agent, AsyncAgent):
            seconds = self.limits.llm_deadline
            return await within(seconds, on_llm_loop(agent, view, legal, seed))
        seconds = self.limits.search_deadline
        spec = _spec(agent, spec)
        if is_search(spec):
            return await self.pool.run(seconds, search, spec, view, list(legal), seed,
                                       cut(seconds))
        return await within(seconds, in_thread(agent.choose, view, legal, random.Random(seed)))

    async def close(self) -> None:
        """Stop every decision being made (the server is stopping): searches' workers are
        killed, LLM moves cancelled on their loop, threads abandoned to end with the process."""
        self.closed = True
        for task in self.thinking:
            task.cancel()
        await self.pool.close()


def stopping() -> BusyError:
    return BusyError("the server is stopping; retry in a moment", retry_after=5)

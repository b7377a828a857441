"""The one transport of the LLM seat: :meth:`Transport.send` takes one request of a decision and
returns a :class:`CallResult`, the only place a request is sent, retried, adapted and regrown.

Three bounded loops live here and nowhere else, innermost first:
- adaptation: a request refused for a parameter duel can change is changed once per parameter
  and sent again at once (adapt.py), at most MAX_RESENDS sends; a change another call of the
  process made meanwhile is taken up without a record;
- transport retries: a failed connection, a timeout, a 429 or a 5xx is sent again after a
  backoff that honours retry-after, `transport_retries` times (tenacity);
- regrowth: a reply cut off while the model was still reasoning is asked again with twice the
  output budget, up to its cap; the grown budget is where the model's later calls start
  (budgets.py), and past the model's own limit the game stops (SeatFailedError).

Every request the decision sends is counted against its stated budget first
(request_budget.py). None of this spends an attempt: re-asks with a reason are the attempt
policy's (duel.agents.attempts), as instructor keeps transport retry and re-ask apart. What
each try came to is one :class:`Try` of the result; the conversation writes the call records
from them (it is their only writer).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from tenacity import AsyncRetrying, retry_if_exception_type, stop_after_attempt

from duel.agents import runner
from duel.agents.attempts import Category
from duel.agents.llm.models import TRUNCATION_GROWTH
from duel.agents.llm.providers.base import Reply
from duel.agents.llm.schema import structured_schema
from duel.agents.llm.servers import compat as servers
from duel.agents.llm.transport import budgets, limits
from duel.agents.llm.transport.adapt import Settings, adapt, learn
from duel.agents.llm.transport.request_budget import MAX_RESENDS, RequestBudget, Spending
from duel.agents.waiting import WaitRetryAfter
from duel.errors import LLMConfigError, RequestError, SeatFailedError, TransportError


def output_limit(budget: int, s: Settings) -> int:
    """The output limit to send: the budget, within the model's limit."""
    return min(budget, s.max_output) if s.max_output else budget


@dataclass(frozen=True)
class Request:
    """What one call of a decision sends besides the seat's settings: the messages so far, the
    attempt it serves, the structured output's schema if not the full one, and the provider's
    other arguments (the tools, for the tool loop)."""

    messages: list[dict[str, Any]]
    attempt: int
    schema: dict[str, Any] | None = None
    options: dict[str, Any] = field(default_factory=dict)


@dataclass
class Try:
    """One try of a request as its call record will say it: its category (OK, TRANSPORT, or
    TRUNCATED for a reply asked again with a grown budget), the reply (or what a failed try
    billed), the seconds it took, why it failed, the output limit it carried, and what the try
    before it failed of (a retry's note)."""

    category: str
    reply: Reply | None
    latency_s: float
    error: str
    max_tokens: int
    retry: str | None = None


@dataclass
class CallResult:
    """What one send came to: the reply (None if none came), why none came ("transport": the
    retries ran out, "request": refused, "config": it cannot be sent), every try in order and
    the adaptations made on the way (as the details record them)."""

    reply: Reply | None = None
    failure: str = ""
    tries: list[Try] = field(default_factory=list)
    adaptations: list[dict[str, str]] = field(default_factory=list)


class Transport:
    """One decision's requests of `agent` (an LLMAgent): its output budget (raised while the
    model reasons past it) and what the decision has sent against its request budget."""

    def __init__(self, agent: Any) -> None:
        self.agent = agent
        self.budget = budgets.start(agent.budget_key(), agent.effective_settings().max_tokens)
        # the most this decision may send (request_budget.py), counted as it is sent
        self.spending = Spending(RequestBudget.of(agent, self.budget), agent.spec)
        self.cut_at = 0  # the largest output budget a reply was cut off at while reasoning

    async def send(self, request: Request) -> CallResult:
        """`request` sent until a reply comes that is not cut off while reasoning, or none can
        come. Raises SeatFailedError when the model's own output limit is too small."""
        result = CallResult()
        await self._retried(request, result)
        while result.reply is not None and self._regrow(result):
            await self._retried(request, result)
        return result

    def _limit(self) -> int:
        return output_limit(self.budget, self.agent.effective_settings())

    def _regrow(self, result: CallResult) -> bool:
        """A reply cut off while reasoning, under the budget's cap: its try marked TRUNCATED
        and the budget doubled, to ask the same again. False otherwise."""
        reply, agent = result.reply, self.agent
        assert reply is not None
        if not reply.truncated or not (reply.reasoning_tokens or reply.thinking
                                       or not reply.text.strip()):
            return False
        s = agent.effective_settings()
        cap = s.grow_to or s.max_tokens * TRUNCATION_GROWTH
        if s.max_output:
            cap = min(cap, s.max_output)
        self.cut_at = max(self.cut_at, output_limit(self.budget, s))
        if self.budget >= cap:
            if s.grow_to is not None:  # the model's own limit, not a cap the spec set
                self.needs_more(self.cut_at)
            return False
        grown = min(cap, self.budget * 2)
        budgets.remember(agent.budget_key(), grown)
        last = result.tries[-1]
        last.category = Category.TRUNCATED.value
        last.error = (f"cut off at {self.budget} tokens while reasoning "
                      f"({reply.reasoning_tokens} reasoning tokens); asked again with {grown}")
        self.budget = grown
        return True

    def needs_more(self, tokens: int) -> None:
        """A reply cut off while reasoning at the model's output limit: every later move
        would be paid for and thrown away, so the game stops (SeatFailedError), in one line."""
        agent = self.agent
        raise SeatFailedError(
            f"{agent.spec}: {agent.provider.model} needs more than {tokens} output tokens at "
            f"{agent.reasoning_label()} (its replies are cut off while reasoning at the "
            "model's limit); lower the effort or set max_tokens=")

    async def _retried(self, request: Request, result: CallResult) -> None:
        """One reply, retrying transport failures (each try kept); sets `result.reply`, or
        None and why there is none."""
        agent = self.agent
        retrying = AsyncRetrying(
            retry=retry_if_exception_type(TransportError),
            wait=WaitRetryAfter(agent.backoff),
            stop=stop_after_attempt(agent.transport_retries + 1),
            reraise=True)
        start = time.perf_counter()
        previous: str | None = None  # why the last try got no reply: the next one says so

        def tried(category: Category, reply: Reply | None, error: str,
                  retry: str | None = None) -> None:
            result.tries.append(Try(str(category), reply,
                                    round(time.perf_counter() - start, 3), error,
                                    self._limit(), retry))

        result.reply, result.failure = None, "transport"
        try:
            async for try_ in retrying:
                with try_:
                    start = time.perf_counter()
                    try:
                        reply = await self._adapted(request, result)
                    except TransportError as exc:
                        tried(Category.TRANSPORT, exc.billed, str(exc), previous)
                        previous = _why(exc)
                        raise
                    tried(Category.OK, reply, "", previous)
                    result.reply, result.failure = reply, ""
                    return
        except TransportError:
            return
        except RequestError as exc:
            tried(Category.TRANSPORT, None, str(exc))
            result.failure = "request"
        except LLMConfigError as exc:
            tried(Category.TRANSPORT, None, str(exc))
            result.failure = "config"

    async def _adapted(self, request: Request, result: CallResult) -> Reply:
        """One request, adapted until the server takes it: each refused parameter is changed
        once (adapt.py), and a change another call of the process made meanwhile is taken up
        without a record. Raises TransportError, RequestError or LLMConfigError."""
        agent, provider = self.agent, self.agent.provider
        sem = runner.semaphore(agent.endpoint, agent.concurrency)
        tried: set[str] = set()
        last = ""
        for _ in range(MAX_RESENDS):
            await servers.prepare(agent)  # a compatible server: which one, what it enforces
            s = agent.effective_settings()
            sent = output_limit(self.budget, s)
            self.spending.send(sent)  # LLMConfigError past the decision's budget
            started = time.monotonic()
            self._status("start", request.attempt, started, s)
            try:
                # The process's cap first: a slot of the cluster's is not held while waiting.
                system, messages, schema = agent.variant.system, request.messages, \
                    request.schema
                if agent.renaming is not None:
                    system, messages, schema = agent.renaming.outgoing(
                        system, request.messages, schema or structured_schema())
                async with sem, limits.slot(f"{provider.name}:{provider.model}"):
                    reply: Reply = await provider.complete(
                        system, messages, sent, s.temperature, settings=s, schema=schema,
                        **request.options)
                return reply if agent.renaming is None else agent.renaming.incoming(reply)
            except RequestError as exc:
                if agent.effective_settings() != s:
                    continue  # adapted by another call meanwhile: send with that
                found = adapt(s, sent, exc, provider.name, not agent.caps.json_object, tried)
                if found is None:
                    raise
                changes, record = found
                limit = changes.get("max_output")
                if limit is not None and limit <= self.cut_at and s.grow_to is not None:
                    learn(agent.endpoint, provider.model, changes)
                    self.needs_more(limit)  # cut off at that budget already: stop now
                if learn(agent.endpoint, provider.model, changes):
                    result.adaptations.append(record.to_json())
                last = record.reason
            finally:
                self._status("end", request.attempt, started, s)
        raise LLMConfigError(f"{provider.name}: the server kept refusing the request after "
                             f"{MAX_RESENDS} changes: {last}")

    def _status(self, event: str, attempt: int, started: float, s: Settings) -> None:
        agent = self.agent
        if agent.on_status is not None:
            # A provider may have more to say while it works (the local model starting).
            agent.on_status({"event": event, "attempt": attempt, "started": started,
                             "reasoning": agent.model_reasons or s.reasons(),
                             "note": getattr(agent.provider, "status_note", None)})


def _why(exc: TransportError) -> str:
    """What a retry of `exc`'s request says about the try before it."""
    if "timed out" in str(exc):
        return "after a timeout: the request was sent again from the start"
    if exc.status is not None:
        return f"after HTTP {exc.status}"
    if exc.reported:
        return f"after the provider reported an error ({exc.reported})"
    return "after a failed connection"

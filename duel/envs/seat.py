"""The seat a training framework plays: duel's LLM seat, with the model call handed out.

An RL framework (TRL, OpenEnv, verifiers, Inspect) owns the model call: it samples the policy's
completion itself. Everything else is the LLM seat's (duel.agents.llm.agent), not a copy: the
prompt variant, the harness settings (history, notes, renaming, reasoning in words), the turn
message and re-asks (duel.agents.llm.framing.turn), the reply's checks, the one attempt policy
(duel.agents.attempts) and the call records a transcript keeps. The seat's conversation waits,
where the LLM seat would call a provider, for the framework's text: :class:`Decider` drives the
attempt policy's coroutine by hand, one reply at a time, so a refused reply comes back as the
re-ask the LLM seat would send, and the decision ends as the policy decides (a legal move, or the
fallback after the last attempt).
"""

from __future__ import annotations

import random
import time
from collections.abc import Coroutine, Generator
from dataclasses import dataclass
from typing import Any

from duel.agents.base import Decision
from duel.agents.llm.agent import LLMAgent
from duel.agents.llm.agent import _Conversation as LLMConversation
from duel.agents.llm.framing.turn import STRUCTURED_MODES
from duel.agents.llm.providers import Reply
from duel.agents.llm.schema import structured_schema
from duel.agents.llm.transport.send import Try, output_limit
from duel.engine import Move
from duel.errors import SpecError, UsageError
from duel.prompts import get_variant
from duel.prompts.harness import Harness

PROVIDER = "env"  # the provider's name in the call records: the framework's model


class FrameworkProvider:
    """A provider that is never called: the framework samples the completion itself."""

    name = PROVIDER
    mode = "text"  # the reply is the policy's raw text; the prompt asks for the move's JSON

    def __init__(self, model: str) -> None:
        self.model = model

    async def complete(self, *args: Any, **kwargs: Any) -> Reply:  # pragma: no cover
        raise UsageError("a framework seat's model is called by the framework, not by duel")

    async def close(self) -> None:
        return None


def framework_seat(model: str = "policy", prompt: str = "baseline",
                   harness: dict[str, str] | None = None, max_attempts: int = 3,
                   fallback: str = "random") -> LLMAgent:
    """The LLM seat whose replies the framework gives: `prompt` (a variant's name), `harness`
    (the LLM seat's harness options, e.g. {"history": "all", "names": "renamed"}), the attempt
    policy's `max_attempts` and `fallback`. SpecError names a bad setting, as the CLI does."""
    from duel.errors import PromptError

    try:
        variant = get_variant(prompt)
    except PromptError as exc:
        raise SpecError(f"env: {exc}") from None
    options = dict(harness or {})
    if options.get("tools", "off") != "off":
        raise SpecError("env: tools=on is played through the tool set's methods (duel.envs.trl."
                        "DuelToolEnv), not as text replies")
    options.pop("tools", None)
    h = Harness.from_options(options)
    if h.image:
        raise SpecError("env: image=on is not a text environment's (a text policy sees text)")
    opts = ",".join(f"{k}={v}" for k, v in sorted(options.items()))
    spec = f"llm:{PROVIDER}:{model}" + (f",prompt={prompt}" if prompt != "baseline" else "") + \
        (f",{opts}" if opts else "")
    return LLMAgent(FrameworkProvider(model), variant, spec, max_attempts=max_attempts,
                    fallback=fallback, harness=h, stop_after=0)


@dataclass(frozen=True)
class Prompt:
    """What the policy is asked, as the LLM seat would send it: the system text and the
    conversation so far (the turn message, then any refused reply and its re-ask), renamed
    where the harness renames. `text` is the newest user message."""

    system: str
    messages: list[dict[str, Any]]

    @property
    def text(self) -> str:
        content = self.messages[-1]["content"]
        return content if isinstance(content, str) else str(content)

    def chat(self) -> list[dict[str, Any]]:
        """As one chat list, the system message first (a chat template's input)."""
        return [{"role": "system", "content": self.system}, *self.messages]


class _Next:
    """What the conversation awaits: the framework's next reply."""

    def __await__(self) -> Generator[str, Any, Any]:
        reply = yield "ask"
        return reply


class _FrameworkConversation(LLMConversation):
    """The LLM seat's conversation of one decision, its model reply awaited from outside."""

    async def model_reply(self, attempt: int) -> Reply | None:
        given: Any = await _Next()
        text, usage = given if isinstance(given, tuple) else (given, {})
        start = time.perf_counter()
        reply = Reply(text=str(text), structured=None, finish_reason="stop",
                      input_tokens=int(usage.get("input_tokens", 0)),
                      output_tokens=int(usage.get("output_tokens", 0)),
                      truncated=bool(usage.get("truncated", False)))
        agent = self.agent
        if agent.renaming is not None:
            reply = agent.renaming.incoming(reply)
        self.write(attempt, Try("OK", reply, round(time.perf_counter() - start, 3), "",
                                output_limit(self.budget, agent.effective_settings())))
        self.reply = reply
        return reply


class Decider:
    """One decision of a framework seat: the attempt policy run to its end, one reply at a
    time. `prompt` is what to ask now; `reply(text)` gives the policy's answer and returns None
    while the decision goes on (the answer was refused: `prompt` is now the re-ask), else the
    Decision (a legal move, or the fallback's)."""

    def __init__(self, seat: LLMAgent, view: dict[str, Any], legal: list[Move],
                 rng: random.Random) -> None:
        self.seat = seat
        self.conv = _FrameworkConversation(seat, view, legal)
        self._coro: Coroutine[Any, Any, Decision] = seat.policy.decide(
            self.conv, view, legal, rng)
        self.decision: Decision | None = None
        self._advance(None)

    def _advance(self, value: Any) -> None:
        try:
            self._coro.send(value)
        except StopIteration as done:
            self.decision = done.value

    @property
    def prompt(self) -> Prompt:
        seat = self.seat
        system, messages = seat.variant.system, self.conv.messages
        if seat.renaming is not None:
            schema = self.conv.schema or structured_schema()
            system, messages, _ = seat.renaming.outgoing(system, messages, schema)
        return Prompt(system, [dict(m) for m in messages])

    @property
    def attempts(self) -> int:
        return len(self.conv.calls)

    @property
    def last_refusal(self) -> str | None:
        calls = self.conv.calls
        return calls[-1].error if calls and calls[-1].category != "OK" else None

    def reply(self, text: str, usage: dict[str, Any] | None = None) -> Decision | None:
        if self.decision is not None:
            raise UsageError("this decision is over: its move was decided")
        self._advance((text, usage or {}))
        return self.decision

    @property
    def structured(self) -> bool:
        return self.seat.effective_settings().mode in STRUCTURED_MODES

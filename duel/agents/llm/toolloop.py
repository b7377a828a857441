"""`tools=on`: the LLM seat plays through the one tool set (`duel.agents.tools`) as native
function tools: the Responses API's function tools (OpenAI, tool_responses.py), Chat
Completions `tools` (`api=chat`, OpenRouter, compatible servers, the local model) and
Anthropic's Messages `tools`.

A turn is one decision under the one attempt policy (`duel.agents.attempts`). Within an
attempt the model is asked; the look-ups it calls (get_state, legal_moves, explain, simulate)
are answered from the seat's view by the tool set and sent back as the provider's tool results
(Responses `function_call_output` items, Chat `role: "tool"` messages, Anthropic
`tool_result` blocks), and it is asked again, until it
calls make_move or answers with the move JSON. That move is the attempt's answer, judged by the
engine as every seat's is: a refused make_move is answered as that tool's error (the engine's
reason and the legal moves), and is the next attempt's question; after the last attempt the
fallback plays, recorded as such.

`tool_steps` (default `DEFAULT_TOOL_STEPS`) bounds the look-ups of a turn, all attempts
together; every result says how many are left. A look-up called when none is left is not run,
and a reply that makes one without calling make_move ends its attempt as ``TOOL_STEPS``. A call
of an unknown tool, or with arguments that are not a JSON object or not the tool's, is answered
with an error naming what was wrong (and spends a step). Every tool call is recorded in the
record of the model call that made it (`LLMCall.tool_calls`: tool, arguments, answer size,
seconds, error); a call that only looked things up is recorded as ``TOOLS``.
"""

from __future__ import annotations

import hashlib
import json
import time
from dataclasses import replace
from functools import cache
from typing import Any

from duel.agents.attempts import Category, Verdict
from duel.agents.llm import tool_responses
from duel.agents.llm.agent import LLMAgent, _Conversation, valid_moves
from duel.agents.llm.providers.base import Reply, ToolUse
from duel.agents.llm.providers.registry import KINDS, ProviderKind, capabilities
from duel.agents.llm.transport.adapt import Settings
from duel.agents.tools import TOOLS, TOOLS_BY_NAME, SeatTools
from duel.agents.tools.record import RAW_LIMIT, ToolCall
from duel.agents.tools.toolset import MOVE_ARGS, OneTurn, checked_arguments
from duel.engine import Move
from duel.errors import DuelError, SpecError

TOOL_SETTINGS = ("off", "on")
DEFAULT_TOOL_STEPS = 8  # look-ups per turn: state, moves, and a few simulations or cards
MAKE_MOVE = "make_move"


def dialect(kind: ProviderKind) -> str:
    """The tool API of a provider of the registry; SpecError if it offers none duel speaks."""
    if not kind.caps.tool_dialect:
        with_tools = [k.name for k in KINDS.values() if k.caps.tool_dialect]
        raise SpecError(f"llm:{kind.name} cannot play with tools=on; it applies to "
                        f"llm:{', llm:'.join(with_tools)}")
    return kind.caps.tool_dialect


def provider_dialect(provider: Any) -> str:
    """The tool API of a provider object (its capabilities'); SpecError if it has none."""
    found = capabilities(provider).tool_dialect
    if not found:
        raise SpecError(f"llm:{provider.name} cannot play with tools=on")
    return found


@cache
def tool_specs(api: str) -> tuple[dict[str, Any], ...]:
    """The tool set in the provider's own form."""
    if api == "anthropic":
        return tuple({"name": t.name, "description": t.description, "input_schema": t.schema()}
                     for t in TOOLS)
    if api == tool_responses.API:
        return tool_responses.specs(TOOLS)
    return tuple({"type": "function", "function": {
        "name": t.name, "description": t.description, "parameters": t.schema()}}
        for t in TOOLS)


def tools_note(steps: int) -> str:
    """What the turn message adds with tools=on."""
    return (f"You have tools. get_state, legal_moves, explain and simulate look things up "
            f"(at most {steps} calls this turn); make_move plays your move and ends your turn. "
            'End your turn by calling make_move with {"move": ..., "moveData": {...}}, or by '
            "answering with only that JSON object.")


@cache
def tools_hash() -> str:
    """Changes exactly when what the model is told of the tools changes: their names,
    descriptions and schemas, and the turn message's note."""
    h = hashlib.sha256()
    h.update(json.dumps([[t.name, t.description, t.schema()] for t in TOOLS],
                        sort_keys=True).encode())
    h.update(tools_note(0).encode())
    return h.hexdigest()[:16]


def tools_record(agent: Any) -> dict[str, Any] | None:
    """What a transcript header says of a seat's tools: None with tools off."""
    steps = getattr(agent, "tool_steps", 0)
    return {"steps": steps, "hash": tools_hash()} if steps else None


def _compact(obj: Any) -> str:
    return json.dumps(obj, separators=(",", ":"))


def tool_results(api: str, results: list[tuple[ToolUse, dict[str, Any]]]
                 ) -> list[dict[str, Any]]:
    """The messages that answer a reply's tool calls, in the provider's form: one `tool`
    message per call (Chat Completions), or one user turn of `tool_result` blocks
    (Anthropic, `is_error` on a refusal), or one function_call_output item per call
    (Responses)."""
    if api == tool_responses.API:
        return tool_responses.results([(use.id, result) for use, result in results])
    if api == "anthropic":
        return [{"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": use.id, "content": _compact(result),
             **({"is_error": True} if "error" in result else {})}
            for use, result in results]}]
    return [{"role": "tool", "tool_call_id": use.id, "content": _compact(result)}
            for use, result in results]


def _arguments(text: str) -> tuple[dict[str, Any] | None, str]:
    """A tool call's arguments as an object, or None and why not."""
    try:
        obj = json.loads(text) if text.strip() else {}
    except (ValueError, RecursionError) as exc:
        return None, f"its arguments are not valid JSON ({exc})"
    if not isinstance(obj, dict):
        return None, f"its arguments must be a JSON object, got {type(obj).__name__}"
    return obj, ""


class ToolAgent(LLMAgent):
    """The LLM seat with tools=on: `tool_steps` look-ups per turn, each turn a
    `ToolConversation`."""

    def __init__(self, *args: Any, tool_steps: int = DEFAULT_TOOL_STEPS, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if tool_steps < 1:
            raise SpecError(f"llm: tool_steps must be at least 1, got {tool_steps}")
        provider_dialect(self.provider)
        self.tool_steps = tool_steps

    def effective_settings(self) -> Settings:
        """The tools are the output: no structured output, and the model chooses its calls,
        whatever another agent of the same model has learned about structured output. A
        server that refuses tools is not adapted to play without them (adapt.py knows no
        change for mode "tools"): the run stops at the first call, saying so."""
        return replace(super().effective_settings(), mode="tools", tool_choice="auto")

    def conversation(self, view: dict[str, Any], legal: list[Move]) -> ToolConversation:
        return ToolConversation(self, view, legal)


class ToolConversation(_Conversation):
    """One decision with the model and the tool set (see the module's docstring)."""

    def __init__(self, agent: LLMAgent, view: dict[str, Any], legal: list[Move]) -> None:
        super().__init__(agent, view, legal)
        self.api = provider_dialect(agent.provider)
        self.tools = SeatTools(OneTurn(view))
        self.steps = agent.tool_steps
        self.steps_left = agent.tool_steps
        self.messages[0]["content"] += "\n\n" + tools_note(agent.tool_steps)
        # The last reply's tool calls and their answers; a make_move's answer (None here) is
        # the attempt policy's verdict, given in `refused`.
        self.pending: list[tuple[ToolUse, dict[str, Any] | None]] = []
        self.move_call: ToolCall | None = None

    def send_options(self) -> dict[str, Any]:
        return {"tools": list(tool_specs(self.api))}

    async def ask(self, attempt: int) -> Verdict | Any | None:
        while True:
            first = len(self.calls)
            reply = await self.model_reply(attempt)
            for call in self.calls[first:]:  # every call of the loop says tools were offered
                if call.tool_calls is None:
                    call.tool_calls = []
            self.pending, self.move_call = [], None
            if reply is None:
                return None
            if reply.truncated or not reply.tool_calls:
                return self.harnessed(self.agent._check(reply, self.budget))  # a text answer
            answer = self._run(reply)
            if answer is not None:
                return answer
            self.calls[-1].category = Category.TOOLS.value
            self._send_back(reply)

    def _run(self, reply: Reply) -> Verdict | Any | None:
        """Answer the reply's tool calls: the move object (or the verdict on it) of its first
        make_move, TOOL_STEPS if it looked up past the turn's steps without one, else None
        (the loop goes on)."""
        records = self.calls[-1].tool_calls
        assert records is not None
        move: Verdict | Any | None = None
        over = False
        for use in reply.tool_calls:
            if use.name == MAKE_MOVE and move is None:
                move, self.move_call = self._make_move(use)
                records.append(self.move_call)
                self.pending.append((use, None))
                continue
            if use.name == MAKE_MOVE:
                error = "not played: one make_move per reply, and an earlier one was taken"
                records.append(ToolCall(MAKE_MOVE, error=error))
            elif self.steps_left <= 0:
                over = True
                error = (f"not run: the {self.steps} tool calls of this turn are used up; "
                         "call make_move with your move")
                records.append(ToolCall(use.name[:100], error=error))
            else:
                self.steps_left -= 1
                answer, record = self._look_up(use)
                records.append(record)
                self.pending.append((use, {**answer, "tool_steps_left": self.steps_left}))
                continue
            self.pending.append((use, {"error": error, "tool_steps_left": self.steps_left}))
        if move is not None:
            return move
        if over:
            return Verdict(Category.TOOL_STEPS, None,
                           f"you used the {self.steps} tool calls of this turn without "
                           "calling make_move")
        return None

    def _look_up(self, use: ToolUse) -> tuple[dict[str, Any], ToolCall]:
        """A look-up's answer (or its error, as the answer) and its record."""
        start = time.perf_counter()
        args, why = _arguments(use.arguments)
        if args is None:
            error = f"{use.name[:60]}: {why}"
            return {"error": error}, ToolCall(use.name[:100], raw=use.arguments[:RAW_LIMIT],
                                              error=error,
                                              seconds=round(time.perf_counter() - start, 4))
        try:
            answer = self.tools.call(use.name, args)
        except DuelError as exc:
            answer = {"error": str(exc)[:300]}
        return answer, self.tools.calls.pop()

    def _make_move(self, use: ToolUse) -> tuple[Verdict | dict[str, Any], ToolCall]:
        """make_move's move object for the attempt policy, or the verdict on arguments that
        hold none; and its record (its error is written once the move is judged)."""
        start = time.perf_counter()
        args, why = _arguments(use.arguments)
        answer: Verdict | dict[str, Any]
        if args is None:
            answer = Verdict(Category.UNPARSABLE, None, f"make_move: {why}")
            record = ToolCall(MAKE_MOVE, raw=use.arguments[:RAW_LIMIT])
        else:
            record = ToolCall(MAKE_MOVE, arguments=args)
            try:
                checked, repairs = checked_arguments(TOOLS_BY_NAME[MAKE_MOVE], args)
                record.repairs = repairs or None
                answer = {k: checked[k] for k in MOVE_ARGS}
            except DuelError as exc:
                answer = Verdict(Category.SCHEMA, None, f"{self.wording.malformed}: {exc}")
        record.seconds = round(time.perf_counter() - start, 4)
        return answer, record

    def _send_back(self, reply: Reply, verdict: Verdict | None = None) -> None:
        """The reply and the answers to its tool calls, for the next call; a make_move's
        answer is the verdict's reason with the legal moves."""
        results: list[tuple[ToolUse, dict[str, Any]]] = []
        for use, answer in self.pending:
            if answer is None:
                reason = verdict.reason if verdict is not None else "not judged"
                if self.move_call is not None:
                    self.move_call.error = reason
                answer = {"error": f"your move was not accepted: {reason}",
                          "legal_moves": valid_moves(self.legal),
                          "tool_steps_left": self.steps_left}
            results.append((use, answer))
        assert reply.message is not None
        # one message (Chat, Anthropic), or the reply's output items (Responses)
        self.messages.extend(reply.message if isinstance(reply.message, list)
                             else [reply.message])
        self.messages.extend(tool_results(self.api, results))
        self.pending, self.move_call = [], None

    def refused(self, verdict: Verdict) -> None:
        reply = self.reply
        if reply is not None and self.pending:
            self._send_back(reply, verdict)
            return
        said = reply.text if reply is not None else ""
        self.messages.append({"role": "assistant", "content": said or "(empty reply)"})
        self.messages.append({"role": "user", "content": (
            f"Your move was not accepted: {verdict.reason}.\nThe step is "
            f"{self.view.get('step', '')}. The legal moves now are:\n"
            + "\n".join(f"- {line}" for line in valid_moves(self.legal))
            + "\nCall make_move with your move, or answer with only its JSON object "
            '{"move": ..., "moveData": {...}}.')})

    def fields(self) -> tuple[dict[str, Any], dict[str, Any]]:
        first, rest = super().fields()
        return first, {**rest, "tools": {"steps": self.steps,
                                         "used": self.steps - self.steps_left}}

"""`-T tools=on`: the evaluated model plays its seat (duel/match: `GameSeat`, on the seat's
TextEnv) or answers a position (duel/positions: `ToolSeat` on the position's view, judged by
its Decider) through duel's one tool set (duel.agents.tools: get_state, legal_moves, explain,
simulate, make_move) as Inspect tools.

The tools are described to the model from the tool set's own definitions (`TOOLS`: names,
descriptions, JSON Schemas), and answered as the LLM seat's tool loop answers them
(duel.agents.llm.toolloop), on the seat's TextEnv:

- the decision's conversation is TextEnv's prompt with the LLM seat's tools note added to its
  turn message (`tools_note`), so the one prompt writer writes both;
- a look-up is answered by the tool set from the seat's view only (the `Table` the TRL
  environment uses on a TextEnv, `duel.envs.trl`), with the steps left, `DEFAULT_TOOL_STEPS`
  a decision, all attempts together; one called when none is left is not run;
- make_move's arguments (repaired and checked as the tool set checks them) are the attempt's
  answer, given to `TextEnv.step` as the move's JSON: the one attempt policy judges it. A
  refused move is answered, as that tool's answer, with the env's re-ask (the reason and the
  legal moves); after the last attempt the fallback plays, recorded as such;
- a reply without a tool call (the move's JSON as text, as the LLM seat also takes it) is a
  text answer, and a refused one is re-asked as a user message; so is a reply that only looked
  things up when no look-up is left, so a model that never moves ends in the fallback.

Each decision is a fresh conversation, as the LLM seat's turns are (the harness's `history`
carries the game's earlier turns into the turn message). The tokens of a decision's replies
are recorded with the call that made its attempt's answer.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import anyio.to_thread
from inspect_ai.model import (
    ChatMessage,
    ChatMessageTool,
    ChatMessageUser,
    Model,
    ModelOutput,
)
from inspect_ai.tool import ToolCall, ToolInfo, ToolParams

from duel.agents.llm.toolloop import DEFAULT_TOOL_STEPS, MAKE_MOVE, tools_note
from duel.agents.tools import TOOLS, TOOLS_BY_NAME, SeatTools, Table
from duel.agents.tools.toolset import MOVE_ARGS, checked_arguments
from duel.envs import TextEnv
from duel.envs.table import SeatTable
from duel.envs.text import Observation, StepResult
from duel.errors import DuelError
from duel.inspect.bridge import messages as as_messages
from duel.inspect.bridge import usage as usage_of


def tool_infos() -> list[ToolInfo]:
    """The tool set as Inspect describes tools to a model: each tool's own name, description
    and argument schema (`ToolDef.schema`), nothing restated."""
    out = []
    for t in TOOLS:
        schema = t.schema()
        out.append(ToolInfo(name=t.name, description=t.description,
                            parameters=ToolParams.model_validate(schema)))
    return out


def _compact(obj: Any) -> str:
    return json.dumps(obj, separators=(",", ":"))


def _added(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    return {"input_tokens": a["input_tokens"] + b["input_tokens"],
            "output_tokens": a["output_tokens"] + b["output_tokens"],
            "truncated": b["truncated"]}


_NONE = {"input_tokens": 0, "output_tokens": 0, "truncated": False}


@dataclass(frozen=True)
class Judged:
    """The attempt policy's word on an answer: the decision is over (`played`: the move in
    words), or it goes on with `reask`, the re-ask its prompt writer wrote."""

    decided: bool
    reask: str | None = None
    played: str | None = None


Judge = Callable[[str, dict[str, Any]], Awaitable[Judged]]


class ToolSeat:
    """The evaluated model deciding with the tool set on `table`: `decide(chat, judge)` asks
    until `judge` (the one attempt policy) says the decision is over."""

    def __init__(self, model: Model, table: Table, steps: int = DEFAULT_TOOL_STEPS) -> None:
        self.model = model
        self.steps = steps
        self.tools = SeatTools(table)
        self.infos = tool_infos()
        self.looked_up = 0  # look-ups answered, all decisions together

    async def decide(self, chat: list[dict[str, Any]], judge: Judge) -> None:
        """One decision, from its prompt (`chat`: the text prompt's) to its end."""
        chat = [dict(m) for m in chat]
        first_user = next(i for i, m in enumerate(chat) if m["role"] == "user")
        chat[first_user]["content"] = f"{chat[first_user]['content']}\n\n" \
            f"{tools_note(self.steps)}"
        conv: list[ChatMessage] = as_messages(chat)
        left = self.steps
        used = dict(_NONE)
        while True:
            output: ModelOutput = await self.model.generate(conv, tools=self.infos)
            used = _added(used, usage_of(output))
            conv.append(output.message)
            calls = list(output.message.tool_calls or [])
            if not calls or output.stop_reason == "max_tokens":
                # A text answer, or a reply cut off at its token limit (its calls are not
                # run; each is answered, as every provider requires, before the re-ask).
                for call in calls:
                    conv.append(ChatMessageTool(
                        content=_compact({"error": "not run: your reply was cut off at its "
                                                   "token limit"}),
                        tool_call_id=call.id, function=call.function))
                said = await judge(output.completion, used)
                used = dict(_NONE)
                if said.decided:
                    return
                conv.append(ChatMessageUser(content=str(said.reask)))
                continue
            answers: list[str | None] = []
            move: str | None = None
            over = False
            for call in calls:
                if call.function == MAKE_MOVE and move is None:
                    move = self._move_text(call)
                    answers.append(None)  # the verdict's, once the move is judged
                elif call.function == MAKE_MOVE:
                    answers.append(_compact({"error": "not played: one make_move per reply, "
                                             "and an earlier one was taken"}))
                elif left <= 0:
                    over = True
                    answers.append(_compact({
                        "error": f"not run: the {self.steps} tool calls of this turn are used "
                                 "up; call make_move with your move", "tool_steps_left": 0}))
                else:
                    left -= 1
                    answers.append(_compact({**self._look_up(call), "tool_steps_left": left}))
            verdict: Judged | None = None
            if move is not None or over:
                # the attempt's answer: the move's JSON, or (only look-ups past the turn's
                # steps) the reply's text, which the attempt policy refuses and re-asks
                verdict = await judge(move if move is not None else output.completion, used)
                used = dict(_NONE)
            for call, answer in zip(calls, answers, strict=True):
                if answer is None:
                    assert verdict is not None
                    answer = _compact({"played": verdict.played}) if verdict.decided else \
                        _compact({"error": "your move was not accepted", "reask": verdict.reask})
                conv.append(ChatMessageTool(content=answer, tool_call_id=call.id,
                                            function=call.function))
            if verdict is None:
                continue
            if verdict.decided:
                return
            if move is None:  # refused without a make_move: the re-ask as the user's turn
                conv.append(ChatMessageUser(content=str(verdict.reask)))

    def _look_up(self, call: ToolCall) -> dict[str, Any]:
        """A look-up's answer, or its error as the answer (the tool set names what was wrong:
        an unknown tool, arguments not its own)."""
        self.looked_up += 1
        if call.parse_error:
            return {"error": f"{call.function[:60]}: its arguments are not valid JSON "
                             f"({call.parse_error[:200]})"}
        try:
            return self.tools.call(call.function, call.arguments)
        except DuelError as exc:
            return {"error": str(exc)[:300]}
        finally:
            self.tools.calls.clear()  # Inspect's log keeps the calls; nothing to hand on

    @staticmethod
    def _move_text(call: ToolCall) -> str:
        """make_move's arguments as the move's JSON for the attempt policy: repaired and
        checked as the tool set checks them where they pass, else as sent (the policy's parser
        then refuses them with its reason)."""
        if call.parse_error:
            return str(call.arguments or call.parse_error)
        try:
            checked, _ = checked_arguments(TOOLS_BY_NAME[MAKE_MOVE], call.arguments)
            return _compact({k: checked[k] for k in MOVE_ARGS})
        except DuelError:
            return _compact(call.arguments)



class GameSeat(ToolSeat):
    """The seat on `env` with tools: `play(obs, steps)` plays the game from its first
    decision's observation to its end (or a limit), each decision's step info in `steps`."""

    def __init__(self, env: TextEnv, model: Model, steps: int = DEFAULT_TOOL_STEPS) -> None:
        super().__init__(model, SeatTable(env), steps)
        self.env = env

    async def play(self, obs: Observation, steps: list[dict[str, Any]]) -> None:
        while True:
            result = await self.turn(obs)
            steps.append(result.info)
            if result.done or result.observation is None:
                return
            obs = result.observation

    async def turn(self, obs: Observation) -> StepResult:
        """One decision: the StepResult that ended it (its info has the move)."""
        last: list[StepResult] = []

        async def judge(text: str, used: dict[str, Any]) -> Judged:
            result = await anyio.to_thread.run_sync(self.env.step, text, used)
            last.append(result)
            if "move" in result.info:
                return Judged(True, played=result.info.get("move_text"))
            assert result.observation is not None
            return Judged(False, reask=result.observation.text)

        await self.decide(obs.chat, judge)
        return last[-1]

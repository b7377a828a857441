"""Responders for FakeLLMServer that behave as reasoning models do, for the real SDKs: an OpenAI
reasoning model (refuses a temperature other than 1 and `max_tokens`, spends reasoning tokens,
stops at `length` with nothing said when its budget is too small) and an Anthropic model with
extended thinking (refuses a forced tool, a temperature and a `max_tokens` at or under the
thinking budget; thinks before it answers). Both answer a legal move of the state they are sent,
at once. The refusals' texts are the providers' own."""

from __future__ import annotations

import json
import random
import re
import zlib
from typing import Any

from helpers.fake_llm_server import Scripted

from duel.engine import InfoSet, Move

TEMPERATURE = ("Unsupported value: 'temperature' does not support {value} with this model. "
               "Only the default (1) value is supported.")
MAX_TOKENS = ("Unsupported parameter: 'max_tokens' is not supported with this model. "
              "Use 'max_completion_tokens' instead.")
EFFORT = ("Unsupported value: 'reasoning_effort' does not support '{value}' with this model. "
          "Supported values are: 'low', 'medium', and 'high'.")
FORCED_TOOL = "Thinking may not be enabled when tool_choice forces tool use."
THINKING_TEMPERATURE = ("`temperature` may only be set to 1 when thinking is enabled. Please "
                        "consult our documentation at https://docs.claude.com/en/docs/"
                        "build-with-claude/extended-thinking#important-considerations-when-"
                        "using-extended-thinking")
THINKING_MAX_TOKENS = ("`max_tokens` must be greater than `thinking.budget_tokens`. Please "
                       "consult our documentation at https://docs.claude.com/en/docs/"
                       "build-with-claude/extended-thinking#max-tokens-and-context-window-size")
ADAPTIVE_ONLY = ("thinking.type.enabled is not supported for this model. Use "
                 "thinking.type.adaptive and output_config.effort to control thinking behavior.")
SAMPLING = "temperature is deprecated for this model; leave it at its default."
NO_ADAPTIVE = ("thinking.type.adaptive is not supported for this model. Use thinking.type.enabled "
               "with thinking.budget_tokens.")
NO_EFFORT = "output_config.effort: this model does not support the effort parameter."
BAD_EFFORT = ("output_config.effort: '{value}' is not supported for this model. Supported values: "
              "{values}.")
ANSWER = 40  # tokens of the visible answer


def legal_moves(messages: list[dict[str, Any]]) -> list[Move]:
    """The legal moves of the state in the conversation's first turn message (the seat's view
    as JSON after "you are player2")."""
    first = next(m["content"] for m in messages if m["role"] == "user")
    text = first if isinstance(first, str) else first[0]["text"]
    start = text.index("{", text.index("you are player2"))
    view, _ = json.JSONDecoder().raw_decode(text, start)
    return InfoSet.from_view(view).sample(random.Random(0)).legal_moves()


def pick(messages: list[dict[str, Any]]) -> dict[str, Any]:
    """A legal move, the same for the same position."""
    legal = legal_moves(messages)
    first = json.dumps(next(m["content"] for m in messages if m["role"] == "user"))
    return random.Random(zlib.crc32(first.encode())).choice(legal).to_json()


def openai_error(status: int, message: str, param: str, code: str) -> Scripted:
    return Scripted({"error": {"message": message, "type": "invalid_request_error",
                               "param": param, "code": code}}, status)


def anthropic_error(message: str) -> Scripted:
    return Scripted({"type": "error", "error": {"type": "invalid_request_error",
                                                "message": message},
                     "request_id": "req_fake"}, 400)


TOOLS_WITH_EFFORT = ("Function tools with reasoning_effort are not supported for {model} in "
                     "/v1/chat/completions. Please use /v1/responses instead.")
TOO_LARGE = ("max_tokens is too large: {sent}. This model supports at most {limit} completion "
             "tokens, whereas you provided {sent}.")
# How much longer a model reasons at each effort than at medium, as a reasoning model's fake
# scales it (`effort_scale`): at xhigh a position needing 10,000 tokens at medium needs 40,000.
EFFORT_SCALE = {"none": 0.0, "minimal": 0.1, "low": 0.3, "medium": 1.0, "high": 2.0,
                "xhigh": 4.0, "max": 4.0}


class OpenAIReasoningModel:
    """Reasons `reasoning` tokens before each answer (`hard` of them on every `hard_every`-th
    call, more with a higher effort); `refused_efforts` are values it refuses outright.
    `effort_scale` (e.g. EFFORT_SCALE) scales the reasoning per effort (else: twice at high and
    above) and `spread` varies it per position, uniformly within +-spread of it (the same for the
    same position); `max_output`, when set, is its output limit: a larger
    max_completion_tokens is refused as OpenAI refuses it. `effort` is what it takes when none
    is sent; `tools_with_effort_refused`: function tools with a reasoning effort are refused, as
    gpt-5.x refuses them on Chat Completions (None, the default: for the models named gpt-5.N,
    as the provider does)."""

    def __init__(self, reasoning: int = 600, hard: int = 0, hard_every: int = 5,
                 refused_efforts: tuple[str, ...] = (),
                 effort_scale: dict[str, float] | None = None, spread: float = 0.0,
                 max_output: int | None = None, effort: str = "medium",
                 tools_with_effort_refused: bool | None = None) -> None:
        self.reasoning = reasoning
        self.hard = hard
        self.hard_every = hard_every
        self.refused_efforts = refused_efforts
        self.effort_scale = effort_scale
        self.spread = spread
        self.max_output = max_output
        self.effort = effort
        # gpt-5.x on Chat Completions: function tools only without a reasoning effort
        self.tools_with_effort_refused = tools_with_effort_refused
        self.calls = 0
        self.answered = 0

    def wants(self, body: dict[str, Any]) -> int:
        base = self.hard if self.hard and self.answered % self.hard_every == 0 else \
            self.reasoning
        effort = body.get("reasoning_effort") or (body.get("reasoning") or {}).get("effort") \
            or self.effort
        if self.spread:
            first = json.dumps(next(m["content"] for m in body["messages"]
                                    if m["role"] == "user"))
            base = int(base * random.Random(zlib.crc32(first.encode())).uniform(
                1 - self.spread, 1 + self.spread))
        if self.effort_scale is not None:
            return int(base * self.effort_scale[effort])
        return base * 2 if effort in ("high", "xhigh", "max") else base

    def __call__(self, body: dict[str, Any]) -> Scripted:
        self.calls += 1
        if "temperature" in body and body["temperature"] != 1:
            return openai_error(400, TEMPERATURE.format(value=body["temperature"]),
                                "temperature", "unsupported_value")
        if "max_tokens" in body:
            return openai_error(400, MAX_TOKENS, "max_tokens", "unsupported_parameter")
        if body.get("reasoning_effort") in self.refused_efforts:
            return openai_error(400, EFFORT.format(value=body["reasoning_effort"]),
                                "reasoning_effort", "unsupported_value")
        refuses = self.tools_with_effort_refused
        if refuses is None:
            refuses = re.match(r"gpt-5\.\d", body.get("model", "")) is not None
        if refuses and "tools" in body and body.get("reasoning_effort") not in (None, "none"):
            return openai_error(400, TOOLS_WITH_EFFORT.format(model=body["model"]),
                                "reasoning_effort", "unsupported_parameter")
        limit = body.get("max_completion_tokens") or 100_000
        if self.max_output is not None and limit > self.max_output:
            return openai_error(400, TOO_LARGE.format(sent=limit, limit=self.max_output),
                                "max_tokens", "invalid_value")
        wants = self.wants(body)
        if limit < wants + ANSWER:  # still reasoning when the budget runs out
            return self.reply("", "length", limit, limit)
        self.answered += 1
        move = json.dumps(pick(body["messages"]))
        if "tools" in body:
            return self.reply(None, "tool_calls", wants + ANSWER, wants, move)
        return self.reply(move, "stop", wants + ANSWER, wants)

    @staticmethod
    def reply(content: str | None, finish: str, completion: int, reasoning: int,
              tool_args: str | None = None) -> Scripted:
        message: dict[str, Any] = {"role": "assistant", "content": content}
        if tool_args is not None:
            message["tool_calls"] = [{"id": "call_1", "type": "function", "function": {
                "name": "play_move", "arguments": tool_args}}]
        return Scripted({
            "id": "chatcmpl-r", "object": "chat.completion", "created": 0, "model": "r",
            "choices": [{"index": 0, "message": message, "finish_reason": finish}],
            "usage": {"prompt_tokens": 1500, "completion_tokens": completion,
                      "total_tokens": 1500 + completion,
                      "prompt_tokens_details": {"cached_tokens": 1200},
                      "completion_tokens_details": {"reasoning_tokens": reasoning}}})


class AnthropicThinkingModel:
    """Thinks when asked to (`thinking` enabled or adaptive), or always (`always_thinks`: a
    model whose thinking is on by default). While thinking it refuses what Anthropic refuses;
    it answers with the move tool on even calls and with a JSON move in its text on odd ones.

    As Claude models differ: `fifth_generation` (adaptive thinking only, and a forced tool or
    a temperature refused whether it thinks or not), `adaptive_only` (Opus 4.7 and later:
    a thinking budget refused), `adaptive` (takes adaptive thinking at all: Claude 4.6 on),
    `efforts` (the `output_config.effort` values it takes; any other effort is refused),
    `omits_thinking` (the thinking text is empty unless `display: "summarized"` is asked)."""

    def __init__(self, thinks: int = 700, always_thinks: bool = False,
                 fifth_generation: bool = False, adaptive_only: bool = False,
                 adaptive: bool = True, efforts: tuple[str, ...] = (),
                 omits_thinking: bool = False) -> None:
        self.thinks = thinks
        self.always_thinks = always_thinks
        self.fifth_generation = fifth_generation
        self.adaptive_only = adaptive_only or fifth_generation
        self.adaptive = adaptive or self.adaptive_only
        self.efforts = efforts
        self.omits_thinking = omits_thinking
        self.calls = 0
        self.answered = 0

    def __call__(self, body: dict[str, Any]) -> Scripted:
        self.calls += 1
        config = body.get("thinking") or {}
        thinking = config.get("type") in ("enabled", "adaptive") or self.always_thinks
        choice = (body.get("tool_choice") or {}).get("type")
        effort = (body.get("output_config") or {}).get("effort")
        if config.get("type") == "enabled" and self.adaptive_only:
            return anthropic_error(ADAPTIVE_ONLY)
        if config.get("type") == "adaptive" and not self.adaptive:
            return anthropic_error(NO_ADAPTIVE)
        if effort is not None and effort not in self.efforts:
            return anthropic_error(BAD_EFFORT.format(value=effort, values=", ".join(
                self.efforts)) if self.efforts else NO_EFFORT)
        if self.fifth_generation:
            if choice in ("tool", "any"):
                return anthropic_error(FORCED_TOOL)
            if "temperature" in body:
                return anthropic_error(SAMPLING)
        if thinking:
            if choice in ("tool", "any"):
                return anthropic_error(FORCED_TOOL)
            if "temperature" in body and body["temperature"] != 1:
                return anthropic_error(THINKING_TEMPERATURE)
            if config.get("type") == "enabled" and body["max_tokens"] <= config["budget_tokens"]:
                return anthropic_error(THINKING_MAX_TOKENS)
        move = pick(body["messages"])
        self.answered += 1
        content: list[dict[str, Any]] = []
        spent = 0
        if thinking:
            spent = self.thinks
            shown = not self.omits_thinking or config.get("display") == "summarized"
            content.append({"type": "thinking", "signature": "c2lnbmF0dXJl",
                            "thinking": f"Thinking about {move['move']}: it is legal here."
                            if shown else ""})
        if "tools" in body and (not thinking or self.answered % 2 == 0):
            content.append({"type": "tool_use", "id": "toolu_1", "name": "play_move",
                            "input": move})
            stop = "tool_use"
        else:
            content.append({"type": "text", "text": "I play:\n```json\n" + json.dumps(move)
                            + "\n```"})
            stop = "end_turn"
        return Scripted({
            "id": "msg_t", "type": "message", "role": "assistant", "model": "claude",
            "content": content, "stop_reason": stop, "stop_sequence": None,
            "usage": {"input_tokens": 300, "output_tokens": spent + ANSWER,
                      "cache_read_input_tokens": 1200, "cache_creation_input_tokens": 0,
                      "output_tokens_details": {"thinking_tokens": spent}}})

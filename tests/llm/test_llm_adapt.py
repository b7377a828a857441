"""Adaptation: which parameter a 400 names, the one change duel makes for it, what it cannot
change (a clear stop), and what the process remembers per endpoint and model."""

from __future__ import annotations

import json
import random
import re
from typing import Any

import pytest
from helpers.fake_llm_server import FakeLLMServer, Scripted, openai_reply
from helpers.fake_reasoning_servers import (
    EFFORT,
    FORCED_TOOL,
    MAX_TOKENS,
    TEMPERATURE,
    THINKING_MAX_TOKENS,
    THINKING_TEMPERATURE,
    OpenAIReasoningModel,
    openai_error,
)
from helpers.llm_seat import play_card_position

from duel.agents import make_agent
from duel.agents.llm.agent import LLMAgent
from duel.agents.llm.transport import adapt
from duel.agents.llm.transport.adapt import Settings, refused_parameter
from duel.errors import LLMConfigError, RequestError

BASE = Settings("json_schema", 0.0, "max_tokens", 8192)


def refusal(message: str, param: str | None = None) -> RequestError:
    return RequestError(f"x: HTTP 400: {message}", message, param)


@pytest.mark.parametrize("message, param, named", [
    (TEMPERATURE.format(value=0.0), "temperature", "temperature"),
    (MAX_TOKENS, "max_tokens", "max_tokens"),
    (MAX_TOKENS, None, "max_tokens"),
    (EFFORT.format(value="minimal"), "reasoning_effort", "reasoning_effort"),
    (FORCED_TOOL, None, "tool_choice"),
    (THINKING_TEMPERATURE, None, "temperature"),
    (THINKING_MAX_TOKENS, None, "max_tokens"),
    ("Invalid schema for response_format 'move': ...", "response_format.json_schema",
     "response_format"),
    ('"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set',
     None, "tool_choice"),
    ("thinking.type=enabled is not supported for this model", None, "thinking"),
    ("Invalid 'messages[2].content': string too long", "messages", None),
    ("scripted 400", None, None),
])
def test_the_refused_parameter_is_read_from_the_body_or_the_message(
        message: str, param: str | None, named: str | None) -> None:
    assert refused_parameter(refusal(message, param)) == named


@pytest.mark.parametrize("settings, message, changes, words", [
    (BASE, TEMPERATURE.format(value=0.0), {"temperature": None}, "temperature 0 -> not sent"),
    (BASE, MAX_TOKENS, {"token_param": "max_completion_tokens"},
     "max_tokens -> max_completion_tokens"),
    (Settings("tool", None, "max_tokens", 64000),
     "max_tokens: 64000 > 32000, which is the maximum allowed number of output tokens for "
     "claude-opus-4-1-20250805", {"max_output": 32000}, "at most 32000"),
    (Settings("tool", None, "max_tokens", 8192),
     "'max_tokens' or 'max_completion_tokens' is too large: 8192. This model's maximum context "
     "length is 16384 tokens and your request has 12000 input tokens (8192 > 16384 - 12000).",
     {"max_output": 4384}, "at most 4384"),
    (BASE, "response_format json_schema is not supported", {"mode": "tool",
                                                            "tool_choice": "forced"},
     "json_schema -> tool call"),
    (Settings("json_object", None, "max_tokens", 100), "response_format is not supported",
     {"mode": "text"}, "json_object -> text"),
    (Settings("tool", None, "max_tokens", 100), FORCED_TOOL, {"tool_choice": "auto"},
     "forced tool -> tool_choice auto"),
    (Settings("tool", None, "max_tokens", 100, tool_choice="auto"), FORCED_TOOL,
     {"mode": "json_object", "tool_choice": "forced"}, "tool -> json_object"),
    (Settings("tool", None, "max_tokens", 100), "tools are not supported by this model",
     {"mode": "json_object", "tool_choice": "forced"}, "tool -> json_object"),
])
def test_each_refusal_changes_one_parameter(settings: Settings, message: str,
                                            changes: dict[str, Any], words: str) -> None:
    tried: set[str] = set()
    found = adapt.adapt(settings, settings.max_tokens, refusal(message), "x", False, tried)
    assert found is not None
    got, record = found
    assert got == changes and words in record.change and record.reason == message
    assert tried == {record.parameter}


def test_anthropic_without_a_tool_answers_in_text() -> None:
    auto = Settings("tool", None, "max_tokens", 100, tool_choice="auto")
    found = adapt.adapt(auto, 100, refusal(FORCED_TOOL), "anthropic", True, set())
    assert found is not None and found[0]["mode"] == "text"


@pytest.mark.parametrize("settings, message, tried, words", [
    (Settings("json_schema", None, "max_completion_tokens", 100, reasoning_effort="minimal"),
     EFFORT.format(value="minimal"), set(), "refused reasoning_effort=minimal (set in the spec"),
    (Settings("tool", None, "max_tokens", 3072, thinking=2048),
     "thinking.type=enabled is not supported", set(), "refused thinking=2048"),
    (Settings("tool", None, "max_tokens", 100), TEMPERATURE.format(value=0.0), set(),
     "temperature (which duel did not send)"),
    (BASE, "Unsupported parameter: 'max_completion_tokens'", {"max_tokens"},
     "refused max_tokens again after duel changed it"),
    (Settings("text", None, "max_tokens", 100), "response_format is not supported", set(),
     "refused response_format and duel cannot change it"),
])
def test_a_refusal_duel_cannot_adapt_to_stops_with_the_parameter(
        settings: Settings, message: str, tried: set[str], words: str) -> None:
    with pytest.raises(LLMConfigError, match=re.escape(words)) as exc:
        adapt.adapt(settings, 100, refusal(message), "x", False, tried)
    assert message in str(exc.value)


def test_a_refusal_naming_no_parameter_is_not_adapted() -> None:
    assert adapt.adapt(BASE, 10, refusal("scripted 400"), "x", False, set()) is None


def test_what_is_learned_is_shared_and_recorded_once(server: FakeLLMServer) -> None:
    """The first agent adapts and records it; a later one (another game of the process) starts
    adapted: no refused request, no record. Another endpoint learns on its own."""
    server.responder = OpenAIReasoningModel()
    view, legal = play_card_position()
    spec = f"llm:compat:r@{server.url}/v1,temperature=0.3"
    first = make_agent(spec).choose(view, legal, random.Random(0)).details["llm"]
    assert [a["parameter"] for a in first["adaptations"]] == ["temperature", "max_tokens"]
    assert len(server.requests) == 3  # two refused, then the answer
    second = make_agent(spec)
    assert isinstance(second, LLMAgent)
    assert second.settings()["temperature"] is None
    assert second.settings()["token_param"] == "max_completion_tokens"
    later = second.choose(view, legal, random.Random(0)).details["llm"]
    assert later["adaptations"] == [] and len(server.requests) == 4
    other = make_agent(f"llm:compat:r@{server.url}/v2")  # another endpoint: its own state
    assert isinstance(other, LLMAgent) and other.settings()["token_param"] == "max_tokens"
    assert adapt.learn("compat:x", "r", {"temperature": None}) is True
    assert adapt.learn("compat:x", "r", {"temperature": None}) is False


def test_a_parameter_refused_again_in_the_same_call_stops_the_run(
        server: FakeLLMServer) -> None:
    def neither(body: dict[str, Any]) -> Scripted:
        name = "max_tokens" if "max_tokens" in body else "max_completion_tokens"
        return openai_error(400, f"Unsupported parameter: '{name}' is not supported.", name,
                            "unsupported_parameter")

    server.responder = neither
    view, legal = play_card_position()
    agent = make_agent(f"llm:compat:r@{server.url}/v1")
    with pytest.raises(LLMConfigError, match="refused max_tokens again"):
        agent.choose(view, legal, random.Random(0))
    assert len(server.requests) == 2


def test_adapted_settings_show_in_each_decision(server: FakeLLMServer) -> None:
    view, legal = play_card_position()
    server.enqueue(openai_error(400, "response_format json_schema is not supported",
                                "response_format", "unsupported_value"),
                   openai_reply(tool_args=json.dumps(legal[0].to_json())))
    d = make_agent(f"llm:compat:r@{server.url}/v1,mode=json_schema").choose(
        view, legal, random.Random(0))
    llm = d.details["llm"]
    assert d.move == legal[0] and llm["legal_at_attempt"] == 1
    assert [c["category"] for c in llm["calls"]] == ["OK"]  # the refusal is no call
    assert llm["settings"]["mode"] == "tool" and llm["adaptations"][0]["change"] == \
        "json_schema -> tool call"
    assert "response_format" not in server.requests[1]["body"]
    assert server.requests[1]["body"]["tool_choice"]["function"]["name"] == "play_move"


def test_the_status_callback_sees_each_call_start_and_end(server: FakeLLMServer) -> None:
    server.responder = OpenAIReasoningModel()
    view, legal = play_card_position()
    agent = make_agent(f"llm:openai:o4-mini,base_url={server.url}/v1,api=chat")
    assert isinstance(agent, LLMAgent)
    events: list[dict[str, Any]] = []
    agent.on_status = events.append
    agent.choose(view, legal, random.Random(0))
    assert [(e["event"], e["attempt"], e["reasoning"]) for e in events] == [
        ("start", 1, True), ("end", 1, True)]
    assert events[0]["started"] == events[1]["started"] > 0

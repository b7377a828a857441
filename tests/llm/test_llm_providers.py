"""Each provider's requests and replies: the real openai and anthropic SDKs talking to a loopback
server (structured output, forced tools, JSON mode, free text)."""

from __future__ import annotations

import json
import random

import pytest
from helpers.fake_llm_server import FakeLLMServer, anthropic_reply, openai_reply
from helpers.llm_seat import mv, openai_agent, play_card_position

from duel.agents import make_agent
from duel.agents.llm.schema import structured_schema
from duel.engine import Move
from duel.prompts import get_variant


def test_openai_structured_output_happy_path(server: FakeLLMServer) -> None:
    view, legal = play_card_position()
    server.enqueue(openai_reply(mv("DISCARD", cardIndex=legal[0].card_index)))
    d = openai_agent(server).choose(view, legal, random.Random(0))
    assert d.move == Move("DISCARD", card_index=legal[0].card_index)
    body = server.requests[0]["body"]
    assert body["response_format"]["type"] == "json_schema"
    assert body["response_format"]["json_schema"]["strict"] is True
    assert body["response_format"]["json_schema"]["schema"] == structured_schema()
    # the fixed rules text comes first, then the turn message with the state
    assert body["messages"][0] == {"role": "system", "content": get_variant("baseline").system}
    assert json.dumps(view, indent=1) in body["messages"][1]["content"]
    call = d.details["llm"]["calls"][0]
    assert call["category"] == "OK" and call["attempt"] == 1
    assert (call["input_tokens"], call["output_tokens"], call["cached_tokens"]) == (1200, 20, 1000)
    # gpt-4o-mini: 200 uncached * 0.15 + 1000 cached * 0.075 + 20 * 0.6, per million
    assert call["cost_usd"] == pytest.approx((200 * 0.15 + 1000 * 0.075 + 20 * 0.6) / 1e6)
    assert call["variant"] == "baseline" and call["variant_hash"] == get_variant("baseline").hash
    assert call["provider"] == "openai" and call["model"] == "gpt-4o-mini"
    assert call["finish_reason"] == "stop" and call["raw"]


def test_anthropic_forced_tool(server: FakeLLMServer) -> None:
    view, legal = play_card_position()
    target = legal[-1]
    server.enqueue(anthropic_reply(target.to_json()))
    agent = make_agent(f"llm:anthropic:claude-sonnet-4-6,base_url={server.url}")
    d = agent.choose(view, legal, random.Random(0))
    assert d.move == target
    req = server.requests[0]
    assert req["path"] == "/v1/messages"
    body = req["body"]
    assert body["tool_choice"] == {"type": "tool", "name": "play_move"}
    assert body["tools"][0]["input_schema"] == structured_schema()
    assert body["system"][0]["cache_control"] == {"type": "ephemeral"}
    headers = {k.lower(): v for k, v in req["headers"].items()}
    assert headers.get("x-api-key") == "sk-ant-test" or \
        headers.get("authorization") == "Bearer sk-ant-test"
    call = d.details["llm"]["calls"][0]
    # input = uncached 100 + cache reads 1100
    assert (call["input_tokens"], call["cached_tokens"], call["output_tokens"]) == (1200, 1100, 30)


def test_compat_forced_tool_call(server: FakeLLMServer) -> None:
    view, legal = play_card_position()
    server.enqueue(openai_reply(tool_args=json.dumps(legal[1].to_json())))
    agent = make_agent(f"llm:compat:qwen@{server.url}/v1,mode=tool")
    d = agent.choose(view, legal, random.Random(0))
    assert d.move == legal[1]
    body = server.requests[0]["body"]
    assert body["tool_choice"]["function"]["name"] == "play_move"
    assert "response_format" not in body


def test_compat_json_object_mode_sends_the_schema(server: FakeLLMServer) -> None:
    view, legal = play_card_position()
    server.enqueue(openai_reply(json.dumps(legal[0].to_json())))
    agent = make_agent(f"llm:compat:qwen@{server.url}/v1,mode=json_object")
    assert agent.choose(view, legal, random.Random(0)).move == legal[0]
    fmt = server.requests[0]["body"]["response_format"]
    assert fmt == {"type": "json_object", "schema": structured_schema()}


def test_unstructured_reply_takes_the_last_json_object(server: FakeLLMServer) -> None:
    view, legal = play_card_position()
    text = ("I considered " + mv("DISCARD", cardIndex=legal[0].card_index) + " but prefer:\n"
            "```json\n" + json.dumps(legal[-1].to_json()) + "\n```")
    server.enqueue(openai_reply(text))
    agent = make_agent(f"llm:compat:qwen@{server.url}/v1,mode=text")
    assert agent.choose(view, legal, random.Random(0)).move == legal[-1]


def test_openai_sends_max_completion_tokens_and_compat_max_tokens(server: FakeLLMServer) -> None:
    view, legal = play_card_position()
    server.enqueue(openai_reply(json.dumps(legal[0].to_json())),
                   openai_reply(tool_args=json.dumps(legal[0].to_json())))
    openai_agent(server, ",max_tokens=123,temperature=0.5").choose(view, legal, random.Random(0))
    make_agent(f"llm:compat:qwen@{server.url}/v1,max_tokens=77").choose(
        view, legal, random.Random(0))
    first, second = (r["body"] for r in server.requests)
    assert first["max_completion_tokens"] == 123 and "max_tokens" not in first
    assert first["temperature"] == 0.5 and first["model"] == "gpt-4o-mini"
    assert second["max_tokens"] == 77 and second["model"] == "qwen"
    headers = {k.lower(): v for k, v in server.requests[0]["headers"].items()}
    assert headers["authorization"] == "Bearer sk-test"

"""Long calls are streamed through the real SDKs, and recorded exactly as a non-streamed call
would be; `timeout` is the longest silence of a stream, so a slow but live reply is read to its
end and a stalled one is a timeout that the retry names."""

from __future__ import annotations

import copy
import json
import random
import time
from typing import Any

import pytest
from helpers.fake_llm_server import FakeLLMServer, Scripted, anthropic_reply, openai_reply
from helpers.llm_seat import play_card_position

from duel.agents import make_agent
from duel.agents.llm.agent import LLMAgent
from duel.agents.llm.transport import streaming

# Fields of a call record that differ between a streamed and a non-streamed call by design.
_VARYING = ("latency_s", "max_tokens")


def _calls(spec: str, reply: Scripted) -> list[dict[str, Any]]:
    with FakeLLMServer() as srv:
        srv.enqueue(copy.deepcopy(reply))
        agent = make_agent(spec.replace("URL", srv.url))
        assert isinstance(agent, LLMAgent)
        view, legal = play_card_position()
        calls = agent.choose(view, legal, random.Random(0)).details["llm"]["calls"][:1]
        body = srv.requests[0]["body"]
        assert bool(body.get("stream")) == (srv.streamed == 1)
        return [{**c, "streamed": srv.streamed == 1} for c in calls]


def _same_record(short: str, long: str, reply: Scripted) -> dict[str, Any]:
    """The first call's record with a short budget (not streamed) and a long one (streamed):
    the same apart from the latency and the limit sent."""
    plain, streamed = _calls(short, reply)[0], _calls(long, reply)[0]
    assert not plain.pop("streamed") and streamed.pop("streamed")
    varying = (*_VARYING, "error") if plain["category"] == "TRUNCATED" else _VARYING
    for key in varying:  # a cut-off reply's error names the budget
        plain.pop(key), streamed.pop(key)
    assert streamed == plain
    return streamed


def _move() -> str:
    _, legal = play_card_position()
    return json.dumps(legal[0].to_json())


def _openai_cases() -> list[tuple[str, Scripted]]:
    move = _move()
    text = openai_reply(move)
    text.body["usage"]["completion_tokens_details"] = {"reasoning_tokens": 700}
    text.body["model"] = "gpt-5-mini-2025-08-07"
    text.headers["x-request-id"] = "req_stream_1"
    refused = openai_reply(None)
    refused.body["choices"][0]["message"]["refusal"] = "I can't help with that."
    cut = openai_reply("", finish="length", completion_tokens=900)
    return [("json_schema", text), ("tool", openai_reply(None, tool_args=move,
                                                         finish="tool_calls")),
            ("json_schema", refused), ("json_schema", cut)]


@pytest.mark.parametrize("mode, reply", _openai_cases())
def test_a_streamed_chat_completion_is_recorded_as_the_plain_one(
        monkeypatch: pytest.MonkeyPatch, mode: str, reply: Scripted) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    spec = f"llm:openai:gpt-5-mini,base_url=URL/v1,api=chat,backoff=0.01,max_attempts=1,mode={mode}"
    record = _same_record(spec + ",max_tokens=4000", spec + ",max_tokens=100000", reply)
    assert record["output_tokens"] == reply.body["usage"]["completion_tokens"]
    assert record["cached_tokens"] == 1000


def test_compatible_servers_stream_their_reasoning_and_timings(
        monkeypatch: pytest.MonkeyPatch) -> None:
    reply = openai_reply(_move())
    reply.body["choices"][0]["message"]["reasoning_content"] = "Let me count the coins. " * 5
    reply.body["usage"]["prompt_tokens_details"] = None
    reply.body["timings"] = {"cache_n": 812, "prompt_n": 40}
    spec = "llm:compat:qwen@URL/v1,backoff=0.01,max_attempts=1,mode=json_object"
    record = _same_record(spec + ",max_tokens=2000", spec + ",max_tokens=60000", reply)
    assert record["thinking"].startswith("Let me count the coins.")
    assert record["cached_tokens"] == 812  # llama.cpp's timings, from the last chunk


def test_openrouter_s_bill_comes_through_the_stream(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENROUTER_API_KEY", "sk-or-test")
    reply = openai_reply(_move())
    reply.body["usage"]["cost"] = 0.004321
    spec = "llm:openrouter:openai/gpt-5-mini,base_url=URL/v1,backoff=0.01,max_attempts=1"
    record = _same_record(spec + ",max_tokens=4000", spec + ",max_tokens=100000", reply)
    assert record["cost_usd"] == 0.004321 and record["cost_source"] == "provider"


def _anthropic_cases() -> list[Scripted]:
    _, legal = play_card_position()
    move = legal[0].to_json()
    thought = anthropic_reply(move, output_tokens=900)
    thought.body["content"].insert(0, {"type": "thinking", "thinking": "The cheapest card first.",
                                       "signature": "c2ln"})
    thought.body["usage"]["output_tokens_details"] = {"thinking_tokens": 850}
    thought.headers["request-id"] = "req_ant_1"
    return [thought, anthropic_reply(text="I play " + json.dumps(move), stop="end_turn"),
            anthropic_reply(text="I won't.", stop="refusal"),
            anthropic_reply(text="", stop="max_tokens", output_tokens=4000, cache_write=1100)]


@pytest.mark.parametrize("reply", _anthropic_cases())
def test_a_streamed_claude_message_is_recorded_as_the_plain_one(
        monkeypatch: pytest.MonkeyPatch, reply: Scripted) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    spec = "llm:anthropic:claude-sonnet-4-6,base_url=URL,backoff=0.01,max_attempts=1"
    record = _same_record(spec + ",max_tokens=4000", spec + ",max_tokens=64000", reply)
    assert record["input_tokens"] == reply.body["usage"]["input_tokens"] + 1100 + \
        reply.body["usage"]["cache_creation_input_tokens"]


def test_claude_at_its_output_limit_is_streamed_as_the_sdk_requires(
        server: FakeLLMServer) -> None:
    """Anthropic's SDK refuses a non-streamed request it expects to outlast 10 minutes; duel
    streams it (messages.stream) instead."""
    import anthropic

    client = anthropic.Anthropic(api_key="k", base_url=server.url)
    with pytest.raises(ValueError, match="Streaming is required"):
        client.messages.create(model="claude-sonnet-4-6", max_tokens=64000,
                               messages=[{"role": "user", "content": "hi"}])
    view, legal = play_card_position()
    server.enqueue(anthropic_reply(legal[0].to_json()))
    agent = make_agent(f"llm:anthropic:claude-sonnet-4-6,base_url={server.url},"
                       "max_tokens=64000")
    assert agent.choose(view, legal, random.Random(0)).move == legal[0]
    assert server.streamed == 1 and server.requests[-1]["body"]["stream"] is True


def test_a_short_call_is_not_streamed(server: FakeLLMServer) -> None:
    view, legal = play_card_position()
    server.enqueue(openai_reply(json.dumps(legal[0].to_json())))
    make_agent(f"llm:openai:gpt-4o-mini,base_url={server.url}/v1,api=chat,max_tokens=1000").choose(
        view, legal, random.Random(0))
    assert server.streamed == 0 and "stream" not in server.requests[0]["body"]


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_a_slow_but_live_stream_outlasting_the_timeout_is_read_to_its_end(
        server: FakeLLMServer, provider: str) -> None:
    """Events every 0.1 s for well over the 0.4 s timeout: the reply is kept."""
    view, legal = play_card_position()
    server.stream_gap = 0.1
    if provider == "openai":
        server.enqueue(openai_reply(json.dumps(legal[0].to_json())))
        spec = f"llm:openai:gpt-4o-mini,base_url={server.url}/v1,api=chat"
    else:
        server.enqueue(anthropic_reply(legal[0].to_json()))
        spec = f"llm:anthropic:claude-sonnet-4-6,base_url={server.url}"
    start = time.perf_counter()
    d = make_agent(spec + ",timeout=0.4,max_attempts=1").choose(view, legal, random.Random(0))
    assert time.perf_counter() - start > 0.8  # twice the timeout, and more
    assert [c["category"] for c in d.details["llm"]["calls"]] == ["OK"]
    assert d.move == legal[0] and server.streamed == 1


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_a_stalled_stream_is_a_timeout_and_the_retry_says_so(
        server: FakeLLMServer, provider: str) -> None:
    view, legal = play_card_position()
    server.stall_after, server.stall_seconds = 3, 1.5
    if provider == "openai":
        server.enqueue(*[openai_reply(json.dumps(legal[0].to_json())) for _ in range(2)])
        spec = f"llm:openai:gpt-4o-mini,base_url={server.url}/v1,api=chat"
    else:
        server.enqueue(*[anthropic_reply(legal[0].to_json()) for _ in range(2)])
        spec = f"llm:anthropic:claude-sonnet-4-6,base_url={server.url}"
    d = make_agent(spec + ",timeout=0.3,max_attempts=1,backoff=0.01").choose(
        view, legal, random.Random(0))
    calls = d.details["llm"]["calls"]
    assert [c["category"] for c in calls] == ["TRANSPORT", "OK"]
    assert "timed out" in calls[0]["error"] and "stalled stream" in calls[0]["error"]
    assert calls[1]["retry"] == "after a timeout: the request was sent again from the start"
    assert d.move == legal[0]


def test_a_reasoning_call_may_be_silent_before_its_first_output(server: FakeLLMServer) -> None:
    """OpenAI's Chat Completions sends nothing while a model reasons: before the first output
    the wait is what the budget could take, not the timeout."""
    view, legal = play_card_position()
    server.delay = 0.6  # silent for twice the timeout, then the whole reply
    server.enqueue(openai_reply(json.dumps(legal[0].to_json())))
    d = make_agent(f"llm:openai:gpt-5-mini,base_url={server.url}/v1,api=chat,timeout=0.3,"
                   "max_attempts=1").choose(view, legal, random.Random(0))
    assert [c["category"] for c in d.details["llm"]["calls"]] == ["OK"]
    assert streaming.first_output_allowance(128_000, 600) == 3600.0
    assert streaming.first_output_allowance(128_000, 600, thinks=False) == 600
    assert not streaming.is_long(21_333, 600) and streaming.is_long(21_334, 600)


def test_chunks_repeating_the_role_and_the_tool_call_s_id_are_put_back_once() -> None:
    """Some compatible servers repeat the role, a tool call's id and name in every chunk (the
    SDK's accumulator would join them into "assistantassistant")."""
    call = {"index": 0, "id": "call_9", "type": "function"}
    chunks = [
        {"id": "c1", "model": "m", "object": "chat.completion.chunk", "created": 1,
         "choices": [{"index": 0, "delta": {"role": "assistant", "tool_calls": [
             {**call, "function": {"name": "play_move", "arguments": '{"move": '}}]}}]},
        {"id": "c1", "model": "m", "object": "chat.completion.chunk", "created": 1,
         "choices": [{"index": 0, "delta": {"role": "assistant", "tool_calls": [
             {**call, "function": {"name": "play_move", "arguments": '"DISCARD"}'}}]},
             "finish_reason": "tool_calls"}]},
        {"id": "c1", "choices": [], "usage": {"prompt_tokens": 5, "completion_tokens": 3},
         "timings": {"cache_n": 4}},
    ]
    out = streaming.reassemble(chunks)
    message = out["choices"][0]["message"]
    assert message["role"] == "assistant" and out["choices"][0]["finish_reason"] == "tool_calls"
    assert message["tool_calls"] == [{"id": "call_9", "type": "function", "function": {
        "name": "play_move", "arguments": '{"move": "DISCARD"}'}}]
    assert out["usage"]["completion_tokens"] == 3 and out["timings"] == {"cache_n": 4}

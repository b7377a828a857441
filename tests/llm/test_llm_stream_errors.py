"""A call that fails after the server took it, as each provider documents it: on OpenAI's
Responses API a response with `status: "failed"` and its `error` (unstreamed, or as a stream's
`response.failed` event) or a stream's `error` event; on Anthropic's Messages an `error` event
in the stream (`overloaded_error`, its 529 when not streamed); on Chat Completions (OpenRouter,
compatible servers) a chunk carrying an `error` object. Each is a TRANSPORT record naming the
provider's code and message, the tokens a failed response reports are kept in that record, and
the call is sent again; never an EMPTY reply, a used attempt or a fallback. Through the real
openai and anthropic SDKs."""

from __future__ import annotations

import copy
import json
import random
from typing import Any

import pytest
from helpers.fake_llm_server import FakeLLMServer, Scripted, anthropic_reply, openai_reply
from helpers.fake_reasoning_servers import OpenAIReasoningModel
from helpers.fake_responses_server import OpenAIResponsesModel
from helpers.fake_streams import anthropic_events, openai_events, sse
from helpers.llm_seat import play_card_position

from duel.agents import make_agent

SPEC = "llm:openai:gpt-5.4,base_url=URL/v1,api=responses,backoff=0.01"
SHORT, LONG = ",max_tokens=4000", ",max_tokens=100000"  # LONG is streamed
FAILED = {"code": "server_error", "message": "The model failed to generate a response."}


@pytest.fixture(autouse=True)
def keys(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    monkeypatch.setenv("OPENROUTER_API_KEY", "sk-or-test")


class FailsOnce:
    """The first reply is `first(body)`, the rest a reasoning model's."""

    def __init__(self, first: Any) -> None:
        self.first = first
        self.model = OpenAIResponsesModel(OpenAIReasoningModel(reasoning=500))
        self.asked = 0

    def __call__(self, body: dict[str, Any]) -> Scripted:
        self.asked += 1
        return self.first(body) if self.asked == 1 else self.model(body)


def _failed(body: dict[str, Any]) -> Scripted:
    reply = OpenAIResponsesModel.response(body, "failed", [], 40, 40, 1000)
    reply.body["error"] = FAILED
    return reply


def _error_event(data: dict[str, Any]) -> Any:
    def first(body: dict[str, Any]) -> Scripted:
        reply = OpenAIResponsesModel.response(body, "completed", [], 0, 0, 0)
        started = {**reply.body, "status": "in_progress", "output": [], "usage": None}
        reply.events = [sse({"type": "response.created", "sequence_number": 0,
                             "response": started}, "response.created"),
                        sse(data, "error")]
        return reply
    return first


def _calls(spec: str, first: Any) -> tuple[list[dict[str, Any]], Any, int]:
    responder = FailsOnce(first)
    view, legal = play_card_position()
    with FakeLLMServer(responder) as srv:
        d = make_agent(spec.replace("URL", srv.url)).choose(view, legal, random.Random(0))
        streamed = srv.streamed
    assert d.move in legal and responder.asked == 2
    return d.details["llm"]["calls"], d, streamed


@pytest.mark.parametrize("limit", [SHORT, LONG], ids=["unstreamed", "streamed"])
def test_a_failed_response_is_a_transport_record_with_its_tokens_then_sent_again(
        limit: str) -> None:
    calls, d, streamed = _calls(SPEC + limit, _failed)
    assert streamed == (2 if limit == LONG else 0)
    assert [c["category"] for c in calls] == ["TRANSPORT", "OK"]
    assert calls[0]["error"].endswith(
        "the response failed: server_error: The model failed to generate a response.")
    assert (calls[0]["input_tokens"], calls[0]["output_tokens"]) == (1500, 40)
    assert calls[0]["cost_usd"] > 0  # what it billed stays in the game's totals
    assert calls[1]["attempt"] == calls[0]["attempt"]  # not a used attempt
    assert calls[1]["retry"] == ("after the provider reported an error (server_error: The "
                                 "model failed to generate a response.)")
    assert not d.details["llm"].get("fallback")


@pytest.mark.parametrize("data", [
    {"type": "error", "code": "server_error", "message": "Something went wrong.",
     "param": None, "sequence_number": 1},
    {"type": "error", "error": {"type": "server_error", "code": "server_error",
                                "message": "Something went wrong."}, "sequence_number": 1},
], ids=["event-fields", "error-object"])
def test_an_error_event_in_a_stream_is_a_transport_record_naming_it(
        data: dict[str, Any]) -> None:
    calls, d, streamed = _calls(SPEC + LONG, _error_event(data))
    assert streamed == 2
    assert [c["category"] for c in calls] == ["TRANSPORT", "OK"]
    assert "the stream reported an error" in calls[0]["error"]
    assert "Something went wrong." in calls[0]["error"]
    assert "malformed" not in calls[0]["error"]
    assert calls[1]["retry"].startswith("after the provider reported an error (")


def _broken_then_whole(first: Scripted, events: list[bytes]) -> list[Scripted]:
    """`first` streamed as `events`, then `first` again, whole."""
    broken = Scripted(copy.deepcopy(first.body), events=events)
    return [broken, first]


def test_an_overloaded_error_inside_a_claude_stream_is_retried_as_its_529() -> None:
    """Anthropic: "during periods of high usage, you may receive an overloaded_error [in the
    stream], which would normally correspond to an HTTP 529"."""
    _, legal = play_card_position()
    whole = anthropic_reply(legal[0].to_json())
    events = anthropic_events(whole.body)[:2] + [sse(
        {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}},
        "error")]
    calls = _enqueued("llm:anthropic:claude-sonnet-4-6,base_url=URL,backoff=0.01,"
                      "max_tokens=64000", _broken_then_whole(whole, events))
    assert [c["category"] for c in calls] == ["TRANSPORT", "OK"]
    assert calls[0]["error"].endswith(
        "the stream reported an error: overloaded_error: Overloaded")
    assert calls[1]["retry"] == "after the provider reported an error (overloaded_error: " \
        "Overloaded)"


def test_an_error_chunk_inside_a_chat_completions_stream_is_retried() -> None:
    """OpenRouter: an error after the stream began comes as a chunk with an `error` object
    (the HTTP status is already 200)."""
    _, legal = play_card_position()
    whole = openai_reply(json.dumps(legal[0].to_json()))
    whole.body["usage"]["cost"] = 0.001
    error = {"id": "gen-1", "object": "chat.completion.chunk", "created": 0, "model": "m",
             "error": {"code": "server_error", "message": "Provider disconnected"},
             "choices": [{"index": 0, "delta": {"content": ""}, "finish_reason": "error"}]}
    events = openai_events(whole.body, True)[:1] + [sse(error)]
    calls = _enqueued("llm:openrouter:anthropic/claude-sonnet-4.6,base_url=URL/v1,"
                      "backoff=0.01,max_tokens=64000", _broken_then_whole(whole, events))
    assert [c["category"] for c in calls] == ["TRANSPORT", "OK"]
    assert calls[0]["error"].endswith(
        "the stream reported an error: server_error: Provider disconnected")


def _enqueued(spec: str, replies: list[Scripted]) -> list[dict[str, Any]]:
    view, legal = play_card_position()
    with FakeLLMServer() as srv:
        srv.enqueue(*replies)
        d = make_agent(spec.replace("URL", srv.url)).choose(view, legal, random.Random(0))
        assert srv.streamed == 2
    assert d.move == legal[0]
    return d.details["llm"]["calls"]

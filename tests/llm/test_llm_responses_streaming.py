"""Long calls on OpenAI's Responses API are streamed (``stream: true``) through the real openai
SDK, against a local server streaming the events OpenAI documents (helpers.fake_streams), and
recorded byte for byte as the same reply unstreamed: text with its reasoning summary, tools=on
function calls, a cut-off reply, a refusal. `timeout` is a stream's longest silence: a slow but
live stream is kept, a stalled one is a timeout that the retry names."""

from __future__ import annotations

import random
import time
from typing import Any

import pytest
from helpers.fake_llm_server import FakeLLMServer, Scripted
from helpers.fake_reasoning_servers import OpenAIReasoningModel
from helpers.fake_responses_server import OpenAIResponsesModel
from helpers.fake_responses_tools import ResponsesToolModel
from helpers.llm_seat import play_card_position

from duel.agents import make_agent
from duel.agents.llm.agent import LLMAgent

SPEC = "llm:openai:gpt-5.4,base_url=URL/v1,api=responses,backoff=0.01,max_attempts=1"
_VARYING = ("latency_s", "max_tokens")  # differ between the two by design


@pytest.fixture(autouse=True)
def keys(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")


def _calls(spec: str, responder: Any) -> tuple[list[dict[str, Any]], int, int]:
    """A decision's call records, how many requests asked for a stream, how many streamed."""
    with FakeLLMServer(responder) as srv:
        agent = make_agent(spec.replace("URL", srv.url))
        assert isinstance(agent, LLMAgent)
        view, legal = play_card_position()
        calls = agent.choose(view, legal, random.Random(0)).details["llm"]["calls"]
        asked = sum(bool(r["body"].get("stream")) for r in srv.requests)
        return calls, asked, srv.streamed


def _same_records(short: str, long: str, make: Any, first: bool = False
                  ) -> list[dict[str, Any]]:
    """The records with a short budget (not streamed) and a long one (every call streamed):
    the same apart from the latency, the limit sent (which a cut-off reply's error names) and
    the seconds a tool took; `first`: only the first call's (a cut-off reply is asked again
    with a budget that depends on the first)."""
    plain, asked, streamed = _calls(short, make())
    assert asked == streamed == 0
    long_calls, asked, streamed = _calls(long, make())
    assert asked == streamed == len(long_calls) > 0
    if first:
        plain, long_calls = plain[:1], long_calls[:1]
    assert len(plain) == len(long_calls)
    for a, b in zip(plain, long_calls, strict=True):
        varying = (*_VARYING, "error") if a["category"] == "TRUNCATED" else _VARYING
        for key in varying:
            a.pop(key), b.pop(key)
        for use in (*(a.get("tool_calls") or []), *(b.get("tool_calls") or [])):
            use.pop("seconds", None)
    assert long_calls == plain
    return long_calls


def _dated(model: OpenAIResponsesModel) -> Any:
    """`model`'s replies naming a dated model and carrying a request id, as OpenAI's do."""
    def answer(body: dict[str, Any]) -> Scripted:
        reply = model(body)
        reply.body["model"] = "gpt-5.4-2026-03-05"
        reply.headers["x-request-id"] = "req_resp_9"
        return reply
    return answer


def test_a_streamed_reply_with_its_summary_is_recorded_as_the_plain_one() -> None:
    calls = _same_records(SPEC + ",max_tokens=4000", SPEC + ",max_tokens=100000",
                          lambda: _dated(OpenAIResponsesModel(OpenAIReasoningModel(
                              reasoning=500))))
    assert calls[0]["served_model"] == "gpt-5.4-2026-03-05"
    assert calls[0]["request_id"] == "req_resp_9"
    assert calls[0]["category"] == "OK" and calls[0]["thinking"].startswith("**Weighing")
    assert calls[0]["reasoning_tokens"] == 500 and calls[0]["finish_reason"] == "completed"


def test_streamed_tool_calls_are_recorded_as_the_plain_ones() -> None:
    spec = SPEC.replace(",max_attempts=1", "") + ",tools=on,reasoning_effort=high"
    calls = _same_records(spec + ",max_tokens=4000", spec + ",max_tokens=100000",
                          lambda: ResponsesToolModel("careful"))
    assert len(calls) > 1 and calls[0]["tool_calls"]  # the loop ran over streamed calls


def test_a_streamed_refusal_is_recorded_as_the_plain_one() -> None:
    calls = _same_records(SPEC + ",max_tokens=4000", SPEC + ",max_tokens=100000",
                          lambda: OpenAIResponsesModel(OpenAIReasoningModel(reasoning=500),
                                                       refuse_every=1))
    assert calls[0]["finish_reason"] == "refusal"


def _cut_off(body: dict[str, Any]) -> Scripted:
    """Cut off while reasoning, 3,000 tokens in, whatever the budget (so both records match)."""
    thought = {"type": "reasoning", "id": "rs_1", "summary": [
        {"type": "summary_text", "text": "**Counting coins**\n\nStill counting."}]}
    return OpenAIResponsesModel.response(body, "incomplete", [thought], 3000, 3000, 0)


def test_a_streamed_cut_off_reply_is_recorded_as_the_plain_one() -> None:
    """`response.incomplete`, reason max_output_tokens: truncated in both."""
    calls = _same_records(SPEC + ",max_tokens=4000", SPEC + ",max_tokens=100000",
                          lambda: _cut_off, first=True)
    assert calls[0]["category"] == "TRUNCATED" and calls[0]["output_tokens"] == 3000
    assert calls[0]["finish_reason"] == "incomplete: max_output_tokens"
    assert calls[0]["thinking"].startswith("**Counting coins**")


def _server(**kw: Any) -> FakeLLMServer:
    srv = FakeLLMServer(OpenAIResponsesModel(OpenAIReasoningModel(reasoning=500)))
    for k, v in kw.items():
        setattr(srv, k, v)
    return srv


def test_a_slow_but_live_stream_outlasting_the_timeout_is_read_to_its_end() -> None:
    """Events every 0.1 s for well over the 0.4 s timeout: the reply is kept."""
    view, legal = play_card_position()
    with _server(stream_gap=0.1) as srv:
        start = time.perf_counter()
        d = make_agent(SPEC.replace("URL", srv.url) + ",timeout=0.4").choose(
            view, legal, random.Random(0))
        assert time.perf_counter() - start > 0.8  # twice the timeout, and more
        assert srv.streamed == 1
    assert [c["category"] for c in d.details["llm"]["calls"]] == ["OK"]
    assert d.move in legal


def test_a_stalled_stream_is_a_timeout_and_the_retry_says_so() -> None:
    view, legal = play_card_position()
    with _server(stall_after=8, stall_seconds=1.5) as srv:
        d = make_agent(SPEC.replace("URL", srv.url) + ",timeout=0.3").choose(
            view, legal, random.Random(0))
        assert srv.streamed == 2
    calls = d.details["llm"]["calls"]
    assert [c["category"] for c in calls] == ["TRANSPORT", "OK"]
    assert "timed out" in calls[0]["error"] and "stalled stream" in calls[0]["error"]
    assert "after 8 events" in calls[0]["error"]
    assert calls[1]["retry"] == "after a timeout: the request was sent again from the start"

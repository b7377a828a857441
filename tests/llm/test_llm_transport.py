"""Transport: retries that honour retry-after and spend no attempt, failures that spend one,
errors that stop the game (key, model, quota), and the per-endpoint cap on calls."""

from __future__ import annotations

import json
import random
import time
from typing import Any

import pytest
from helpers.fake_llm_server import FakeLLMServer, anthropic_reply, error_reply, openai_reply
from helpers.llm_seat import anthropic_agent, openai_agent, play_card_position

from duel.agents import make_agent
from duel.agents.llm.agent import LLMAgent
from duel.errors import LLMConfigError


def test_429_with_retry_after_is_retried_without_using_an_attempt(server: FakeLLMServer) -> None:
    view, legal = play_card_position()
    server.enqueue(error_reply(429, {"retry-after": "0.3"}), error_reply(503),
                   openai_reply(json.dumps(legal[0].to_json())))
    start = time.perf_counter()
    d = openai_agent(server, ",max_attempts=1").choose(view, legal, random.Random(0))
    assert time.perf_counter() - start >= 0.3  # the server's retry-after was honoured
    assert d.move == legal[0]
    calls = d.details["llm"]["calls"]
    assert [c["category"] for c in calls] == ["TRANSPORT", "TRANSPORT", "OK"]
    assert {c["attempt"] for c in calls} == {1}
    assert "429" in calls[0]["error"] and "503" in calls[1]["error"]


def test_anthropic_429_with_retry_after_and_529_are_retried(server: FakeLLMServer) -> None:
    view, legal = play_card_position()
    server.enqueue(error_reply(429, {"retry-after": "0.2"}), error_reply(529),
                   anthropic_reply(legal[0].to_json()))
    start = time.perf_counter()
    d = anthropic_agent(server, ",max_attempts=1").choose(view, legal, random.Random(0))
    assert time.perf_counter() - start >= 0.2
    assert [c["category"] for c in d.details["llm"]["calls"]] == ["TRANSPORT", "TRANSPORT", "OK"]
    assert d.details["llm"]["legal_at_attempt"] == 1


def test_transport_failures_exhausted_fall_back(server: FakeLLMServer) -> None:
    view, legal = play_card_position()
    server.enqueue(*[error_reply(500) for _ in range(20)])
    d = openai_agent(server, ",max_attempts=2,transport_retries=1").choose(
        view, legal, random.Random(0))
    calls = d.details["llm"]["calls"]
    assert d.details["llm"]["fallback"] == "random" and d.move in legal
    assert [c["category"] for c in calls] == ["TRANSPORT"] * 4
    assert [c["attempt"] for c in calls] == [1, 1, 2, 2]


def test_an_unreachable_endpoint_is_a_retried_transport_failure(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Connection refused: recorded as TRANSPORT on each try, then the fallback, no crash."""
    import socket

    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    with socket.socket() as s:  # a loopback port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    agent = make_agent(f"llm:openai:gpt-4o-mini,base_url=http://127.0.0.1:{port}/v1,api=chat,"
                       "backoff=0.01,max_attempts=2,transport_retries=1")
    view, legal = play_card_position()
    d = agent.choose(view, legal, random.Random(0))
    calls = d.details["llm"]["calls"]
    assert d.details["llm"]["fallback"] == "random" and d.move in legal
    assert [c["category"] for c in calls] == ["TRANSPORT"] * 4


def test_a_malformed_response_body_is_a_retried_transport_failure(server: FakeLLMServer) -> None:
    from helpers.fake_llm_server import Scripted

    view, legal = play_card_position()
    server.enqueue(Scripted(None, raw=b"<html>bad gateway</html>"),
                   openai_reply(json.dumps(legal[0].to_json())))
    d = openai_agent(server, ",max_attempts=1").choose(view, legal, random.Random(0))
    assert [c["category"] for c in d.details["llm"]["calls"]] == ["TRANSPORT", "OK"]


def test_a_refused_request_spends_an_attempt(server: FakeLLMServer) -> None:
    view, legal = play_card_position()
    server.enqueue(error_reply(400), openai_reply(json.dumps(legal[0].to_json())))
    d = openai_agent(server).choose(view, legal, random.Random(0))
    calls = d.details["llm"]["calls"]
    assert [(c["category"], c["attempt"]) for c in calls] == [("TRANSPORT", 1), ("OK", 2)]
    assert "HTTP 400" in calls[0]["error"]


def test_retry_after_ms_and_http_dates_are_read() -> None:
    from email.utils import formatdate

    from duel.agents.llm.providers import _retry_after

    class Exc:
        def __init__(self, headers: dict[str, str]) -> None:
            self.response = type("R", (), {"headers": headers})()

    assert _retry_after(Exc({"retry-after-ms": "1500"})) == 1.5
    assert _retry_after(Exc({"retry-after": "2"})) == 2.0
    later = _retry_after(Exc({"retry-after": formatdate(time.time() + 30, usegmt=True)}))
    assert later is not None and 25 < later <= 31
    assert _retry_after(Exc({"retry-after": "soon"})) is None
    assert _retry_after(Exc({})) is None


@pytest.mark.parametrize("status, words", [(401, "API key was rejected"),
                                           (404, "model 'gpt-4o-mini' not found")])
def test_auth_and_unknown_model_are_clear_errors(server: FakeLLMServer, status: int,
                                                 words: str) -> None:
    view, legal = play_card_position()
    server.enqueue(error_reply(status))
    with pytest.raises(LLMConfigError, match=words):
        openai_agent(server).choose(view, legal, random.Random(0))


def test_used_up_quota_is_a_clear_error_not_a_retry(server: FakeLLMServer) -> None:
    view, legal = play_card_position()
    server.enqueue(error_reply(429, code="insufficient_quota"))
    with pytest.raises(LLMConfigError, match="quota"):
        openai_agent(server).choose(view, legal, random.Random(0))
    assert len(server.requests) == 1


def test_calls_are_capped_per_endpoint(server: FakeLLMServer) -> None:
    """Two games at once against one endpoint with concurrency=1: one call at a time."""
    import threading

    view, legal = play_card_position()
    server.responder = lambda body: openai_reply(json.dumps(legal[0].to_json()))
    server.delay = 0.3
    results: list[Any] = []

    def play(agent: LLMAgent) -> None:
        results.append(agent.choose(view, legal, random.Random(0)).move)

    for cap, expected in ((1, 1), (2, 2)):
        server.max_in_flight = 0
        url = f"{server.url}/v{cap}"  # a separate endpoint per cap (the first agent's cap holds)
        agents = [make_agent(f"llm:compat:m{i}@{url},concurrency={cap},mode=text")
                  for i in range(2)]
        threads = [threading.Thread(target=play, args=(a,)) for a in agents]
        for t in threads:
            t.start()
        for t in threads:
            t.join(30)
        assert server.max_in_flight == expected
    assert results == [legal[0]] * 4

"""Compatible servers: json_schema by default, the server named by a free look-up (or the spec),
a refused response_format falling back in the server's own order, and constrain=legal refused
in one line, before any request, where the server would ignore the schema."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from helpers.fake_llm_server import FakeLLMServer, Scripted, openai_reply
from helpers.llm_seat import play_card_position

from duel.agents import make_agent
from duel.agents.llm.agent import LLMAgent
from duel.agents.llm.schema import structured_schema
from duel.agents.llm.servers import compat as servers
from duel.errors import LLMConfigError, SpecError


def _agent(server: FakeLLMServer, extra: str = "") -> LLMAgent:
    agent = make_agent(f"llm:compat:qwen@{server.url}/v1,backoff=0.01,max_attempts=1{extra}")
    assert isinstance(agent, LLMAgent)
    return agent


def _answer(server: FakeLLMServer) -> None:
    _, legal = play_card_position()
    server.responder = lambda body: openai_reply(json.dumps(legal[0].to_json()))


@pytest.mark.parametrize("kind", ["llamacpp", "vllm", "ollama", None])
def test_compat_defaults_to_strict_json_schema_and_names_its_server(
        server: FakeLLMServer, kind: str | None) -> None:
    server.kind = kind
    _answer(server)
    agent = _agent(server)
    view, legal = play_card_position()
    for _ in range(2):
        d = agent.choose(view, legal, random.Random(0))
    body = server.requests[0]["body"]
    assert body["response_format"] == {"type": "json_schema", "json_schema": {
        "name": "move", "strict": True, "schema": structured_schema()}}
    assert "tools" not in body and "tool_choice" not in body
    assert d.details["llm"]["settings"]["mode"] == "json_schema"
    assert d.details["llm"]["settings"]["server"] == (kind or "unknown")
    assert server.gets[0] == "/v1/models"
    assert len([g for g in server.gets if g == "/v1/models"]) == 1  # once per process


@pytest.mark.parametrize("kind, evidence", [
    ("llamacpp", "owned_by llamacpp"), ("vllm", "owned_by vllm"), ("ollama", "Ollama 0.12.3"),
    (None, "no Ollama")])
def test_the_look_up_names_the_server(server: FakeLLMServer, kind: str | None,
                                      evidence: str) -> None:
    import asyncio

    server.kind = kind
    found, how = asyncio.run(servers.identify(server.url + "/v1"))
    assert found.name == (kind or "unknown") and evidence in how


@pytest.mark.parametrize("kind, mode", [("vllm", "json_object"), ("ollama", "json_object"),
                                        ("llamacpp", "tool"), ("ollama", "tool"),
                                        (None, "json_schema")])
def test_constrain_legal_is_refused_where_the_server_would_ignore_it(
        server: FakeLLMServer, kind: str | None, mode: str) -> None:
    server.kind = kind
    _answer(server)
    agent = _agent(server, f",constrain=legal,mode={mode}")
    view, legal = play_card_position()
    with pytest.raises(LLMConfigError) as caught:
        agent.choose(view, legal, random.Random(0))
    line = str(caught.value)
    assert "\n" not in line and "constrain=legal" in line
    assert ("add server=NAME" in line) if kind is None else ("would constrain nothing" in line)
    assert server.requests == []  # refused before a request was sent


@pytest.mark.parametrize("kind, mode", [("llamacpp", "json_schema"), ("llamacpp", "json_object"),
                                        ("vllm", "json_schema"), ("vllm", "tool"),
                                        ("ollama", "json_schema")])
def test_constrain_legal_plays_where_the_server_enforces_the_schema(
        server: FakeLLMServer, kind: str, mode: str) -> None:
    server.kind = kind
    view, legal = play_card_position()

    def answer(body: dict[str, Any]) -> Scripted:
        move = json.dumps(legal[0].to_json())
        return openai_reply(tool_args=move) if mode == "tool" else openai_reply(move)

    server.responder = answer
    d = _agent(server, f",constrain=legal,mode={mode}").choose(view, legal, random.Random(0))
    assert d.move == legal[0] and d.details["llm"]["constrain"] == "legal"


def test_a_server_named_in_the_spec_is_not_looked_up_and_refused_at_once(
        server: FakeLLMServer) -> None:
    with pytest.raises(SpecError, match="vLLM ignores that schema.*use mode=json_schema or tool"):
        _agent(server, ",constrain=legal,mode=json_object,server=vllm")
    with pytest.raises(SpecError, match="server must be one of llamacpp, vllm, ollama"):
        _agent(server, ",server=tgi")
    with pytest.raises(SpecError, match="takes no server="):
        make_agent("llm:local,server=vllm")
    with pytest.raises(SpecError, match="llama.cpp's server ignores that schema"):
        make_agent("llm:local,mode=tool")  # llm:local is constrained by default
    _answer(server)
    view, legal = play_card_position()
    d = _agent(server, ",constrain=legal,server=llamacpp").choose(view, legal, random.Random(0))
    assert d.details["llm"]["settings"]["server"] == "llamacpp" and server.gets == []


def _refusing_json_schema(legal_move: str) -> Any:
    def answer(body: dict[str, Any]) -> Scripted:
        if (body.get("response_format") or {}).get("type") == "json_schema":
            return Scripted({"error": {"message": "response_format type json_schema is not "
                                                  "supported", "type": "invalid_request_error"}},
                            400)
        if "tools" in body:
            return openai_reply(tool_args=legal_move)
        return openai_reply(legal_move)
    return answer


@pytest.mark.parametrize("kind, then", [("llamacpp", "json_object"), ("vllm", "tool"),
                                        (None, "tool")])
def test_a_refused_json_schema_falls_back_in_the_server_s_order_with_the_reason(
        server: FakeLLMServer, kind: str | None, then: str) -> None:
    """llama.cpp's next is json_object with the schema (it enforces it), not the forced tool
    it would ignore."""
    server.kind = kind
    view, legal = play_card_position()
    server.responder = _refusing_json_schema(json.dumps(legal[0].to_json()))
    d = _agent(server).choose(view, legal, random.Random(0))
    assert d.move == legal[0]
    [adaptation] = d.details["llm"]["adaptations"]
    assert adaptation["parameter"] == "response_format"
    assert adaptation["change"].startswith(f"json_schema -> {then}")
    assert "not supported" in adaptation["reason"]
    assert d.details["llm"]["settings"]["mode"] == then
    if then == "json_object":
        assert server.requests[-1]["body"]["response_format"]["type"] == "json_object"


def test_a_fallback_that_would_leave_constrain_legal_unenforced_is_refused(
        server: FakeLLMServer) -> None:
    """llama.cpp refusing json_schema: json_object with the schema holds the legal moves; a
    refusal of that too would leave plain text, and the run stops in one line instead."""
    server.kind = "llamacpp"
    view, legal = play_card_position()
    move = json.dumps(legal[0].to_json())
    refusal = {"error": {"message": "response_format is not supported",
                         "type": "invalid_request_error"}}
    server.responder = lambda body: Scripted(refusal, 400) \
        if (body.get("response_format") or {}).get("type") == "json_schema" else \
        openai_reply(move)
    d = _agent(server, ",constrain=legal").choose(view, legal, random.Random(0))
    assert d.details["llm"]["settings"]["mode"] == "json_object" and d.move == legal[0]
    server.responder = lambda body: Scripted(refusal, 400)
    with pytest.raises(LLMConfigError, match="constrain=legal with mode=text would constrain "
                                             "nothing"):
        _agent(server, ",constrain=legal").choose(view, legal, random.Random(0))

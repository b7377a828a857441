"""OpenAI's Responses API (issue 28, item 2), `llm:openai`'s default, through the real
openai SDK against a local server speaking the Responses API as documented: reasoning summaries
recorded as the calls' thinking text, structured output through text.format, the move tool with a
reasoning effort (which Chat Completions refuses on gpt-5.x), cut-off replies, refusals."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from helpers.fake_llm_server import FakeLLMServer
from helpers.fake_reasoning_servers import EFFORT_SCALE, OpenAIReasoningModel, openai_error
from helpers.fake_responses_server import OpenAIResponsesModel
from helpers.llm_seat import play_card_position

from duel.agents import SpecError, make_agent
from duel.agents.llm.schema import structured_schema
from duel.cli import main
from duel.prompts import get_variant
from duel.transcripts import read, verified_result


def game(spec: str, path: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    code = main(["match", "--p1", spec, "--p2", "random", "--seed", "3",
                 "--transcript", str(path)])
    out = capsys.readouterr()
    assert code == 0, out.err
    t = read(path)
    verified_result(t)
    moves = [m["details"]["llm"] for m in t.moves if m["player"] == 1]
    return {"moves": moves, "calls": [c for m in moves for c in m["calls"]], "out": out.out}


def test_a_reasoning_model_plays_a_game_with_its_summaries_recorded(
        server: FakeLLMServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    server.responder = OpenAIResponsesModel(OpenAIReasoningModel(
        reasoning=10_000, effort_scale=EFFORT_SCALE, spread=0.5, max_output=128_000))
    g = game(f"llm:openai:gpt-5.4,base_url={server.url}/v1,api=responses,"
             "reasoning_effort=xhigh", tmp_path / "r.jsonl", capsys)
    assert all(m["fallback"] is None and m["legal_at_attempt"] == 1 for m in g["moves"])
    req = server.requests[0]
    assert req["path"] == "/v1/responses"
    body = req["body"]
    assert body["reasoning"] == {"effort": "xhigh", "summary": "auto"}
    assert body["max_output_tokens"] == 128_000 and body["store"] is False
    assert body["text"]["format"] == {"type": "json_schema", "name": "move", "strict": True,
                                      "schema": structured_schema()}
    assert body["instructions"] == get_variant("baseline").system  # the rules text
    assert body["input"][0]["role"] == "user" and body["prompt_cache_key"].startswith("duel-")
    with_summary = [c for c in g["calls"] if c["thinking"].startswith("**Weighing")]
    assert len(with_summary) / len(g["calls"]) >= 0.9
    assert all(c["reasoning_tokens"] > 0 and c["finish_reason"] == "completed"
               for c in g["calls"])
    assert g["moves"][0]["settings"]["token_param"] == "max_output_tokens"
    assert sum(c["cached_tokens"] for c in g["calls"][1:]) == 1200 * (len(g["calls"]) - 1)


def test_the_move_tool_with_a_reasoning_effort_works_where_chat_completions_refuses_it(
        server: FakeLLMServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    server.responder = OpenAIReasoningModel(reasoning=500)  # refuses as gpt-5.x does
    code = main(["match", "--p1", f"llm:openai:gpt-5.4,base_url={server.url}/v1,api=chat,"
                 "mode=tool,reasoning_effort=high", "--p2", "random", "--seed", "3"])
    err = capsys.readouterr().err
    assert code == 2 and "use /v1/responses" in err.strip().splitlines()[-1]
    server.requests.clear()
    server.responder = OpenAIResponsesModel(OpenAIReasoningModel(reasoning=500))
    g = game(f"llm:openai:gpt-5.4,base_url={server.url}/v1,mode=tool,"  # the default API
             "reasoning_effort=high", tmp_path / "t.jsonl", capsys)
    body = server.requests[-1]["body"]
    assert body["tools"][0]["name"] == "play_move" and body["tools"][0]["type"] == "function"
    assert body["tool_choice"] == {"type": "function", "name": "play_move"}
    assert all(m["legal_at_attempt"] == 1 for m in g["moves"])
    assert all(c["thinking"] for c in g["calls"])


def test_a_reply_cut_off_while_reasoning_is_asked_again_with_a_larger_budget(
        server: FakeLLMServer) -> None:
    server.responder = OpenAIResponsesModel(OpenAIReasoningModel(reasoning=3000))
    view, legal = play_card_position()
    agent = make_agent(f"llm:openai:gpt-5,base_url={server.url}/v1,api=responses,"
                       "max_tokens=2000")
    d = agent.choose(view, legal, random.Random(0))
    calls = d.details["llm"]["calls"]
    assert [(c["max_tokens"], c["category"]) for c in calls] == [(2000, "TRUNCATED"),
                                                                 (4000, "OK")]
    assert calls[0]["finish_reason"] == "incomplete: max_output_tokens"
    assert calls[0]["thinking"]  # the summary of the reasoning that was cut off is kept


def test_a_refusal_is_read_as_such_and_re_asked(server: FakeLLMServer) -> None:
    server.responder = OpenAIResponsesModel(OpenAIReasoningModel(reasoning=100), refuse_every=1)
    view, legal = play_card_position()
    d = make_agent(f"llm:openai:gpt-5,base_url={server.url}/v1,api=responses,"
                   "max_attempts=2").choose(view, legal, random.Random(0))
    calls = d.details["llm"]["calls"]
    assert [c["finish_reason"] for c in calls] == ["refusal", "refusal"]
    assert calls[0]["raw"] == "I can't help with that."
    assert d.details["llm"]["fallback"] == "random"


def test_a_chat_parameter_sent_to_the_responses_api_is_refused_by_name(
        server: FakeLLMServer) -> None:
    fake = OpenAIResponsesModel()
    refused = fake({"model": "gpt-5", "messages": [], "input": []})
    assert refused.status == 400 and refused.body["error"]["param"] == "messages"
    assert "moved to 'input'" in refused.body["error"]["message"]


@pytest.mark.parametrize("spec, words", [
    ("llm:openrouter:openai/gpt-5,api=responses", "llm:openrouter takes no api="),
    ("llm:openai:gpt-5,api=assistants", "api must be chat or responses"),
])
def test_api_is_checked(server: FakeLLMServer, monkeypatch: pytest.MonkeyPatch, spec: str,
                        words: str) -> None:
    monkeypatch.setenv("OPENROUTER_API_KEY", "sk-or-test")
    with pytest.raises(SpecError, match=words):
        make_agent(spec)


def test_a_non_reasoning_model_asks_no_summary_and_keeps_its_temperature(
        server: FakeLLMServer) -> None:
    server.responder = lambda body: OpenAIResponsesModel()(
        {k: v for k, v in body.items() if k != "temperature"})
    view, legal = play_card_position()
    make_agent(f"llm:openai:gpt-4.1-mini,base_url={server.url}/v1,api=responses").choose(
        view, legal, random.Random(0))
    body = server.requests[-1]["body"]
    assert "reasoning" not in body and body["temperature"] == 0.0
    assert json.loads(json.dumps(body["text"]))["format"]["type"] == "json_schema"


def test_the_responses_api_is_the_default_for_openai_and_only_for_openai(
        server: FakeLLMServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENROUTER_API_KEY", "sk-or-test")
    server.responder = OpenAIResponsesModel(OpenAIReasoningModel(reasoning=100))
    view, legal = play_card_position()
    agent = make_agent(f"llm:openai:gpt-5-mini,base_url={server.url}/v1")
    d = agent.choose(view, legal, random.Random(0))
    assert server.requests[-1]["path"] == "/v1/responses"
    assert d.details["llm"]["settings"]["token_param"] == "max_output_tokens"
    assert d.details["llm"]["calls"][0]["thinking"].startswith("**Weighing")
    server.responder = OpenAIReasoningModel(reasoning=100)
    for spec in (f"llm:openai:gpt-5-mini,base_url={server.url}/v1,api=chat",
                 f"llm:openrouter:openai/gpt-5-mini,base_url={server.url}/v1",
                 f"llm:compat:m@{server.url}/v1,mode=json_schema"):
        make_agent(spec).choose(view, legal, random.Random(0))
        assert server.requests[-1]["path"] == "/v1/chat/completions", spec


def test_the_chat_fake_refuses_tools_with_an_effort_on_gpt_5_x_only() -> None:
    view, _ = play_card_position()
    turn = [{"role": "user", "content": "State (you are player2):\n" + json.dumps(view)}]
    body = {"model": "gpt-5.4", "messages": turn, "tools": [{}], "reasoning_effort": "high"}
    refused = OpenAIReasoningModel(reasoning=10)(body)
    assert refused.status == 400 and refused.body["error"]["message"] == (
        "Function tools with reasoning_effort are not supported for gpt-5.4 in "
        "/v1/chat/completions. Please use /v1/responses instead.")
    for other in ({"reasoning_effort": "none"}, {"model": "gpt-5-mini"}, {"model": "o3"}):
        taken = OpenAIReasoningModel(reasoning=10)({**body, **other})
        assert taken.status == 200 and taken.body["choices"][0]["finish_reason"] == "tool_calls"


def test_json_schema_refused_adapts_to_the_move_tool_with_the_effort_kept(
        server: FakeLLMServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The automatic json_schema -> tool adaptation on the default API: the move tool goes
    with the reasoning effort (on Chat Completions gpt-5.x would answer 400 here)."""
    model = OpenAIResponsesModel(OpenAIReasoningModel(reasoning=200))

    def no_json_schema(body: dict[str, Any]) -> Any:
        if "text" in body:
            return openai_error(400, "Invalid parameter: 'text.format' of type 'json_schema' "
                                "is not supported with this model.", "text.format",
                                "unsupported_parameter")
        return model(body)

    server.responder = no_json_schema
    g = game(f"llm:openai:gpt-5.4,base_url={server.url}/v1,reasoning_effort=high",
             tmp_path / "a.jsonl", capsys)
    assert g["moves"][0]["adaptations"][0]["parameter"] == "response_format"
    assert all(m["settings"]["mode"] == "tool" for m in g["moves"][1:])
    body = server.requests[-1]["body"]
    assert body["tools"][0]["name"] == "play_move" and body["reasoning"]["effort"] == "high"
    assert all(m["legal_at_attempt"] == 1 for m in g["moves"])


def test_the_board_picture_goes_as_a_responses_input_image(server: FakeLLMServer) -> None:
    server.responder = OpenAIResponsesModel(OpenAIReasoningModel(reasoning=100))
    view, legal = play_card_position()
    d = make_agent(f"llm:openai:gpt-5-mini,base_url={server.url}/v1,image=on").choose(
        view, legal, random.Random(0))
    assert d.details["llm"]["legal_at_attempt"] == 1
    text, image = server.requests[-1]["body"]["input"][0]["content"]
    assert text["type"] == "input_text" and "you are player2" in text["text"]
    assert image["type"] == "input_image" and image["detail"] == "auto"
    assert image["image_url"].startswith("data:image/png;base64,")


def test_a_model_that_refuses_the_summary_duel_asked_for_is_asked_no_more(
        server: FakeLLMServer) -> None:
    """A model the table does not know is asked for a reasoning summary (OpenAI's models
    reason, as a rule); one that does not reason refuses it, and is not asked again."""
    model = OpenAIResponsesModel(OpenAIReasoningModel(reasoning=0))

    def no_reasoning(body: dict[str, Any]) -> Any:
        if "reasoning" in body:
            return openai_error(400, "Unsupported parameter: 'reasoning.summary' is not "
                                "supported with this model.", "reasoning.summary",
                                "unsupported_parameter")
        return model(body)

    server.responder = no_reasoning
    view, legal = play_card_position()
    agent = make_agent(f"llm:openai:mystery-1,base_url={server.url}/v1")
    for _ in range(2):
        d = agent.choose(view, legal, random.Random(0))
        assert d.details["llm"]["legal_at_attempt"] == 1
        assert [c["category"] for c in d.details["llm"]["calls"]] == ["OK"]
    assert ["reasoning" in r["body"] for r in server.requests] == [True, False, False]
    # an effort the spec sets is never dropped: the refusal is the attempt's failure
    server.requests.clear()
    d = make_agent(f"llm:openai:mystery-2,base_url={server.url}/v1,reasoning_effort=low,"
                   "max_attempts=1").choose(view, legal, random.Random(0))
    assert d.details["llm"]["fallback"] == "random"
    assert "'reasoning.summary' is not supported" in d.details["llm"]["calls"][0]["error"]
    assert all(r["body"]["reasoning"]["effort"] == "low" for r in server.requests)

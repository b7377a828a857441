"""tools=on on OpenAI's Responses API (issue 28, item 2): the tool set as Responses function
tools, through the real openai SDK against a local server that speaks the Responses API as
documented (helpers.fake_responses_tools): function_call output items answered by
function_call_output items, the reasoning items given back encrypted (``store: false``,
``include: ["reasoning.encrypted_content"]``) with a reasoning effort, whole games recorded,
and what the API refuses refused by the fake."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from helpers.fake_llm_server import FakeLLMServer
from helpers.fake_responses_tools import (
    NO_CALL,
    NO_FOLLOWING,
    NO_OUTPUT,
    NO_REASONING,
    NOT_STORED,
    ResponsesToolModel,
    encrypt,
    input_problem,
)
from helpers.llm_seat import play_card_position
from helpers.seat_tables import twin_deal

from duel.accounting.calls import LLMCall
from duel.accounting.totals import LLMTotals
from duel.agents import make_agent
from duel.agents.llm.agent import LLMAgent
from duel.agents.llm.providers import openai_responses as responses
from duel.agents.tools import TOOLS
from duel.engine import Seat, new_game
from duel.match import agent_rng, play_match
from duel.match import decide as decide_move
from duel.transcripts import TranscriptWriter, read, record_error, verified_result

SPEC = "llm:openai:gpt-5.4,base_url={url}/v1,api=responses,tools=on,reasoning_effort=high," \
       "backoff=0.01"


@pytest.fixture(autouse=True)
def keys(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")


def agent(srv: FakeLLMServer, extra: str = "") -> LLMAgent:
    a = make_agent(SPEC.format(url=srv.url) + extra)
    assert isinstance(a, LLMAgent)
    return a


def decide(behaviour: str, extra: str = "") -> tuple[dict[str, Any], ResponsesToolModel]:
    view, legal = play_card_position()
    model = ResponsesToolModel(behaviour)
    with FakeLLMServer(model) as srv:
        d = agent(srv, extra).choose(view, legal, random.Random(0))
    return d.details["llm"], model


def test_a_whole_game_through_the_tools_with_a_reasoning_effort(tmp_path: Path) -> None:
    model = ResponsesToolModel("careful")
    with FakeLLMServer(model) as srv:
        llm, opp = agent(srv), make_agent("rule")
        deal = new_game(7).deal
        path = tmp_path / "game.jsonl"
        writer = TranscriptWriter.for_match(path, 7, deal, (llm, opp))
        played = play_match(llm, opp, seed=7, deal=deal, on_move=writer.record)
        writer.finish(played.result)
    t = read(path)
    assert not t.problems and verified_result(t) == played.result
    mine = [m for m in t.moves if m["player"] == 1]
    calls = [c for m in mine for c in m["details"]["llm"]["calls"]]
    for m in mine:
        details = m["details"]["llm"]
        assert record_error(m) is None
        assert details["legal_at_attempt"] == 1 and details["fallback"] is None
        assert details["settings"]["mode"] == "tools"
        assert details["settings"]["reasoning_effort"] == "high"
        assert [c["category"] for c in details["calls"]] == ["TOOLS", "TOOLS", "OK"]
        assert details["calls"][-1]["tool_calls"][0]["tool"] == "make_move"
    # every call's reasoning summary is its thinking text, and it reads back the same
    assert all(c["thinking"].startswith("**Looking things up") and c["reasoning_tokens"] == 300
               for c in calls)
    assert all(LLMCall.from_json(c).to_json() == c for c in calls)
    assert {tc["tool"] for c in calls for tc in c["tool_calls"]} == {t.name for t in TOOLS}
    totals = LLMTotals.from_json(t.footer["totals"]["1"])
    assert totals.calls == len(calls) == model.calls
    assert totals.unusable_output_tokens == 0  # the look-ups (TOOLS) are not unusable replies
    assert totals.input_tokens == sum(1000 + 100 * len(b["input"]) for b in model.bodies)
    # every request the server took is one the Responses API takes
    assert all(b["store"] is False and b["reasoning"] == {"effort": "high", "summary": "auto"}
               and b["include"] == ["reasoning.encrypted_content"] for b in model.bodies)


def test_the_requests_offer_the_tools_and_give_the_reasoning_back() -> None:
    _, model = decide("careful")
    first, second = model.bodies[0], model.bodies[1]
    assert [t["name"] for t in first["tools"]] == [t.name for t in TOOLS]
    assert all(t["type"] == "function" and "function" not in t for t in first["tools"])
    assert [t["parameters"] for t in first["tools"]] == [t.schema() for t in TOOLS]
    assert first["tool_choice"] == "auto" and "text" not in first
    items = second["input"]
    assert [i.get("type", i.get("role")) for i in items] == [
        "user", "reasoning", "function_call", "function_call", "function_call_output",
        "function_call_output"]
    assert items[1]["id"] == "rs_1" and items[1]["encrypted_content"] == encrypt("rs_1")
    assert [i["call_id"] for i in items[2:4]] == [i["call_id"] for i in items[4:6]]
    answer = json.loads(items[4]["output"])
    assert answer["your_turn"] is True and answer["tool_steps_left"] == 7
    # the third request keeps the whole turn: both replies' reasoning before their calls
    kinds = [i.get("type", "") for i in model.bodies[2]["input"]]
    assert kinds.count("reasoning") == 2 and kinds.count("function_call_output") == 4


def test_an_illegal_make_move_is_answered_as_its_function_call_output() -> None:
    llm, model = decide("illegal")
    assert llm["legal_at_attempt"] == 2 and llm["fallback"] is None
    assert [c["category"] for c in llm["calls"]] == ["TOOLS", "TOOLS", "ILLEGAL", "OK"]
    last = model.bodies[-1]["input"][-1]
    assert last["type"] == "function_call_output"
    result = json.loads(last["output"])
    assert result["error"].startswith("your move was not accepted: that move is not legal")
    assert result["legal_moves"]


@pytest.mark.parametrize(("behaviour", "extra", "categories"), [
    ("clumsy", "", ["TOOLS", "TOOLS", "TOOLS", "OK"]),
    ("texting", "", ["TOOLS", "TOOLS", "OK"]),
    ("looping", ",tool_steps=2,max_attempts=2", ["TOOLS", "TOOLS", "TOOL_STEPS", "TOOL_STEPS"]),
])
def test_bad_calls_text_answers_and_too_many_look_ups(behaviour: str, extra: str,
                                                     categories: list[str]) -> None:
    llm, _ = decide(behaviour, extra)
    assert [c["category"] for c in llm["calls"]] == categories
    if behaviour == "clumsy":
        first = llm["calls"][0]["tool_calls"]
        assert first[0]["error"].startswith("no tool is named 'peek_at_hidden_cards'")
        assert "its arguments are not valid JSON" in first[1]["error"]


def test_a_loop_that_dropped_the_reasoning_items_would_be_refused(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The fake holds the loop to the API's rule: without the reasoning items the second
    request is refused with the API's message, recorded as the call's error."""
    real = responses.reply

    def without_reasoning(resp: Any, mode: str) -> Any:
        r = real(resp, mode)
        if isinstance(r.message, list):
            r.message = [i for i in r.message if i["type"] != "reasoning"]
        return r

    monkeypatch.setattr(responses, "reply", without_reasoning)
    view, legal = play_card_position()
    with FakeLLMServer(ResponsesToolModel("careful")) as srv:
        d = agent(srv, ",max_attempts=1,fallback=forfeit").choose(view, legal, random.Random(0))
    assert d.forfeit
    error = d.details["llm"]["calls"][-1]["error"]
    assert "HTTP 400: Item 'fc_1_0' of type 'function_call' was provided without its " \
           "required 'reasoning' item: 'rs_1'." in error


def _items(*kinds: str) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = [{"role": "user", "content": "go"}]
    for k in kinds:
        if k == "rs":
            out.append({"type": "reasoning", "id": "rs_1", "summary": [],
                        "encrypted_content": encrypt("rs_1")})
        elif k == "rs-plain":
            out.append({"type": "reasoning", "id": "rs_1", "summary": []})
        elif k == "fc":
            out.append({"type": "function_call", "id": "fc_1", "call_id": "call_1",
                        "name": "get_state", "arguments": "{}"})
        elif k == "out":
            out.append({"type": "function_call_output", "call_id": "call_1", "output": "{}"})
        elif k == "stray":
            out.append({"type": "function_call_output", "call_id": "call_9", "output": "{}"})
    return out


@pytest.mark.parametrize(("kinds", "problem"), [
    (("rs", "fc", "out"), ""),
    (("fc", "out"), NO_REASONING.format(id="fc_1", rs="rs_1")),
    (("rs-plain", "fc", "out"), NOT_STORED.format(id="rs_1")),
    (("rs", "out"), NO_FOLLOWING.format(id="rs_1")),
    (("rs", "fc"), NO_OUTPUT.format(id="call_1")),
    (("rs", "fc", "out", "stray"), NO_CALL.format(id="call_9")),
])
def test_the_fake_refuses_what_the_responses_api_refuses(kinds: tuple[str, ...],
                                                         problem: str) -> None:
    assert input_problem(_items(*kinds), {"fc_1": "rs_1"}) == problem


def test_the_fake_refuses_chat_completions_tools_by_name() -> None:
    model = ResponsesToolModel()
    refused = model({"model": "gpt-5.4", "input": _items(), "tools": [
        {"type": "function", "function": {"name": "get_state", "parameters": {}}}]})
    assert refused.status == 400
    assert refused.body["error"]["message"] == "Missing required parameter: 'tools[0].name'."


def _tool_game(deal: Any) -> list[dict[str, Any]]:
    model = ResponsesToolModel("careful")
    with FakeLLMServer(model) as srv:
        agents = (agent(srv), make_agent("rule"))
        state = new_game(7, deal=deal, code="TWINS")
        while not state.is_terminal():
            seat = Seat.of_index(state.current)
            move, _, _ = decide_move(agents[seat.index], state, agent_rng(7, seat))
            state = state.apply(move)
    return model.bodies


def test_twin_games_give_the_model_byte_identical_requests() -> None:
    """Deals that differ only in cards unseen before Age II: while the seat's view is the
    same, every request (tool results and reasoning items included) is the same bytes."""
    deal = new_game(7).deal
    first, second = _tool_game(deal), _tool_game(twin_deal(deal))

    def turn(body: dict[str, Any]) -> str:
        return json.dumps(body["input"][0]["content"])

    same = 0
    for a, b in zip(first, second, strict=False):
        if turn(a) != turn(b):
            break
        assert json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)
        same += len(a["input"]) > 1
    assert same >= 20
    assert any(turn(a) != turn(b) for a, b in zip(first, second, strict=False))

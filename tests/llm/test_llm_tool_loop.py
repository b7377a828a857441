"""tools=on: the LLM seat plays through the one tool set as native function tools, through the
real `openai` and `anthropic` SDKs, against local servers that speak tool use as each provider
documents it (helpers.fake_tool_models): whole games, every tool call recorded in the transcript
and read back, refused make_moves as attempts under the one attempt policy, bad tool calls and
too many look-ups answered and recorded."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from helpers.fake_llm_server import FakeLLMServer, Scripted
from helpers.fake_tool_models import AnthropicToolModel, OpenAIToolModel
from helpers.llm_seat import play_card_position
from helpers.seat_tables import twin_deal

from duel.accounting.calls import LLMCall
from duel.accounting.totals import LLMTotals
from duel.agents import make_agent
from duel.agents.llm.agent import LLMAgent
from duel.agents.llm.toolloop import DEFAULT_TOOL_STEPS, tools_hash
from duel.agents.llm.transport.adapt import learn
from duel.agents.tools import TOOLS
from duel.agents.tools.record import ToolCall
from duel.cli import main
from duel.engine import Seat, new_game
from duel.errors import InvalidStateError, LLMConfigError, SpecError
from duel.match import agent_rng, play_match
from duel.match import decide as decide_move
from duel.transcripts import TranscriptWriter, read, record_error, verified_result
from duel.words.narrate import llm_lines

MODELS = {"openai": OpenAIToolModel, "anthropic": AnthropicToolModel}


@pytest.fixture(autouse=True)
def keys(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")


def tool_agent(provider: str, srv: FakeLLMServer, extra: str = "") -> LLMAgent:
    base = f"{srv.url}/v1" if provider == "openai" else srv.url
    model = "gpt-4o-mini" if provider == "openai" else "claude-sonnet-4-6"
    # OpenAI's Chat Completions fake (the Responses API: test_llm_responses_tools.py)
    api = ",api=chat" if provider == "openai" else ""
    agent = make_agent(f"llm:{provider}:{model},base_url={base}{api},backoff=0.01,tools=on{extra}")
    assert isinstance(agent, LLMAgent)
    return agent


def decide(provider: str, behaviour: str, extra: str = "") -> tuple[Any, dict[str, Any], Any]:
    """One decision at the test position: the decision, its LLM details, the fake model."""
    view, legal = play_card_position()
    model = MODELS[provider](behaviour)
    with FakeLLMServer(model) as srv:
        d = tool_agent(provider, srv, extra).choose(view, legal, random.Random(0))
    return d, d.details["llm"], model


def tools_of(llm: dict[str, Any]) -> list[tuple[str, str]]:
    return [(t["tool"], t.get("error", "")) for c in llm["calls"] for t in c["tool_calls"]]


@pytest.mark.parametrize("provider", list(MODELS))
def test_a_whole_game_through_the_tools_is_recorded_and_read_back(
        provider: str, server: FakeLLMServer, tmp_path: Path) -> None:
    model = MODELS[provider]("careful")
    server.responder = model
    llm = tool_agent(provider, server)
    opp = make_agent("rule")
    deal = new_game(7).deal
    path = tmp_path / "game.jsonl"
    writer = TranscriptWriter.for_match(path, 7, deal, (llm, opp))
    played = play_match(llm, opp, seed=7, deal=deal, on_move=writer.record)
    writer.finish(played.result)
    t = read(path)
    assert not t.problems and verified_result(t) == played.result
    assert t.header["players"]["1"]["prompt"]["tools"] == {"steps": DEFAULT_TOOL_STEPS,
                                                           "hash": tools_hash()}
    assert t.header["players"]["2"]["prompt"] is None
    mine = [m for m in t.moves if m["player"] == 1]
    assert mine
    seen: set[str] = set()
    for m in mine:
        assert record_error(m) is None
        details = m["details"]["llm"]
        assert details["legal_at_attempt"] == 1 and details["fallback"] is None
        assert details["settings"]["mode"] == "tools"
        assert details["tools"] == {"steps": DEFAULT_TOOL_STEPS, "used": 4}
        # every model call of the loop is recorded, and reads back to the same bytes
        assert [c["category"] for c in details["calls"]] == ["TOOLS", "TOOLS", "OK"]
        for c in details["calls"]:
            assert LLMCall.from_json(c).to_json() == c
            for tc in c["tool_calls"]:
                assert "error" not in tc and tc["seconds"] >= 0
                seen.add(tc["tool"])
        assert details["calls"][0]["tool_calls"][0]["chars"] > 500  # the state
        final = details["calls"][-1]["tool_calls"]
        assert [tc["tool"] for tc in final] == ["make_move"]
        assert {"move": m["move"]["move"], "moveData": m["move"]["moveData"]} == \
            final[0]["arguments"] or m["move"]["move"] == "CHOOSE_STARTING_PLAYER"
    assert seen == {t.name for t in TOOLS}
    # tokens and cost include every call of the loop: the server's usage, summed
    totals = LLMTotals.from_json(t.footer["totals"]["1"])
    assert totals.calls == 3 * len(mine) == model.calls
    assert totals.categories == {"TOOLS": 2 * len(mine), "OK": len(mine)}
    expected = sum(1000 + 100 * len(b["messages"]) for b in model.bodies) if provider == \
        "openai" else sum(200 + 50 * len(b["messages"]) + 1100 for b in model.bodies)
    assert totals.input_tokens == expected
    assert totals.cost_usd is not None and totals.cost_usd > 0
    assert LLMTotals.from_json(t.footer["totals"]["1"]).to_json() == t.footer["totals"]["1"]


@pytest.mark.parametrize("provider", list(MODELS))
def test_the_requests_offer_the_one_tool_set_in_the_provider_s_form(provider: str) -> None:
    _, _, model = decide(provider, "careful")
    body = model.bodies[0]
    assert "response_format" not in body
    names = [t["function"]["name"] if provider == "openai" else t["name"]
             for t in body["tools"]]
    assert names == [t.name for t in TOOLS]
    schemas = [t["function"]["parameters"] if provider == "openai" else t["input_schema"]
               for t in body["tools"]]
    assert schemas == [t.schema() for t in TOOLS]
    assert body["tool_choice"] == ("auto" if provider == "openai" else {"type": "auto"})
    first = next(m["content"] for m in body["messages"] if m["role"] == "user")
    assert "make_move" in first and f"at most {DEFAULT_TOOL_STEPS} calls" in first
    # the results go back in the provider's form, answering the calls by id
    second = model.bodies[1]["messages"]
    if provider == "openai":
        assert [m["role"] for m in second] == ["system", "user", "assistant", "tool", "tool"]
        assert second[2]["tool_calls"][0]["id"] == "call_1_0"
        assert second[3]["tool_call_id"] == "call_1_0"
        answer, then = (json.loads(m["content"]) for m in second[3:5])
    else:
        blocks = second[2]["content"]
        assert [b["type"] for b in blocks] == ["tool_result", "tool_result"]
        assert blocks[0]["tool_use_id"] == "toolu_1_0" and "is_error" not in blocks[0]
        answer, then = (json.loads(b["content"]) for b in blocks)
    assert answer["your_turn"] is True and answer["seat"] == 2 and answer["state"]["step"]
    assert "ply" not in answer  # an agent is handed the view alone
    assert [answer["tool_steps_left"], then["tool_steps_left"]] == \
        [DEFAULT_TOOL_STEPS - 1, DEFAULT_TOOL_STEPS - 2]
    assert [m["move"] for m in then["moves"]] and then["unavailable"]


@pytest.mark.parametrize("provider", list(MODELS))
def test_an_illegal_make_move_is_an_attempt_answered_with_the_engine_s_reason(
        provider: str) -> None:
    d, llm, model = decide(provider, "illegal")
    assert llm["legal_at_attempt"] == 2 and llm["attempts"] == 2 and llm["fallback"] is None
    categories = [c["category"] for c in llm["calls"]]
    assert categories == ["TOOLS", "TOOLS", "ILLEGAL", "OK"]
    refused = llm["calls"][2]
    assert refused["error"].startswith("that move is not legal: card 0")
    assert refused["tool_calls"][0]["error"] == refused["error"]
    # the re-ask is make_move's tool result: the reason and the legal moves, as an error
    last = model.bodies[-1]["messages"]
    if provider == "openai":
        result = json.loads(last[-1]["content"])
    else:
        block = last[-1]["content"][0]
        assert block["is_error"] is True
        result = json.loads(block["content"])
    assert result["error"].startswith("your move was not accepted: that move is not legal")
    assert any(line.startswith("CONSTRUCT_BUILDING with cardIndex") or
               line.startswith("DISCARD") for line in result["legal_moves"])


@pytest.mark.parametrize("provider", list(MODELS))
def test_unknown_tools_and_bad_arguments_are_answered_and_recorded(provider: str) -> None:
    d, llm, model = decide(provider, "clumsy")
    assert llm["legal_at_attempt"] == 1 and llm["fallback"] is None
    first = llm["calls"][0]["tool_calls"]
    assert first[0]["tool"] == "peek_at_hidden_cards"
    assert first[0]["error"].startswith("no tool is named 'peek_at_hidden_cards'; tools: "
                                        "get_state, legal_moves, explain, simulate, make_move")
    if provider == "openai":  # arguments that are not JSON at all
        assert first[1] == {"tool": "get_state", "raw": "{not json", "error": first[1]["error"],
                            "seconds": first[1]["seconds"]}
        assert "its arguments are not valid JSON" in first[1]["error"]
        sent = json.loads(model.bodies[1]["messages"][-1]["content"])
    else:  # Anthropic's input is always an object: here one with an argument get_state lacks
        assert first[1]["error"] == "get_state has no argument(s) ['raw']; it takes no arguments"
        sent = json.loads(model.bodies[1]["messages"][-1]["content"][1]["content"])
        assert model.bodies[1]["messages"][-1]["content"][1]["is_error"] is True
    assert sent["error"] == first[1]["error"]
    assert llm["tools"]["used"] == 6  # the bad calls spent steps too


@pytest.mark.parametrize("provider", list(MODELS))
def test_objects_sent_as_json_strings_are_read_and_the_repairs_recorded(provider: str) -> None:
    careful, _, _ = decide(provider, "careful")
    d, llm, _ = decide(provider, "stringy")
    assert d.move == careful.move and llm["calls"][-1]["category"] == "OK"
    records = [t for c in llm["calls"] for t in c["tool_calls"]]
    simulated = next(t for t in records if t["tool"] == "simulate")
    assert simulated["repairs"] == ["moveData: parsed from a JSON string"]
    assert "error" not in simulated
    assert records[-1]["tool"] == "make_move" and records[-1]["repairs"] == [
        'move: the whole {"move", "moveData"} object, taken apart']


@pytest.mark.parametrize("provider", list(MODELS))
def test_too_many_look_ups_end_each_attempt_then_the_fallback_plays(provider: str) -> None:
    d, llm, model = decide(provider, "looping", ",tool_steps=3,max_attempts=2")
    assert llm["legal_at_attempt"] is None and llm["fallback"] == "random"
    assert [c["category"] for c in llm["calls"]] == ["TOOLS"] * 3 + ["TOOL_STEPS"] * 2
    assert llm["tools"] == {"steps": 3, "used": 3}
    over = llm["calls"][3]
    assert over["error"] == "you used the 3 tool calls of this turn without calling make_move"
    assert over["tool_calls"][0]["error"].startswith("not run: the 3 tool calls of this turn "
                                                     "are used up; call make_move")
    assert model.calls == 5  # bounded: steps plus one call per attempt


def test_a_forfeit_after_too_many_look_ups_is_recorded() -> None:
    d, llm, _ = decide("openai", "looping", ",tool_steps=1,max_attempts=1,fallback=forfeit")
    assert d.forfeit and llm["fallback"] == "forfeit"


@pytest.mark.parametrize("provider", list(MODELS))
def test_the_move_may_be_answered_as_text(provider: str) -> None:
    d, llm, _ = decide(provider, "texting")
    assert llm["legal_at_attempt"] == 1
    assert llm["calls"][-1]["tool_calls"] == [] and llm["calls"][-1]["category"] == "OK"


def test_match_verbose_lines_show_each_tool_call() -> None:
    _, llm, _ = decide("openai", "illegal")
    lines = llm_lines(llm)
    text = "\n".join(lines)
    assert "attempt 1: looked something up" in text
    assert "  tool get_state() -> " in text
    assert 'tool legal_moves({"why_not":true}) -> ' in text
    assert 'tool make_move({"move":"CONSTRUCT_BUILDING","moveData":{"cardIndex":0}}): ' \
           "refused: that move is not legal: card 0" in text
    assert lines[-1] == "tools: 4 of 8 look-ups used"


def test_tool_call_records_round_trip_and_name_a_bad_field() -> None:
    record = {"tool": "simulate", "arguments": {"move": "DISCARD", "moveData": {"cardIndex": 1}},
              "chars": 812, "seconds": 0.0021}
    assert ToolCall.from_json(record).to_json() == record
    with pytest.raises(InvalidStateError, match="tool call field chars must be an integer"):
        ToolCall.from_json({**record, "chars": "812"})
    with pytest.raises(InvalidStateError, match=r"unknown field\(s\) \['secret'\]"):
        ToolCall.from_json({**record, "secret": 1})
    call = {"attempt": 1, "category": "TOOLS", "latency_s": 0.5, "input_tokens": 10,
            "output_tokens": 2, "cached_tokens": 0, "cost_usd": None, "tool_calls": [record]}
    assert LLMCall.from_json(call).to_json() == call
    with pytest.raises(InvalidStateError, match="tool_calls must be a list"):
        LLMCall.from_json({**call, "tool_calls": {}})


@pytest.mark.parametrize(("options", "message"), [
    ("tools=yes", "tools must be one of off, on, got 'yes'"),
    ("tool_steps=4", "tool_steps applies with tools=on"),
    ("tools=on,tool_steps=0", "tool_steps must be at least 1, got 0"),
    ("tools=on,mode=json_object", "mode= does not apply with tools=on"),
    ("tools=on,constrain=legal", "constrain=legal does not apply with tools=on"),
])
def test_bad_tool_options_are_refused_by_name(options: str, message: str) -> None:
    with pytest.raises(SpecError, match=message):
        make_agent(f"llm:openai:gpt-4o-mini,{options}")


def test_the_local_model_drops_its_grammar_with_tools_on() -> None:
    agent = make_agent("llm:local,tools=on,tool_steps=5")
    assert isinstance(agent, LLMAgent)
    assert agent.constrain == "shape" and agent.tool_steps == 5
    assert agent.settings()["mode"] == "tools"


@pytest.mark.parametrize("provider", list(MODELS))
def test_a_server_that_refuses_tools_stops_at_the_first_call_with_one_line(
        provider: str, server: FakeLLMServer) -> None:
    if provider == "openai":
        refusal = Scripted({"error": {"message": "'tools' is not supported with this model.",
                                      "type": "invalid_request_error", "param": "tools",
                                      "code": "unsupported_parameter"}}, 400)
    else:
        refusal = Scripted({"type": "error", "error": {
            "type": "invalid_request_error", "message": "tools: this model does not support "
                                                       "tool use"}}, 400)
    server.enqueue(refusal)
    view, legal = play_card_position()
    with pytest.raises(LLMConfigError) as caught:
        tool_agent(provider, server).choose(view, legal, random.Random(0))
    message = str(caught.value)
    assert "\n" not in message and "refused tools and duel cannot change it" in message
    assert len(server.requests) == 1  # no tool-less retry: the setting is what is graded


def _tool_game(deal: Any, provider: str) -> list[dict[str, Any]]:
    """A game of the tool-using model (player 1) against the rule agent on `deal`, under one
    game code: every request the model received."""
    model = MODELS[provider]("careful")
    with FakeLLMServer(model) as srv:
        agents = (tool_agent(provider, srv), make_agent("rule"))
        state = new_game(7, deal=deal, code="TWINS")
        while not state.is_terminal():
            seat = Seat.of_index(state.current)
            move, _, _ = decide_move(agents[seat.index], state, agent_rng(7, seat))
            state = state.apply(move)
    return model.bodies


@pytest.mark.parametrize("provider", list(MODELS))
def test_twin_games_give_the_model_byte_identical_tool_results(provider: str) -> None:
    """Two games whose deals differ only in cards nobody has seen before Age II: while the
    seat's view is the same, every request the model gets (the tool results included) is the
    same bytes. The views part in Age II, so the comparison is not empty by construction."""
    deal = new_game(7).deal
    first, second = (_tool_game(d, provider) for d in (deal, twin_deal(deal)))

    def turn(body: dict[str, Any]) -> str:
        return json.dumps(next(m["content"] for m in body["messages"] if m["role"] == "user"))

    same = 0
    for a, b in zip(first, second, strict=False):
        if turn(a) != turn(b):
            break
        assert json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)
        same += len(a["messages"]) > 2  # a request carrying tool results
    assert same >= 20
    assert any(turn(a) != turn(b) for a, b in zip(first, second, strict=False))


@pytest.mark.parametrize("provider", list(MODELS))
def test_llm_check_reports_the_tool_calls(provider: str,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    model = MODELS[provider]("careful")
    with FakeLLMServer(model) as srv:
        base = f"{srv.url}/v1" if provider == "openai" else srv.url
        name = "gpt-4o-mini" if provider == "openai" else "claude-sonnet-4-6"
        assert main(["llm", "check", f"llm:{provider}:{name},base_url={base},tools=on"
                     + (",api=chat" if provider == "openai" else "")]) == 0
    out = capsys.readouterr().out
    assert "  tools:       get_state, legal_moves -> simulate, explain -> make_move " \
           "(4 look-ups)" in out
    assert "mode tools" in out and "(3 calls)" in out


def test_llm_check_of_a_server_without_tools_is_one_line(
        server: FakeLLMServer, capsys: pytest.CaptureFixture[str]) -> None:
    server.enqueue(Scripted({"error": {"message": "tools is not supported by this server",
                                       "type": "invalid_request_error", "param": None,
                                       "code": None}}, 400))
    assert main(["llm", "check", f"llm:compat:fake@{server.url}/v1,tools=on"]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "refused tools and duel cannot change it" in err


def test_anthropic_thinking_blocks_go_back_with_their_signature() -> None:
    d, llm, model = decide("anthropic", "careful", ",thinking=2048")
    assert llm["legal_at_attempt"] == 1
    assert model.bodies[0]["tool_choice"] == {"type": "auto"}
    assert "temperature" not in model.bodies[0]
    echoed = model.bodies[1]["messages"][1]["content"]
    assert echoed[0] == {"type": "thinking", "thinking": "Which card?", "signature": "sig1"}
    assert llm["calls"][0]["thinking"] == "Which card?"


def test_duel_match_verbose_prints_the_tool_calls(capsys: pytest.CaptureFixture[str],
                                                  tmp_path: Path) -> None:
    with FakeLLMServer(OpenAIToolModel("careful")) as srv:
        spec = f"llm:openai:gpt-4o-mini,base_url={srv.url}/v1,api=chat,tools=on"
        assert main(["match", "--p1", spec, "--p2", "random", "--seed", "2", "-v",
                     "-q", "--transcript", str(tmp_path / "game.jsonl")]) == 0
    out = capsys.readouterr().out
    assert "tool get_state() -> " in out and "tool make_move({" in out
    assert "tools: 4 of 8 look-ups used" in out


def test_what_another_seat_of_the_model_learned_about_structured_output_does_not_apply(
        ) -> None:
    with FakeLLMServer(OpenAIToolModel("careful")) as srv:
        agent = tool_agent("openai", srv)
        # a tools-off seat of the same model had its json_schema refused: it plays a tool call
        learn(agent.endpoint, agent.provider.model, {"mode": "tool", "tool_choice": "forced"})
        assert agent.settings()["mode"] == "tools" and agent.settings()["tool_choice"] == "auto"
        view, legal = play_card_position()
        assert agent.choose(view, legal, random.Random(0)).details["llm"]["legal_at_attempt"] == 1


def test_tool_calls_without_ids_are_answered_by_made_up_ones(server: FakeLLMServer) -> None:
    """Some compatible servers send tool calls without an id."""
    model = OpenAIToolModel("careful")

    def no_ids(body: dict[str, Any]) -> Scripted:
        reply = model(body)
        for call in reply.body["choices"][0]["message"].get("tool_calls") or []:
            del call["id"]
        return reply

    server.responder = no_ids
    view, legal = play_card_position()
    d = tool_agent("openai", server).choose(view, legal, random.Random(0))
    assert d.details["llm"]["legal_at_attempt"] == 1
    assert [m["tool_call_id"] for m in model.bodies[1]["messages"][3:]] == ["call_0", "call_1"]

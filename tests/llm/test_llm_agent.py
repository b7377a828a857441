"""The LLM player against the real openai and anthropic SDKs talking to a loopback server."""

from __future__ import annotations

import json
import random
import time
from collections.abc import Iterator
from typing import Any

import pytest
from helpers.fake_llm_server import FakeLLMServer, anthropic_reply, error_reply, openai_reply
from helpers.scripted import ScriptedProvider
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from duel.agents import make_agent
from duel.agents.llm.accounting import llm_totals
from duel.agents.llm.agent import LLMAgent
from duel.agents.llm.providers import Reply
from duel.agents.llm.schema import last_json_object, structured_schema
from duel.engine import InfoSet, Move, Seat, new_game, seat_view
from duel.engine.perspective import Perspective
from duel.errors import LLMConfigError
from duel.match import play_match
from duel.prompts import get_variant


@pytest.fixture()
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeLLMServer]:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    with FakeLLMServer() as srv:
        yield srv


def play_card_position() -> tuple[dict[str, Any], list[Move]]:
    """Age I after the draft, player 1 to move, as the LLM seat sees it (it is player2)."""
    state = new_game(5)
    rng = random.Random(0)
    while state.step_name == "WONDER_SELECTION":
        state = state.apply(rng.choice(state.legal_moves()))
    view = Perspective.of_player(1).view(state)
    return view, InfoSet.from_view(view).sample(random.Random(0)).legal_moves()


def mv(move: str, **data: Any) -> str:
    return json.dumps({"move": move, "moveData": data})


def openai_agent(srv: FakeLLMServer, extra: str = "") -> LLMAgent:
    agent = make_agent(f"llm:openai:gpt-4o-mini,base_url={srv.url}/v1,backoff=0.01{extra}")
    assert isinstance(agent, LLMAgent)
    return agent


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
    agent = make_agent(f"llm:anthropic:claude-sonnet-4-5,base_url={server.url}")
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
    agent = make_agent(f"llm:compat:qwen@{server.url}/v1")
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


@pytest.mark.parametrize("bad, category, words", [
    (openai_reply('{"move": "DISCARD", "moveData": {"cardIn', finish="length"), "TRUNCATED",
     "cut off"),
    (openai_reply(""), "EMPTY", "empty"),
    (openai_reply("I will take the Palace, it is great."), "UNPARSABLE", "no JSON object"),
    (openai_reply(mv("DISCARD", slot=3)), "SCHEMA", "moveData"),
    (openai_reply(mv("CONSTRUCT_WONDER", cardIndex=14, wonder="NOT_A_WONDER")), "SCHEMA",
     "NOT_A_WONDER"),
    (openai_reply(mv("DISCARD", cardIndex=2)), "ILLEGAL", "card 2 is covered by slot(s) [5, 6]"),
    (openai_reply(mv("CHOOSE_PROGRESS_TOKEN", progressToken="LAW")), "ILLEGAL",
     "expected CONSTRUCT_BUILDING or DISCARD or CONSTRUCT_WONDER"),
])
def test_each_failure_category_is_recorded_and_reasked(server: FakeLLMServer, bad: Any,
                                                       category: str, words: str) -> None:
    view, legal = play_card_position()
    good = legal[0]
    server.enqueue(bad, openai_reply(json.dumps(good.to_json())))
    d = openai_agent(server).choose(view, legal, random.Random(0))
    assert d.move == good
    calls = d.details["llm"]["calls"]
    assert [c["category"] for c in calls] == [category, "OK"]
    assert [c["attempt"] for c in calls] == [1, 2]
    assert d.details["llm"]["legal_at_attempt"] == 2
    reask = server.requests[1]["body"]["messages"][-1]["content"]
    assert words in reask and "Your move was not accepted" in reask
    assert "The step is PLAY_CARD. The legal moves now are:" in reask
    assert "- DISCARD with cardIndex 14, 15, 16, 17, 18, 19" in reask
    # the model's own reply is kept before the re-ask
    assert server.requests[1]["body"]["messages"][-2]["role"] == "assistant"


def test_unaffordable_build_reask_names_price_and_coins(server: FakeLLMServer) -> None:
    view, legal = play_card_position()
    state = InfoSet.from_view(view).sample(random.Random(0))
    me = state.players[state.current]
    me.coins = 0
    view = seat_view(state)
    legal = state.legal_moves()
    costly = next(s for s in state.accessible_slots()
                  if state.card_price(state.current, state.pyramid[s]) > 0)
    server.enqueue(openai_reply(mv("CONSTRUCT_BUILDING", cardIndex=costly)),
                   openai_reply(json.dumps(legal[0].to_json())))
    openai_agent(server).choose(view, legal, random.Random(0))
    reask = server.requests[1]["body"]["messages"][-1]["content"]
    price = state.card_price(state.current, state.pyramid[costly])
    assert f"costs {price} coins and player {state.current + 1} has 0" in reask


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


def test_fallback_after_the_last_attempt_is_recorded(server: FakeLLMServer) -> None:
    view, legal = play_card_position()
    server.enqueue(*[openai_reply("no idea") for _ in range(3)])
    d = openai_agent(server, ",fallback=rule").choose(view, legal, random.Random(0))
    assert d.move in legal and not d.forfeit
    llm = d.details["llm"]
    assert llm["fallback"] == "rule" and llm["legal_at_attempt"] is None
    assert [c["category"] for c in llm["calls"]] == ["UNPARSABLE"] * 3


def test_forfeit_fallback_ends_the_match(server: FakeLLMServer) -> None:
    server.enqueue(*[openai_reply("pass") for _ in range(2)])
    agent = openai_agent(server, ",fallback=forfeit,max_attempts=2")
    result = play_match(agent, "random", seed=3)
    assert result.forfeit is Seat.P1
    assert result.result.winner_label == 2 and result.result.victory == "forfeit"
    assert result.records[-1].details["forfeit"] is True


def test_transport_failures_exhausted_fall_back(server: FakeLLMServer) -> None:
    view, legal = play_card_position()
    server.enqueue(*[error_reply(500) for _ in range(20)])
    d = openai_agent(server, ",max_attempts=2,transport_retries=1").choose(
        view, legal, random.Random(0))
    calls = d.details["llm"]["calls"]
    assert d.details["llm"]["fallback"] == "random" and d.move in legal
    assert [c["category"] for c in calls] == ["TRANSPORT"] * 4
    assert [c["attempt"] for c in calls] == [1, 1, 2, 2]


@pytest.mark.parametrize("status, words", [(401, "API key was rejected"),
                                           (404, "model 'gpt-4o-mini' not found")])
def test_auth_and_unknown_model_are_clear_errors(server: FakeLLMServer, status: int,
                                                 words: str) -> None:
    view, legal = play_card_position()
    server.enqueue(error_reply(status))
    with pytest.raises(LLMConfigError, match=words):
        openai_agent(server).choose(view, legal, random.Random(0))


def test_missing_key_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    from duel.agents import SpecError

    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    with pytest.raises(SpecError, match="needs the ANTHROPIC_API_KEY environment variable"):
        make_agent("llm:anthropic:claude-sonnet-4-5")


def test_unknown_price_is_none_not_zero(server: FakeLLMServer) -> None:
    view, legal = play_card_position()
    server.enqueue(openai_reply(json.dumps(legal[0].to_json())))
    agent = make_agent(f"llm:compat:mystery-model@{server.url}/v1,mode=text")
    d = agent.choose(view, legal, random.Random(0))
    assert d.details["llm"]["calls"][0]["cost_usd"] is None


def test_whole_game_accounting(server: FakeLLMServer) -> None:
    """A scripted player that always answers with the first legal move it is shown."""
    agent = openai_agent(server, ",prompt=legal-moves")
    for _ in range(80):
        server.enqueue(openai_reply("placeholder"))
    # Replace the script with replies computed from each request's legal-move list.
    server.script.clear()

    class Echo:
        spec = agent.spec

        def choose(self, view, legal, rng):  # type: ignore[no-untyped-def]
            server.enqueue(openai_reply(json.dumps(legal[-1].to_json())))
            return agent.choose(view, legal, rng)

    result = play_match(Echo(), "rule", seed=1)
    totals = llm_totals(r.details for r in result.records if r.seat.player == 1)
    assert totals is not None
    assert totals["first_try_legal"] == 1.0 and totals["legal_after_retries"] == 1.0
    assert totals["moves"] == sum(1 for r in result.records if r.seat.player == 1)
    assert totals["input_tokens"] == 1200 * totals["calls"]
    assert "Your legal moves are:" in server.requests[0]["body"]["messages"][1]["content"]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(texts=st.lists(st.one_of(
    st.text(max_size=200),
    st.builds(lambda k, d: json.dumps({"move": k, "moveData": d}),
              st.sampled_from(["DISCARD", "CONSTRUCT_BUILDING", "SELECT_WONDER", "X"]),
              st.dictionaries(st.sampled_from(["cardIndex", "wonder", "cardName"]),
                              st.one_of(st.integers(-5, 25), st.text(max_size=8), st.none()))),
), min_size=0, max_size=4))
def test_arbitrary_replies_end_in_a_legal_move_or_a_recorded_fallback(texts: list[str]) -> None:
    view, legal = play_card_position()
    agent = LLMAgent(ScriptedProvider(list(texts)), get_variant("baseline"), "llm:scripted",
                     max_attempts=3, fallback="random")
    d = agent.choose(view, legal, random.Random(0))
    assert d.move in legal
    llm = d.details["llm"]
    assert (llm["legal_at_attempt"] is not None) != (llm["fallback"] == "random")
    assert all(c["category"] in {"OK", "TRUNCATED", "EMPTY", "UNPARSABLE", "SCHEMA", "ILLEGAL"}
               for c in llm["calls"])


def test_last_json_object_never_guesses_from_prose() -> None:
    assert last_json_object("build the quarry at slot 3") is None
    assert last_json_object('{"a": 1} then {"b": {"c": 2}}') == {"b": {"c": 2}}
    # the prompt's own example leaves the move name unquoted
    assert last_json_object('{"move": CONSTRUCT_BUILDING, "moveData": {"cardIndex": 10}}') == \
        {"move": "CONSTRUCT_BUILDING", "moveData": {"cardIndex": 10}}


def test_seat_relabelling_maps_the_start_player_choice() -> None:
    """The LLM seat is always player2; its CHOOSE_STARTING_PLAYER answer is mapped back."""
    from duel.match import decide

    state = new_game(0)
    rng = random.Random(1)
    while state.step_name != "CHOOSE_STARTING_PLAYER":
        state = state.apply(rng.choice(state.legal_moves()))

    class Me:
        spec = "me"

        def choose(self, view, legal, rng):  # type: ignore[no-untyped-def]
            assert view["currentPlayerNumber"] == 2
            from duel.agents.base import Decision
            return Decision(Move("CHOOSE_STARTING_PLAYER", player_number=2))

    move, _, _ = decide(Me(), state, rng)
    assert move.player_number == state.current_player  # "me" in the true labels


# ---------------------------------------------------------------- Anthropic, failures and usage

def anthropic_agent(srv: FakeLLMServer, extra: str = "") -> LLMAgent:
    agent = make_agent(f"llm:anthropic:claude-sonnet-4-5,base_url={srv.url},backoff=0.01{extra}")
    assert isinstance(agent, LLMAgent)
    return agent


@pytest.mark.parametrize("bad, category, words", [
    (anthropic_reply({"move": "DISCARD"}, stop="max_tokens"), "TRUNCATED", "cut off"),
    (anthropic_reply(stop="end_turn"), "EMPTY", "empty"),
    (anthropic_reply(text="I would build the Palace.", stop="end_turn"), "UNPARSABLE",
     "no JSON object"),
    (anthropic_reply({"move": "DISCARD", "moveData": {"slot": 3}}), "SCHEMA",
     "'cardIndex' is a required property"),
    (anthropic_reply({"move": "SELECT_WONDER", "moveData": {"wonder": "THE_SPHINX"}}), "ILLEGAL",
     "SELECT_WONDER is not a move of step PLAY_CARD"),
])
def test_anthropic_failure_categories(server: FakeLLMServer, bad: Any, category: str,
                                      words: str) -> None:
    view, legal = play_card_position()
    server.enqueue(bad, anthropic_reply(legal[0].to_json()))
    d = anthropic_agent(server).choose(view, legal, random.Random(0))
    assert d.move == legal[0]
    calls = d.details["llm"]["calls"]
    assert [c["category"] for c in calls] == [category, "OK"]
    messages = server.requests[1]["body"]["messages"]
    assert [m["role"] for m in messages] == ["user", "assistant", "user"]
    assert words in messages[-1]["content"]


def test_anthropic_429_with_retry_after_and_529_are_retried(server: FakeLLMServer) -> None:
    view, legal = play_card_position()
    server.enqueue(error_reply(429, {"retry-after": "0.2"}), error_reply(529),
                   anthropic_reply(legal[0].to_json()))
    start = time.perf_counter()
    d = anthropic_agent(server, ",max_attempts=1").choose(view, legal, random.Random(0))
    assert time.perf_counter() - start >= 0.2
    assert [c["category"] for c in d.details["llm"]["calls"]] == ["TRANSPORT", "TRANSPORT", "OK"]
    assert d.details["llm"]["legal_at_attempt"] == 1


def test_anthropic_cache_writes_are_priced(server: FakeLLMServer) -> None:
    view, legal = play_card_position()
    server.enqueue(anthropic_reply(legal[0].to_json(), input_tokens=50, output_tokens=30,
                                   cache_read=0, cache_write=10000))
    call = anthropic_agent(server).choose(view, legal, random.Random(0)).details["llm"]["calls"][0]
    assert (call["input_tokens"], call["cached_tokens"], call["cache_write_tokens"]) == \
        (10050, 0, 10000)
    assert call["finish_reason"] == "tool_use"
    assert call["cost_usd"] == pytest.approx((50 * 3.0 + 10000 * 3.75 + 30 * 15.0) / 1e6)


# ---------------------------------------------------------------- OpenAI and compatible details

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


def test_a_refusal_is_recorded_and_reasked(server: FakeLLMServer) -> None:
    view, legal = play_card_position()
    refusal = openai_reply(None)
    refusal.body["choices"][0]["message"]["refusal"] = "I can't help with that."
    server.enqueue(refusal, openai_reply(json.dumps(legal[0].to_json())))
    calls = openai_agent(server).choose(view, legal, random.Random(0)).details["llm"]["calls"]
    assert calls[0]["category"] == "UNPARSABLE" and calls[0]["raw"] == "I can't help with that."


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


# ---------------------------------------------------------------- prices

def test_a_failed_call_costs_zero_only_when_the_price_is_known(server: FakeLLMServer) -> None:
    view, legal = play_card_position()
    server.enqueue(error_reply(500), openai_reply(json.dumps(legal[0].to_json())))
    calls = openai_agent(server).choose(view, legal, random.Random(0)).details["llm"]["calls"]
    assert calls[0]["category"] == "TRANSPORT" and calls[0]["cost_usd"] == 0.0
    server.enqueue(error_reply(500), openai_reply(json.dumps(legal[0].to_json())))
    agent = make_agent(f"llm:compat:mystery@{server.url}/v1,backoff=0.01")
    calls = agent.choose(view, legal, random.Random(0)).details["llm"]["calls"]
    assert [c["cost_usd"] for c in calls] == [None, None]
    totals = llm_totals([{"llm": {"calls": calls, "attempts": 1, "legal_at_attempt": 1,
                                  "fallback": None}}])
    assert totals is not None and totals["cost_usd"] is None
    from duel.agents.llm.accounting import totals_line
    assert "unknown price" in totals_line(1, totals) and "$0" not in totals_line(1, totals)


def test_the_price_table_can_be_overridden(server: FakeLLMServer, tmp_path: Any,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    from duel.agents import SpecError

    prices = tmp_path / "prices.json"
    prices.write_text(json.dumps({"mystery": {"input": 1.0, "output": 2.0},
                                  "gpt-4o-mini": {"input": 10.0, "output": 20.0}}))
    monkeypatch.setenv("DUEL_PRICES", str(prices))
    view, legal = play_card_position()
    server.enqueue(openai_reply(json.dumps(legal[0].to_json()), prompt_tokens=1000,
                                completion_tokens=10, cached=0))
    d = make_agent(f"llm:compat:mystery@{server.url}/v1").choose(view, legal, random.Random(0))
    assert d.details["llm"]["calls"][0]["cost_usd"] == pytest.approx((1000 + 20) / 1e6)
    prices.write_text(json.dumps({"mystery": {"output": 2.0}}))
    with pytest.raises(SpecError, match="needs \"input\" and \"output\""):
        make_agent(f"llm:compat:mystery@{server.url}/v1")


# ---------------------------------------------------------------- specs

@pytest.mark.parametrize("spec, words", [
    ("llm:bogus:x", "unknown provider 'bogus'"),
    ("llm:openai", "needs a model"),
    ("llm:compat:qwen", "needs MODEL@URL"),
    ("llm:compat:qwen@ftp://x", "needs MODEL@URL"),
    ("llm:openai:gpt-4o-mini,fallback=pray", "fallback must be one of"),
    ("llm:openai:gpt-4o-mini,max_attempts=0", "max_attempts must be at least 1"),
    ("llm:openai:gpt-4o-mini,concurrency=0", "concurrency must be at least 1"),
    ("llm:openai:gpt-4o-mini,prompt=nope", "unknown prompt variant"),
    ("llm:openai:gpt-4o-mini,mode=xml", "mode must be"),
    ("llm:openai:gpt-4o-mini,colour=red", "unknown parameter 'colour'"),
    ("llm:anthropic:claude-sonnet-4-5,mode=tool", "always uses a forced tool"),
])
def test_bad_specs_are_clear_errors(server: FakeLLMServer, spec: str, words: str) -> None:
    from duel.agents import SpecError

    with pytest.raises(SpecError, match=words):
        make_agent(spec)


def test_spec_options_reach_the_agent(server: FakeLLMServer) -> None:
    agent = make_agent("llm:openai:gpt-4o-mini,prompt=errata,temperature=0.7,max_attempts=5,"
                       "fallback=forfeit,max_tokens=99")
    assert isinstance(agent, LLMAgent)
    assert (agent.variant.name, agent.temperature, agent.max_attempts, agent.fallback,
            agent.max_tokens) == ("errata", 0.7, 5, "forfeit", 99)
    compat = make_agent("llm:compat:qwen2.5:0.5b@http://127.0.0.1:11434/v1,prompt=compact")
    assert isinstance(compat, LLMAgent)
    assert compat.provider.model == "qwen2.5:0.5b" and compat.variant.name == "compact"


# ---------------------------------------------------------------- structured replies, any shape

JSONISH = st.recursive(
    st.none() | st.booleans() | st.integers(-30, 30) | st.floats(allow_nan=False)
    | st.sampled_from(["DISCARD", "CONSTRUCT_BUILDING", "CONSTRUCT_WONDER", "THE_SPHINX",
                       "LAW", "move", "moveData", "cardIndex", ""]),
    lambda inner: st.lists(inner, max_size=3)
    | st.dictionaries(st.sampled_from(["move", "moveData", "cardIndex", "wonder", "x"]), inner,
                      max_size=3),
    max_leaves=8)


class StructuredProvider(ScriptedProvider):
    """Replies with arbitrary decoded objects (as a tool call would) and finish reasons."""

    def __init__(self, replies: list[tuple[Any, str, bool]]) -> None:
        super().__init__([])
        self.replies = replies

    async def complete(self, system: str, messages: list[dict[str, str]], max_tokens: int,
                       temperature: float) -> Reply:
        if not self.replies:
            return Reply("", None, "stop")
        obj, finish, truncated = self.replies.pop(0)
        return Reply(json.dumps(obj), obj, finish, 10, 5, 0, truncated=truncated)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(replies=st.lists(st.tuples(JSONISH, st.sampled_from(["stop", "length", "tool_use", ""]),
                                  st.booleans()), max_size=4),
       fallback=st.sampled_from(["random", "rule", "forfeit"]))
def test_arbitrary_structured_replies_never_crash(replies: list[tuple[Any, str, bool]],
                                                  fallback: str) -> None:
    view, legal = play_card_position()
    agent = LLMAgent(StructuredProvider(list(replies)), get_variant("legal-moves"), "llm:s",
                     max_attempts=3, fallback=fallback)
    d = agent.choose(view, legal, random.Random(0))
    llm = d.details["llm"]
    assert d.move in legal
    assert (llm["legal_at_attempt"] is None) == (llm["fallback"] == fallback)
    assert d.forfeit == (llm["fallback"] == "forfeit")
    assert 1 <= len(llm["calls"]) <= 3


def test_deeply_nested_replies_do_not_crash() -> None:
    view, legal = play_card_position()
    deep = "[" * 100_000 + "]" * 100_000
    agent = LLMAgent(ScriptedProvider(["{" * 50_000, deep, '{"a": ' + deep + "}"]),
                     get_variant("baseline"), "llm:s", max_attempts=3)
    d = agent.choose(view, legal, random.Random(0))
    assert d.move in legal and d.details["llm"]["fallback"] == "random"


def test_an_unreachable_endpoint_is_a_retried_transport_failure(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Connection refused: recorded as TRANSPORT on each try, then the fallback, no crash."""
    import socket

    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    with socket.socket() as s:  # a loopback port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    agent = make_agent(f"llm:openai:gpt-4o-mini,base_url=http://127.0.0.1:{port}/v1,"
                       "backoff=0.01,max_attempts=2,transport_retries=1")
    view, legal = play_card_position()
    d = agent.choose(view, legal, random.Random(0))
    calls = d.details["llm"]["calls"]
    assert d.details["llm"]["fallback"] == "random" and d.move in legal
    assert [c["category"] for c in calls] == ["TRANSPORT"] * 4


def _first_legal_move(body: dict[str, Any]) -> Any:
    """Answers with the first move of the turn message's legal-move list."""
    last = body["messages"][-1]["content"]
    block = last.split("Your legal moves are:\n", 1)[1].split("\n\n")[0]
    return openai_reply(tool_args=block.splitlines()[0].split("  (costs")[0])


def test_duel_match_prints_the_llm_players_totals(
        capsys: pytest.CaptureFixture[str]) -> None:
    """`duel match` with an LLM seat ends with its moves, calls, legality and tokens."""
    from duel.cli import main

    with FakeLLMServer(_first_legal_move) as srv:
        code = main(["match", "--p1", f"llm:compat:qwen@{srv.url}/v1,prompt=legal-moves",
                     "--p2", "rule", "--seed", "2", "--no-transcript"])
    out = capsys.readouterr().out
    assert code == 0
    line = next(ln for ln in out.splitlines() if ln.startswith("LLM player 1:"))
    assert "first-try legal 100%" in line and "legal after retries 100%" in line
    assert "0 fallbacks" in line and "tokens" in line and " in (" in line

"""The LLM player against the real openai and anthropic SDKs talking to a loopback server."""

from __future__ import annotations

import json
import random
import time
from collections.abc import Iterator
from typing import Any

import pytest
from fake_llm_server import FakeLLMServer, anthropic_reply, error_reply, openai_reply
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from duel.agents import make_agent
from duel.agents.llm.accounting import llm_totals
from duel.agents.llm.agent import LLMAgent
from duel.agents.llm.providers import LLMConfigError, Reply
from duel.agents.llm.schema import last_json_object, structured_schema
from duel.engine import InfoSet, Move, new_game, seat_view
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
    view = seat_view(state, as_player2=1)
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
    assert "Legal moves include" in reask
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
    assert result.forfeit == 1
    assert result.result["winner"] == 2 and result.result["victory"] == "forfeit"
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
    totals = llm_totals(r.details for r in result.records if r.player == 1)
    assert totals is not None
    assert totals["first_try_legal"] == 1.0 and totals["legal_after_retries"] == 1.0
    assert totals["moves"] == sum(1 for r in result.records if r.player == 1)
    assert totals["input_tokens"] == 1200 * totals["calls"]
    assert "Your legal moves are:" in server.requests[0]["body"]["messages"][1]["content"]


class ScriptedProvider:
    """In-process provider for property tests: replies with the given texts in turn."""

    name = "scripted"
    model = "scripted"

    def __init__(self, texts: list[str], finish: str = "stop") -> None:
        self.texts = texts
        self.finish = finish

    async def complete(self, system: str, messages: list[dict[str, str]], max_tokens: int,
                       temperature: float) -> Reply:
        text = self.texts.pop(0) if self.texts else ""
        return Reply(text, None, self.finish, 10, 5, 0)

    async def close(self) -> None:
        pass


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

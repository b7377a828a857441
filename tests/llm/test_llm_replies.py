"""How the LLM player checks a reply (TRUNCATED, EMPTY, UNPARSABLE, SCHEMA, ILLEGAL), re-asks in
the game's words, and falls back; arbitrary replies never crash it."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from helpers.fake_llm_server import FakeLLMServer, anthropic_reply, openai_reply
from helpers.llm_seat import anthropic_agent, mv, openai_agent, play_card_position
from helpers.scripted import ScriptedProvider
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from duel.agents.llm.agent import LLMAgent
from duel.agents.llm.providers import Reply
from duel.agents.llm.schema import last_json_object
from duel.agents.llm.transport.adapt import Settings
from duel.engine import InfoSet, Move, Seat, new_game, seat_view
from duel.match import play_match
from duel.prompts import get_variant


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


def test_a_refusal_is_recorded_and_reasked(server: FakeLLMServer) -> None:
    view, legal = play_card_position()
    refusal = openai_reply(None)
    refusal.body["choices"][0]["message"]["refusal"] = "I can't help with that."
    server.enqueue(refusal, openai_reply(json.dumps(legal[0].to_json())))
    calls = openai_agent(server).choose(view, legal, random.Random(0)).details["llm"]["calls"]
    # a refusal is its own category, not an unparsable or empty reply
    assert calls[0]["category"] == "REFUSAL" and calls[0]["raw"] == "I can't help with that."
    assert "declined to answer" in calls[0]["error"] and calls[1]["category"] == "OK"
    reask = server.requests[1]["body"]["messages"][-1]["content"]
    assert "declined to answer" in reask


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
                       temperature: float | None, *, schema: dict[str, Any] | None = None,
                       settings: Settings | None = None) -> Reply:
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


def test_an_anthropic_refusal_stop_reason_is_a_refusal(server: FakeLLMServer) -> None:
    from helpers.fake_llm_server import anthropic_reply
    from helpers.llm_seat import anthropic_agent

    view, legal = play_card_position()
    server.enqueue(anthropic_reply(text="I won't.", stop="refusal"),
                   anthropic_reply(legal[0].to_json()))
    calls = anthropic_agent(server).choose(view, legal, random.Random(0)).details["llm"]["calls"]
    assert [c["category"] for c in calls] == ["REFUSAL", "OK"]
    assert calls[0]["finish_reason"] == "refusal"


def test_each_call_records_the_served_model_and_the_request_id(server: FakeLLMServer) -> None:
    view, legal = play_card_position()
    reply = openai_reply(json.dumps(legal[0].to_json()))
    reply.body["model"] = "gpt-4o-mini-2024-07-18"
    reply.headers["x-request-id"] = "req_abc123"
    server.enqueue(reply)
    call = openai_agent(server).choose(view, legal, random.Random(0)).details["llm"]["calls"][0]
    assert call["served_model"] == "gpt-4o-mini-2024-07-18" and call["request_id"] == "req_abc123"


def test_a_retry_after_a_timeout_says_so(server: FakeLLMServer) -> None:
    view, legal = play_card_position()
    server.delay = 0.6
    server.responder = lambda body: openai_reply(json.dumps(legal[0].to_json()))
    agent = openai_agent(server, ",timeout=0.3,transport_retries=1")
    calls = agent.choose(view, legal, random.Random(0)).details["llm"]["calls"]
    assert [c["category"] for c in calls[:2]] == ["TRANSPORT", "TRANSPORT"]
    assert "timed out" in calls[0]["error"] and "retry" not in calls[0]
    assert calls[1]["retry"] == "after a timeout: the request was sent again from the start"

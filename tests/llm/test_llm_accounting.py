"""LLM accounting: tokens and prices per call (cache reads and writes, unknown prices, the
DUEL_PRICES override), a whole game's totals, and the totals `duel match` prints."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from helpers.fake_llm_server import FakeLLMServer, anthropic_reply, error_reply, openai_reply
from helpers.llm_seat import anthropic_agent, openai_agent, play_card_position

from duel.accounting.games import llm_totals
from duel.agents import make_agent
from duel.match import play_match


def test_anthropic_cache_writes_are_priced(server: FakeLLMServer) -> None:
    view, legal = play_card_position()
    server.enqueue(anthropic_reply(legal[0].to_json(), input_tokens=50, output_tokens=30,
                                   cache_read=0, cache_write=10000))
    call = anthropic_agent(server).choose(view, legal, random.Random(0)).details["llm"]["calls"][0]
    assert (call["input_tokens"], call["cached_tokens"], call["cache_write_tokens"]) == \
        (10050, 0, 10000)
    assert call["finish_reason"] == "tool_use"
    assert call["cost_usd"] == pytest.approx((50 * 3.0 + 10000 * 3.75 + 30 * 15.0) / 1e6)


def test_unknown_price_is_none_not_zero(server: FakeLLMServer) -> None:
    view, legal = play_card_position()
    server.enqueue(openai_reply(json.dumps(legal[0].to_json())))
    agent = make_agent(f"llm:compat:mystery-model@{server.url}/v1,mode=text")
    d = agent.choose(view, legal, random.Random(0))
    assert d.details["llm"]["calls"][0]["cost_usd"] is None


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
    from duel.accounting.games import totals_line
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


def _first_legal_move(body: dict[str, Any]) -> Any:
    """Answers with the first move of the turn message's legal-move list (as json_schema
    content, a compatible server's default)."""
    last = body["messages"][-1]["content"]
    block = last.split("Your legal moves are:\n", 1)[1].split("\n\n")[0]
    return openai_reply(block.splitlines()[0].split("  (costs")[0])


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

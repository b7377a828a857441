"""Output budgets that do not burn money (issue 28, item 1): a model that reasons starts at its
output limit, so a move needing 40,000 reasoning tokens at xhigh is never cut off; under a
user's cap a cut-off reply grows the budget, and the grown budget is where the model's later
calls start (in the game, and in the run's other games); the output spent on unusable replies is
counted per seat and per run. Against a reasoning model's fake, through the real openai SDK."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from helpers.fake_llm_server import FakeLLMServer
from helpers.fake_reasoning_servers import ANSWER, EFFORT_SCALE, OpenAIReasoningModel
from helpers.llm_seat import play_card_position

from duel.accounting.totals import combine
from duel.agents import make_agent
from duel.cli import main
from duel.transcripts import read, verified_result


def xhigh_model() -> OpenAIReasoningModel:
    """~40,000 reasoning tokens per move at xhigh (20,000-60,000), gpt-5.4's output limit."""
    return OpenAIReasoningModel(reasoning=10_000, effort_scale=EFFORT_SCALE, spread=0.5,
                                max_output=128_000)


def test_the_fake_reasons_as_long_as_the_effort_asks_and_refuses_past_its_limit(
        server: FakeLLMServer) -> None:
    model = xhigh_model()
    body = {"messages": [{"role": "user", "content": "position A"}]}
    assert model.wants({**body, "reasoning_effort": "xhigh"}) == \
        4 * model.wants({**body, "reasoning_effort": "medium"})
    spread = {model.wants({"messages": [{"role": "user", "content": f"position {i}"}],
                           "reasoning_effort": "xhigh"}) for i in range(50)}
    assert 20_000 <= min(spread) < 30_000 and 50_000 < max(spread) <= 60_000
    refused = model({**body, "max_completion_tokens": 200_000})
    assert refused.status == 400 and "at most 128000" in refused.body["error"]["message"]


def test_a_reasoning_model_at_xhigh_starts_at_its_limit_and_nothing_is_thrown_away(
        server: FakeLLMServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    server.responder = xhigh_model()
    path = tmp_path / "xhigh.jsonl"
    assert main(["match", "--p1", f"llm:openai:gpt-5.4,base_url={server.url}/v1,api=chat,"
                 "reasoning_effort=xhigh", "--p2", "random", "--seed", "2",
                 "--transcript", str(path)]) == 0
    out = capsys.readouterr().out
    t = read(path)
    verified_result(t)
    calls = [c for m in t.moves if m["player"] == 1 for c in m["details"]["llm"]["calls"]]
    assert {c["max_tokens"] for c in calls} == {128_000}
    assert all(c["category"] == "OK" for c in calls)
    assert max(c["reasoning_tokens"] for c in calls) > 40_000  # more than the old cap of 32000
    assert t.footer is not None
    totals = t.footer["totals"]["1"]
    assert totals["unusable_output_tokens"] == 0
    assert "; 0 on unusable replies, 0.0%)" in out


def test_under_a_cap_a_grown_budget_is_remembered_for_later_moves_and_games(
        server: FakeLLMServer) -> None:
    server.responder = xhigh_model()
    view, legal = play_card_position()
    spec = (f"llm:openai:gpt-5.4,base_url={server.url}/v1,api=chat,reasoning_effort=xhigh,"
            "max_tokens=16000")
    first = make_agent(spec).choose(view, legal, random.Random(0)).details["llm"]["calls"]
    wanted = first[-1]["reasoning_tokens"]
    assert 32_000 < wanted <= 64_000, wanted  # position 0 needs the fourfold budget
    assert [(c["max_tokens"], c["category"]) for c in first] == [
        (16000, "TRUNCATED"), (32000, "TRUNCATED"), (64000, "OK")]
    # another move, another agent of the same spec (another game of the run): no cut-off reply
    again = make_agent(spec).choose(view, legal, random.Random(0)).details["llm"]["calls"]
    assert [(c["max_tokens"], c["category"]) for c in again] == [(64000, "OK")]
    # another reasoning setting of the same model learns for itself
    low = make_agent(spec.replace("xhigh", "low")).choose(view, legal, random.Random(0))
    assert [c["max_tokens"] for c in low.details["llm"]["calls"]] == [16000]


def test_unusable_output_is_counted_per_seat_and_summed_per_run() -> None:
    def call(category: str, out: int) -> dict[str, object]:
        return {"category": category, "latency_s": 0.1, "input_tokens": 100,
                "output_tokens": out, "cached_tokens": 0, "cost_usd": None}

    decision = {"llm": {"calls": [call("TRUNCATED", 16000), call("ILLEGAL", 500),
                                  call("OK", 700)],
                        "attempts": 2, "legal_at_attempt": 2, "fallback": None}}
    from duel.accounting.games import llm_totals, totals_line

    seat = llm_totals([decision])
    assert seat is not None and seat["unusable_output_tokens"] == 16500
    assert "17200 out (0 reasoning; 16500 on unusable replies, 95.9%)" in totals_line(1, seat)
    run = combine([seat, seat, None])
    assert run["unusable_output_tokens"] == 33000
    older = {k: v for k, v in seat.items() if k != "unusable_output_tokens"}
    assert "unusable_output_tokens" not in combine([seat, older])  # unknown, not a partial sum
    assert json.dumps(combine([older])).count("unusable") == 0


def test_a_model_newer_than_the_table_grows_to_what_it_needs_and_wastes_little(
        server: FakeLLMServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 39: a model name the table does not know, at xhigh (~40k reasoning tokens a
    move): the budget grows from 8,192 past the old 4x cap to what the model needs, the grown
    budget teaches the rest of the game, nothing falls back, and the output of cut-off
    replies is at most 5% of the game's."""
    server.responder = xhigh_model()
    path = tmp_path / "new.jsonl"
    assert main(["match", "--p1", f"llm:openai:gpt-9-preview,base_url={server.url}/v1,"
                 "api=chat,reasoning_effort=xhigh", "--p2", "random", "--seed", "2",
                 "--transcript", str(path)]) == 0
    t = read(path)
    verified_result(t)
    assert t.footer is not None
    totals = t.footer["totals"]["1"]
    assert totals["fallbacks"] == 0
    calls = [c for m in t.moves if m["player"] == 1 for c in m["details"]["llm"]["calls"]]
    assert calls[0]["max_tokens"] == 8192 and max(c["max_tokens"] for c in calls) > 32_768
    assert totals["unusable_output_tokens"] <= 0.05 * totals["output_tokens"], totals
    capsys.readouterr()


def test_a_model_whose_limit_is_below_its_need_stops_the_game_within_three_cut_offs(
        server: FakeLLMServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The same model with an output limit of 32,768 (its refusal of more says so): the game
    stops with one line naming the model, the tokens and the effort, after at most 3 replies
    cut off, instead of falling back move after move."""
    model = OpenAIReasoningModel(reasoning=10_000, effort_scale=EFFORT_SCALE, spread=0.5,
                                 max_output=32_768)
    server.responder = model
    path = tmp_path / "limited.jsonl"
    assert main(["match", "--p1", f"llm:openai:gpt-9-preview,base_url={server.url}/v1,"
                 "api=chat,reasoning_effort=xhigh", "--p2", "random", "--seed", "2",
                 "--transcript", str(path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "gpt-9-preview needs more than 32768 output tokens at " \
        "reasoning_effort=xhigh" in err[0] and "set max_tokens=" in err[0], err
    sent = [r["body"] for r in server.requests]
    taken = [b for b in sent if 0 < b.get("max_completion_tokens", 0) <= 32_768]
    cut = [b for b in taken if b["max_completion_tokens"] < model.wants(b) + ANSWER]
    assert 1 <= len(cut) <= 3, [b.get("max_completion_tokens") for b in sent]

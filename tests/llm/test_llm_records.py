"""The typed LLM records: a call (LLMCall) in each shape duel has written it reads and writes
back byte for byte and refuses a bad field by name; the totals (LLMTotals) built in their one
place are, to the last bit, what the two builders they replace gave (property tests against
copies of main's code at 5e7254c)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from duel.accounting.calls import LLMCall
from duel.accounting.games import llm_totals
from duel.accounting.totals import LLMTotals, combine, reasoning_label
from duel.errors import InvalidStateError

# The call record's shapes: as first written (1c910d8), with cache writes (3a35740), and with
# reasoning, thinking and the output limit (c5d9498 on).
V1 = {"provider": "openai", "model": "gpt-4o-mini", "variant": "baseline",
      "variant_hash": "0123456789ab", "attempt": 1, "category": "ILLEGAL", "latency_s": 0.25,
      "input_tokens": 1200, "output_tokens": 20, "cached_tokens": 1000, "cost_usd": 0.0001,
      "finish_reason": "stop", "raw": "{}", "error": "that move is not legal: no"}
V2 = {k: v for k, v in V1.items() if k != "error"}
V2 = {**{k: V2[k] for k in list(V2)[:10]}, "cache_write_tokens": 0,
      **{k: V2[k] for k in list(V2)[10:]}}
V3 = {"provider": "anthropic", "model": "claude-sonnet-4-6", "variant": "baseline",
      "variant_hash": "0123456789ab", "attempt": 2, "category": "TRANSPORT", "latency_s": 1.5,
      "input_tokens": 0, "output_tokens": 0, "cached_tokens": 0, "cache_write_tokens": 0,
      "reasoning_tokens": 0, "cost_usd": None, "finish_reason": "", "raw": "",
      "thinking": "", "max_tokens": 3072, "error": "anthropic: HTTP 529: overloaded"}


@pytest.mark.parametrize("record", [V1, V2, V3], ids=["first", "cache-writes", "reasoning"])
def test_every_shape_of_call_record_round_trips_byte_for_byte(record: dict[str, Any]) -> None:
    call = LLMCall.from_json(record)
    assert json.dumps(call.to_json()) == json.dumps(record)
    assert LLMCall.from_json(call.to_json()) == call


@pytest.mark.parametrize("change, message", [
    ({"category": None}, "LLM call field category must be a string"),
    ({"input_tokens": True}, "LLM call field input_tokens must be an integer"),
    ({"cost_usd": "free"}, "LLM call field cost_usd must be a number or null"),
    ({"thinking": 7}, "LLM call field thinking must be a string"),
])
def test_a_bad_call_field_is_named(change: dict[str, Any], message: str) -> None:
    with pytest.raises(InvalidStateError, match=message):
        LLMCall.from_json({**V3, **change})
    with pytest.raises(InvalidStateError, match="LLM call field latency_s is missing"):
        LLMCall.from_json({k: v for k, v in V3.items() if k != "latency_s"})


# ---------------------------------------------------------------------------- main's builders
def main_llm_totals(move_details: list[dict[str, Any]]) -> dict[str, Any] | None:
    """duel/agents/llm/accounting.py:llm_totals at 5e7254c (duel/accounting/games.py since)."""
    moves = calls = input_t = output_t = cached_t = reasoning_t = 0
    reasoning = "default"
    first_try = legal = fallbacks = attempts = 0
    cost = 0.0
    cost_known = True
    latency = 0.0
    categories: dict[str, int] = {}
    for details in move_details:
        llm = details.get("llm")
        if not llm:
            continue
        moves += 1
        if moves == 1:
            reasoning = reasoning_label(llm.get("settings"))
        attempts += llm["attempts"]
        if llm["legal_at_attempt"] == 1:
            first_try += 1
        if llm["legal_at_attempt"] is not None:
            legal += 1
        if llm["fallback"]:
            fallbacks += 1
        for call in llm["calls"]:
            calls += 1
            input_t += call["input_tokens"]
            output_t += call["output_tokens"]
            cached_t += call["cached_tokens"]
            reasoning_t += call.get("reasoning_tokens", 0)
            latency += call["latency_s"]
            categories[call["category"]] = categories.get(call["category"], 0) + 1
            if call["cost_usd"] is None:
                cost_known = False
            else:
                cost += call["cost_usd"]
    if moves == 0:
        return None
    return {"moves": moves, "calls": calls, "input_tokens": input_t, "output_tokens": output_t,
            "cached_tokens": cached_t, "reasoning_tokens": reasoning_t,
            "cost_usd": round(cost, 6) if cost_known else None,
            "latency_s": round(latency, 3), "first_try_legal": first_try / moves,
            "legal_after_retries": legal / moves, "mean_attempts": attempts / moves,
            "fallbacks": fallbacks, "categories": categories, "reasoning": reasoning}


def main_combine(per_game: list[dict[str, Any] | None]) -> dict[str, Any]:
    """duel/totals.py:combine at 5e7254c (duel/accounting/totals.py since)."""
    tot = [t for t in per_game if t]
    moves = sum(t["moves"] for t in tot)

    def per_move(key: str) -> float:
        return sum(t[key] * t["moves"] for t in tot) / moves if moves else 0.0

    costs = [t["cost_usd"] for t in tot]
    return {
        "games": len(tot), "moves": moves, "calls": sum(t["calls"] for t in tot),
        "first_try_legal": per_move("first_try_legal"),
        "legal_after_retries": per_move("legal_after_retries"),
        "mean_attempts": per_move("mean_attempts"),
        "fallbacks": sum(t["fallbacks"] for t in tot),
        "input_tokens": sum(t["input_tokens"] for t in tot),
        "cached_tokens": sum(t.get("cached_tokens") or 0 for t in tot),
        "output_tokens": sum(t["output_tokens"] for t in tot),
        "reasoning_tokens": sum(t.get("reasoning_tokens") or 0 for t in tot),
        "cost_usd": None if any(c is None for c in costs) else round(sum(costs), 6),
        "latency_s": sum(t["latency_s"] for t in tot),
        "reasoning": ",".join(sorted({t.get("reasoning") or "default" for t in tot})),
    }


latencies = st.floats(0, 90, allow_nan=False).map(lambda x: round(x, 3))
costs = st.one_of(st.none(), st.floats(0, 0.05, allow_nan=False).map(lambda x: round(x, 6)))
tokens = st.integers(0, 20000)


@st.composite
def a_call(draw: st.DrawFn, attempt: int) -> dict[str, Any]:
    call = {**V3, "attempt": attempt, "category": draw(st.sampled_from(
        ["OK", "ILLEGAL", "SCHEMA", "EMPTY", "TRUNCATED", "TRANSPORT"])),
        "latency_s": draw(latencies), "input_tokens": draw(tokens),
        "output_tokens": draw(tokens), "cached_tokens": draw(tokens),
        "reasoning_tokens": draw(tokens), "cost_usd": draw(costs)}
    if draw(st.booleans()):  # a record written before reasoning tokens were kept
        del call["reasoning_tokens"]
    return call


@st.composite
def a_decision(draw: st.DrawFn) -> dict[str, Any]:
    if draw(st.integers(0, 5)) == 0:
        return {"rule": "best build"}  # not an LLM's
    n = draw(st.integers(1, 3))
    legal_at = draw(st.sampled_from([None, *range(1, n + 1)]))
    settings = draw(st.sampled_from([None, {"reasoning_effort": "high"},
                                     {"reasoning_effort": None, "thinking": 2048}]))
    return {"llm": {"calls": [draw(a_call(i)) for i in range(1, n + 1)], "attempts": n,
                    "legal_at_attempt": legal_at,
                    "fallback": None if legal_at else draw(st.sampled_from(["random", "rule"])),
                    "settings": settings}}


@settings(max_examples=200, deadline=None)
@given(st.lists(st.lists(a_decision(), max_size=40), max_size=6))
def test_the_one_builder_gives_what_main_s_two_gave_to_the_last_bit(
        games: list[list[dict[str, Any]]]) -> None:
    per_game = []
    for decisions in games:
        mine = llm_totals(decisions)
        if mine is not None:  # counted since main's code: cache writes, unplayed replies
            assert mine.pop("cache_write_tokens") == sum(
                c.get("cache_write_tokens") or 0 for d in decisions if d.get("llm")
                for c in d["llm"]["calls"])
            assert mine.pop("unusable_output_tokens") == sum(
                c["output_tokens"] for d in decisions if d.get("llm")
                for c in d["llm"]["calls"] if c["category"] != "OK")
        assert json.dumps(mine) == json.dumps(main_llm_totals(decisions))
        per_game.append(mine)
        if mine is not None and len(per_game) % 2:  # as an older line has them
            del mine["reasoning_tokens"], mine["reasoning"]
            assert LLMTotals.from_json(mine).to_json() == mine
    combined, theirs = combine(per_game), main_combine(per_game)
    # lines that did not count them (all, as main wrote them): the sum does not know them
    for key in ("unusable_output_tokens", "cache_write_tokens"):
        assert combined.pop(key, None) == (0 if all(g is None for g in per_game) else None)
    assert {k: v for k, v in combined.items() if k != "categories"} == theirs
    assert all(json.dumps(combined[k]) == json.dumps(v) for k, v in theirs.items())
    assert sum(combined["categories"].values()) == combined["calls"]


@pytest.mark.parametrize("change, message", [
    ({"moves": "three"}, r"totals\.moves must be a number"),
    ({"cost_usd": True}, r"totals\.cost_usd must be a number"),
    ({"reasoning": 3}, r"totals\.reasoning must be a string"),
    ({"categories": {"OK": "many"}}, r"totals\.categories must map categories to counts"),
])
def test_bad_totals_are_refused_naming_the_field(change: dict[str, Any], message: str) -> None:
    good = main_llm_totals([{"llm": {"calls": [V3], "attempts": 1, "legal_at_attempt": None,
                                     "fallback": "random"}}])
    assert good is not None and LLMTotals.from_json(good).to_json() == good
    with pytest.raises(InvalidStateError, match=message):
        LLMTotals.from_json({**good, **change})

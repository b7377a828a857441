"""Caching everywhere it exists, and true money (issue 28, items 5 and 6): the real SDKs against
fakes whose prompt caches and bills behave as OpenAI, Anthropic and OpenRouter document them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from helpers.fake_caching_servers import (
    AnthropicCache,
    OpenAICache,
    OpenAIResponsesCache,
    OpenRouterAnthropic,
)
from helpers.fake_llm_server import FakeLLMServer

from duel.accounting.prices import cost
from duel.agents.llm import caching
from duel.cli import main
from duel.transcripts import read, verified_result

# What OpenRouter's backend bills for the fake's Claude: not the maker's list price (a provider
# in front of it may differ), so duel's table alone could not know the bill.
BACKEND = {"input": 3.3, "output": 16.5, "cached_input": 0.33, "cache_write_input": 4.125}


def game(spec: str, path: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    assert main(["match", "--p1", spec, "--p2", "random", "--seed", "1",
                 "--transcript", str(path)]) == 0
    out = capsys.readouterr().out
    t = read(path)
    verified_result(t)
    calls = [c for m in t.moves if m["player"] == 1 for c in m["details"]["llm"]["calls"]]
    assert t.footer is not None
    return {"calls": calls, "totals": t.footer["totals"]["1"], "out": out}


def cached_share_after_the_first(calls: list[dict[str, Any]]) -> float:
    later = calls[1:]
    return sum(c["cached_tokens"] for c in later) / sum(c["input_tokens"] for c in later)


def test_openai_gets_one_prompt_cache_key_for_the_rules_text(
        server: FakeLLMServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    server.responder = OpenAICache()
    g = game(f"llm:openai:gpt-5-mini,base_url={server.url}/v1,api=chat", tmp_path / "o.jsonl",
             capsys)
    keys = {r["body"].get("prompt_cache_key") for r in server.requests}
    assert len(keys) == 1 and next(iter(keys)).startswith("duel-")
    assert g["calls"][0]["cached_tokens"] == 0
    assert cached_share_after_the_first(g["calls"]) >= 0.8
    share = g["totals"]["cached_tokens"] / g["totals"]["input_tokens"]
    assert f"{g['totals']['cached_tokens']} cached, {share:.1%}" in g["out"]


def test_the_responses_api_reads_the_cached_rules_text_under_its_key(
        server: FakeLLMServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`llm:openai`'s default API: the same key, and usage.input_tokens_details.cached_tokens
    recorded as the calls' cached tokens."""
    server.responder = OpenAIResponsesCache()
    g = game(f"llm:openai:gpt-5-mini,base_url={server.url}/v1", tmp_path / "r.jsonl", capsys)
    assert {r["path"] for r in server.requests} == {"/v1/responses"}
    keys = {r["body"].get("prompt_cache_key") for r in server.requests}
    assert len(keys) == 1 and next(iter(keys)).startswith("duel-")
    assert g["calls"][0]["cached_tokens"] == 0
    assert cached_share_after_the_first(g["calls"]) >= 0.8


def test_anthropic_writes_the_cache_once_and_reads_it_after(
        server: FakeLLMServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    server.responder = AnthropicCache()
    g = game(f"llm:anthropic:claude-sonnet-4-6,base_url={server.url}", tmp_path / "a.jsonl",
             capsys)
    first, *later = g["calls"]
    assert first["cache_write_tokens"] > 0 and first["cached_tokens"] == 0
    assert all(c["cache_write_tokens"] == 0 for c in later)
    assert cached_share_after_the_first(g["calls"]) >= 0.8
    assert g["totals"]["cache_write_tokens"] == first["cache_write_tokens"]
    # a cache write costs 1.25x the input price, a read 0.1x: the first call's bill says so
    plain = first["input_tokens"] - first["cache_write_tokens"]
    assert first["cost_usd"] == pytest.approx(
        (plain * 3 + first["cache_write_tokens"] * 3.75 + first["output_tokens"] * 15) / 1e6)


def test_claude_through_openrouter_is_cached_and_costs_what_openrouter_bills(
        server: FakeLLMServer, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENROUTER_API_KEY", "sk-or-test")
    backend = OpenRouterAnthropic(BACKEND)
    server.responder = backend
    g = game(f"llm:openrouter:anthropic/claude-sonnet-4.6,base_url={server.url}/v1",
             tmp_path / "or.jsonl", capsys)
    system = server.requests[0]["body"]["messages"][0]
    assert system["content"][0]["cache_control"] == {"type": "ephemeral"}
    assert "prompt_cache_key" not in server.requests[0]["body"]  # OpenAI's, not OpenRouter's
    assert g["calls"][0]["cache_write_tokens"] > 0
    assert cached_share_after_the_first(g["calls"]) >= 0.8
    # each call costs what OpenRouter billed, to the cent and below
    assert [c["cost_usd"] for c in g["calls"]] == pytest.approx(backend.billed, abs=1e-9)
    assert all(c["cost_source"] == "provider" for c in g["calls"])
    assert g["totals"]["cost_usd"] == pytest.approx(sum(backend.billed), abs=1e-6)
    # the maker's list price (what the table knows) is not the bill here
    listed = sum(cost("claude-sonnet-4-6", c["input_tokens"], c["output_tokens"],
                      c["cached_tokens"], cache_write_tokens=c["cache_write_tokens"])
                 or 0.0 for c in g["calls"])
    assert listed == pytest.approx(sum(backend.billed) / 1.1, rel=1e-6)


def test_other_openai_compatible_servers_get_a_plain_system_message(
        server: FakeLLMServer, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENROUTER_API_KEY", "sk-or-test")
    server.responder = OpenAICache()
    game(f"llm:openrouter:openai/gpt-5-mini,base_url={server.url}/v1", tmp_path / "x.jsonl",
         capsys)
    game(f"llm:compat:qwen@{server.url}/v1,mode=json_object", tmp_path / "y.jsonl", capsys)
    for r in server.requests:
        assert isinstance(r["body"]["messages"][0]["content"], str)
        assert "prompt_cache_key" not in r["body"]


@pytest.mark.parametrize("usage, billed, writes", [
    ({"cost": 0.0123, "prompt_tokens_details": {"cache_write_tokens": 900}}, 0.0123, 900),
    ({"cost": True, "prompt_tokens_details": {"cache_write_tokens": -3}}, None, 0),
    ({"cost": -1.0}, None, 0),
    ({}, None, 0),
])
def test_the_bill_and_cache_writes_are_read_only_when_they_make_sense(
        usage: dict[str, Any], billed: float | None, writes: int) -> None:
    from openai.types import CompletionUsage

    parsed = CompletionUsage.model_validate({"prompt_tokens": 1000, "completion_tokens": 10,
                                             "total_tokens": 1010, **usage})
    assert caching.billed_usd(parsed) == billed and caching.cache_writes(parsed) == writes

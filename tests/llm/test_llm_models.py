"""The model table and what a spec makes of it: defaults per family, the reasoning options and
their errors, OpenRouter's request, and the prices derived from the table."""

from __future__ import annotations

import json
import random
import re
from typing import Any

import pytest
from helpers.fake_llm_server import FakeLLMServer, openai_reply
from helpers.llm_seat import play_card_position

from duel.accounting.prices import DEFAULT_PRICES, cost
from duel.agents import SpecError, make_agent
from duel.agents.llm import models
from duel.agents.llm.agent import LLMAgent


def agent(spec: str) -> LLMAgent:
    built = make_agent(spec)
    assert isinstance(built, LLMAgent)
    return built


@pytest.mark.parametrize("spec, want", [
    # a model that reasons starts at its output limit: a cap costs nothing until it is reached
    # OpenAI's default is the Responses API; api=chat sends Chat Completions' parameter
    ("llm:openai:gpt-5-mini", {"temperature": None, "max_tokens": 128000,
                               "token_param": "max_output_tokens", "mode": "json_schema"}),
    ("llm:openai:gpt-5-mini,api=chat", {"max_tokens": 128000,
                                        "token_param": "max_completion_tokens"}),
    ("llm:openai:gpt-4o-mini", {"temperature": 0.0, "max_tokens": 1024}),
    ("llm:openai:mystery", {"temperature": None, "max_tokens": 8192}),
    ("llm:openai:gpt-4o-mini,temperature=0.7,max_tokens=99", {"temperature": 0.7,
                                                              "max_tokens": 99}),
    ("llm:openai:gpt-5,reasoning_effort=high", {"reasoning_effort": "high", "thinking": None}),
    ("llm:compat:qwen@http://127.0.0.1:1/v1", {"temperature": None, "max_tokens": 8192,
                                               "token_param": "max_tokens",
                                               "mode": "json_schema"}),
    ("llm:anthropic:claude-sonnet-4-6", {"temperature": 0.0, "max_tokens": 1024,
                                         "tool_choice": "forced", "mode": "tool"}),
    ("llm:anthropic:claude-sonnet-4-6,thinking=2048", {"temperature": None, "max_tokens": 64000,
                                                       "thinking": 2048, "tool_choice": "auto"}),
    # a smaller max_tokens is raised above the thinking budget
    ("llm:anthropic:claude-haiku-4-5,thinking=4096,max_tokens=1000", {"max_tokens": 5120}),
    ("llm:openrouter:openai/gpt-4o-mini,provider=Azure",
     {"provider_pin": "Azure", "temperature": 0.0, "token_param": "max_tokens"}),
])
def test_settings_come_from_the_spec_then_the_table(server: FakeLLMServer,
                                                    monkeypatch: pytest.MonkeyPatch, spec: str,
                                                    want: dict[str, Any]) -> None:
    monkeypatch.setenv("OPENROUTER_API_KEY", "sk-or-test")
    settings = agent(spec).settings()
    assert {k: settings[k] for k in want} == want
    assert set(settings) >= {"provider", "model", "mode", "temperature", "token_param",
                             "max_tokens", "reasoning_effort", "thinking", "provider_pin"}


@pytest.mark.parametrize("spec, label", [
    # no option set: the provider's documented default for the model, or "unknown"
    ("llm:openai:gpt-5-mini", "reasoning_effort=medium (provider default)"),
    ("llm:openai:gpt-5.1", "reasoning_effort=none (provider default)"),
    ("llm:openai:gpt-5.5", "unknown (provider default)"),
    ("llm:openai:gpt-4o-mini", "no reasoning"),
    ("llm:compat:qwen@http://127.0.0.1:1/v1", "unknown (provider default)"),
    ("llm:anthropic:claude-sonnet-4-6", "thinking=off (provider default)"),
    ("llm:anthropic:claude-opus-4-7", "thinking=off (provider default)"),
    ("llm:anthropic:claude-sonnet-5-5", "reasoning_effort=high (provider default)"),
    ("llm:anthropic:claude-sonnet-5-5,reasoning_effort=low", "reasoning_effort=low"),
    ("llm:openai:gpt-5-mini,reasoning_effort=low", "reasoning_effort=low"),
    ("llm:anthropic:claude-sonnet-4-6,thinking=1024", "thinking=1024"),
])
def test_each_agent_names_its_reasoning_setting(server: FakeLLMServer, spec: str,
                                                label: str) -> None:
    assert agent(spec).reasoning_label() == label


@pytest.mark.parametrize("spec, words", [
    ("llm:openai:gpt-5,reasoning_effort=extreme",
     "reasoning_effort must be one of none, minimal, low, medium, high, xhigh, max, "
     "got 'extreme'"),
    ("llm:anthropic:claude-sonnet-4-5,reasoning_effort=high",
     "claude-sonnet-4-5 takes no reasoning_effort (Anthropic's output_config.effort); use "
     "thinking=N"),
    ("llm:anthropic:claude-sonnet-4-6,reasoning_effort=max",
     "claude-sonnet-4-6 takes reasoning_effort low, medium, high, got 'max'"),
    ("llm:anthropic:claude-sonnet-5-5,reasoning_effort=xhigh",
     "takes reasoning_effort low, medium, high, max, got 'xhigh'"),
    ("llm:anthropic:claude-sonnet-5-5,thinking=2048",
     "claude-sonnet-5-5 takes no thinking budget (adaptive thinking only); set "
     "reasoning_effort=low|medium|high|max instead"),
    ("llm:anthropic:claude-opus-4-7,thinking=4096", "claude-opus-4-7 takes no thinking budget"),
    ("llm:anthropic:claude-opus-9,reasoning_effort=high",
     "duel's model table does not know claude-opus-9, so not how it takes reasoning_effort; "
     "add thinking_form=adaptive"),
    ("llm:anthropic:claude-opus-9,thinking=2048", "so not how it takes thinking; add "
                                                  "thinking_form=adaptive"),
    ("llm:anthropic:claude-opus-9,thinking_form=adaptive,thinking=2048",
     "claude-opus-9 takes no thinking budget"),
    ("llm:anthropic:claude-sonnet-4-6,thinking_form=budget", "it knows claude-sonnet-4-6"),
    ("llm:anthropic:claude-opus-9,thinking_form=short", "thinking_form must be adaptive or budget"),
    ("llm:openai:gpt-5,thinking_form=adaptive", "llm:openai takes no thinking_form"),
    ("llm:anthropic:claude-sonnet-5-5,reasoning_effort=low,temperature=0.5",
     "temperature cannot be set with reasoning_effort"),
    ("llm:local,reasoning_effort=high", "llm:local takes no reasoning_effort"),
    ("llm:openai:gpt-5,thinking=2048", "llm:openai takes no thinking (use reasoning_effort=)"),
    ("llm:anthropic:claude-sonnet-4-6,thinking=512", "thinking must be at least 1024"),
    ("llm:anthropic:claude-sonnet-4-6,thinking=2048,temperature=0.5",
     "temperature cannot be set with thinking"),
    ("llm:anthropic:claude-opus-4-1,thinking=40000",
     "thinking=40000 leaves no room for an answer under claude-opus-4-1's output limit of "
     "32000"),
    ("llm:openai:gpt-5,provider=Azure", "llm:openai takes no provider="),
    ("llm:openai:gpt-5,max_tokens=0", "max_tokens must be at least 1"),
    ("llm:openrouter", "needs a model, e.g. llm:openrouter:openai/gpt-5-mini"),
    ("llm:anthropic", "needs a model, e.g. llm:anthropic:claude-sonnet-5-5"),
    ("llm:openai", "needs a model, e.g. llm:openai:gpt-5-mini"),
])
def test_bad_reasoning_options_are_clear_errors(server: FakeLLMServer,
                                                monkeypatch: pytest.MonkeyPatch, spec: str,
                                                words: str) -> None:
    monkeypatch.setenv("OPENROUTER_API_KEY", "sk-or-test")
    with pytest.raises(SpecError, match=re.escape(words)):
        make_agent(spec)


def test_openrouter_needs_its_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENROUTER_API_KEY", raising=False)
    with pytest.raises(SpecError, match="needs the OPENROUTER_API_KEY environment variable"):
        make_agent("llm:openrouter:openai/gpt-5-mini")


def test_openrouter_sends_its_reasoning_object_and_pins_the_backend(
        server: FakeLLMServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENROUTER_API_KEY", "sk-or-test")
    view, legal = play_card_position()
    reply = openai_reply(json.dumps(legal[0].to_json()))
    reply.body["choices"][0]["message"]["reasoning"] = "The discard is safe."
    reply.body["usage"]["completion_tokens_details"] = {"reasoning_tokens": 321}
    server.enqueue(reply)
    d = agent(f"llm:openrouter:deepseek/deepseek-r1,base_url={server.url}/v1,"
              "reasoning_effort=high,provider=DeepInfra").choose(view, legal, random.Random(0))
    req = server.requests[0]
    body = req["body"]
    assert body["model"] == "deepseek/deepseek-r1"
    assert body["reasoning"] == {"effort": "high"} and "reasoning_effort" not in body
    assert body["provider"] == {"order": ["DeepInfra"], "allow_fallbacks": False}
    assert body["response_format"]["type"] == "json_schema" and "max_tokens" in body
    assert {k.lower(): v for k, v in req["headers"].items()}["authorization"] == \
        "Bearer sk-or-test"
    call = d.details["llm"]["calls"][0]
    assert (call["thinking"], call["reasoning_tokens"]) == ("The discard is safe.", 321)
    assert d.details["llm"]["settings"]["provider_pin"] == "DeepInfra"


def test_compat_reasoning_content_is_the_thinking(server: FakeLLMServer) -> None:
    view, legal = play_card_position()
    reply = openai_reply(tool_args=json.dumps(legal[0].to_json()))
    reply.body["choices"][0]["message"]["reasoning_content"] = "Let me count the coins."
    server.enqueue(reply)
    d = agent(f"llm:compat:qwq@{server.url}/v1,reasoning_effort=low").choose(
        view, legal, random.Random(0))
    assert d.details["llm"]["calls"][0]["thinking"] == "Let me count the coins."
    assert server.requests[0]["body"]["reasoning_effort"] == "low"


def test_the_price_table_is_the_model_tables() -> None:
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", models.PRICES_READ)
    for fam in models.FAMILIES:
        if fam.prices is None:  # a model whose published price duel has not read: unknown
            assert fam.prefix not in DEFAULT_PRICES and cost(fam.prefix, 10, 10, 0) is None
            continue
        assert DEFAULT_PRICES[fam.prefix] == fam.prices
        assert {"input", "output"} <= set(fam.prices)
    from duel.agents.llm.providers import KINDS

    for name in (k.example for k in KINDS.values() if k.example):
        assert models.family(name) is not None
        assert cost(name.rpartition("/")[2], 1000, 100, 0) is not None
    assert DEFAULT_PRICES["local"]["output"] == 0.0


@pytest.mark.parametrize("model, priced_as", [
    ("gpt-5-mini-2025-08-07", "gpt-5-mini"),
    ("claude-sonnet-4-5-20250929", "claude-sonnet-4-5"),
    ("gpt-5.6-sol", None),  # reasons like gpt-5, but its price is its own, and unknown here
    ("claude-opus-4-7", None),
])
def test_snapshots_share_a_price_and_neighbours_do_not(model: str, priced_as: str | None) -> None:
    got = cost(model, 2000, 500, 1000)
    if priced_as is None:
        assert got is None
    else:
        assert got == cost(priced_as, 2000, 500, 1000) and got is not None


def test_families_match_the_longest_prefix() -> None:
    fam = models.family
    assert fam("gpt-5-mini-2025-08-07").prefix == "gpt-5-mini"  # type: ignore[union-attr]
    assert fam("gpt-5.6-sol").prefix == "gpt-5"  # type: ignore[union-attr]
    assert fam("gpt-5.4-mini-2026-03-17").prefix == "gpt-5.4-mini"  # type: ignore[union-attr]
    assert fam("claude-sonnet-5-5").adaptive  # type: ignore[union-attr]
    assert fam("o3-mini").prefix == "o3-mini"  # type: ignore[union-attr]
    assert fam("openai/gpt-4o-mini").prefix == "gpt-4o-mini"  # type: ignore[union-attr]
    assert fam("claude-sonnet-9") is None and fam("mystery") is None
    # a Claude entry is its version: Opus 4.7 is not Opus 4, whose thinking request it refuses
    assert fam("claude-opus-4-7").prefix == "claude-opus-4-7"  # type: ignore[union-attr]
    assert fam("claude-opus-4-7").adaptive  # type: ignore[union-attr]
    assert fam("claude-opus-4-20250514").prefix == "claude-opus-4"  # type: ignore[union-attr]
    assert fam("claude-opus-4-9") is None and fam("anthropic/claude-opus-4-8") is not None
    # the shipped model is not looked up by name: its provider's row says it is LOCAL
    from duel.agents.llm.providers import KINDS

    assert KINDS["local"].shipped and fam("local") is None


def test_adaptive_without_an_effort_asks_for_the_thinking_summary(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 39: a Claude model outside the table with thinking_form=adaptive and no effort
    is sent adaptive thinking with its summary asked for, as the table's adaptive models are
    (it sent no thinking field, and a model that omits its text recorded none)."""
    from duel.agents import make_agent
    from duel.agents.llm.providers.anthropic_messages import reasoning as anthropic_reasoning

    monkeypatch.setenv("ANTHROPIC_API_KEY", "test")
    agent = make_agent("llm:anthropic:claude-opus-9,thinking_form=adaptive")
    s = agent.effective_settings()  # type: ignore[attr-defined]
    assert anthropic_reasoning(s) == {"thinking": {"type": "adaptive", "display": "summarized"}}
    with_effort = make_agent("llm:anthropic:claude-opus-9,thinking_form=adaptive,"
                             "reasoning_effort=low")
    assert anthropic_reasoning(with_effort.effective_settings()) == {  # type: ignore[attr-defined]
        "thinking": {"type": "adaptive", "display": "summarized"},
        "output_config": {"effort": "low"}}

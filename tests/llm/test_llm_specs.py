"""LLM agent specs: providers, models, options, and errors that say what is wrong."""

from __future__ import annotations

import pytest
from helpers.fake_llm_server import FakeLLMServer

from duel.agents import make_agent
from duel.agents.llm.agent import LLMAgent


def test_missing_key_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    from duel.agents import SpecError

    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    with pytest.raises(SpecError, match="needs the ANTHROPIC_API_KEY environment variable"):
        make_agent("llm:anthropic:claude-sonnet-4-6")


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
    ("llm:anthropic:claude-sonnet-4-6,mode=tool", "always uses a forced tool"),
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

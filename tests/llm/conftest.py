"""The LLM tests' fixtures: a loopback server speaking the OpenAI and Anthropic APIs, with the API
keys the SDKs want set for the test; and a process that has learned no adaptation yet."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from helpers.fake_llm_server import FakeLLMServer

from duel.agents.llm.transport import adapt


@pytest.fixture(autouse=True)
def fresh_adaptations() -> Iterator[None]:
    """Each test starts as a new process would: nothing learned about any endpoint."""
    adapt.forget()
    yield
    adapt.forget()


@pytest.fixture()
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeLLMServer]:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    with FakeLLMServer() as srv:
        yield srv

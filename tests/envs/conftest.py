"""The environments' tests: the LLM tests' loopback provider server, and a fresh process's
adaptations (the LLM seat the environments compare against learns from its server)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from helpers.fake_llm_server import FakeLLMServer

from duel.agents.llm.transport import adapt


@pytest.fixture(autouse=True)
def fresh_adaptations() -> Iterator[None]:
    adapt.forget()
    yield
    adapt.forget()


@pytest.fixture()
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeLLMServer]:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    with FakeLLMServer() as srv:
        yield srv

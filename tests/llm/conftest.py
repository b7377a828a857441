"""The LLM tests' fixture: a loopback server speaking the OpenAI and Anthropic APIs, with the API
keys the SDKs want set for the test."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from helpers.fake_llm_server import FakeLLMServer


@pytest.fixture()
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeLLMServer]:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    with FakeLLMServer() as srv:
        yield srv

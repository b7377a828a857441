"""The Inspect tasks' tests: the fake model server (helpers.inspect_runs) as Inspect's
`openai-api/fake/m`, and `openai-api/fake2/m2` (the same server under another name) for the
opponent role."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from helpers.fake_llm_server import FakeLLMServer
from helpers.inspect_runs import legal_reply

from duel.agents.llm.transport import adapt


@pytest.fixture(autouse=True)
def fresh_adaptations() -> Iterator[None]:
    adapt.forget()
    yield
    adapt.forget()


@pytest.fixture()
def llm(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeLLMServer]:
    """The fake model as Inspect's `openai-api/fake/m` (and `openai-api/fake2/m2`, the same
    server under another name, for the opponent role)."""
    with FakeLLMServer(responder=legal_reply) as srv:
        for service in ("FAKE", "FAKE2"):
            monkeypatch.setenv(f"{service}_API_KEY", "sk-test")
            monkeypatch.setenv(f"{service}_BASE_URL", f"{srv.url}/v1")
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
        yield srv

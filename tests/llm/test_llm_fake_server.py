"""The test fake itself: a responder that raises answers with an error naming it and fails the
test on leaving, rather than dropping the connection (which the client retries with backoff,
so the test hangs)."""

from __future__ import annotations

from typing import Any

import openai
import pytest
from helpers.fake_llm_server import FakeLLMServer


def test_a_raising_responder_fails_the_test_at_once() -> None:
    def bad(body: dict[str, Any]) -> Any:
        raise KeyError("no such thing")

    with pytest.raises(AssertionError, match="KeyError"):  # noqa: PT012
        with FakeLLMServer(bad) as srv:
            c = openai.OpenAI(base_url=srv.url + "/v1", api_key="x", max_retries=0)
            with pytest.raises(openai.BadRequestError, match="responder raised"):
                c.chat.completions.create(model="m",
                                          messages=[{"role": "user", "content": "u"}])

"""`duel llm check` against the loopback servers that behave as reasoning models do (real SDKs):
the check reports the settings that work after adaptation, the adaptations, reasoning tokens and
the reasoning setting; a reasoning_effort the model refuses exits 2 in one line naming it."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from helpers.fake_llm_server import FakeLLMServer
from helpers.fake_reasoning_servers import AnthropicThinkingModel, OpenAIReasoningModel

from duel.cli import main


@pytest.fixture()
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeLLMServer]:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    with FakeLLMServer() as srv:
        yield srv


def check(spec: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, dict[str, Any], str]:
    code = main(["llm", "check", spec, "--json"])
    out, err = capsys.readouterr()
    return code, (json.loads(out) if code == 0 else {}), err


def test_an_openai_reasoning_model_the_table_does_not_know_is_adapted_to(
        server: FakeLLMServer, capsys: pytest.CaptureFixture[str]) -> None:
    server.responder = OpenAIReasoningModel(reasoning=600)
    # a compatible endpoint and a name the table does not know: duel sends temperature and
    # max_tokens as it would to any server, and the model refuses both
    code, found, err = check(f"llm:compat:thinker@{server.url}/v1,temperature=0", capsys)
    assert code == 0, err
    text = json.dumps(found)
    assert "temperature" in text and "max_tokens" in text  # both adaptations are reported
    assert [a["parameter"] for a in found["adaptations"]] == ["temperature", "max_tokens"]
    # one call (the refused requests were adapted, not counted), with the model's 600
    # reasoning tokens (not the 1200 cached input tokens the server also reports)
    assert (found["calls"], found["reasoning_tokens"]) == (1, 600)


def test_an_openai_reasoning_model_with_high_effort(
        server: FakeLLMServer, capsys: pytest.CaptureFixture[str]) -> None:
    server.responder = OpenAIReasoningModel(reasoning=600)
    code, found, err = check(f"llm:openai:gpt-5-mini,base_url={server.url}/v1,api=chat,"
                             "reasoning_effort=high", capsys)
    assert code == 0, err
    assert found["reasoning"] == "reasoning_effort=high"
    assert found["settings"]["reasoning_effort"] == "high"
    # the model reasons twice as long at high effort: 2 x 600 tokens in the one call
    assert (found["calls"], found["reasoning_tokens"]) == (1, 1200)
    assert server.requests[-1]["body"]["reasoning_effort"] == "high"


@pytest.mark.parametrize("model, extra, label", [
    ("claude-sonnet-4-6", ",thinking=2048", "thinking=2048"),
    ("claude-sonnet-5-5", ",reasoning_effort=medium", "reasoning_effort=medium"),
    ("claude-sonnet-5-5", "", "reasoning_effort=high (provider default)"),
])
def test_an_anthropic_model_that_thinks(server: FakeLLMServer,
                                        capsys: pytest.CaptureFixture[str], model: str,
                                        extra: str, label: str) -> None:
    server.responder = AnthropicThinkingModel(thinks=700, fifth_generation="-5-" in model,
                                              efforts=("low", "medium", "high", "max"))
    code, found, err = check(f"llm:anthropic:{model},base_url={server.url}{extra}", capsys)
    assert code == 0, err
    assert found["reasoning"] == label
    assert (found["calls"], found["reasoning_tokens"]) == (1, 700)


def test_a_thinking_budget_on_an_adaptive_only_claude_exits_2_before_any_call(
        server: FakeLLMServer, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = check(f"llm:anthropic:claude-sonnet-5-5,base_url={server.url},thinking=2048",
                         capsys)
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1 and "set reasoning_effort=" in lines[0]
    assert server.requests == []


def test_a_refused_reasoning_effort_exits_2_naming_it(
        server: FakeLLMServer, capsys: pytest.CaptureFixture[str]) -> None:
    server.responder = OpenAIReasoningModel(refused_efforts=("minimal",))
    code, _, err = check(f"llm:openai:gpt-5,base_url={server.url}/v1,api=chat,"
                         "reasoning_effort=minimal", capsys)
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1
    assert lines[0].startswith("duel llm check:") and "reasoning_effort" in lines[0]

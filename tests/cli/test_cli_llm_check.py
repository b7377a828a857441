"""`duel llm check SPEC`: one real call through the real openai and anthropic SDKs against a
loopback server; a legal move exits 0 with the findings, and a key, model or endpoint that fails
exits 2 with one line naming the reason."""

from __future__ import annotations

import json
import random
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from helpers.fake_llm_server import (
    FakeLLMServer,
    Scripted,
    anthropic_reply,
    error_reply,
    openai_reply,
)

from duel.cli import main
from duel.cli.llm import DECISIONS_PER_SEAT, position, report_text
from duel.engine import InfoSet, Move
from duel.prompts import get_variant

ROOT = Path(__file__).resolve().parents[2]


def _legal_moves(body: dict[str, Any]) -> list[Move]:
    """The legal moves of the state in the request's first user message."""
    text = next(m["content"] for m in body["messages"] if m["role"] == "user")
    view, _ = json.JSONDecoder().raw_decode(text, text.index("{"))
    return InfoSet.from_view(view).sample(random.Random(0)).legal_moves()


def openai_legal(body: dict[str, Any]) -> Scripted:
    return openai_reply(json.dumps(_legal_moves(body)[0].to_json()))


def anthropic_legal(body: dict[str, Any]) -> Scripted:
    return anthropic_reply(_legal_moves(body)[0].to_json())


@pytest.fixture()
def keys(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")


@pytest.fixture()
def openai_server(keys: None) -> Iterator[FakeLLMServer]:
    with FakeLLMServer(responder=openai_legal) as srv:
        yield srv


def openai_spec(srv: FakeLLMServer, model: str = "gpt-4o-mini") -> str:
    return f"llm:openai:{model},base_url={srv.url}/v1,api=chat,backoff=0.01"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["llm", "check", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def one_line_error(code: int, out: str, err: str) -> str:
    assert code == 2 and out == ""
    assert err.startswith("duel llm check: ") and err.count("\n") == 1, err
    return err


def test_a_legal_move_reports_settings_tokens_cost_and_the_projection(
        openai_server: FakeLLMServer, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, openai_spec(openai_server))
    assert code == 0 and err == ""
    lines = out.splitlines()
    assert lines[0] == f"duel llm check {openai_spec(openai_server)}"
    assert "  position:    seed 0, Age 1 after the wonder draft, player " in out
    for label in ("settings:", "reasoning:", "adaptations:", "latency:"):
        assert f"  {label}" in out
    assert "legal at the first try" in out
    # the fake's usage: 1200 in (1000 cached), 20 out; gpt-4o-mini's list prices
    assert "  tokens:      1200 in (1000 cached) / 20 out (0 of them reasoning)" in out
    cost = (200 * 0.15 + 1000 * 0.075 + 20 * 0.60) / 1e6
    assert f"  cost:        ${cost:.4f} for this move" in out
    # then warm calls: the rules text (more than the fake's 1200 input tokens) from the cache
    warm = (1200 * 0.075 + 20 * 0.60) / 1e6
    game = cost + (DECISIONS_PER_SEAT - 1) * warm
    assert f"  whole game:  ${game:.4f} projected (${cost + 27 * warm:.4f} to " \
        f"${cost + 39 * warm:.4f} for 28 to 40 decisions): this move, then " \
        f"{DECISIONS_PER_SEAT - 1} warm calls at ${warm:.6f} each" in out
    assert lines[-1] == f"OK: {openai_spec(openai_server)} answered with a legal move"
    assert len(openai_server.requests) == 1  # one real call


def test_json_names_the_same_findings_and_the_move_is_legal_in_the_position(
        openai_server: FakeLLMServer, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, openai_spec(openai_server), "--seed", "4", "--json")
    assert code == 0
    r = json.loads(out)
    state = position(4)
    assert Move.from_json(r["move"]) in state.legal_moves()
    assert r["seed"] == 4 and r["first_try_legal"] is True and r["legal_at_attempt"] == 1
    assert (r["calls"], r["input_tokens"], r["cached_tokens"], r["output_tokens"]) == \
        (1, 1200, 1000, 20)
    assert r["reasoning_tokens"] == 0 and r["adaptations"] == [] and r["failed_attempts"] == []
    assert r["cost_usd"] == pytest.approx(0.000117)
    warm = (1200 * 0.075 + 20 * 0.60) / 1e6
    assert r["projection"] == {
        "decisions": DECISIONS_PER_SEAT, "decisions_range": [28, 40],
        "cost_usd": pytest.approx(0.000117 + 34 * warm),
        "low_usd": pytest.approx(0.000117 + 27 * warm),
        "high_usd": pytest.approx(0.000117 + 39 * warm), "warm_call_usd": pytest.approx(warm)}
    assert r["latency_s"] >= 0 and isinstance(r["settings"], dict)
    assert report_text(r).splitlines()[0] == f"duel llm check {openai_spec(openai_server)}"


def test_a_move_legal_only_after_a_re_ask_says_what_the_first_try_got(
        openai_server: FakeLLMServer, capsys: pytest.CaptureFixture[str]) -> None:
    openai_server.enqueue(openai_reply("let me think about the pyramid"))
    code, out, _ = run(capsys, openai_spec(openai_server))
    assert code == 0
    assert "legal at attempt 2 (attempt 1 UNPARSABLE: your answer contained no JSON object)" in out
    assert "(2 calls)" in out


def test_an_unpriced_model_says_unknown_price(openai_server: FakeLLMServer,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, openai_spec(openai_server, "acme-unpriced-1"))
    assert code == 0
    assert "  cost:        unknown price" in out and "  whole game:  unknown (no price)" in out


def test_anthropic_through_its_sdk(keys: None, capsys: pytest.CaptureFixture[str]) -> None:
    with FakeLLMServer(responder=anthropic_legal) as srv:
        spec = f"llm:anthropic:claude-haiku-4-5,base_url={srv.url},backoff=0.01"
        code, out, err = run(capsys, spec)
        assert srv.requests[0]["path"] == "/v1/messages"
    assert code == 0 and err == "" and "legal at the first try" in out
    assert "  tokens:      1200 in (1100 cached) / 30 out" in out


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
@pytest.mark.parametrize(("status", "reason"), [(401, "the API key was rejected (HTTP 401)"),
                                                (404, "not found (HTTP 404")])
def test_a_rejected_key_or_an_unknown_model_is_one_line(
        keys: None, capsys: pytest.CaptureFixture[str], provider: str, status: int,
        reason: str) -> None:
    with FakeLLMServer(responder=lambda body: error_reply(status)) as srv:
        url = f"{srv.url}/v1" if provider == "openai" else srv.url
        model = "gpt-5-mini" if provider == "openai" else "claude-haiku-4-5"
        err = one_line_error(*run(capsys, f"llm:{provider}:{model},base_url={url}"))
        assert len(srv.requests) == 1  # nothing to retry: the user must fix it
    assert reason in err


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
    return port


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_an_endpoint_that_does_not_answer_is_one_line(
        keys: None, capsys: pytest.CaptureFixture[str], provider: str) -> None:
    url = f"http://127.0.0.1:{_closed_port()}"
    err = one_line_error(*run(capsys, f"llm:{provider}:some-model,base_url={url},backoff=0.01"))
    assert "the endpoint did not answer: " in err and "connection failed" in err


def test_the_exit_status_and_streams_of_the_real_command(keys: None) -> None:
    url = f"http://127.0.0.1:{_closed_port()}/v1"
    done = subprocess.run([sys.executable, "-m", "duel.cli", "llm", "check",
                           f"llm:openai:gpt-5-mini,base_url={url},api=chat,backoff=0.01"],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith("duel llm check: the endpoint did not answer")
    assert done.stderr.count("\n") == 1


def test_no_legal_move_in_any_attempt_is_one_line(
        keys: None, capsys: pytest.CaptureFixture[str]) -> None:
    with FakeLLMServer(responder=lambda body: openai_reply("I would rather not")) as srv:
        err = one_line_error(*run(capsys, openai_spec(srv)))
    assert "no legal move came back in 3 attempts (UNPARSABLE, UNPARSABLE, UNPARSABLE)" in err


def test_a_missing_key_or_a_spec_that_is_not_an_llm_is_one_line(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    err = one_line_error(*run(capsys, "llm:openai:gpt-5-mini"))
    assert "OPENAI_API_KEY" in err
    err = one_line_error(*run(capsys, "mcts:iterations=10"))
    assert "expected an llm: agent spec" in err


def test_the_position_is_age_one_after_the_draft_and_the_prompt_is_the_seat_s_view(
        openai_server: FakeLLMServer, capsys: pytest.CaptureFixture[str]) -> None:
    state = position(7)
    assert state.age == 1 and state.step_name == "PLAY_CARD"
    assert position(7).code == state.code  # seeded: the same position every time
    assert run(capsys, openai_spec(openai_server), "--seed", "7")[0] == 0
    body = openai_server.requests[0]["body"]
    assert body["messages"][0]["content"] == get_variant("baseline").system
    assert "(you are player2)" in body["messages"][1]["content"]


def test_the_report_names_the_settings_after_adaptation_and_each_adaptation() -> None:
    from helpers.fake_llm_agent import SETTINGS

    r = {"spec": "llm:openai:o4-mini", "position": "seed 0", "settings": dict(SETTINGS),
         "reasoning": "reasoning_effort=high",
         "adaptations": [{"parameter": "temperature", "change": "not sent",
                          "reason": "HTTP 400: Unsupported value: 'temperature'"}],
         "move_text": "Player 1 discarded BATHS", "first_try_legal": True, "latency_s": 31.0,
         "calls": 1, "input_tokens": 9000, "cached_tokens": 0, "output_tokens": 2000,
         "reasoning_tokens": 1800, "cost_usd": None, "projection": {"decisions": 35,
                                                                     "cost_usd": None}}
    text = report_text(r)
    assert "  settings:    mode json_schema, temperature not sent, max_completion_tokens 16000, " \
        "reasoning_effort high\n" in text
    assert "  reasoning:   reasoning_effort=high\n" in text
    assert "  adaptations: temperature: not sent (HTTP 400: Unsupported value: 'temperature')" \
        in text
    assert "  tokens:      9000 in (0 cached) / 2000 out (1800 of them reasoning)" in text
    anthropic = {**SETTINGS, "mode": "tool", "token_param": "max_tokens", "max_tokens": 6144,
                 "reasoning_effort": None, "thinking": 2048, "provider_pin": "anthropic",
                 "tool_choice": "auto"}
    assert report_text({**r, "settings": anthropic}).count(
        "  settings:    mode tool, temperature not sent, max_tokens 6144, thinking budget 2048 "
        "tokens, provider pinned to anthropic, tool_choice auto\n") == 1
    plain = {**SETTINGS, "temperature": 0.0, "token_param": None, "max_tokens": 1024,
             "reasoning_effort": None}
    assert "  settings:    mode json_schema, temperature 0.0, max_tokens 1024\n" in \
        report_text({**r, "settings": plain})
    assert "  settings:    not reported by this agent\n" in report_text({**r, "settings": {}})

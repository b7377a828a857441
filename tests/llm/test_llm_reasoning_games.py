"""Whole games against servers that behave as reasoning models do, through the real openai and
anthropic SDKs and `duel match`: no fallback move, each adaptation recorded once in the
transcript, reasoning tokens and thinking text recorded and counted in the totals, and a
refusal duel cannot adapt to stops the run."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from helpers.fake_llm_server import FakeLLMServer
from helpers.fake_reasoning_servers import AnthropicThinkingModel, OpenAIReasoningModel
from helpers.llm_seat import play_card_position

from duel.accounting.games import llm_totals
from duel.agents.llm.models import CLAUDE_EFFORTS
from duel.cli import main
from duel.transcripts import read, verified_result


def play(spec: str, path: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    """`duel match` with the LLM as player 1 against random; the transcript's facts."""
    code = main(["match", "--p1", spec, "--p2", "random", "--seed", "4",
                 "--transcript", str(path)])
    out = capsys.readouterr().out
    assert code == 0, out
    t = read(path)
    verified_result(t)  # every move replays and the footer's totals match the calls
    moves = [m["details"]["llm"] for m in t.moves if m["player"] == 1]
    assert t.footer is not None
    return {"moves": moves, "calls": [c for m in moves for c in m["calls"]],
            "adaptations": [a for m in moves for a in m["adaptations"]],
            "totals": t.footer["totals"]["1"], "out": out}


def no_fallback(game: dict[str, Any]) -> None:
    assert game["moves"] and all(m["fallback"] is None for m in game["moves"])
    assert all(m["legal_at_attempt"] == 1 for m in game["moves"])


@pytest.mark.parametrize("spec, adapted, label", [
    # duel's defaults on an unknown model: compat servers get max_tokens first
    ("llm:compat:thinker@{url}/v1", ["max_tokens"], "unknown (provider default)"),
    # the temperature the user set is dropped (and recorded), the effort is kept
    ("llm:compat:thinker@{url}/v1,temperature=0,reasoning_effort=high",
     ["max_tokens", "temperature"], "reasoning_effort=high"),
    # OpenAI's own endpoint already sends max_completion_tokens and no temperature
    ("llm:openai:thinker,base_url={url}/v1,api=chat", [], "unknown (provider default)"),
    # a model the table knows to reason: nothing to adapt; OpenAI's documented default named
    ("llm:openai:o4-mini,base_url={url}/v1,api=chat", [],
     "reasoning_effort=medium (provider default)"),
])
def test_an_openai_reasoning_model_plays_a_whole_game(
        server: FakeLLMServer, tmp_path: Path, capsys: pytest.CaptureFixture[str], spec: str,
        adapted: list[str], label: str) -> None:
    # every fifth answer needs more reasoning than an unknown model's budget of 8192
    model = OpenAIReasoningModel(reasoning=900, hard=9000, hard_every=5)
    server.responder = model
    game = play(spec.format(url=server.url), tmp_path / "g.jsonl", capsys)
    no_fallback(game)
    assert sorted(a["parameter"] for a in game["adaptations"]) == sorted(adapted)
    for a in game["adaptations"]:
        assert a["change"] and a["reason"].startswith("Unsupported")
    settings = game["moves"][-1]["settings"]
    assert settings["temperature"] is None and settings["token_param"] == "max_completion_tokens"
    assert "temperature" not in server.requests[-1]["body"]
    assert all(c["reasoning_tokens"] > 0 for c in game["calls"])
    totals = game["totals"]
    assert totals["reasoning_tokens"] == sum(c["reasoning_tokens"] for c in game["calls"])
    assert totals["reasoning"] == label and f"reasoning {label}" in game["out"]
    assert f"({totals['reasoning_tokens']} reasoning; " in game["out"]
    unusable = sum(c["output_tokens"] for c in game["calls"] if c["category"] != "OK")
    assert totals["unusable_output_tokens"] == unusable
    assert f"{unusable} on unusable replies" in game["out"]
    if "reasoning_effort" in spec:
        assert server.requests[-1]["body"]["reasoning_effort"] == "high"
    else:  # nothing sent: the provider's default, which the label names
        assert "reasoning_effort" not in server.requests[-1]["body"]
    if "o4-mini" in spec:  # the table's model starts at its output limit: nothing is cut off
        assert {c["max_tokens"] for c in game["calls"]} == {100_000}
        assert totals["cost_usd"] is not None and totals["categories"] == {"OK": len(game["moves"])}
        assert unusable == 0
    else:  # the first hard move was cut off while reasoning and asked again with twice the
        # budget (twice more at high effort), where every later call starts: each budget is
        # cut off once in the whole game
        cut = [c for c in game["calls"] if c["category"] == "TRUNCATED"]
        budgets = [c["max_tokens"] for c in cut]
        assert budgets == [8192, 16384][:len(budgets)] and budgets
        assert all(c["reasoning_tokens"] == c["max_tokens"] and c["attempt"] == 1
                   and "while reasoning" in c["error"] for c in cut)
        last = game["calls"].index(cut[-1])
        assert {c["max_tokens"] for c in game["calls"][last + 1:]} == {2 * budgets[-1]}
        assert unusable == sum(budgets)
        assert totals["cost_usd"] is None  # an unknown model: unknown price


def test_a_reasoning_model_cut_off_at_the_cap_spends_the_attempt(
        server: FakeLLMServer) -> None:
    """Past four times the starting budget the cut-off reply is the attempt's failure."""
    import random

    from helpers.llm_seat import openai_agent, play_card_position

    server.responder = OpenAIReasoningModel(reasoning=5000, hard=0)
    view, legal = play_card_position()
    d = openai_agent(server, ",max_tokens=1000,max_attempts=2").choose(
        view, legal, random.Random(0))
    calls = d.details["llm"]["calls"]
    # 1000 -> 2000 -> 4000 (the cap) on attempt 1, then attempt 2 keeps the grown budget
    assert [(c["attempt"], c["max_tokens"], c["category"]) for c in calls] == [
        (1, 1000, "TRUNCATED"), (1, 2000, "TRUNCATED"), (1, 4000, "TRUNCATED"),
        (2, 4000, "TRUNCATED")]
    assert d.details["llm"]["fallback"] == "random"
    reask = server.requests[-1]["body"]["messages"][-1]["content"]
    assert "cut off at 4000 tokens" in reask


@pytest.mark.parametrize("extra, thinking, adapted", [
    ("", False, []),  # thinks only when asked: the forced tool and temperature 0 are fine
    (",thinking=2048", True, []),  # duel sends what Anthropic takes while thinking
])
def test_an_anthropic_model_plays_with_and_without_thinking(
        server: FakeLLMServer, tmp_path: Path, capsys: pytest.CaptureFixture[str], extra: str,
        thinking: bool, adapted: list[str]) -> None:
    server.responder = AnthropicThinkingModel(thinks=700)
    game = play(f"llm:anthropic:claude-sonnet-4-6,base_url={server.url}{extra}",
                tmp_path / "a.jsonl", capsys)
    no_fallback(game)
    assert [a["parameter"] for a in game["adaptations"]] == adapted
    body = server.requests[-1]["body"]
    if thinking:
        assert body["thinking"] == {"type": "enabled", "budget_tokens": 2048}
        assert body["tool_choice"] == {"type": "auto"} and "temperature" not in body
        assert body["max_tokens"] == 64000  # thinking: the model's output limit
        assert all(c["thinking"].startswith("Thinking about") and c["reasoning_tokens"] == 700
                   for c in game["calls"])
        # some answers came as text with a JSON move, not as a tool call
        assert any(not c["raw"].startswith("{") for c in game["calls"])
        assert game["totals"]["reasoning_tokens"] == 700 * len(game["calls"])
        assert game["totals"]["reasoning"] == "thinking=2048"
        # thinking is billed as output: 740 output tokens at $15 per million each call
        call = game["calls"][0]
        assert call["cost_usd"] == pytest.approx((300 * 3 + 1200 * 0.3 + 740 * 15) / 1e6)
    else:
        assert body["tool_choice"] == {"type": "tool", "name": "play_move"}
        assert body["temperature"] == 0.0 and "thinking" not in body
        assert game["totals"]["reasoning_tokens"] == 0 and game["totals"]["reasoning"] == \
            "thinking=off (provider default)"


@pytest.mark.parametrize("model, adapted", [
    ("claude-sonnet-9", ["tool_choice"]),  # unknown: no temperature is sent
    ("claude-sonnet-4-6", ["tool_choice", "temperature"]),  # the table's temperature 0.0
])
def test_a_model_that_always_thinks_is_adapted_to_once(
        server: FakeLLMServer, tmp_path: Path, capsys: pytest.CaptureFixture[str], model: str,
        adapted: list[str]) -> None:
    server.responder = AnthropicThinkingModel(thinks=300, always_thinks=True)
    game = play(f"llm:anthropic:{model},base_url={server.url}", tmp_path / "t.jsonl", capsys)
    no_fallback(game)
    assert [a["parameter"] for a in game["adaptations"]] == adapted
    assert game["moves"][0]["adaptations"] == game["adaptations"]  # all made on the first move
    reasons = {a["parameter"]: a["reason"] for a in game["adaptations"]}
    assert reasons["tool_choice"] == "Thinking may not be enabled when tool_choice forces " \
                                     "tool use."
    settings = game["moves"][-1]["settings"]
    assert settings["tool_choice"] == "auto" and settings["temperature"] is None
    assert all(c["thinking"] for c in game["calls"])
    assert game["totals"]["calls"] == len(game["calls"])  # the refused requests are no calls


@pytest.mark.parametrize("extra, effort, label", [
    ("", None, "reasoning_effort=high (provider default)"),
    (",reasoning_effort=low", "low", "reasoning_effort=low"),
    (",reasoning_effort=max", "max", "reasoning_effort=max"),
])
def test_a_fifth_generation_claude_plays_with_adaptive_thinking_and_its_effort(
        server: FakeLLMServer, tmp_path: Path, capsys: pytest.CaptureFixture[str], extra: str,
        effort: str | None, label: str) -> None:
    """claude-sonnet-5-5 refuses a thinking budget, a forced tool and a temperature, and omits
    its thinking text unless a summary is asked for: the table knows, so nothing is refused,
    nothing adapted, every call's thinking is recorded, and the effort is output_config's."""
    server.responder = AnthropicThinkingModel(thinks=500, always_thinks=True,
                                              fifth_generation=True, efforts=CLAUDE_EFFORTS,
                                              omits_thinking=True)
    game = play(f"llm:anthropic:claude-sonnet-5-5,base_url={server.url}{extra}",
                tmp_path / "c5.jsonl", capsys)
    no_fallback(game)
    assert game["adaptations"] == []
    assert all(r["body"].get("tool_choice") == {"type": "auto"} and "temperature" not in
               r["body"] for r in server.requests)
    body = server.requests[-1]["body"]
    assert body["thinking"] == {"type": "adaptive", "display": "summarized"}
    assert body.get("output_config") == ({"effort": effort} if effort else None)
    assert body["max_tokens"] == 128000  # it reasons anyway: its output limit
    assert game["totals"]["reasoning"] == label and f"reasoning {label}" in game["out"]
    assert game["moves"][0]["settings"]["thinking_request"] == "adaptive, display summarized"
    assert all(c["thinking"].startswith("Thinking about") for c in game["calls"])
    assert game["totals"]["reasoning_tokens"] == 500 * len(game["calls"])
    # $2 in, $0.20 cache read, $10 out per million tokens
    assert game["calls"][0]["cost_usd"] == pytest.approx((300 * 2 + 1200 * 0.2 + 540 * 10) / 1e6)


def test_without_a_summary_asked_for_the_thinking_text_is_lost(server: FakeLLMServer) -> None:
    """The fake's omission is real: a request without display gets empty thinking blocks."""
    model = AnthropicThinkingModel(always_thinks=True, fifth_generation=True,
                                   omits_thinking=True)
    view, _ = play_card_position()
    from helpers.fake_reasoning_servers import ADAPTIVE_ONLY

    turn = {"role": "user", "content": "you are player2 " + json.dumps(view)}
    bare = model({"messages": [turn], "max_tokens": 2000, "tools": [{}],
                  "tool_choice": {"type": "auto"}, "thinking": {"type": "adaptive"}})
    assert bare.body["content"][0] == {"type": "thinking", "signature": "c2lnbmF0dXJl",
                                       "thinking": ""}
    refused = model({"messages": [turn], "max_tokens": 4000,
                     "thinking": {"type": "enabled", "budget_tokens": 2048}})
    assert refused.status == 400 and refused.body["error"]["message"] == ADAPTIVE_ONLY


@pytest.mark.parametrize("model, extra", [
    ("claude-opus-4-7", ",reasoning_effort=high"),  # once matched claude-opus-4: a 400 mid-run
    ("claude-opus-9", ",thinking_form=adaptive,reasoning_effort=medium"),  # unknown to the table
])
def test_an_adaptive_only_claude_thinks_with_effort_and_records_its_summaries(
        server: FakeLLMServer, tmp_path: Path, capsys: pytest.CaptureFixture[str], model: str,
        extra: str) -> None:
    server.responder = AnthropicThinkingModel(thinks=400, adaptive_only=True,
                                              efforts=CLAUDE_EFFORTS, omits_thinking=True)
    game = play(f"llm:anthropic:{model},base_url={server.url}{extra}", tmp_path / "o.jsonl",
                capsys)
    no_fallback(game)
    assert game["adaptations"] == []
    body = server.requests[-1]["body"]
    effort = extra.rpartition("=")[2]
    assert body["thinking"] == {"type": "adaptive", "display": "summarized"}
    assert body["output_config"] == {"effort": effort}
    assert body["tool_choice"] == {"type": "auto"} and "temperature" not in body
    assert game["totals"]["reasoning"] == f"reasoning_effort={effort}"
    assert all(c["thinking"] for c in game["calls"]) and game["calls"]


def test_claude_4_6_takes_an_effort_with_adaptive_thinking_and_a_budget_as_before(
        server: FakeLLMServer) -> None:
    import random

    from helpers.llm_seat import anthropic_agent

    server.responder = AnthropicThinkingModel(thinks=300, efforts=CLAUDE_EFFORTS[:3])
    view, legal = play_card_position()
    anthropic_agent(server, ",reasoning_effort=medium").choose(view, legal, random.Random(0))
    body = server.requests[-1]["body"]
    # its thinking text is shown by default: no display asked for
    assert body["thinking"] == {"type": "adaptive"} and body["output_config"] == {
        "effort": "medium"}
    anthropic_agent(server, ",thinking=2048").choose(view, legal, random.Random(0))
    body = server.requests[-1]["body"]
    assert body["thinking"] == {"type": "enabled", "budget_tokens": 2048}
    assert "output_config" not in body


def test_a_reasoning_effort_the_model_refuses_stops_the_run(
        server: FakeLLMServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    server.responder = OpenAIReasoningModel(refused_efforts=("minimal",))
    path = tmp_path / "stopped.jsonl"
    code = main(["match", "--p1", f"llm:openai:gpt-5,base_url={server.url}/v1,api=chat,"
                 "reasoning_effort=minimal", "--p2", "random", "--seed", "4",
                 "--transcript", str(path)])
    err = capsys.readouterr().err
    assert code == 2
    line = err.strip().splitlines()[-1]
    assert "reasoning_effort=minimal" in line and "does not support 'minimal'" in line
    assert len(server.requests) == 1  # no retry, no random move on the model's behalf
    moves = [json.loads(x) for x in path.read_text().splitlines()[1:]]
    assert not any(m.get("player") == 1 for m in moves)


def test_totals_count_reasoning_tokens_and_name_the_setting() -> None:
    call = {"input_tokens": 10, "output_tokens": 50, "cached_tokens": 0, "latency_s": 0.1,
            "category": "OK", "cost_usd": None, "reasoning_tokens": 40}
    old = {k: v for k, v in call.items() if k != "reasoning_tokens"}  # before they were kept
    details = [{"llm": {"calls": [call, old], "attempts": 1, "legal_at_attempt": 1,
                        "fallback": None, "settings": {"reasoning_effort": None,
                                                       "thinking": 4096}}}]
    totals = llm_totals(details)
    assert totals is not None
    assert totals["reasoning_tokens"] == 40 and totals["reasoning"] == "thinking=4096"
    assert totals["output_tokens"] == 100  # reasoning tokens are among the output tokens


def test_replay_checks_reasoning_totals_and_reads_files_written_before_them(
        server: FakeLLMServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from duel.errors import TranscriptError

    server.responder = OpenAIReasoningModel(reasoning=100)
    path = tmp_path / "r.jsonl"
    play(f"llm:openai:o3,base_url={server.url}/v1,api=chat", path, capsys)
    lines = [json.loads(x) for x in path.read_text().splitlines()]

    def rewritten(edit: Any) -> Path:
        out = tmp_path / "edited.jsonl"
        copy = json.loads(json.dumps(lines))
        edit(copy[-1]["totals"]["1"])
        out.write_text("".join(json.dumps(x) + "\n" for x in copy))
        return out

    def older(totals: dict[str, Any]) -> None:  # a footer from before reasoning was counted
        del totals["reasoning_tokens"], totals["reasoning"]

    verified_result(read(rewritten(older)))

    def tampered(totals: dict[str, Any]) -> None:
        totals["reasoning_tokens"] += 1

    with pytest.raises(TranscriptError, match="field totals.1 differs"):
        verified_result(read(rewritten(tampered)))

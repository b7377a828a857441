"""The closing note's measurements of issue 28, against the fake providers (no network):

    PYTHONPATH=tests python tests/helpers/provider_measurements.py waste [GAMES [MAX_TOKENS]]

    PYTHONPATH=tests python tests/helpers/provider_measurements.py caching [GAMES]
    PYTHONPATH=tests python tests/helpers/provider_measurements.py projection [GAMES]
    PYTHONPATH=tests python tests/helpers/provider_measurements.py dryrun [GAMES]
    PYTHONPATH=tests python tests/helpers/provider_measurements.py summaries [GAMES]

`waste` plays GAMES (default 4) seeded `duel match` games of
`llm:openai:gpt-5.4,api=chat,reasoning_effort=xhigh` (Chat Completions, as when it was first
measured) against random on a reasoning model's fake that needs ~40,000 reasoning tokens per
move at xhigh (10,000 at medium, times 4, within +-50% per position), and prints the share of
the LLM's output tokens spent on replies that were not played, per game and over all games
(n games, with a bootstrap 95% CI over games). MAX_TOKENS, when given, is the spec's cap
(`max_tokens=`). Run it with another duel on PYTHONPATH first to compare.

`caching` plays GAMES games each against the caching fakes of OpenAI (gpt-5-mini, on Chat
Completions and on the Responses API, `llm:openai`'s default), Anthropic
(claude-sonnet-4-6) and OpenRouter in front of Anthropic (anthropic/claude-sonnet-4.6, billed at
a backend's prices 10% above the list), and prints the cached share of the input tokens of every
call after each game's first, and duel's cost of the OpenRouter games against OpenRouter's
usage.cost (and against the list price).

`projection` compares `duel llm check`'s projection of a game with what GAMES games cost.

`dryrun` runs `duel tournament --dry-run` for a GAMES-game tournament (default 20) of
`llm:anthropic:claude-sonnet-4-6` against random on the Anthropic caching fake (its tokens
counted by the fake's count_tokens endpoint), then plays that tournament, and prints the
projection against what the run spent (and the per-game spread, n games, bootstrap 95% CI).
`summaries` plays GAMES games of `llm:openai:gpt-5.4,reasoning_effort=high` (the default API,
Responses) on a reasoning model's fake, GAMES with `tools=on`, and GAMES with `api=chat` (Chat
Completions, the default before), and prints the share of calls whose thinking text was
recorded (n calls, Wilson 95% CI; and per game, bootstrap 95% CI over games).
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

from helpers.fake_caching_servers import (
    AnthropicCache,
    OpenAICache,
    OpenAIResponsesCache,
    OpenRouterAnthropic,
)
from helpers.fake_llm_server import FakeLLMServer
from helpers.fake_reasoning_servers import EFFORT_SCALE, OpenAIReasoningModel


def waste(games: int, cap: int | None = None) -> None:
    from duel.cli import main
    from duel.stats import bootstrap_ci

    os.environ.setdefault("OPENAI_API_KEY", "sk-test")
    rows: list[dict[str, Any]] = []
    with FakeLLMServer() as server, tempfile.TemporaryDirectory() as tmp:
        server.responder = OpenAIReasoningModel(reasoning=10_000, effort_scale=EFFORT_SCALE,
                                                spread=0.5, max_output=128_000)
        for seed in range(games):
            path = Path(tmp) / f"g{seed}.jsonl"
            spec = (f"llm:openai:gpt-5.4,base_url={server.url}/v1,api=chat,"
                    "reasoning_effort=xhigh,fallback=random"
                    + (f",max_tokens={cap}" if cap else ""))
            code = main(["match", "--p1", spec, "--p2", "random", "--seed", str(seed),
                         "--transcript", str(path)])
            assert code == 0, code
            lines = [json.loads(x) for x in path.read_text().splitlines()]
            calls = [c for m in lines[1:-1] if m.get("player") == 1
                     for c in m["details"]["llm"]["calls"]]
            out = sum(c["output_tokens"] for c in calls)
            lost = sum(c["output_tokens"] for c in calls if c["category"] != "OK")
            cut = sum(1 for c in calls if c["category"] == "TRUNCATED")
            usd = sum(c["cost_usd"] or 0.0 for c in calls)
            lost_usd = sum(c["cost_usd"] or 0.0 for c in calls if c["category"] != "OK")
            rows.append({"seed": seed, "calls": len(calls), "truncated": cut, "output": out,
                         "unusable": lost, "share": lost / out, "usd": usd,
                         "unusable_usd": lost_usd})
            print(f"game {seed}: {len(calls)} calls, {cut} cut off; {lost} of {out} output "
                  f"tokens on unusable replies ({lost / out:.1%}); ${lost_usd:.2f} of "
                  f"${usd:.2f}", flush=True)
    out = sum(r["output"] for r in rows)
    lost = sum(r["unusable"] for r in rows)
    lo, hi = bootstrap_ci([r["share"] for r in rows])
    print(f"all {len(rows)} games: {sum(r['calls'] for r in rows)} calls, "
          f"{sum(r['truncated'] for r in rows)} cut off; {lost} of {out} output tokens on "
          f"unusable replies = {lost / out:.1%} (per-game mean "
          f"{sum(r['share'] for r in rows) / len(rows):.1%}, bootstrap 95% CI {lo:.1%}-{hi:.1%},"
          f" n={len(rows)} games); ${sum(r['unusable_usd'] for r in rows):.2f} of "
          f"${sum(r['usd'] for r in rows):.2f}")


def _games(spec: str, games: int) -> list[list[dict[str, Any]]]:
    """Each game's LLM calls (player 1)."""
    from duel.cli import main

    out = []
    with tempfile.TemporaryDirectory() as tmp:
        for seed in range(games):
            path = Path(tmp) / f"g{seed}.jsonl"
            assert main(["match", "--p1", spec, "--p2", "random", "--seed", str(seed),
                         "--transcript", str(path)]) == 0
            lines = [json.loads(x) for x in path.read_text().splitlines()]
            out.append([c for m in lines[1:-1] if m.get("player") == 1
                        for c in m["details"]["llm"]["calls"]])
    return out


def caching(games: int) -> None:
    from duel.accounting.prices import cost
    from duel.stats import bootstrap_ci

    for key in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "OPENROUTER_API_KEY"):
        os.environ.setdefault(key, "sk-test")
    backend = {"input": 3.3, "output": 16.5, "cached_input": 0.33, "cache_write_input": 4.125}
    results = []
    for name, responder, spec in (
            ("OpenAI gpt-5-mini", OpenAICache(),
             "llm:openai:gpt-5-mini,base_url={url}/v1,api=chat"),
            ("OpenAI gpt-5-mini, Responses API", OpenAIResponsesCache(),
             "llm:openai:gpt-5-mini,base_url={url}/v1"),
            ("Anthropic claude-sonnet-4-6", AnthropicCache(),
             "llm:anthropic:claude-sonnet-4-6,base_url={url}"),
            ("OpenRouter anthropic/claude-sonnet-4.6", OpenRouterAnthropic(backend),
             "llm:openrouter:anthropic/claude-sonnet-4.6,base_url={url}/v1")):
        with FakeLLMServer(responder) as server:
            played = _games(spec.format(url=server.url), games)
        later = [c for calls in played for c in calls[1:]]
        share = sum(c["cached_tokens"] for c in later) / sum(c["input_tokens"] for c in later)
        per_game = [sum(c["cached_tokens"] for c in calls[1:])
                    / sum(c["input_tokens"] for c in calls[1:]) for calls in played]
        lo, hi = bootstrap_ci(per_game)
        results.append((name, responder, played))
        print(f"{name}: cached share of input after each game's first call {share:.1%} "
              f"(bootstrap 95% CI over games {lo:.1%}-{hi:.1%}; n={len(played)} games, "
              f"{len(later)} calls)", flush=True)
    _, bill, played = results[-1]
    calls = [c for g in played for c in g]
    billed = sum(bill.billed)
    if any(c["cost_usd"] is None for c in calls):
        print(f"OpenRouter: duel's cost unknown (no price) for {len(played)} games; usage.cost "
              f"${billed:.6f}")
        return
    duel_usd = sum(c["cost_usd"] for c in calls)
    listed = sum(cost("claude-sonnet-4-6", c["input_tokens"], c["output_tokens"],
                      c["cached_tokens"], cache_write_tokens=c["cache_write_tokens"]) or 0.0
                 for c in calls)
    diffs = [abs(sum(c["cost_usd"] for c in g) - sum(b for b in bill.billed[i:i + len(g)]))
             for i, g in zip(_starts(played), played, strict=True)]
    print(f"OpenRouter: duel's cost ${duel_usd:.6f} for {len(played)} games ({len(calls)} "
          f"calls), usage.cost ${billed:.6f}: difference {abs(duel_usd - billed) / billed:.4%} "
          f"(largest per game ${max(diffs):.2e}); the list price would say ${listed:.6f} "
          f"({(listed - billed) / billed:+.1%})")


def _starts(played: list[list[dict[str, Any]]]) -> list[int]:
    starts, at = [], 0
    for g in played:
        starts.append(at)
        at += len(g)
    return starts


def projection(games: int) -> None:
    """`duel llm check`'s projection of a game against what games then cost, on the Anthropic
    caching fake (its first call writes the cache, later ones read it)."""
    from duel.cli.llm import DECISIONS_PER_SEAT, check

    os.environ.setdefault("ANTHROPIC_API_KEY", "sk-test")
    with FakeLLMServer(AnthropicCache()) as server:
        spec = f"llm:anthropic:claude-sonnet-4-6,base_url={server.url}"
        found = check(spec, 0)
    with FakeLLMServer(AnthropicCache()) as server:  # a cold cache, as a run starts
        played = _games(f"llm:anthropic:claude-sonnet-4-6,base_url={server.url}", games)
    costs = [sum(c["cost_usd"] for c in g) for g in played]
    mean = sum(costs) / len(costs)
    p = found["projection"]
    old = found["cost_usd"] * DECISIONS_PER_SEAT
    print(f"a game's cost: mean ${mean:.4f} over n={len(costs)} games (min ${min(costs):.4f}, "
          f"max ${max(costs):.4f}); duel llm check projects ${p['cost_usd']:.4f} "
          f"(${p['low_usd']:.4f}-${p['high_usd']:.4f}), {p['cost_usd'] / mean - 1:+.1%}; the "
          f"cold call x {DECISIONS_PER_SEAT} said ${old:.4f}, {old / mean - 1:+.1%}")


def dryrun(games: int, jobs: int = 2) -> None:
    from duel.records import read_games
    from duel.runs.tournament import dry_run, run
    from duel.stats import bootstrap_ci

    os.environ.setdefault("ANTHROPIC_API_KEY", "sk-test")
    with FakeLLMServer(AnthropicCache()) as server, tempfile.TemporaryDirectory() as tmp:
        spec = f"llm:anthropic:claude-sonnet-4-6,base_url={server.url}"
        projected = dry_run(spec, "random", games, seed=0, jobs=jobs, out=tmp)
        counted = len(server.requests)
        assert all(r["path"].endswith("/count_tokens") for r in server.requests)
        run(spec, "random", games, seed=0, jobs=jobs, out=tmp, progress=False)
        played = read_games(Path(tmp) / "games.jsonl")
    per_game = [sum(t["cost_usd"] for t in (g.totals or {}).values() if t) for g in played]
    calls = sum(t["calls"] for g in played for t in (g.totals or {}).values() if t)
    spent = sum(per_game)
    total = projected.total
    assert total is not None
    lo, hi = bootstrap_ci(per_game)
    print(projected.text())
    print(f"{counted} count_tokens requests before the run, none to messages")
    print(f"spent: ${spent:.4f} over n={len(played)} games, {calls} LLM calls (per game mean "
          f"${spent / len(played):.4f}, bootstrap 95% CI ${lo:.4f}-${hi:.4f}); projected "
          f"${total.usd:.4f} (${total.low_usd:.4f} to ${total.high_usd:.4f}): "
          f"{total.usd / spent - 1:+.1%}; calls projected {projected.calls()[0]}, made {calls}")


def summaries(games: int) -> None:
    from helpers.fake_responses_server import OpenAIResponsesModel
    from helpers.fake_responses_tools import ResponsesToolModel

    from duel.stats import bootstrap_ci, wilson

    os.environ.setdefault("OPENAI_API_KEY", "sk-test")
    spec = "llm:openai:gpt-5.4,base_url={url}/v1,reasoning_effort=high"
    for name, responder, extra in (
            ("Responses (default)", lambda: OpenAIResponsesModel(OpenAIReasoningModel(
                reasoning=4000, effort_scale=EFFORT_SCALE, spread=0.5, max_output=128_000)),
             ""),
            ("Responses, tools=on", lambda: ResponsesToolModel("careful"), ",tools=on"),
            ("Chat Completions (api=chat)", lambda: OpenAIReasoningModel(
                reasoning=4000, effort_scale=EFFORT_SCALE, spread=0.5, max_output=128_000),
             ",api=chat")):
        with FakeLLMServer(responder()) as server:
            played = _games(spec.format(url=server.url) + extra, games)
        calls = [c for g in played for c in g]
        said = sum(1 for c in calls if c["thinking"].strip())
        lo, hi = wilson(said, len(calls))
        glo, ghi = bootstrap_ci([sum(1 for c in g if c["thinking"].strip()) / len(g)
                                 for g in played])
        print(f"{name}: reasoning text recorded for {said} of {len(calls)} calls = "
              f"{said / len(calls):.1%} (Wilson 95% CI {lo:.1%}-{hi:.1%}; per game bootstrap "
              f"95% CI {glo:.1%}-{ghi:.1%}, n={len(played)} games)", flush=True)


if __name__ == "__main__":
    what = sys.argv[1] if len(sys.argv) > 1 else "waste"
    if what == "waste":
        waste(int(sys.argv[2]) if len(sys.argv) > 2 else 4,
              int(sys.argv[3]) if len(sys.argv) > 3 else None)
    elif what == "projection":
        projection(int(sys.argv[2]) if len(sys.argv) > 2 else 4)
    elif what == "dryrun":
        dryrun(int(sys.argv[2]) if len(sys.argv) > 2 else 20)
    elif what == "caching":
        caching(int(sys.argv[2]) if len(sys.argv) > 2 else 4)
    elif what == "summaries":
        summaries(int(sys.argv[2]) if len(sys.argv) > 2 else 4)
    else:
        raise SystemExit(f"unknown measurement {what!r}: waste, caching, projection, dryrun "
                         "or summaries")

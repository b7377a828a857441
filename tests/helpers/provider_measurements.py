"""The closing note's measurements of issue 28, against the fake providers (no network):

    PYTHONPATH=tests python tests/helpers/provider_measurements.py waste [GAMES [MAX_TOKENS]]

plays GAMES (default 4) seeded `duel match` games of `llm:openai:gpt-5.4,reasoning_effort=xhigh`
against random on a reasoning model's fake that needs ~40,000 reasoning tokens per move at xhigh
(10,000 at medium, times 4, within +-50% per position), and prints the share of the LLM's output
tokens spent on replies that were not played, per game and over all games (n games, with a
bootstrap 95% CI over games). MAX_TOKENS, when given, is the spec's cap (`max_tokens=`). Run
it with another duel on PYTHONPATH first to compare.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

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
            spec = (f"llm:openai:gpt-5.4,base_url={server.url}/v1,reasoning_effort=xhigh,"
                    "fallback=random" + (f",max_tokens={cap}" if cap else ""))
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


if __name__ == "__main__":
    what = sys.argv[1] if len(sys.argv) > 1 else "waste"
    if what == "waste":
        waste(int(sys.argv[2]) if len(sys.argv) > 2 else 4,
              int(sys.argv[3]) if len(sys.argv) > 3 else None)
    else:
        raise SystemExit(f"unknown measurement {what!r}: waste")

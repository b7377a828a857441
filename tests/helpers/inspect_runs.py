"""Running duel's Inspect tasks in the tests: `inspect eval` in a fresh process against the
LLM tests' loopback FakeLLMServer (Inspect's own `openai-api` provider), whose scripted model
answers a legal move of the position it is shown, the same one every time it is shown it."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from helpers.fake_llm_server import Scripted, openai_reply
from helpers.fake_tool_models import OpenAIToolModel

from duel.grading.positions.suite import engine_legal

MODEL = "openai-api/fake/m"


def text_of(content: Any) -> str:
    """A message's text, whether sent as a string or as parts."""
    if isinstance(content, str):
        return content
    return "".join(p.get("text", "") for p in content if isinstance(p, dict))


def view_of(body: dict[str, Any]) -> dict[str, Any]:
    """The view in the decision's first user message (the turn message opens with it)."""
    text = next(text_of(m["content"]) for m in body["messages"] if m["role"] == "user")
    obj, _ = json.JSONDecoder().raw_decode(text, text.index("{"))
    return dict(obj)


def legal_reply(body: dict[str, Any]) -> Scripted:
    """One of the legal moves of the view shown, chosen by the view's hash (deterministic)."""
    view = view_of(body)
    legal = engine_legal(view)
    pick = int(hashlib.sha256(json.dumps(view, sort_keys=True).encode()).hexdigest(), 16)
    return openai_reply(json.dumps(legal[pick % len(legal)].to_json()), prompt_tokens=900,
                        completion_tokens=15, cached=0)


def inspect_eval(tmp_path: Path, task: str, *extra: str, expect_rc: int = 0,
                 **task_args: Any) -> Path:
    """Run `inspect eval TASK -T k=v ... EXTRA` in `tmp_path` (outside the checkout, as a
    user would) and return its log file."""
    logs = tmp_path / "logs"
    args = [str(Path(sys.executable).parent / "inspect"), "eval", task, "--model", MODEL,
            "--log-dir", str(logs), "--display", "none", "--log-format", "eval",
            *[a for k, v in task_args.items() for a in ("-T", f"{k}={v}")], *extra]
    done = subprocess.run(args, cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert done.returncode == expect_rc, done.stdout + done.stderr
    found = sorted(logs.glob("*.eval"))
    assert len(found) == 1, (found, done.stdout + done.stderr)
    return found[0]


class InspectToolModel(OpenAIToolModel):
    """The scripted tool-calling model, reading Inspect's requests (a message's text may come
    as content parts) and giving its replies' total tokens, which Inspect's limits count."""

    def __call__(self, body: dict[str, Any]) -> Any:
        body = {**body, "messages": [{**m, "content": text_of(m["content"])}
                                     if m.get("content") is not None else m
                                     for m in body["messages"]]}
        reply = super().__call__(body)
        u = reply.body.get("usage")
        if u:  # the script leaves the total out (duel reads the parts); Inspect counts it
            u["total_tokens"] = u["prompt_tokens"] + u["completion_tokens"]
        return reply

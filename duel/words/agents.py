"""Agents in words: a spec as people say it ("MCTS at 1 s a move", "gpt-5-mini on openai"), an
attempt's category, and the lines of an agent's details that are neither search statistics nor
LLM calls."""

from __future__ import annotations

from typing import Any

from duel.prompts.harness import OPTIONS as HARNESS_OPTIONS

# An LLM's or a remote bot's attempt, by its category (duel.agents.llm.categories).
CATEGORY = {"OK": "a legal move", "ILLEGAL": "an illegal move", "SCHEMA": "not a move",
            "UNPARSABLE": "no move in the reply", "EMPTY": "an empty reply",
            "TRUNCATED": "cut off at its token limit", "TRANSPORT": "no answer in time",
            "REFUSED": "refused by the remote server", "TOOLS": "looked something up",
            "TOOL_STEPS": "its tool steps used up without a move"}

_KIND = {"random": "random", "rule": "rule-based", "dqn": "the learned agent (DQN)",
         "external": "a person or bot", "human": "a person"}


def agent_name(spec: str | None) -> str:
    """An agent spec in words: "mcts:time=1" -> "MCTS at 1 s a move", "llm:local" -> "the
    local model", "llm:openai:gpt-5-mini" -> "gpt-5-mini on openai"."""
    if not spec:
        return "unknown"
    kind, _, rest = spec.partition(":")
    opts = dict(o.partition("=")[::2] for o in rest.split(",") if "=" in o)
    if kind in _KIND and not rest:
        return _KIND[kind]
    if kind == "mcts":
        if "time" in opts:
            return f"MCTS at {opts['time']} s a move"
        if "iterations" in opts:
            return f"MCTS at {opts['iterations']} iterations"
        return "MCTS"
    if kind == "llm":
        provider, _, model = rest.split(",")[0].partition(":")
        # a player is its spec, harness settings included (duel.prompts.harness)
        harness = [f"{k}={opts[k]}" for k in HARNESS_OPTIONS if k in opts]
        tail = f" ({', '.join(harness)})" if harness else ""
        if not model:  # only the shipped model is named without one (llm:local)
            return "the local model" + tail
        model = model.split("@")[0] or provider
        return (f"{model} on {provider}" if model != provider else model) + tail
    if kind == "http":
        return "a remote bot"
    return _KIND.get(kind, spec.split(",")[0])


def details_words(details: dict[str, Any]) -> list[str]:
    """The lines of an agent's details that are not search statistics or LLM calls, in words
    (the rule agent's reason, a search's reuse)."""
    out = []
    if "rule" in details:
        out.append(f"Why: {details['rule']}")
    if details.get("reused"):
        out.append(f"kept {details['reused']} visits from its previous search")
    if details.get("workers"):
        out.append(f"searched in {details['workers']} processes")
    return out

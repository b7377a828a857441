"""Agent spec strings, used everywhere (CLI, server, transcripts).

``random``, ``rule``, ``mcts:iterations=2000``, ``mcts:time=1.0,c=0.7,seed=3``. Other kinds
(``llm:...``, ``http:...``) register a parser of their own with :func:`register`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from duel.agents.base import Agent
from duel.errors import SpecError


@dataclass(frozen=True)
class Param:
    type: type
    default: Any
    help: str


@dataclass(frozen=True)
class AgentKind:
    name: str
    help: str
    params: dict[str, Param]
    factory: Callable[..., Agent]
    # Kinds whose spec has a positional part (llm:openai:MODEL, http:URL) parse it themselves.
    custom_parser: Callable[[str], Agent] | None = None


_KINDS: dict[str, AgentKind] = {}


def register(kind: AgentKind) -> None:
    _KINDS[kind.name] = kind


def kinds() -> dict[str, AgentKind]:
    _load_builtins()
    return dict(_KINDS)


def parse_params(kind: AgentKind, text: str) -> dict[str, Any]:
    """``k=v,k=v`` into typed keyword arguments, checked against the kind's parameters."""
    out: dict[str, Any] = {}
    if not text:
        return out
    for item in text.split(","):
        key, sep, raw = item.partition("=")
        key = key.strip()
        if not sep or not key:
            raise SpecError(f"{kind.name}: expected key=value, got {item!r}")
        if key not in kind.params:
            valid = ", ".join(kind.params) or "(none)"
            raise SpecError(f"{kind.name}: unknown parameter {key!r}; valid parameters: {valid}")
        if key in out:
            raise SpecError(f"{kind.name}: parameter {key!r} is given twice")
        param = kind.params[key]
        try:
            if param.type is bool:
                if raw.lower() not in ("true", "false", "1", "0"):
                    raise ValueError(raw)
                value: Any = raw.lower() in ("true", "1")
            else:
                value = param.type(raw)
        except ValueError:
            raise SpecError(f"{kind.name}: {key} must be {param.type.__name__}, got {raw!r}") \
                from None
        out[key] = value
    return out


def make_agent(spec: str) -> Agent:
    """Build an agent from its spec. Raises SpecError listing the valid choices."""
    _load_builtins()
    name, _, rest = spec.strip().partition(":")
    if name not in _KINDS:
        raise SpecError(f"unknown agent {name!r}; valid agents: {', '.join(sorted(_KINDS))}")
    kind = _KINDS[name]
    if kind.custom_parser is not None:
        return kind.custom_parser(rest)
    try:
        agent = kind.factory(**parse_params(kind, rest))
    except (TypeError, ValueError) as exc:
        if isinstance(exc, SpecError):
            raise
        raise SpecError(f"{name}: {exc}") from None
    agent.spec = spec.strip()
    return agent


def describe_kinds() -> str:
    lines = []
    for kind in kinds().values():
        params = ", ".join(f"{k}={p.default}" for k, p in kind.params.items())
        lines.append(f"{kind.name}: {kind.help}" + (f" [{params}]" if params else ""))
    return "\n".join(lines)


_loaded = False


def _load_builtins() -> None:
    global _loaded
    if _loaded:
        return
    _loaded = True
    from duel.agents import builtin  # noqa: F401  (registers random, rule, mcts)

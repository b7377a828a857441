"""Agent spec strings, used everywhere (CLI, server, transcripts), and the registry of kinds.

``random``, ``rule``, ``mcts:iterations=2000``, ``mcts:time=1.0,c=0.7,seed=3``,
``llm:openai:gpt-5-mini,reasoning_effort=low``, ``dqn:PATH``. The built-in kinds are listed in
:mod:`duel.agents.builtin`; others (test agents, plug-ins) are added with :func:`register`.
A kind's code is imported only when an agent of that kind is built.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from duel.agents.base import Agent
from duel.agents.builtin import BUILTIN_KINDS
from duel.agents.kinds import AgentKind, Param, load, parse_params
from duel.errors import SpecError

__all__ = ["AgentKind", "Param", "SpecParts", "describe_kinds", "kinds", "make_agent",
           "parse_params", "register", "split_spec", "unregister"]

_KINDS: dict[str, AgentKind] = {kind.name: kind for kind in BUILTIN_KINDS}


def register(kind: AgentKind) -> None:
    """Add `kind` (or replace the kind of that name) for :func:`make_agent`."""
    _KINDS[kind.name] = kind


def unregister(name: str) -> None:
    """Remove the kind called `name`, if there is one."""
    _KINDS.pop(name, None)


def kinds() -> dict[str, AgentKind]:
    return dict(_KINDS)


def make_agent(spec: str) -> Agent:
    """Build an agent from its spec. Raises SpecError listing the valid choices."""
    name, _, rest = spec.strip().partition(":")
    if name not in _KINDS:
        raise SpecError(f"unknown agent {name!r}; valid agents: {', '.join(sorted(_KINDS))}")
    kind = _KINDS[name]
    if kind.custom_parser is not None:
        parser: Callable[[str], Agent] = load(kind.custom_parser, name)
        return parser(rest)
    assert kind.factory is not None  # AgentKind insists on one of the two
    factory: Callable[..., Agent] = load(kind.factory, name)
    try:
        agent = factory(**parse_params(kind, rest))
    except (TypeError, ValueError) as exc:
        if isinstance(exc, SpecError):
            raise
        raise SpecError(f"{name}: {exc}") from None
    agent.spec = spec.strip()
    return agent


def describe_kinds() -> str:
    """One line per kind: name, help and options with their defaults (imports no kind's code)."""
    lines = []
    for kind in _KINDS.values():
        params = ", ".join(f"{k}={p.default}" for k, p in kind.params.items())
        lines.append(f"{kind.name}: {kind.help}" + (f" [{params}]" if params else ""))
    return "\n".join(lines)


@dataclass(frozen=True)
class SpecParts:
    """A spec's text in its parts, unchecked: the kind, the positional part (an LLM's
    ``PROVIDER:MODEL[@URL]``, a model file, a remote URL; "" when there is none) and the
    ``key=value`` options as written."""

    kind: str
    target: str
    options: tuple[tuple[str, str], ...]

    @property
    def model(self) -> str:
        """The model's (or file's) own name in the target: ``gpt-5-mini`` of
        ``openai:gpt-5-mini``, ``m`` of ``compat:m@http://...``, a path's last part."""
        return self.target.split("@")[0].rpartition(":")[2].rpartition("/")[2]


def split_spec(spec: str) -> SpecParts:
    """The parts of `spec` (see SpecParts); what `make_agent` and the kinds' parsers check."""
    kind, _, rest = spec.strip().partition(":")
    items = [item for item in rest.split(",")] if rest else []
    target = ""
    if items and "=" not in items[0].split("?")[0]:
        target = items.pop(0)
    options = tuple((k.strip(), v) for k, _, v in (item.partition("=") for item in items))
    return SpecParts(kind, target, options)

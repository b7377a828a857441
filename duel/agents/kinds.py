"""What an agent kind is: its spec name, help, option table, and where its builder lives.

A kind's builder may be named as ``"module:attribute"`` instead of given as an object: it is then
imported when an agent of that kind is first built, so that building a ``random`` agent never
imports numpy (dqn), tenacity (llm) or the search code (mcts).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

from duel.agents.base import Agent
from duel.errors import SpecError
from duel.util.numbers import ascii_float, ascii_int

Builder = TypeVar("Builder", bound=Callable[..., Any])


@dataclass(frozen=True)
class Param:
    type: type
    default: Any
    help: str


@dataclass(frozen=True)
class AgentKind:
    """`factory` takes the parsed ``k=v`` options as keyword arguments. Kinds whose spec has a
    positional part (``llm:openai:MODEL``, ``dqn:PATH``) give `custom_parser` instead, which takes
    the whole text after ``name:``. Either may be a ``"module:attribute"`` path."""

    name: str
    help: str
    params: Mapping[str, Param] = field(default_factory=dict)
    factory: Callable[..., Agent] | str | None = None
    custom_parser: Callable[[str], Agent] | str | None = None

    def __post_init__(self) -> None:
        if (self.factory is None) == (self.custom_parser is None):
            raise SpecError(f"agent kind {self.name!r} needs a factory or a custom parser, "
                            "not both and not neither")
        for target in (self.factory, self.custom_parser):
            if isinstance(target, str) and len(target.split(":")) != 2:
                raise SpecError(f"agent kind {self.name!r}: {target!r} is not 'module:attribute'")


def load(target: Builder | str, kind: str) -> Builder:
    """`target` itself, or the object its ``"module:attribute"`` path names, imported now."""
    if not isinstance(target, str):
        return target
    module, _, attr = target.partition(":")
    try:
        loaded = getattr(importlib.import_module(module), attr)
    except (ImportError, AttributeError) as exc:
        raise SpecError(f"{kind}: cannot load {target} ({exc})") from exc
    if not callable(loaded):
        raise SpecError(f"{kind}: {target} is not callable")
    built: Builder = loaded
    return built


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
                    raise ValueError(raw)  # caught here: told as a SpecError below
                value: Any = raw.lower() in ("true", "1")
            elif param.type is int:
                value = ascii_int(raw.strip(), f"{kind.name}: {key}")
            elif param.type is float:
                value = ascii_float(raw.strip(), f"{kind.name}: {key}")
            else:
                value = param.type(raw)
        except SpecError:
            raise
        except ValueError:
            raise SpecError(f"{kind.name}: {key} must be {param.type.__name__}, got {raw!r}") \
                from None
        out[key] = value
    return out

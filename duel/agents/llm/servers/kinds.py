"""What each OpenAI-compatible server does with structured output (the table behind
servers.py, kept apart so that adapt.py can read a server's fallback order)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ServerKind:
    """What a server does with structured output. `enforces`: the modes whose schema it turns
    into a grammar; `order`: the modes to fall back through when one is refused."""

    name: str
    label: str
    enforces: frozenset[str]
    order: tuple[str, ...]
    source: str

    def fallback(self, mode: str) -> str | None:
        """The mode after `mode` in this server's order (None: none left)."""
        later = self.order[self.order.index(mode) + 1:] if mode in self.order else ()
        return later[0] if later else None


KINDS: dict[str, ServerKind] = {k.name: k for k in (
    ServerKind("llamacpp", "llama.cpp's server", frozenset({"json_schema", "json_object"}),
               ("json_schema", "json_object", "text"),
               "llama.cpp tools/server README: response_format json_object with a schema and "
               "json_schema both become a grammar; a named tool_choice is not honoured"),
    ServerKind("vllm", "vLLM", frozenset({"json_schema", "tool"}),
               ("json_schema", "tool", "json_object", "text"),
               "docs.vllm.ai structured outputs (response_format json_schema) and tool calling "
               "(named function calling is constrained); json_object is JSON mode only"),
    ServerKind("ollama", "Ollama", frozenset({"json_schema"}),
               ("json_schema", "json_object", "text"),
               "Ollama OpenAI compatibility (v0.5.0 on: response_format json_schema through "
               "llama.cpp's grammar; json_object is JSON mode; tool_choice is not supported)"),
)}
UNKNOWN = ServerKind("unknown", "a server duel cannot name", frozenset(),
                     ("json_schema", "tool", "json_object", "text"),
                     "the OpenAI API's own order: json_schema, a tool, JSON mode, text")

def kind_of(name: str | None) -> ServerKind | None:
    return None if name is None else KINDS.get(name, UNKNOWN)


_known: dict[str, tuple[ServerKind, str]] = {}  # base URL -> kind and how it was told


def forget() -> None:
    """Look servers up again (a fresh process; tests)."""
    _known.clear()

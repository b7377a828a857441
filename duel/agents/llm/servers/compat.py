"""Which OpenAI-compatible server answers a `llm:compat` endpoint, and what it enforces.

Compatible servers accept the same request fields and differ in what they do with them, often
silently: llama.cpp's server answers a forced named tool (`tool_choice: {"type": "function",
...}`) with plain text (checked against the build `llm:local` ships: the reply named a tool of
its own making); vLLM and Ollama take `response_format: {"type": "json_object", "schema": ...}`
as plain JSON mode and ignore the schema. A request nothing refuses cannot tell duel what was
ignored, and a probe call cannot either (a model may write a legal move unconstrained), so what
each server enforces comes from its documentation, in `KINDS`, and which server answers from a
free look-up: the `owned_by` of the first model in `GET {base}/models` (llama.cpp's server says
`llamacpp`, vLLM `vllm`), else Ollama's own `GET /api/version`. `server=` in the spec names it
instead (no look-up). One look-up per endpoint per process.

From the kind: the structured output a refused `response_format` falls back to (llama.cpp: to
`json_object` with the schema, which it enforces, not to a tool it would ignore), and whether
`constrain=legal` can hold: it needs a mode whose schema the server enforces, else it is
refused before the first request, in one line. On a server duel cannot name it is refused too:
nothing says the grammar would be applied.
"""

from __future__ import annotations

from typing import Any

import httpx

from duel.agents.llm.providers.registry import capabilities
from duel.agents.llm.servers.kinds import KINDS, UNKNOWN, ServerKind, _known, kind_of
from duel.agents.llm.transport.adapt import learn
from duel.errors import LLMConfigError, SpecError

__all__ = ["KINDS", "UNKNOWN", "ServerKind", "kind_of", "identify", "prepare"]

LOOKUP_TIMEOUT = 5.0  # seconds per GET of the look-up




def kind_named(name: str) -> ServerKind:
    """The kind `server=NAME` names (SpecError for another name)."""
    if name not in KINDS:
        raise SpecError(f"llm:compat: server must be one of {', '.join(KINDS)}, got {name!r}")
    return KINDS[name]


async def identify(base_url: str) -> tuple[ServerKind, str]:
    """The server answering at `base_url` and how duel knows, looked up once per process."""
    base = base_url.rstrip("/")
    if base not in _known:  # two first calls at once may both look: the same answer
        _known[base] = await _look_up(base)
    return _known[base]


async def _look_up(base: str) -> tuple[ServerKind, str]:
    async with httpx.AsyncClient(timeout=LOOKUP_TIMEOUT, trust_env=False) as client:
        owner = await _get_json(client, base + "/models")
        data = owner.get("data") if isinstance(owner, dict) else None
        first = data[0] if isinstance(data, list) and data and isinstance(data[0], dict) \
            else {}
        owned_by = str(first.get("owned_by") or "")
        if owned_by in KINDS:
            return KINDS[owned_by], f"GET {base}/models: owned_by {owned_by}"
        root = base[:-3] if base.endswith("/v1") else base
        version = await _get_json(client, root + "/api/version")
        if isinstance(version, dict) and isinstance(version.get("version"), str):
            return KINDS["ollama"], f"GET {root}/api/version: Ollama {version['version']}"
    said = f"owned_by {owned_by}" if owned_by else "no owner"
    return UNKNOWN, f"GET {base}/models: {said}; no Ollama at {root}/api/version"


async def _get_json(client: httpx.AsyncClient, url: str) -> Any:
    try:
        response = await client.get(url)
        return response.json() if response.is_success else None
    except (httpx.HTTPError, ValueError):
        return None


def constrain_refusal(kind: ServerKind, mode: str, url: str, evidence: str = "") -> str | None:
    """Why `constrain=legal` cannot hold in `mode` on `kind` (one line), or None if it can."""
    if mode in kind.enforces:
        return None
    if kind is UNKNOWN:
        return (f"llm:compat: constrain=legal needs a server that enforces the schema, and duel "
                f"cannot tell which server answers at {url} ({evidence}); if it is one of "
                f"{', '.join(KINDS)}, add server=NAME, else use constrain=shape")
    modes = " or ".join(m for m in kind.order if m in kind.enforces)
    return (f"llm:compat: constrain=legal with mode={mode} would constrain nothing: "
            f"{kind.label} ignores that schema ({kind.source}); use mode={modes}")


def check_spec(kind: ServerKind, mode: str, url: str) -> None:
    """constrain=legal against a server named in the spec (SpecError, at the start)."""
    reason = constrain_refusal(kind, mode, url)
    if reason is not None:
        raise SpecError(reason)


async def prepare(agent: Any) -> None:
    """Before a compatible server's request: which server answers (remembered for the process,
    shown as the settings' `server`), and constrain=legal refused (LLMConfigError, one line)
    where the server would not enforce it in the mode about to be sent."""
    provider = agent.provider
    caps = capabilities(provider)
    if not caps.compatible_server:
        return
    settings = agent.effective_settings()
    if settings.server is not None:
        kind, evidence = kind_of(settings.server) or UNKNOWN, "named in the spec"
    elif caps.known_server:
        kind = KINDS[caps.known_server]
        evidence = f"llm:{provider.name} runs {kind.label}"
    else:
        kind, evidence = await identify(provider.base_url)
    if settings.server is None:
        learn(agent.endpoint, provider.model, {"server": kind.name})
    if agent.constrain == "legal":
        reason = constrain_refusal(kind, agent.effective_settings().mode,
                                   getattr(provider, "base_url", ""), evidence)
        if reason is not None:
            raise LLMConfigError(reason)

"""Any OpenAI-compatible server (`llm:compat:MODEL@URL`: vLLM, Ollama, llama.cpp's server):
Chat Completions at the URL, its key from DUEL_COMPAT_API_KEY if it wants one. Which server it
is, and so what it enforces, is looked up at the first call (servers.py) or named by
`server=`."""

from __future__ import annotations

import os

from duel.agents.llm.providers.openai_chat import OpenAIProvider
from duel.agents.llm.providers.registry import KINDS, BuildOptions
from duel.errors import SpecError


def build(target: str, o: BuildOptions) -> OpenAIProvider:
    model, sep, url = target.partition("@")
    if not sep or not model or not url.startswith(("http://", "https://")):
        raise SpecError("llm:compat needs MODEL@URL, e.g. "
                        "llm:compat:qwen2.5@http://127.0.0.1:8000/v1")
    # json_schema: what llama.cpp, vLLM and Ollama all enforce (a forced tool llama.cpp and
    # Ollama ignore); a server that refuses it falls back in its own order (servers.py)
    return OpenAIProvider("compat", model, os.environ.get("DUEL_COMPAT_API_KEY", "sk-none"), url,
                          o.mode or "json_schema", o.timeout, caps=KINDS["compat"].caps)

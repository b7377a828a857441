"""OpenRouter (`llm:openrouter:VENDOR/MODEL`): Chat Completions in front of many makers' models.

Its own options go in the request body: reasoning as its `reasoning` object, and `provider=`
pins one backend with no fallback, so that a result is reproducible on one provider. It caches
Anthropic models only when the system message carries `cache_control` (caching.py), and each
reply states what it billed (`usage.cost`), which is recorded as the call's cost.
"""

from __future__ import annotations

from typing import Any

from duel.agents.llm import caching
from duel.agents.llm.providers.openai_chat import OpenAIProvider, key
from duel.agents.llm.providers.registry import KINDS, BuildOptions
from duel.agents.llm.transport.adapt import Settings

URL = "https://openrouter.ai/api/v1"


class OpenRouterProvider(OpenAIProvider):
    caps = KINDS["openrouter"].caps

    def _reasoning(self, s: Settings, kwargs: dict[str, Any], extra: dict[str, Any]) -> None:
        if s.reasoning_effort is not None:
            extra["reasoning"] = {"effort": s.reasoning_effort}
        if s.provider_pin:
            extra["provider"] = {"order": [s.provider_pin], "allow_fallbacks": False}

    def _system(self, system: str) -> dict[str, Any]:
        return caching.system_message(system, marked=self.model.startswith("anthropic/"))


def build(target: str, o: BuildOptions) -> OpenRouterProvider:
    kind = KINDS["openrouter"]
    return OpenRouterProvider(kind.name, target, key(kind.key_env, kind.name),
                              o.base_url or URL, o.mode or "json_schema", o.timeout)

"""The LLM providers, one module each (openai_chat, openai_responses, anthropic_messages,
openrouter, compat, local), behind one async call (base.Provider) and described by their
capabilities (base.Capabilities) in a lazy registry (registry.py). Nothing here imports an SDK:
a provider's module imports its own when one is built."""

from duel.agents.llm.providers.base import (
    PLAIN,
    TOOL_DESCRIPTION,
    TOOL_NAME,
    Capabilities,
    Provider,
    Reply,
    ToolUse,
    _retry_after,
    provider_defaults,
)
from duel.agents.llm.providers.registry import KINDS, capabilities, provider_kind

__all__ = ["KINDS", "PLAIN", "TOOL_DESCRIPTION", "TOOL_NAME", "Capabilities", "Provider",
           "Reply", "ToolUse", "_retry_after", "capabilities", "provider_defaults",
           "provider_kind"]

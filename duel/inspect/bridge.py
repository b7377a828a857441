"""Where duel's seat meets an Inspect model: duel's prompt (the framework seat's chat, from the
LLM seat's one prompt writer) sent through Inspect's `Model.generate`, and the opponent role's
model as a duel agent.

The game runs in a worker thread (`anyio.to_thread`): an opponent's search (`mcts:time=1`) or
the analyser must not hold Inspect's event loop, which serves every other sample meanwhile. The
opponent role's calls are made back on that loop (`anyio.from_thread`), in the sample's context,
so Inspect counts their tokens against the sample's limits and logs them with the sample.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import anyio.from_thread
from inspect_ai.model import (
    ChatMessage,
    ChatMessageAssistant,
    ChatMessageSystem,
    ChatMessageUser,
    Model,
    ModelOutput,
)

from duel.agents.base import Decision
from duel.agents.llm.agent import LLMAgent
from duel.engine import Move
from duel.envs.seat import Decider


def messages(chat: list[dict[str, Any]]) -> list[ChatMessage]:
    """duel's chat (system first, then the decision's turns) as Inspect's messages."""
    out: list[ChatMessage] = []
    for m in chat:
        content = m["content"] if isinstance(m["content"], str) else str(m["content"])
        if m["role"] == "system":
            out.append(ChatMessageSystem(content=content))
        elif m["role"] == "assistant":
            out.append(ChatMessageAssistant(content=content))
        else:
            out.append(ChatMessageUser(content=content))
    return out


def usage(output: ModelOutput) -> dict[str, Any]:
    """The reply's tokens as a framework seat records them."""
    u = output.usage
    return {"input_tokens": u.input_tokens if u else 0,
            "output_tokens": u.output_tokens if u else 0,
            "truncated": output.stop_reason == "max_tokens"}


async def ask(model: Model, chat: list[dict[str, Any]]) -> tuple[str, dict[str, Any]]:
    """One reply of `model` to duel's chat: its text and its usage."""
    output = await model.generate(messages(chat))
    return output.completion, usage(output)


class RoleSeat:
    """A duel agent whose replies come from an Inspect model (the opponent role): a framework
    seat (the LLM seat's prompt, checks and attempt policy) asked by :class:`Decider`. Called
    from the game's worker thread; each reply is asked on Inspect's loop."""

    def __init__(self, seat: LLMAgent, model: Model) -> None:
        self.seat = seat
        self.model = model
        self.spec = seat.spec

    def choose(self, view: dict[str, Any], legal: Sequence[Move],
               rng: random.Random) -> Decision:
        decider = Decider(self.seat, view, list(legal), rng)
        while decider.decision is None:
            text, used = anyio.from_thread.run(ask, self.model, decider.prompt.chat())
            decider.reply(text, used)
        return decider.decision

    def __getattr__(self, name: str) -> Any:
        # What a game tells an LLM seat (its observations, its prompt for the transcript's
        # header) goes to the framework seat itself.
        return getattr(self.seat, name)

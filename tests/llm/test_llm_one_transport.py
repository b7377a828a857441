"""One transport (issue 42, item 2): `Transport.send(request) -> CallResult` is the one place a
request is retried, adapted and regrown; it writes no call record (the conversation writes them
all, from its tries), and the attempt policy asks the conversation to judge each answer."""

from __future__ import annotations

import asyncio
import json
import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from helpers.fake_llm_server import FakeLLMServer, error_reply, openai_reply
from helpers.llm_seat import openai_agent, play_card_position

from duel.agents import runner
from duel.agents.attempts import AttemptPolicy, ConversationBase, Judge, Verdict, Wording
from duel.agents.llm.transport.send import Request

LLM = Path(__file__).resolve().parents[2] / "duel" / "agents" / "llm"


def test_a_send_retries_and_leaves_the_records_to_the_conversation(
        server: FakeLLMServer) -> None:
    view, legal = play_card_position()
    server.enqueue(error_reply(503), openai_reply(json.dumps(legal[0].to_json())))
    conv = openai_agent(server, ",max_attempts=1").conversation(view, legal)
    result = runner.run(conv.transport.send(Request(conv.messages, 1, conv.schema)))
    assert result.reply is not None and result.failure == ""
    assert [t.category for t in result.tries] == ["TRANSPORT", "OK"]
    assert result.tries[1].retry == "after HTTP 503" and "503" in result.tries[0].error
    assert conv.calls == []  # the transport wrote nothing: the conversation is the writer
    assert conv.transport.spending.requests == 2


def test_only_the_transport_retries_adapts_and_regrows() -> None:
    """The loops of one request live in transport/send.py alone: no other module of the LLM
    layer retries (tenacity), resends while adapting, or grows the output budget."""
    elsewhere = {p.relative_to(LLM).as_posix(): p.read_text() for p in LLM.rglob("*.py")
                 if p.relative_to(LLM).as_posix() != "transport/send.py"}
    send = (LLM / "transport" / "send.py").read_text()
    for marker in ("AsyncRetrying", "budgets.remember", "range(MAX_RESENDS)", "adapt(s,"):
        assert marker in send  # the check can see what it looks for
        found = sorted(name for name, text in elsewhere.items() if marker in text)
        assert found == [], f"{marker} outside transport/send.py: {found}"


@dataclass
class _Asked(ConversationBase):
    answers: list[Any]
    key: str = "test"
    wording: Wording = Wording("malformed", "illegal")
    calls: list[Any] = field(default_factory=list)
    judged: list[Verdict] = field(default_factory=list)

    async def ask(self, attempt: int) -> Any:
        self.calls.append(type("Call", (), {"attempt": attempt, "category": "", "error": None,
                                            "to_json": lambda s: {}})())
        return self.answers.pop(0)

    def judge(self, answer: Verdict | Any, engine: Judge) -> Verdict:
        verdict = super().judge(answer, engine)
        self.judged.append(verdict)
        return verdict

    def fields(self) -> tuple[dict[str, Any], dict[str, Any]]:
        return {}, {}


def test_the_policy_asks_the_conversation_to_judge() -> None:
    view, legal = play_card_position()
    conv = _Asked([{"move": "nonsense"}, legal[0].to_json()])
    decision = asyncio.run(AttemptPolicy(2, "random", "test").decide(
        conv, view, legal, random.Random(0)))
    assert decision.move == legal[0]
    assert [v.category.value for v in conv.judged] == ["SCHEMA", "OK"]
    assert [c.category for c in conv.calls] == ["SCHEMA", "OK"]  # written by the conversation

"""The most one decision of an LLM seat may send, stated once and enforced: its requests and
their output tokens.

One decision nests four bounded loops (the attempt policy's, duel.agents.attempts, and the one
transport's, send.py): the attempts of the attempt policy (re-asks, `max_attempts`), plus with
tools=on the look-up replies (`tool_steps`, all attempts together); the regrowth of a reply cut
off while reasoning (the output budget doubles up to its cap, and stays grown for the rest of
the decision, so the doublings are spent once per decision, not per attempt); the transport
retries of each request (`transport_retries`); and the resends of a request while the parameters
a server refuses are adapted (at most `MAX_RESENDS`). So:

    requests <= (replies + doublings) x (transport_retries + 1) x MAX_RESENDS

and every request carries at most the cap of the output budget. With the defaults and a
`max_tokens` in the spec (3 attempts, 2 doublings to 4x, 6 retries, 10 resends) that is
(3 + 2) x 7 x 10 = 350 requests (issue 42 counted 630 by multiplying the doublings per attempt,
3 x 3 x 7 x 10); a model that reasons starts at its output limit and has no doubling left:
3 x 7 x 10 = 210. A request past the budget is not sent: the decision stops with an
LLMConfigError naming the budget (its calls are recorded as every call is).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from duel.agents.llm.models import TRUNCATION_GROWTH
from duel.errors import LLMConfigError

MAX_RESENDS = 10  # sends of one request at most: each refused parameter changes once


@dataclass(frozen=True)
class RequestBudget:
    """The bound of one decision: `replies` asked for (attempts, and tools=on's look-ups),
    `doublings` of its output budget, `tries` of each request (transport retries + 1),
    `resends` of each try, and `max_output`, the output limit one request may carry."""

    replies: int
    doublings: int
    tries: int
    resends: int
    max_output: int

    @property
    def requests(self) -> int:
        return (self.replies + self.doublings) * self.tries * self.resends

    @property
    def output_tokens(self) -> int:
        return self.requests * self.max_output

    def words(self) -> str:
        return (f"{self.requests} requests and {self.output_tokens} output tokens a decision "
                f"(({self.replies} replies + {self.doublings} budget doublings) x {self.tries} "
                f"tries x {self.resends} resends, each at most {self.max_output} tokens)")

    @classmethod
    def of(cls, agent: Any, start: int) -> RequestBudget:
        """The budget of a decision of `agent` (an LLMAgent) whose output budget starts at
        `start` tokens."""
        s = agent.effective_settings()
        cap = s.grow_to or s.max_tokens * TRUNCATION_GROWTH
        if s.max_output:
            cap = min(cap, s.max_output)
        first = min(start, s.max_output) if s.max_output else start
        doublings = math.ceil(math.log2(cap / first)) if cap > first else 0
        return cls(agent.policy.max_attempts + agent.tool_steps, doublings,
                   agent.transport_retries + 1, MAX_RESENDS, max(cap, first))


class Spending:
    """What a decision has sent so far against its budget."""

    def __init__(self, budget: RequestBudget, who: str) -> None:
        self.budget = budget
        self.who = who
        self.requests = 0
        self.output_tokens = 0

    def send(self, max_tokens: int) -> None:
        """Count a request about to be sent with output limit `max_tokens`; LLMConfigError
        (nothing sent) when it would pass the budget."""
        b = self.budget
        if self.requests + 1 > b.requests or self.output_tokens + max_tokens > b.output_tokens:
            raise LLMConfigError(f"{self.who}: the decision reached its request budget, "
                                 f"{b.words()}; nothing more is sent for it")
        self.requests += 1
        self.output_tokens += max_tokens

"""The search budget the server allows an agent (in a seat or from /agents/move): one request
must not hold a thread, or fork processes, for ever.

The budget is read from the agent's spec, before the agent is built: the parameters that size a
search (MCTS's `time`, `iterations`, `workers`) are checked against the limits whatever kind of
agent declares them."""

from __future__ import annotations

import os

from duel.agents.spec import kinds, parse_params
from duel.errors import SpecError

MAX_SECONDS = 30.0
MAX_ITERATIONS = 200_000
MAX_WORKERS = max(1, os.cpu_count() or 1)
LIMITS: dict[str, float] = {"time": MAX_SECONDS, "iterations": MAX_ITERATIONS,
                            "workers": MAX_WORKERS}


def check_budget(spec: str) -> None:
    """Refuse (SpecError) a spec whose search would take too long or too many processes. A spec
    that does not parse is left to `make_agent`, which names its problem; kinds with a parser of
    their own (llm:, dqn:) have no search parameters."""
    name, _, rest = spec.strip().partition(":")
    kind = kinds().get(name)
    if kind is None or kind.custom_parser is not None:
        return
    params = parse_params(kind, rest)
    over = [f"{key}={params[key]:g}" for key, limit in LIMITS.items()
            if key in params and params[key] > limit]
    if over:
        allowed = ", ".join(f"{key}={limit:g}" for key, limit in LIMITS.items())
        raise SpecError(f"{name} budget too large ({', '.join(over)}): at most {allowed}")


def is_search(spec: str) -> bool:
    """Whether the spec's kind sizes a search (declares `time` or `iterations`): the server runs
    it in a worker process."""
    name = spec.strip().partition(":")[0]
    kind = kinds().get(name)
    return (kind is not None and kind.custom_parser is None
            and not {"time", "iterations"}.isdisjoint(kind.params))


"""The ``mcts`` spec's builder: the ISMCTS agent, or with ``guide=MODEL`` the guided search.

Each takes only its own parameters: ``mcts:rollout=mast,guide=default`` is an error naming the
parameter, not a silently ignored option.
"""

from __future__ import annotations

from typing import Any

from duel.errors import SpecError

GUIDED_ONLY = ("guide", "root", "cap", "mix", "m", "noise", "fpu", "runtime")
SEARCH_ONLY = ("rollout", "build_bias", "margin", "workers", "tree")


def mcts_agent(**params: Any) -> Any:
    """`MCTSAgent(**params)`, or `GuidedAgent` when `guide` is given."""
    if "guide" not in params:
        extra = [k for k in GUIDED_ONLY if k in params]
        if extra:
            raise SpecError(f"mcts: {', '.join(extra)} needs guide=MODEL (e.g. guide=default)")
        from duel.agents.mcts import MCTSAgent

        return MCTSAgent(**params)
    extra = [k for k in SEARCH_ONLY if k in params]
    if extra:
        raise SpecError(f"mcts: {', '.join(extra)} is not a parameter of the guided search "
                        f"(guide=...)")
    from duel.agents.guided.agent import GuidedAgent

    return GuidedAgent(**params)

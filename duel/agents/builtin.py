"""Registers the built-in agents with the spec parser."""

from __future__ import annotations

from duel.agents.base import RandomAgent
from duel.agents.mcts import MCTSAgent
from duel.agents.rule_based import RuleAgent
from duel.agents.spec import AgentKind, Param, register

register(AgentKind("random", "uniform over the legal moves", {}, RandomAgent))
register(AgentKind("rule", "rule-based priorities (win, block, economy, points, deny)", {},
                   RuleAgent))
register(AgentKind("mcts", "information-set MCTS", {
    "iterations": Param(int, 0, "iterations per move (default 1000 when no time is given)"),
    "time": Param(float, 0.0, "seconds per move"),
    "c": Param(float, 0.7, "UCB exploration constant"),
    "rollout": Param(str, "heuristic", "rollout policy: uniform or heuristic"),
    "build_bias": Param(float, 0.75, "heuristic rollouts: chance to redraw a discard"),
    "margin": Param(float, 0.0, "weight of the score margin in the reward (0-1)"),
    "seed": Param(int, -1, "seed of the agent's own generator (-1: the match's)"),
    "workers": Param(int, 1, "root parallelism: processes, each growing a tree with the full "
                             "budget; visits summed"),
}, MCTSAgent))


def _register_llm() -> None:
    from duel.agents.llm import KIND

    register(KIND)


_register_llm()


def _register_dqn() -> None:
    from duel.rl.policy import KIND

    register(KIND)


_register_dqn()

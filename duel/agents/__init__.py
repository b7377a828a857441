"""Agents: the protocol (base.py), spec strings and the registry of kinds (spec.py, builtin.py),
and the kinds themselves: random, rule-based, MCTS and the search it guides with a network
(guided/), LLM (llm/) and the DQN policy (duel.learning.rl)."""

from duel.agents.base import Agent, Decision, RandomAgent
from duel.agents.spec import make_agent
from duel.errors import SpecError

__all__ = ["Agent", "Decision", "RandomAgent", "SpecError", "make_agent"]

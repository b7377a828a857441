"""Agents: random, rule-based and MCTS (LLM and HTTP agents plug into the same spec parser)."""

from duel.agents.base import Agent, Decision, RandomAgent
from duel.agents.spec import make_agent
from duel.errors import SpecError

__all__ = ["Agent", "Decision", "RandomAgent", "SpecError", "make_agent"]

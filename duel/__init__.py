"""duel: a 7 Wonders Duel game server for LLM agents, MCTS and external bots."""

__version__ = "0.1.0"

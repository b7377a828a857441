"""duel: a 7 Wonders Duel game server for LLM agents, MCTS and external bots."""

from duel.build import activate as _activate

__version__ = "0.1.0"

# Before any compiled module loads: a stale one must not run (see duel.build).
_activate()

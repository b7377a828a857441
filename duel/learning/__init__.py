"""Agents that learn from play: the masked DQN and its environments (`rl/`), and the guided
search's network trained from duel's own search (`guide/`, played by duel.agents.guided). Both play
games while they learn, so they sit above the agents and the match."""

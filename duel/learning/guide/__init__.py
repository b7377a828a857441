"""`duel train guide`: the guided search's network (duel.agents.guided) learnt from self-play,
generation by generation: the games, the datasets, the torch network and the run's settings."""

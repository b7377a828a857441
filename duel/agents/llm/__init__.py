"""LLM agents: the player (agent.py), the providers it talks to (providers/: one module each
and their registry; local.py runs the shipped model's server), and its spec parsing (spec.py).
Nothing is imported here, so that a submodule such as accounting.py loads without the rest."""

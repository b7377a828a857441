"""LLM agents: the player (agent.py), the providers it talks to (providers.py, local.py), and
its spec parsing (spec.py). Nothing is imported here, so that a submodule such as accounting.py
loads without the rest."""

"""LLM agents: the player (agent.py), the providers it talks to (providers/: one module each
and their registry), the one transport of its requests (transport/), the servers besides the
hosted APIs (servers/: compatible servers, the shipped local model), what its harness settings
change in a decision (framing/), and its spec parsing (spec.py). Nothing is imported here, so
that a submodule such as models.py loads without the rest."""

"""The suite's root: tests are grouped by layer (engine, agents, llm, games, rl, server, cli).

Shared helpers live in tests/helpers and are imported as ``helpers.NAME``. FastAPI and the
server are imported only under tests/server, so an engine test never loads the web stack.
"""

"""The suite's root: tests are grouped by feature (engine, agents, llm, rl, records, runs, grading,
analysis, server, pages, cli, cluster, docs).

Shared helpers live in tests/helpers and are imported as ``helpers.NAME``. FastAPI and the
server are imported only under tests/server and tests/pages, so an engine test never loads the
web stack.
"""

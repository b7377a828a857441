"""The server tests' fixtures (tests/helpers/server_fixtures.py): a fresh database on SQLite or
PostgreSQL, the app behind a test client, the scripted test agents, real `duel serve`
processes."""

from helpers.server_fixtures import client, db, pg_cluster, pg_url, servers, test_agents

__all__ = ["client", "db", "pg_cluster", "pg_url", "servers", "test_agents"]

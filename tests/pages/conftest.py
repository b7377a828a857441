"""The pages' tests (the play page, the lobby, the replay viewer, their policy and look, in
Debian's Chromium): the server fixtures they share with tests/server."""

from helpers.server_fixtures import client, db, servers, test_agents

__all__ = ["client", "db", "servers", "test_agents"]

"""Fixtures shared by the server's test files: a fresh database, the app behind a test client
(its operator configures the test agents by name), the scripted test agents registered for one
test, and real `duel serve` processes."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from live_server import Server
from server_helpers import TEST_AGENTS, register_test_agents, unregister_test_agents

from server.main import create_app


@pytest.fixture
def db(tmp_path: Path) -> str:
    return str(tmp_path / "db.sqlite")


@pytest.fixture
def client(db: str) -> Iterator[TestClient]:
    with TestClient(create_app(db, agents=TEST_AGENTS)) as c:
        yield c


@pytest.fixture
def test_agents() -> Iterator[None]:
    register_test_agents()
    try:
        yield
    finally:
        unregister_test_agents()


@pytest.fixture
def servers() -> Iterator[list[Server]]:
    """`duel serve` processes started in the test (see live_server.start), all stopped at the
    end whatever happens."""
    started: list[Server] = []
    try:
        yield started
    finally:
        for s in started:
            s.stop()

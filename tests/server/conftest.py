"""Fixtures shared by the server's test files: a fresh database, the app behind a test client
(its operator configures the test agents by name), and the scripted test agents registered for
one test."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
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

"""Fixtures shared by the server's test files: a fresh database, the app behind a test client
(its operator configures the test agents by name), the scripted test agents registered for one
test, real `duel serve` processes, and a private PostgreSQL cluster (tests/helpers/postgres.py)
for the tests that run on both stores: `db` is a SQLite file unless a test asks for
`postgresql` (server_helpers.BACKENDS)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from helpers.live_server import Server
from helpers.postgres import Cluster
from helpers.server_helpers import TEST_AGENTS, register_test_agents, unregister_test_agents

from server.main import create_app


@pytest.fixture(scope="session")
def pg_cluster() -> Iterator[Cluster]:
    """One PostgreSQL cluster for the session (skips, saying why, where there can be none)."""
    cluster, why = Cluster.find()
    if cluster is None:
        pytest.skip(why)
    cluster.start()
    try:
        yield cluster
    finally:
        cluster.stop()


@pytest.fixture
def pg_url(pg_cluster: Cluster) -> str:
    """A fresh PostgreSQL database of the session's cluster."""
    return pg_cluster.new_database()


@pytest.fixture
def db(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """The database a test's servers use: a fresh SQLite file, or a fresh PostgreSQL database
    when the test is parametrised with "postgresql"."""
    backend = getattr(request, "param", "sqlite")
    if backend == "postgresql":
        url: str = request.getfixturevalue("pg_url")
        return url
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

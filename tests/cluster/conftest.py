"""The Ray tests' instance: a private local Ray of two CPUs per test module (the machine is
shared: games are kept tiny)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

ray = pytest.importorskip("ray", reason="Ray is not installed (pip install -e '.[ray]')")


@pytest.fixture(scope="module")
def local_ray() -> Iterator[None]:
    from duel.runs.cluster import connect

    ray.shutdown()
    connect("local", 2)
    try:
        yield
    finally:
        ray.shutdown()

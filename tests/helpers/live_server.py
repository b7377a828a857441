"""`duel serve` for real: a subprocess on a free loopback port, with its log kept for failure
messages. Started through `start` with the `servers` fixture (tests/server/conftest.py), which
stops every server at the end of its test whatever happens."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[2]
STARTUP = 60.0  # seconds; the machine is shared with a CPU-heavy job


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Server:
    """One `duel serve` process (`options` are added to its command line); `stop` is safe to
    call at any time, any number of times."""

    def __init__(self, db: Path, log: Path, options: tuple[str, ...] = ()) -> None:
        self.db = db
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log_path = log
        self._log = log.open("ab")
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(
            [str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])}
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "duel.cli", "serve", "--host", "127.0.0.1", "--port",
             str(self.port), "--db", str(db), "--log-level", "warning", *options],
            cwd=ROOT, env=env, stdout=self._log, stderr=subprocess.STDOUT)

    def wait_ready(self) -> None:
        deadline = time.monotonic() + STARTUP
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise AssertionError(f"the server exited with {self.proc.returncode}:\n"
                                     f"{self.log()}")
            try:
                if httpx.get(self.url + "/openapi.json", timeout=2.0).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.1)
        raise AssertionError(f"the server did not start in {STARTUP:g}s:\n{self.log()}")

    def kill9(self) -> None:
        os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait(30)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(15)
        self._log.close()

    def log(self) -> str:
        self._log.flush()
        return self.log_path.read_text(errors="replace")[-4000:]


def start(servers: list[Server], db: Path, tmp_path: Path, *options: str) -> Server:
    """A server on `db`, ready for requests, stopped at the end of the test."""
    s = Server(db, tmp_path / f"server{len(servers)}.log", options)
    servers.append(s)
    s.wait_ready()
    return s

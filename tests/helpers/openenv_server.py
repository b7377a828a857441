"""`duel openenv` for real: the CLI's server in a subprocess on a free loopback port, ready
once /health answers; `client()` is openenv-core's WebSocket client (duel's subclass)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
from helpers.live_server import free_port

ROOT = Path(__file__).resolve().parents[2]


class OpenEnvServer:
    def __init__(self, tmp: Path, *options: str) -> None:
        self.url = f"http://127.0.0.1:{free_port()}"
        self.log = tmp / "server.log"
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        with self.log.open("ab") as log:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "duel.cli", "openenv", "--port",
                 self.url.rsplit(":", 1)[1], *options], cwd=ROOT, env=env, stdout=log,
                stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            assert self.proc.poll() is None, self.log.read_text()
            try:
                if httpx.get(self.url + "/health", timeout=2).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.2)
        raise AssertionError(self.log.read_text())

    def client(self) -> Any:
        from duel.envs.openenv import DuelEnvClient

        return DuelEnvClient(base_url=self.url, message_timeout_s=120).sync()

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(30)

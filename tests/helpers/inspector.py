"""The official MCP Inspector's command line (npm `@modelcontextprotocol/inspector`), installed
once into the user cache by npm and run by node: a client as MCP tooling users drive duel.

Where node or npm is missing, or the npm registry cannot be reached, the tests that need it are
skipped, saying why. The install runs npm with `--ignore-scripts`: no package downloads a
binary of its own.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

VERSION = "2.12.0"  # the Inspector these tests were written against (its CLI's options)
INSTALL_LIMIT = 300  # seconds for npm install
CALL_LIMIT = 120  # seconds for one Inspector call (a stdio one starts duel mcp)


def cache_dir() -> Path:
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "duel" / f"mcp-inspector-{VERSION}"


def install() -> Path:
    """The Inspector's launcher (installing it first if need be), or pytest.skip with why."""
    for tool in ("node", "npm"):
        if shutil.which(tool) is None:
            pytest.skip(f"the MCP Inspector tests need {tool}, which is not on PATH")
    home = cache_dir()
    launcher = home / "node_modules" / ".bin" / "inspector"
    if launcher.exists():
        return launcher
    tmp = home.with_name(f"{home.name}.tmp-{os.getpid()}")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    (tmp / "package.json").write_text('{"private": true}')
    try:
        done = subprocess.run(
            ["npm", "install", "--no-audit", "--no-fund", "--ignore-scripts", "--loglevel=error",
             "--fetch-retries=1", "--fetch-timeout=60000",
             f"@modelcontextprotocol/inspector@{VERSION}"],
            cwd=tmp, capture_output=True, text=True, timeout=INSTALL_LIMIT)
    except subprocess.TimeoutExpired:
        shutil.rmtree(tmp, ignore_errors=True)
        pytest.skip(f"npm install of the MCP Inspector took over {INSTALL_LIMIT} s (is the npm "
                    "registry reachable?)")
    if done.returncode != 0:
        shutil.rmtree(tmp, ignore_errors=True)
        pytest.skip("npm could not install the MCP Inspector (is the npm registry "
                    f"reachable?): {' '.join(done.stderr.split())[:300]}")
    if not home.exists():  # another run may have finished first: keep its copy
        os.replace(tmp, home)
    shutil.rmtree(tmp, ignore_errors=True)
    return launcher


@dataclass
class Inspector:
    """One Inspector CLI call per method: `target` names the server (a URL, or `--config
    FILE --server NAME` for stdio, where the Inspector starts the server for that call).
    `home` is the Inspector's home folder (it keeps a catalog and OAuth state there): the
    test's own, not the user's."""

    launcher: Path
    target: list[str]
    home: Path

    def run(self, *args: str) -> tuple[int, dict[str, Any]]:
        self.home.mkdir(parents=True, exist_ok=True)
        done = subprocess.run(["node", str(self.launcher), "--cli", *self.target,
                               "--format", "json", "-q", *args],
                              capture_output=True, text=True, timeout=CALL_LIMIT,
                              env={**os.environ, "HOME": str(self.home)})
        out = done.stdout.strip() or done.stderr.strip()
        try:
            return done.returncode, json.loads(out)
        except ValueError:
            raise AssertionError(f"the Inspector said no JSON (rc {done.returncode}): "
                                 f"{out[-600:]}") from None

    def call(self, tool: str, args: dict[str, Any], as_json: bool = False
             ) -> tuple[bool, dict[str, Any] | str]:
        """(ok, the structured answer or the error text) of a tools/call: by `--tool-arg
        key=value` pairs, which the Inspector converts by the tool's schema, or with
        `as_json` by `--tool-args-json`, sent verbatim."""
        if as_json:
            pairs = ["--tool-args-json", json.dumps(args)]
        else:
            pairs = ["--tool-arg", *(f"{k}={v if isinstance(v, str) else json.dumps(v)}"
                                     for k, v in args.items())]
        rc, out = self.run("--method", "tools/call", "--tool-name", tool, *pairs)
        result = out.get("result")
        assert isinstance(result, dict), out
        if result.get("isError"):
            return False, str(result["content"][0]["text"])
        assert rc == 0, out
        return True, result["structuredContent"]

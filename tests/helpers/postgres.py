"""A private PostgreSQL cluster for the tests: initdb in a temporary folder, listening on a free
loopback port only, run as a non-root user (PostgreSQL refuses root; CI runs as root, so the
cluster runs as Debian's `postgres` user then). Each test gets a fresh database of its own.

`Cluster.find()` says why there can be none (no binaries, no driver), for the tests to skip
with that reason; CI installs Debian's `postgresql`, so there it always runs."""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path

USER = "duel"  # the cluster's superuser (trust authentication, loopback only)


def _bin_dir() -> Path | None:
    """Where initdb and pg_ctl are: on PATH, else Debian's versioned folder (newest first)."""
    found = shutil.which("initdb")
    if found:
        return Path(found).resolve().parent
    dirs = sorted(glob.glob("/usr/lib/postgresql/*/bin"),
                  key=lambda d: int(Path(d).parent.name) if Path(d).parent.name.isdigit()
                  else 0)
    for d in reversed(dirs):
        if (Path(d) / "initdb").exists():
            return Path(d)
    return None


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Cluster:
    def __init__(self, bin_dir: Path) -> None:
        self.bin = bin_dir
        self.root = Path(tempfile.mkdtemp(prefix="duel-pg-"))
        self.data = self.root / "data"
        self.port = _free_port()
        self.run_as: str | None = None
        if os.geteuid() == 0:
            # PostgreSQL will not run as root: hand the folder to an unprivileged user.
            self.run_as = "postgres" if _user_exists("postgres") else "nobody"
            pw = pwd.getpwnam(self.run_as)
            os.chown(self.root, pw.pw_uid, pw.pw_gid)
        self.root.chmod(0o700)
        self._databases = 0

    @staticmethod
    def find() -> tuple[Cluster | None, str]:
        """A cluster ready to start, or None and why not."""
        try:
            import psycopg  # noqa: F401
        except ImportError:
            return None, "psycopg is not installed (pip install -e '.[postgresql]')"
        bin_dir = _bin_dir()
        if bin_dir is None:
            return None, ("PostgreSQL's binaries (initdb, pg_ctl) are not installed "
                          "(apt-get install postgresql)")
        return Cluster(bin_dir), ""

    def _run(self, *args: str) -> subprocess.CompletedProcess[str]:
        cmd = [str(self.bin / args[0]), *args[1:]]
        if self.run_as:
            cmd = ["runuser", "-u", self.run_as, "--", *cmd]
        return subprocess.run(cmd, capture_output=True, text=True, timeout=120, cwd=self.root,
                              check=False)

    def start(self) -> None:
        done = self._run("initdb", "-D", str(self.data), "-U", USER, "-A", "trust",
                         "--no-sync", "-E", "UTF8", "--locale=C")
        if done.returncode:
            raise RuntimeError(f"initdb failed:\n{done.stdout}\n{done.stderr}")
        options = (f"-c listen_addresses=127.0.0.1 -c port={self.port} "
                   f"-c unix_socket_directories={self.root} -c fsync=off "
                   "-c synchronous_commit=off -c full_page_writes=off -c max_connections=200")
        done = self._run("pg_ctl", "-D", str(self.data), "-l", str(self.root / "log"),
                         "-o", options, "-w", "-t", "60", "start")
        if done.returncode:
            log = (self.root / "log").read_text(errors="replace") \
                if (self.root / "log").exists() else ""
            raise RuntimeError(f"pg_ctl start failed:\n{done.stdout}\n{done.stderr}\n{log}")

    def stop(self) -> None:
        self._run("pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "stop")
        shutil.rmtree(self.root, ignore_errors=True)

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://{USER}@127.0.0.1:{self.port}/{database}"

    def new_database(self) -> str:
        """The URL of a fresh, empty database."""
        import psycopg

        self._databases += 1
        name = f"test_{self._databases}_{int(time.time() * 1000) % 100000}"
        with psycopg.connect(self.url(), autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)


def _user_exists(name: str) -> bool:
    try:
        pwd.getpwnam(name)
    except KeyError:
        return False
    return True

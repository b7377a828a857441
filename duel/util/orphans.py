"""Helper processes that end with the process that started them, however it ends.

A server killed with SIGKILL runs no cleanup: its search workers would go on searching for the
rest of their budget and pile up across crashes. So each helper process asks the kernel to kill
it when its parent dies (Linux's PR_SET_PDEATHSIG), a chain from the server down: the fork
server (whose parent is the server), each search worker (whose parent is the fork server) and
each root-parallel search process (whose parent is its worker). Where there is no prctl, a
watchdog thread polls the parent instead.

`die_with_parent` is the one call. The fork server runs no code of ours but the modules it
preloads, so importing this module calls it in a process whose parent asked for it first
(`mark_parent`): the server lists this module among the fork server's preloads.
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys
import threading
import time

PR_SET_PDEATHSIG = 1  # linux/prctl.h
POLL = 0.25  # seconds between the watchdog's looks at its parent
ENV = "DUEL_DIE_WITH_PARENT"  # the pid whose fork server should die with it


def _prctl_deathsig() -> bool:
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return int(libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)) == 0
    except (OSError, AttributeError):
        return False


def _watch(parent: int) -> None:
    def look() -> None:
        while os.getppid() == parent:
            time.sleep(POLL)
        os._exit(1)

    threading.Thread(target=look, name="duel-orphan-watch", daemon=True).start()


def die_with_parent(parent: int | None = None) -> None:
    """Be killed (SIGKILL) as soon as the parent process dies. `parent`: the pid the parent is
    known to have; without it, the parent of the moment. Exits at once when the parent is
    already gone (re-parented to init or a subreaper)."""
    expected = parent if parent is not None else os.getppid()
    if not _prctl_deathsig():
        _watch(expected)
    if os.getppid() != expected or expected == 1:
        os._exit(1)  # the parent died before the kernel was asked


def mark_parent() -> None:
    """Ask the fork server this process starts from now on to die with this process."""
    os.environ[ENV] = str(os.getpid())


def guard_fork_server() -> None:
    """In a fork server started by a process that called `mark_parent`: die with it."""
    wanted = os.environ.get(ENV, "")
    if wanted.isdigit() and int(wanted) == os.getppid():
        die_with_parent(int(wanted))


guard_fork_server()

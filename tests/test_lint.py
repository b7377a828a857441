"""The source stays lint-clean and fully typed: `mypy --strict` over the package is what lets
the engine's hot path be compiled (mypyc) from the very same source later."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=600)


def test_ruff_finds_nothing() -> None:
    done = _run("ruff", "check", "duel", "server", "tests")
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.slow  # about 90 s on 2 cores; CI runs it with the other slow tests
def test_mypy_strict_finds_nothing() -> None:
    done = _run("mypy", "--strict", "duel", "server")
    assert done.returncode == 0, done.stdout + done.stderr


def test_test_files_have_unique_names() -> None:
    """Test folders have no __init__.py (pytest imports each file by its basename), so two files
    of the same name in two layers would collide at collection."""
    names = [p.name for p in (ROOT / "tests").rglob("*.py") if p.name != "conftest.py"]
    assert sorted({n for n in names if names.count(n) > 1}) == []


# Exceptions a user may see only through a DuelError subclass (which may keep one of these as a
# second base: `except ValueError` around a parse keeps working).
BUILTIN_ERRORS = ("ValueError", "RuntimeError", "TypeError", "KeyError", "OSError", "Exception",
                  "LookupError", "IndexError")


def test_every_error_duel_raises_is_a_duel_error() -> None:
    """No `raise ValueError(...)` and the like in the package: every error raised on purpose
    derives from DuelError (duel/errors.py), so one `except DuelError` catches them. A raise
    that a local `except` turns into another answer (a parser's own control flow) is marked
    with `# caught here`."""
    import ast

    found = []
    for path in [*(ROOT / "duel").rglob("*.py"), *(ROOT / "server").rglob("*.py")]:
        source = path.read_text()
        lines = source.splitlines()
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call) \
                    and isinstance(node.exc.func, ast.Name) \
                    and node.exc.func.id in BUILTIN_ERRORS \
                    and "# caught here" not in lines[node.lineno - 1]:
                found.append(f"{path.relative_to(ROOT)}:{node.lineno}: {node.exc.func.id}")
    assert found == [], "\n".join(found)

"""The compiled build (duel.build, setup.py): a stale compiled module never runs silently,
DUEL_PURE=1 runs the source, and a failed compile installs the pure build and says why.

Each case runs a copy of the package in a subprocess, so the installed tree is never touched."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from duel.build import (
    COMPILED,
    NATIVE_MIRRORS,
    NATIVE_SOURCES,
    PACKAGE_ROOT,
    build,
    extension_files,
    native,
    native_files,
)

REPO = PACKAGE_ROOT.parent
needs_compiled = pytest.mark.skipif(build() != "compiled",
                                    reason="needs the compiled build (CI installs it)")

PROBE = """
import sys
import duel.build as b
import duel.engine.pricing as pricing, duel.engine.state as state
from duel.engine import new_game
from duel.engine.playout import random_game
import random
moves = random_game(new_game(3), random.Random(3))
print(b.build(), b.describe(), state.__spec__.origin, getattr(pricing, "EDITED", 0), moves)
"""


def _copy(tmp: Path, *, sources_only: bool = False) -> Path:
    ignore = ["__pycache__"] + (["*.so", "_build.json"] if sources_only else [])
    shutil.copytree(PACKAGE_ROOT, tmp / "duel", ignore=shutil.ignore_patterns(*ignore))
    return tmp


def _probe(root: Path, **env: str) -> tuple[list[str], str]:
    done = subprocess.run([sys.executable, "-c", PROBE], cwd=root, capture_output=True,
                          text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(root), **env})
    assert done.returncode == 0, done.stderr
    return done.stdout.split(), done.stderr


@needs_compiled
def test_an_edited_source_runs_instead_of_its_stale_compiled_module(tmp_path: Path) -> None:
    root = _copy(tmp_path)
    out, err = _probe(root)
    assert out[0] == "compiled" and out[-3].endswith(".so") and err == ""
    assert out[-3].startswith(str(root))  # the copy, not the installed tree
    games = out[-1]
    with (root / "duel" / "engine" / "pricing.py").open("a") as f:
        f.write("\nEDITED = 1\n")
    out, err = _probe(root)
    assert out[0] == "pure" and out[-3].endswith("state.py") and out[-2] == "1"
    assert out[-1] == games  # the same game, now from the source
    # pricing.py is a rule the native core transcribes: it is stale too, and says so.
    assert err.count("\n") == 1 + bool(native_files()), err
    assert "duel/engine/pricing.py changed since it was compiled" in err
    assert "pip install -e ." in err


@pytest.mark.skipif(native() != "native", reason="needs the native core built")
def test_a_stale_native_core_never_runs(tmp_path: Path) -> None:
    root = _copy(tmp_path)
    out, err = _probe(root)
    assert "+ native core" in " ".join(out) and err == ""
    with (root / "duel" / "native" / "engine.cpp").open("a") as f:
        f.write("// edited\n")
    out, err = _probe(root)
    assert "no native core (duel/native/engine.cpp changed since it was built)" in " ".join(out)
    assert "duel/native/engine.cpp changed since the native core was built" in err
    out, err = _probe(root, DUEL_PURE="1")
    assert "no native core (DUEL_PURE=1 in the environment)" in " ".join(out) and err == ""


@needs_compiled
def test_extensions_without_their_manifest_do_not_run(tmp_path: Path) -> None:
    root = _copy(tmp_path)
    (root / "duel" / "_build.json").unlink()
    out, err = _probe(root)
    assert out[0] == "pure" and out[-3].endswith("state.py")
    assert "_build.json (missing or not from a compiled build)" in err


def test_duel_pure_runs_the_source_without_a_warning(tmp_path: Path) -> None:
    out, err = _probe(REPO, DUEL_PURE="1")
    assert out[0] == "pure" and out[-3].endswith("state.py") and err == ""
    if extension_files():
        assert "DUEL_PURE=1 in the environment" in " ".join(out)


@pytest.mark.slow  # a whole install into a fresh venv: about 6 minutes on 2 cores
def test_a_failed_compile_installs_the_pure_build_and_says_why(tmp_path: Path) -> None:
    pytest.importorskip("mypyc")  # the dev extra brings mypy, and with it mypyc
    pytest.importorskip("setuptools")
    root = _copy(tmp_path, sources_only=True)
    for name in ("setup.py", "pyproject.toml", "README.md"):
        shutil.copy(REPO / name, root / name)
    # A C compiler that always fails: mypyc translates, the compile step breaks. Translating
    # takes 7 min on an idle 2-core machine, longer beside other tests: unlike pip's isolated
    # build, this environment holds duel's dependencies and mypy follows the imports into them.
    done = subprocess.run([sys.executable, "setup.py", "-q", "build_ext", "--inplace"],
                          cwd=root, capture_output=True, text=True, timeout=1800,
                          env={**os.environ, "CC": "false", "DUEL_PURE": ""})
    assert done.returncode == 0, done.stderr
    assert "duel build: installing the pure Python build: compiling failed" in done.stderr
    manifest = json.loads((root / "duel" / "_build.json").read_text())
    assert manifest["build"] == "pure" and "compiling failed" in manifest["reason"]
    assert extension_files(root / "duel") == []
    out, err = _probe(root)
    assert out[0] == "pure" and "compiling failed" in " ".join(out) and err == ""


def test_duel_pure_at_install_builds_nothing(tmp_path: Path) -> None:
    pytest.importorskip("setuptools")
    root = _copy(tmp_path, sources_only=True)
    for name in ("setup.py", "pyproject.toml", "README.md"):
        shutil.copy(REPO / name, root / name)
    done = subprocess.run([sys.executable, "setup.py", "-q", "build_ext", "--inplace"],
                          cwd=root, capture_output=True, text=True, timeout=600,
                          env={**os.environ, "DUEL_PURE": "1"})
    assert done.returncode == 0, done.stderr
    assert "installing the pure Python build: DUEL_PURE=1 at install" in done.stderr
    assert extension_files(root / "duel") == []
    out, _ = _probe(root, DUEL_PURE="")
    assert out[0] == "pure" and "DUEL_PURE=1 at install" in " ".join(out)


def test_the_compiled_modules_exist_as_sources() -> None:
    for module in COMPILED:
        __import__(module)
        assert (REPO / Path(*module.split("."))).with_suffix(".py").is_file()


def test_the_native_cores_sources_and_mirrors_exist() -> None:
    """A module moved (say the guided search, to duel/agents/guided/) whose old path stays in
    NATIVE_MIRRORS would fail every native build's freshness check: it fails here first."""
    missing = [name for name in (*NATIVE_SOURCES, *NATIVE_MIRRORS)
               if not (PACKAGE_ROOT / name).is_file()]
    assert missing == []


def test_the_draws_are_the_standard_librarys() -> None:
    """duel.engine.draws takes the same numbers from a generator as random.py does (deals and
    samples by seed depend on it)."""
    import random

    from duel.engine import draws

    for seed in range(300):
        n = 1 + seed % 40
        mine, theirs = random.Random(seed), random.Random(seed)
        a, b = list(range(n)), list(range(n))
        draws.shuffle(mine, a)
        theirs.shuffle(b)
        assert a == b
        assert draws.choice(mine, a) == theirs.choice(b)
        assert mine.random() == theirs.random()  # the generators stay in step

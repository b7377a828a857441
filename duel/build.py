"""Which build of duel runs: the mypyc-compiled engine and search, or the pure Python source.

The `.py` files are the source of truth; `setup.py` compiles the modules in :data:`COMPILED`
with mypyc at install time and records each source's SHA-256 in ``duel/_build.json``. When duel
is imported, :func:`activate` compares those hashes with the sources on disk. A compiled module
whose source changed since (an edited file in an editable install, a checkout of another commit)
never runs: the whole set falls back to the source with a one-line warning on stderr. The whole
set, because compiled modules reach into each other's classes natively and cannot mix with
interpreted ones. ``DUEL_PURE=1`` in the environment runs the source too, with no warning (the
benchmarks and the differential test measure the pure build of the same files that way).

Only the standard library here: `setup.py` loads this file before duel's dependencies exist.
"""

from __future__ import annotations

import hashlib
import importlib.abc
import importlib.machinery
import importlib.util
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType

# The hot modules: the rules engine's state, moves and pricing, the information set's sampling,
# and the search cores. Everything they import from duel is either here or plain Python.
COMPILED: tuple[str, ...] = (
    "duel.engine.draws",
    "duel.engine.data",
    "duel.engine.layout",
    "duel.engine.steps",
    "duel.engine.pricing",
    "duel.engine.moves",
    "duel.engine.deal",
    "duel.engine.city",
    "duel.engine.scoring",
    "duel.engine.state",
    "duel.engine.reader",
    "duel.engine.infoset",
    "duel.engine.playout",
    "duel.agents.mcts",
    # The guided search's tree, its chance nodes' redeal and the network's features (the
    # network itself runs in plain Python: duel.agents.guided.runtime).
    "duel.agents.guided.features",
    "duel.agents.guided.redeal",
    "duel.agents.guided.search",
)
# The native core (C++, docs/native.md): its sources, and the Python it transcribes. A change
# to either since the extension was built makes it stale: it never runs then (the Python rules
# it mirrors may have changed; the differential test holds it to them as built).
NATIVE_SOURCES: tuple[str, ...] = (
    "native/mt.h", "native/engine.h", "native/engine.cpp", "native/search.h",
    "native/search.cpp", "native/guided.h", "native/core.cpp",
)
NATIVE_MIRRORS: tuple[str, ...] = (
    "engine/state.py", "engine/city.py", "engine/pricing.py", "engine/scoring.py",
    "engine/data.py", "engine/layout.py", "engine/deal.py", "engine/draws.py",
    "engine/infoset.py", "engine/playout.py", "agents/mcts.py", "native/__init__.py",
    # The analyser's sweep below the root is mirrored too (search.cpp's Sweeper).
    "analysis/search.py",
    # The guided search's tree, its redeal and its features (guided.h).
    "agents/guided/search.py", "agents/guided/redeal.py", "agents/guided/features.py",
)
NATIVE_MODULE = "_native"
# mypyc's shared library for the group (its runtime and every module's code).
GROUP = "duel.compiled"
MANIFEST = "_build.json"
REBUILD = "pip install -e ."

PACKAGE_ROOT = Path(__file__).resolve().parent  # the duel package folder


def source_path(module: str, root: Path = PACKAGE_ROOT) -> Path:
    """The `.py` file of `module` (a name in :data:`COMPILED`) under the package `root`."""
    return root.joinpath(*module.split(".")[1:]).with_suffix(".py")


def source_hashes(root: Path = PACKAGE_ROOT) -> dict[str, str]:
    return {m: hashlib.sha256(source_path(m, root).read_bytes()).hexdigest() for m in COMPILED}


def extension_files(root: Path = PACKAGE_ROOT) -> list[Path]:
    """The compiled modules' extension files present next to their sources, and the group's
    shared library."""
    found = []
    names = [source_path(m, root).with_suffix("") for m in COMPILED]
    names.append(root / (GROUP.split(".", 1)[1] + "__mypyc"))
    for stem in names:
        for suffix in importlib.machinery.EXTENSION_SUFFIXES:
            path = stem.with_name(stem.name + suffix)
            if path.exists():
                found.append(path)
    return found


def native_hashes(root: Path = PACKAGE_ROOT) -> dict[str, str]:
    return {name: hashlib.sha256((root / name).read_bytes()).hexdigest()
            for name in (*NATIVE_SOURCES, *NATIVE_MIRRORS)}


def native_files(root: Path = PACKAGE_ROOT) -> list[Path]:
    """The native core's extension file(s) in the package folder."""
    return [root / (NATIVE_MODULE + suffix) for suffix in importlib.machinery.EXTENSION_SUFFIXES
            if (root / (NATIVE_MODULE + suffix)).exists()]


def pure_requested() -> bool:
    return os.environ.get("DUEL_PURE", "") not in ("", "0")


class _SourceFinder(importlib.abc.MetaPathFinder):
    """Loads the compiled modules from their `.py` files, ahead of the extension modules."""

    def find_spec(self, fullname: str, path: Sequence[str] | None,
                  target: ModuleType | None = None) -> importlib.machinery.ModuleSpec | None:
        if fullname not in COMPILED:
            return None
        return importlib.util.spec_from_file_location(fullname, source_path(fullname))


_state: dict[str, str] = {}


def activate() -> None:
    """Decide once per process which build runs (before any compiled module is imported)."""
    if _state:
        return
    manifest = _read_manifest()
    present = extension_files()
    if not present:
        reason = str(manifest.get("reason", "not compiled"))
        _state.update(build="pure", reason=reason)
        return
    if pure_requested():
        _state.update(build="pure", reason="DUEL_PURE=1 in the environment")
    else:
        stale = _stale(manifest)
        if not stale:
            _state.update(build="compiled", reason=str(manifest.get("compiler", "mypyc")))
            return
        _state.update(build="pure", reason=f"{stale} changed since it was compiled")
        print(f"duel: {stale} changed since it was compiled; running the pure Python source "
              f"(slower). Rebuild the compiled engine with `{REBUILD}`.", file=sys.stderr)
    if not any(isinstance(f, _SourceFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, _SourceFinder())


def _read_manifest() -> dict[str, object]:
    try:
        data = json.loads((PACKAGE_ROOT / MANIFEST).read_text())
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _stale(manifest: dict[str, object]) -> str:
    """The first compiled module whose source differs from what was compiled ('' if none)."""
    hashes = manifest.get("sources")
    if manifest.get("build") != "compiled" or not isinstance(hashes, dict):
        return f"duel/{MANIFEST} (missing or not from a compiled build)"
    current = source_hashes()
    for module in COMPILED:
        if hashes.get(module) != current[module]:
            return str(source_path(module).relative_to(PACKAGE_ROOT.parent))
    return ""


def build() -> str:
    """"compiled" or "pure": the build this process runs."""
    activate()
    return _state["build"]


_native_state: dict[str, str] = {}


def native() -> str:
    """"native" when the native core is built from the sources on disk and not turned off
    (DUEL_PURE=1), else "off"; decided once per process, with a one-line warning on stderr
    when a built core is stale."""
    if _native_state:
        return _native_state["state"]
    manifest = _read_manifest().get("native")
    info = manifest if isinstance(manifest, dict) else {}
    if pure_requested():
        _native_state.update(state="off", reason="DUEL_PURE=1 in the environment")
    elif not native_files():
        _native_state.update(state="off", reason=str(info.get("reason", "not built")))
    else:
        recorded = info.get("sources")
        hashes: dict[str, object] = recorded if isinstance(recorded, dict) else {}
        current = native_hashes()
        stale = "" if hashes else f"duel/{MANIFEST} (no native sources)"
        if not stale:
            stale = next((f"duel/{n}" for n in current if hashes.get(n) != current[n]), "")
        if stale:
            _native_state.update(state="off", reason=f"{stale} changed since it was built")
            print(f"duel: {stale} changed since the native core was built; not using it. "
                  f"Rebuild with `{REBUILD}`.", file=sys.stderr)
        else:
            _native_state.update(state="native", reason=str(info.get("compiler", "C++")))
    return _native_state["state"]


def describe() -> str:
    """One line for `duel --version` and the benchmarks: the build and why."""
    activate()
    if _state["build"] == "compiled":
        line = f"compiled ({_state['reason']}, {len(COMPILED)} modules)"
    else:
        line = f"pure ({_state['reason']})"
    native()
    if _native_state["state"] == "native":
        return f"{line} + native core ({_native_state['reason']})"
    return f"{line}, no native core ({_native_state['reason']})"

"""The compiled build: mypyc compiles the modules listed in duel/build.py (the engine's hot
modules and the search core) from the same `.py` files, which stay the source of truth.

`DUEL_PURE=1 pip install -e .` installs the pure build. When compiling fails (no C compiler,
no Python headers, a mypyc error), the install goes on with the pure build and says why, here
and in `duel --version`. The rest of the metadata lives in pyproject.toml.
"""

from __future__ import annotations

import importlib.util
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

from setuptools import setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent
_spec = importlib.util.spec_from_file_location("_duel_build", ROOT / "duel" / "build.py")
assert _spec is not None and _spec.loader is not None
build_info = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(build_info)
MANIFEST = ROOT / "duel" / build_info.MANIFEST


def say(message: str) -> None:
    print(f"duel build: {message}", file=sys.stderr, flush=True)


def write_manifest(data: dict[str, Any], *extra: Path) -> None:
    for path in (MANIFEST, *extra):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")


def remove_extensions(root: Path) -> None:
    """Compiled leftovers of an earlier build (an editable install keeps them in the tree)."""
    for path in build_info.extension_files(root):
        path.unlink()


def pure(reason: str, *extra: Path) -> None:
    say(f"installing the pure Python build: {reason}")
    write_manifest({"build": "pure", "reason": reason}, *extra)


class BuildExtOrPure(build_ext):
    """build_ext that falls back to the pure build instead of failing the install."""

    def run(self) -> None:
        if self.inplace or getattr(self, "editable_mode", False):
            # An editable install keeps its extensions in the tree: clear an earlier build's.
            # (A wheel built from the tree leaves them, for an editable install there.)
            remove_extensions(ROOT / "duel")
        start = time.monotonic()
        try:
            super().run()
        except (Exception, SystemExit) as exc:  # any compiler or linker failure
            reason = f"compiling failed ({type(exc).__name__}: {str(exc)[:300]})"
            remove_extensions(ROOT / "duel")
            build_lib = Path(self.build_lib) / "duel"
            if build_lib.exists():
                remove_extensions(build_lib)
            pure(reason, build_lib / build_info.MANIFEST)
            self.extensions = []
            return
        say(f"compiled {len(build_info.COMPILED)} modules with mypyc "
            f"(C compile {time.monotonic() - start:.0f} s)")

    def get_outputs(self) -> list[str]:
        return list(super().get_outputs()) if self.extensions else []


# The setup.py commands that build; the metadata steps before them need no compiler.
BUILDING = {"build", "build_ext", "bdist_wheel", "editable_wheel", "develop", "install"}


def extensions() -> list[Any]:
    if not BUILDING & set(sys.argv[1:]):
        return []
    if build_info.pure_requested():
        remove_extensions(ROOT / "duel")  # no stale extension may shadow the pure build
        pure("DUEL_PURE=1 at install")
        return []
    try:
        from mypyc.build import mypycify
    except ImportError as exc:
        remove_extensions(ROOT / "duel")
        pure(f"mypyc is not available ({exc})")
        return []
    start = time.monotonic()
    paths = [str(build_info.source_path(m, Path("duel"))) for m in build_info.COMPILED]
    cwd = os.getcwd()
    os.chdir(ROOT)  # mypyc names modules by their paths
    try:
        # pip builds in an isolated environment without duel's runtime dependencies, and mypy
        # follows the compiled modules' imports into the outer ring (ray, jsonschema, tqdm...):
        # a missing package there is Any, not a failed compile (the compiled code uses none).
        modules = mypycify(["--ignore-missing-imports", *paths], opt_level="3",
                           group_name=build_info.GROUP)
    except (Exception, SystemExit) as exc:  # mypyc exits on a type error
        remove_extensions(ROOT / "duel")
        pure(f"mypyc failed ({type(exc).__name__}: {exc}; its messages are above)")
        return []
    finally:
        os.chdir(cwd)
    import mypy.version

    say(f"mypyc translated {len(paths)} modules in {time.monotonic() - start:.0f} s")
    write_manifest({"build": "compiled", "compiler": f"mypyc {mypy.version.__version__}",
                    "sources": build_info.source_hashes(ROOT / "duel")})
    return list(modules)


setup(ext_modules=extensions(), cmdclass={"build_ext": BuildExtOrPure})

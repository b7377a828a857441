"""The compiled build: mypyc compiles the modules listed in duel/build.py (the engine's hot
modules and the search core) from the same `.py` files, which stay the source of truth.

`DUEL_PURE=1 pip install -e .` installs the pure build. When compiling fails (no C compiler,
no Python headers, a mypyc error), the install goes on with the pure build and says why, here
and in `duel --version`. The rest of the metadata lives in pyproject.toml.

The native core (C++ with pybind11, duel/native/, docs/native.md) is one more extension,
``duel._native``, built beside mypyc's: when it fails to compile, the install goes on without it
and says why in one line (and `duel --version` says so too); the mypyc build is unaffected.
"""

from __future__ import annotations

import importlib.util
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

from setuptools import Extension, setup
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


NATIVE = f"duel.{build_info.NATIVE_MODULE}"
NATIVE_OFF = "not built"  # why there is no native core, until it builds


def remove_native(root: Path) -> None:
    for path in build_info.native_files(root):
        path.unlink()


def add_native(info: dict[str, Any], *extra: Path) -> None:
    """Record the native core's build (or why there is none) in the manifest(s)."""
    try:
        data = json.loads(MANIFEST.read_text())  # what mypyc's step wrote (or pure's)
    except (OSError, ValueError):
        data = {"build": "pure", "reason": "not compiled"}
    data["native"] = info
    # The build folder's copy, where a wheel takes it from, is the tree's.
    write_manifest(data, *extra)


class BuildExtOrPure(build_ext):
    """build_ext that falls back to the pure build instead of failing the install."""

    def run(self) -> None:
        if self.inplace or getattr(self, "editable_mode", False):
            # An editable install keeps its extensions in the tree: clear an earlier build's.
            # (A wheel built from the tree leaves them, for an editable install there.)
            remove_extensions(ROOT / "duel")
            remove_native(ROOT / "duel")
        start = time.monotonic()
        self._native: dict[str, Any] = {"build": "off", "reason": NATIVE_OFF}
        try:
            super().run()
        except (Exception, SystemExit) as exc:  # any compiler or linker failure
            reason = f"compiling failed ({type(exc).__name__}: {str(exc)[:300]})"
            remove_extensions(ROOT / "duel")
            build_lib = Path(self.build_lib) / "duel"
            if build_lib.exists():
                remove_extensions(build_lib)
            pure(reason, build_lib / build_info.MANIFEST)
            add_native(self._native, build_lib / build_info.MANIFEST)
            self.extensions = [e for e in self.extensions if e.name == NATIVE]
            return
        add_native(self._native, Path(self.build_lib) / "duel" / build_info.MANIFEST)
        if any(e.name != NATIVE for e in self.extensions):
            say(f"compiled {len(build_info.COMPILED)} modules with mypyc "
                f"(C compile {time.monotonic() - start:.0f} s)")

    def build_extension(self, ext: Any) -> None:
        if ext.name != NATIVE:
            super().build_extension(ext)
            return
        start = time.monotonic()
        try:
            super().build_extension(ext)
        except (Exception, SystemExit) as exc:  # no C++ compiler, a compile error...
            reason = f"the native core failed to build ({type(exc).__name__}: {str(exc)[:300]})"
            say(f"{reason}; installing without it")
            remove_native(ROOT / "duel")
            # An earlier build's file in the build folder must not be copied into place.
            Path(self.get_ext_fullpath(ext.name)).unlink(missing_ok=True)
            self._native = {"build": "off", "reason": reason}
            return
        import pybind11

        say(f"built the native core (C++, {time.monotonic() - start:.0f} s)")
        self._native = {"build": "native", "compiler": f"C++, pybind11 {pybind11.__version__}",
                        "sources": build_info.native_hashes(ROOT / "duel")}

    def get_outputs(self) -> list[str]:
        if not self.extensions:
            return []
        outputs = list(super().get_outputs())
        native = getattr(self, "_native", None)
        if native is not None and native.get("build") != "native":  # it failed to build
            outputs = [o for o in outputs
                       if not Path(o).name.startswith(build_info.NATIVE_MODULE + ".")]
        return outputs


# The setup.py commands that build; the metadata steps before them need no compiler.
BUILDING = {"build", "build_ext", "bdist_wheel", "editable_wheel", "develop", "install"}


def native_extension() -> list[Any]:
    """The native core's extension, or none when pybind11 (a build requirement) is missing."""
    try:
        import pybind11
    except ImportError as exc:
        global NATIVE_OFF
        NATIVE_OFF = f"pybind11 is not available ({exc})"
        say(f"the native core is not built: {NATIVE_OFF}")
        return []
    sources = [f"duel/{name}" for name in build_info.NATIVE_SOURCES if name.endswith(".cpp")]
    # optional: copying it into place (an in-place or editable build) skips it when it failed.
    return [Extension(NATIVE, sources=sources, include_dirs=[pybind11.get_include()],
                      optional=True,
                      depends=[f"duel/{n}" for n in build_info.NATIVE_SOURCES],
                      language="c++",
                      # -O3: 1% more search iterations and 6% more random games a second than
                      # -O2 (alternating runs, 2026-12-07) for about 2 s more of compiling.
                      # Never -ffast-math: the searches must keep the Python's arithmetic.
                      extra_compile_args=["-std=c++17", "-O3", "-fvisibility=hidden",
                                          "-g0"])]


def extensions() -> list[Any]:
    if not BUILDING & set(sys.argv[1:]):
        return []
    if not build_info.pure_requested():
        return native_extension() + mypyc_extensions()
    remove_native(ROOT / "duel")  # DUEL_PURE=1 at install: no native core either
    return mypyc_extensions()


def mypyc_extensions() -> list[Any]:
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

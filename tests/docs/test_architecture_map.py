"""docs/architecture.md stays true to the tree: every folder (package) of duel/ and server/ has a
row, read from the filesystem so that a folder added tomorrow is reported; every layer of the
import test has one, with the layer number the import test gives; no row names a path that is
gone; and the command line's row names the command groups `duel --help` lists."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[2]
MAP = ROOT / "docs" / "architecture.md"
PACKAGES = ("duel", "server")
ROW = re.compile(r"^\| (\d+) \| (.+?) \| (.+) \|$")
PATH = re.compile(r"`([^`\s]+)`")


def _import_test() -> ModuleType:
    """tests/test_imports.py, loaded from its file: its LAYERS and `layer_of` are the one
    statement of the layers (test folders are no packages to import from)."""
    spec = importlib.util.spec_from_file_location("_layers", ROOT / "tests" / "test_imports.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def map_rows() -> dict[str, int]:
    """Each path the map's table names in its "where" column, with the layer of its row."""
    rows: dict[str, int] = {}
    for line in MAP.read_text().splitlines():
        m = ROW.match(line)
        if m:
            for path in PATH.findall(m.group(2)):
                rows[path] = int(m.group(1))
    return rows


def folders() -> list[str]:
    """Every package folder of duel/ and server/, as the map spells it (`duel/engine/`)."""
    return sorted(init.parent.relative_to(ROOT).as_posix() + "/"
                  for package in PACKAGES for init in (ROOT / package).rglob("__init__.py"))


def module_of(path: str) -> str:
    """The dotted module a map path names: `duel/engine/` and `duel/io.py` alike."""
    if path.endswith("/__init__.py"):
        path = path[:-len("/__init__.py")]
    return path.removesuffix("/").removesuffix(".py").replace("/", ".")


def path_of(prefix: str) -> str:
    """How the map names one prefix of the import test's LAYERS: a package by its folder, a
    module by its file; `duel` itself, whose folder is everything, by its face, __init__.py."""
    if prefix == "duel":
        return "duel/__init__.py"
    as_path = prefix.replace(".", "/")
    return f"{as_path}/" if (ROOT / as_path / "__init__.py").exists() else f"{as_path}.py"


def missing_folders(rows: dict[str, int], found: list[str]) -> list[str]:
    """The folders the map names neither by folder nor by face (`duel/` is everything, so its
    row is its __init__.py)."""
    return [folder for folder in found
            if folder not in rows and f"{folder}__init__.py" not in rows]


def layer_mismatches(rows: dict[str, int], layers: tuple[tuple[str, ...], ...]) -> list[str]:
    """Each prefix of `layers` the map names in another layer, or not at all."""
    wrong = []
    for number, prefixes in enumerate(layers):
        for prefix in prefixes:
            path = path_of(prefix)
            if rows.get(path) != number:
                wrong.append(f"{path}: layer {number} in tests/test_imports.py, "
                             f"{'no row' if path not in rows else f'layer {rows[path]}'} here")
    return wrong


def test_every_folder_has_a_row() -> None:
    missing = missing_folders(map_rows(), folders())
    assert not missing, ("folders with no row in docs/architecture.md (add one, in the layer "
                         "tests/test_imports.py gives it):\n" + "\n".join(missing))


def test_every_layer_of_the_import_test_has_its_rows() -> None:
    wrong = layer_mismatches(map_rows(), _import_test().LAYERS)
    assert not wrong, "docs/architecture.md against LAYERS:\n" + "\n".join(wrong)


def test_every_row_names_a_path_that_is_there_in_its_layer() -> None:
    layer_of = _import_test().layer_of
    wrong = []
    for path, number in map_rows().items():
        if not (ROOT / path).exists():
            wrong.append(f"{path}: no such file or folder")
        elif layer_of(module_of(path)) != number:
            wrong.append(f"{path}: layer {number} here, {layer_of(module_of(path))} in "
                         "tests/test_imports.py")
    assert not wrong, "\n".join(wrong)


def test_the_command_line_row_names_the_command_groups() -> None:
    from duel.cli.main import GROUPS

    row = next(line for line in MAP.read_text().splitlines() if "| `duel/cli/` |" in line)
    assert f"{len(GROUPS)} of them" in row, row
    named = [name for name in PATH.findall(row.split(" | ")[2]) if "/" not in name
             and not name.endswith(".py") and name != "DuelError"]
    assert named == list(GROUPS)


def test_the_map_checks_see_a_missing_folder_and_a_wrong_layer() -> None:
    """The checks can fail: a new folder (say the LLM layer's providers/) with no row, a layer
    with no row, and a row in the wrong layer."""
    rows = {"duel/engine/": 1, "duel/errors.py": 0}
    assert missing_folders(rows, ["duel/engine/", "duel/agents/llm/providers/"]) == [
        "duel/agents/llm/providers/"]
    assert layer_mismatches(rows, (("duel.errors",), ("duel.engine",))) == []
    assert layer_mismatches(rows, (("duel.errors",), ("duel.engine",), ("duel.api",))) == [
        "duel/api.py: layer 2 in tests/test_imports.py, no row here"]
    assert layer_mismatches(rows, (("duel.errors", "duel.engine"),)) == [
        "duel/engine/: layer 0 in tests/test_imports.py, layer 1 here"]
    assert path_of("duel.prompts.harness") == "duel/prompts/harness.py"
    assert path_of("server") == "server/" and module_of("duel/__init__.py") == "duel"


def test_the_llm_layer_top_level_stays_small() -> None:
    """Issue 42's target: `duel/agents/llm/` holds at most 15 modules at its top level; the rest
    lives in folders by job (providers/, transport/, servers/, framing/), each with its row."""
    top = sorted(p.name for p in (ROOT / "duel" / "agents" / "llm").glob("*.py")
                 if p.name != "__init__.py")
    assert len(top) <= 15, top

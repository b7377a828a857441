"""Import structure: no import cycle among duel's and the server's modules, whether the import runs
when the module loads or later inside a function; no import from a lower layer up into a higher
one; and building a random agent (or `import duel`) loads none of the heavy dependencies that
other parts need."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("duel", "server")


def module_files() -> dict[str, Path]:
    """Every module of the packages, by dotted name (a package by its own name)."""
    found: dict[str, Path] = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join(parts)] = path
    return found


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or \
        (isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def import_time_imports(tree: ast.Module, in_functions: bool = False
                        ) -> Iterator[ast.Import | ast.ImportFrom]:
    """The imports that run when the module is imported: at module level or in a class body,
    not under ``if TYPE_CHECKING:``; with `in_functions`, those inside functions too (they run
    later, and a cycle through them is a cycle all the same)."""
    stack: list[ast.AST] = list(reversed(tree.body))
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) \
                and not in_functions:
            continue
        elif isinstance(node, ast.If) and _is_type_checking(node.test):
            stack.extend(reversed(node.orelse))
        else:
            stack.extend(reversed(list(ast.iter_child_nodes(node))))


def resolve(module: str, is_package: bool, node: ast.Import | ast.ImportFrom,
            known: set[str]) -> set[str]:
    """The known modules an import statement loads, with relative imports made absolute.
    ``from X import Y`` loads X.Y when that is a module, else X."""
    if isinstance(node, ast.Import):
        return {alias.name for alias in node.names if alias.name in known}
    base = node.module or ""
    if node.level:
        package = module.split(".") if is_package else module.split(".")[:-1]
        anchor = package[:len(package) - (node.level - 1)]
        base = ".".join(anchor + ([base] if base else []))
    out = set()
    for alias in node.names:
        sub = f"{base}.{alias.name}"
        if sub in known:
            out.add(sub)
        elif base in known:
            out.add(base)
    return out


def import_graph(in_functions: bool = False) -> dict[str, set[str]]:
    files = module_files()
    known = set(files)
    graph: dict[str, set[str]] = {}
    for name, path in files.items():
        tree = ast.parse(path.read_text(), str(path))
        edges: set[str] = set()
        for node in import_time_imports(tree, in_functions):
            edges |= resolve(name, path.name == "__init__.py", node, known)
        graph[name] = edges - {name}
    return graph


def find_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """One cycle (a path back to its start) per strongly connected group of modules."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[set[str]] = []

    def visit(v: str) -> None:  # Tarjan's algorithm; the graph has a few hundred nodes
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = set()
            while True:
                w = stack.pop()
                on_stack.discard(w)
                group.add(w)
                if w == v:
                    break
            if len(group) > 1:
                groups.append(group)

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return [_cycle_in(graph, group) for group in groups]


def _cycle_in(graph: dict[str, set[str]], group: set[str]) -> list[str]:
    """A shortest path from the group's first module back to itself, inside the group."""
    start = min(group)
    paths = {start: [start]}
    frontier = [start]
    while frontier:
        nxt = []
        for v in frontier:
            for w in sorted(graph[v] & group):
                if w == start:
                    return paths[v] + [start]
                if w not in paths:
                    paths[w] = paths[v] + [w]
                    nxt.append(w)
        frontier = nxt
    raise AssertionError(f"no cycle in the strongly connected group {sorted(group)}")


def test_the_cycle_finder_finds_a_cycle_and_passes_a_tree() -> None:
    assert find_cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c", "a"]]
    assert find_cycles({"a": {"b", "c"}, "b": {"c"}, "c": set()}) == []


def test_the_walker_resolves_relative_imports_and_skips_functions() -> None:
    tree = ast.parse("from . import moves\nfrom .data import CARDS\nimport duel.errors\n"
                     "if TYPE_CHECKING:\n    from duel import cli\n"
                     "def f():\n    import duel.match\n")
    known = {"duel", "duel.engine", "duel.engine.moves", "duel.engine.data", "duel.errors",
             "duel.cli", "duel.match"}
    found = set()
    for node in import_time_imports(tree):
        found |= resolve("duel.engine", True, node, known)
    assert found == {"duel.engine.moves", "duel.engine.data", "duel.errors"}
    found = set()
    for node in import_time_imports(ast.parse("from .data import CARDS\n")):
        found |= resolve("duel.engine.moves", False, node, known)
    assert found == {"duel.engine.data"}


@pytest.mark.parametrize("in_functions", [False, True], ids=["at-load", "in-functions-too"])
def test_no_import_cycles(in_functions: bool) -> None:
    graph = import_graph(in_functions)
    assert "duel.agents.spec" in graph and "server.main" in graph
    cycles = find_cycles(graph)
    assert not cycles, "import cycles:\n" + "\n".join(" -> ".join(c) for c in cycles)


# The layers, lowest first: a module may import its own layer and those below, never above
# (imports inside functions included). The first prefix that matches decides a module's layer.
# `duel` itself is the API's face: at load it imports duel.build alone (its names load when
# used), so `from duel import __version__` is no arrow up.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("duel.errors", "duel.build", "duel.util", "duel"),
    ("duel.engine", "duel.native"),  # the native core: the engine's rules in C++, and search
    ("duel.io", "duel.schemas", "duel.stats", "duel.words", "duel.prompts"),
    # The guided search (duel.agents.guided) is an agent: mcts:guide=... The accounting sits
    # beside the agents: the LLM seat writes and prices its call records as it plays, the
    # records and runs read them.
    ("duel.agents", "duel.accounting"),
    ("duel.records", "duel.match", "duel.transcripts"),
    # The learning (the DQN, the guide's training) plays games, so it sits above the agents.
    ("duel.analysis", "duel.runs", "duel.learning", "duel.viewer"),
    ("duel.grading", "duel.leaderboard", "server", "duel.envs"),  # envs read position suites
    # Inspect's tasks play games (duel.envs) and grade positions (duel.grading).
    ("duel.bench", "duel.mcp", "duel.inspect"),
    ("duel.cli", "duel.api"),
)


def layer_of(module: str) -> int:
    """The layer of the longest prefix of `module` that LAYERS names."""
    best = max(((len(p), i) for i, prefixes in enumerate(LAYERS) for p in prefixes
                if module == p or module.startswith(p + ".")), default=None)
    if best is None:
        raise AssertionError(f"{module} is in no layer: add it to LAYERS")
    return best[1]


def test_no_import_runs_back_up_a_layer() -> None:
    graph = import_graph(in_functions=True)
    up = sorted(f"{a} (layer {layer_of(a)}) -> {b} (layer {layer_of(b)})"
                for a, targets in graph.items() for b in targets
                if layer_of(b) > layer_of(a))
    assert not up, "imports that run back up a layer:\n" + "\n".join(up)


def test_the_layer_check_sees_an_arrow_up() -> None:
    assert layer_of("duel.engine.state") < layer_of("duel.analysis.game")
    assert layer_of("duel.cli.main") == len(LAYERS) - 1 and layer_of("duel.util.files") == 0


# What the accounting (duel.accounting) may read of the LLM layer: the model table's list prices
# and the move schema, two tables that need only the engine. Never the providers, the transport,
# the servers or the seat: the records and runs read money and tokens through it.
ACCOUNTING_READS = ("duel.agents.llm.models", "duel.agents.llm.schema")


def test_the_accounting_reads_no_provider_layer() -> None:
    graph = import_graph(in_functions=True)
    seen: set[str] = set()
    todo = [m for m in graph if m == "duel.accounting" or m.startswith("duel.accounting.")]
    while todo:
        m = todo.pop()
        if m not in seen:
            seen.add(m)
            todo.extend(graph[m])
    llm = sorted(m for m in seen if m.startswith("duel.agents.llm.")
                 and m not in ACCOUNTING_READS)
    assert not llm, f"duel.accounting reaches the provider layer: {llm}"
    code = ("import json, sys\nimport duel.accounting.games, duel.accounting.prices, "
            "duel.accounting.projection, duel.accounting.counting, duel.records\n"
            "print(json.dumps([m for m in sys.modules if m.split('.')[0] in "
            "('openai', 'anthropic', 'google', 'tenacity', 'httpx')]))\n")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                         check=True)
    assert json.loads(out.stdout) == [], out.stdout


def test_import_duel_loads_nothing_heavy() -> None:
    """`import duel` (and the names of its API) load what is used, when it is used."""
    code = ("import json, sys, duel\nassert 'new_game' in dir(duel)\n"
            f"print(json.dumps([m for m in {list(HEAVY + ('torch', 'matplotlib'))!r} "
            "if m in sys.modules]))\n")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                         check=True)
    assert json.loads(out.stdout) == [], out.stdout


HEAVY = ("numpy", "onnxruntime", "openai", "anthropic", "pydantic", "fastapi", "jsonschema",
         "tenacity", "httpx")


@pytest.mark.parametrize("statement", [
    "from duel.agents import make_agent; make_agent('random')",
    "from duel.agents import make_agent; make_agent('rule')",
    "from duel.agents.spec import describe_kinds; describe_kinds()",
])
def test_light_agents_and_the_listing_import_nothing_heavy(statement: str) -> None:
    code = (f"import json, sys\n{statement}\n"
            f"print(json.dumps([m for m in {list(HEAVY)!r} if m in sys.modules]))\n")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                         check=True)
    assert json.loads(out.stdout) == [], f"{statement} imported {out.stdout.strip()}"


def test_the_heavy_check_sees_a_heavy_kind() -> None:
    """The check above can fail: building the dqn agent does load numpy."""
    code = ("import json, sys\nfrom duel.agents import make_agent; make_agent('dqn')\n"
            "print(json.dumps('numpy' in sys.modules))\n")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                         check=True)
    assert json.loads(out.stdout) is True

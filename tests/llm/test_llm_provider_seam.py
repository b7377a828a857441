"""The provider seam (issue 42): what a provider does differently is said by its capabilities
(duel.agents.llm.providers), so no code outside that package compares a provider's name, and
adding a provider is its module and its registry row."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from duel.agents.kinds import load
from duel.agents.llm.providers import KINDS
from duel.agents.llm.providers.base import (
    CACHE_FORMS,
    IMAGE_FORMS,
    REASONING_OPTIONS,
    TOOL_DIALECTS,
)
from duel.errors import SpecError

ROOT = Path(__file__).resolve().parents[2]
SEAM = ROOT / "duel" / "agents" / "llm" / "providers"
NAMES = set(KINDS)


def _names(node: ast.expr) -> set[str]:
    """The provider names a comparison's operand spells out (a string, or a tuple, list or set
    of strings)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return {node.value} & NAMES
    if isinstance(node, ast.Tuple | ast.List | ast.Set):
        return set().union(*(_names(e) for e in node.elts)) if node.elts else set()
    return set()


def provider_name_checks(source: str) -> list[tuple[int, str]]:
    """The comparisons of a provider (a name, attribute or call mentioning `provider`) with a
    provider's name: ``provider.name == "anthropic"``, ``provider in ("local", "compat")``,
    ``fam.provider != "openai"``. Other comparisons with the same words (a dialect, a Ray
    address, a tool name) are left alone."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Compare):
            continue
        operands = [node.left, *node.comparators]
        spelled = set().union(*(_names(o) for o in operands))
        mentions = any("provider" in ast.unparse(o).lower() for o in operands
                       if not _names(o))
        if spelled and mentions:
            found.append((node.lineno, ast.unparse(node)))
    return found


def test_no_code_outside_the_providers_compares_a_provider_name() -> None:
    offenders = []
    for package in ("duel", "server"):
        for path in sorted((ROOT / package).rglob("*.py")):
            if SEAM in path.parents:
                continue
            for line, text in provider_name_checks(path.read_text()):
                offenders.append(f"{path.relative_to(ROOT)}:{line}: {text}")
    assert not offenders, ("a provider's name compared outside duel/agents/llm/providers/; "
                           "give the provider a capability instead:\n" + "\n".join(offenders))


@pytest.mark.parametrize("source", [
    'if agent.provider.name == "anthropic": pass',
    'x = provider_name not in ("local", "compat")',
    'y = "openrouter" == self.provider.name',
    'z = fam.provider != "openai"',
])
def test_the_check_finds_each_form_of_name_comparison(source: str) -> None:
    assert provider_name_checks(source)


@pytest.mark.parametrize("source", [
    'if api == "anthropic": pass',            # a tool dialect's name
    'if address == "local": pass',            # a Ray address
    'if capabilities(provider).grammar: pass',
])
def test_the_check_leaves_other_comparisons_alone(source: str) -> None:
    assert not provider_name_checks(source)


def test_every_row_names_a_builder_and_says_its_capabilities_in_known_words() -> None:
    for kind in KINDS.values():
        assert callable(load(kind.build, kind.name)), kind.name
        caps = kind.caps
        assert caps.tool_dialect in (*TOOL_DIALECTS, ""), kind.name
        assert caps.image_form in (*IMAGE_FORMS, ""), kind.name
        assert caps.cache_form in CACHE_FORMS, kind.name
        assert set(caps.reasoning) <= set(REASONING_OPTIONS), kind.name
        assert (not kind.no_images) == bool(caps.image_form), kind.name
        for hook in (kind.check, kind.reasoning_family):
            if hook:
                assert callable(load(hook, kind.name))


def test_reading_the_registry_imports_no_sdk() -> None:
    import subprocess
    import sys

    code = ("import sys; import duel.agents.llm.providers as p; p.KINDS['openai'].caps; "
            "print(sorted(m for m in ('openai', 'anthropic', 'google.genai') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.strip()
    assert out == "[]"


def test_an_unknown_provider_names_the_registrys() -> None:
    from duel.agents.llm.providers import provider_kind

    with pytest.raises(SpecError, match="valid providers: " + ", ".join(KINDS)):
        provider_kind("bogus")

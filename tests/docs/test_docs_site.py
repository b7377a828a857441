"""The documentation site builds with `mkdocs build --strict` (no broken page, link or anchor:
see mkdocs.yml's validation; mkdocs and mkdocs-material come with the dev extra), the README
stays a short front page whose links resolve, and every command of the CLI has its place in
docs/commands.md."""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from helpers.markdown_blocks import ROOT, cli_parser

README_MAX_LINES = 250
WIDTH = 100
_LINK = re.compile(r"\]\(([^)\s]+)\)")
_URL = re.compile(r"https?://")
# The quick start's first command is one line to copy, as issue 27 asks.
ONE_LINERS = {"python3 -m venv .venv && . .venv/bin/activate && pip install -e '.[local]' && "
              "duel match --p1 llm:local --p2 mcts:time=1"}


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("site")
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir",
                           str(out)], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, f"mkdocs build --strict failed:\n{done.stdout}\n{done.stderr}"
    return out


def test_site_builds_strict(site: Path) -> None:
    assert (site / "index.html").is_file()
    # every page of the nav became a page; the images the pages show were copied
    for page in ("getting-started", "commands", "benchmarks", "architecture", "rules"):
        assert (site / page / "index.html").is_file(), page
    assert (site / "play.png").is_file() and (site / "calibration.png").is_file()


def _ids(html: Path) -> set[str]:
    return set(re.findall(r'\bid="([^"]+)"', html.read_text(encoding="utf-8")))


def test_readme_links_resolve(site: Path) -> None:
    """The README is not a page of the site, so mkdocs does not check it: its relative links
    must name files that exist, and a link into a page's section an anchor the site has."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    links = [t for t in _LINK.findall(readme) if not _URL.match(t)]
    assert len(links) >= 15  # the page's links to the site
    for target in links:
        path, _, anchor = target.partition("#")
        assert (ROOT / path).exists(), f"README links to {target}, which does not exist"
        if anchor:
            assert path.startswith("docs/") and path.endswith(".md"), target
            html = site / path[len("docs/"):-len(".md")] / "index.html"
            assert anchor in _ids(html), f"README links to {target}: no such anchor"


def _long_lines(path: Path, allow_code: bool) -> list[str]:
    bad, in_code = [], False
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if line.lstrip().startswith("```"):
            in_code = not in_code
            continue
        exempt = (line.lstrip().startswith(("|", "![")) or _URL.search(line)
                  or (in_code and (allow_code or line.strip() in ONE_LINERS)))
        if len(line) > WIDTH and not exempt:
            bad.append(f"{path.relative_to(ROOT)}:{n}: {len(line)} characters")
    return bad


def test_readme_is_a_short_front_page() -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    lines = text.splitlines()
    assert len(lines) <= README_MAX_LINES
    assert _long_lines(ROOT / "README.md", allow_code=False) == []
    # the quick start is the first screen: its two commands within the first 30 lines
    first_screen = "\n".join(lines[:30])
    assert "pip install -e '.[local]' && duel match --p1 llm:local" in first_screen
    assert "pip install -e '.[dev]' && python -m pytest -q" in first_screen


def test_pages_prose_is_wrapped() -> None:
    """Prose is wrapped at 100 columns (tables, images, addresses and code may be wider)."""
    bad = [line for page in sorted((ROOT / "docs").rglob("*.md"))
           for line in _long_lines(page, allow_code=True)]
    assert bad == []


def _command_paths(parser: argparse.ArgumentParser, prefix: str) -> list[str]:
    """"duel match", "duel llm check", "duel bench engine"...: every subcommand, and every
    choice of a command's positional argument (`duel bench WHAT`, `duel prompts list`)."""
    paths = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                paths.append(f"{prefix} {name}")
                paths.extend(_command_paths(sub, f"{prefix} {name}"))
        elif not action.option_strings and action.choices and prefix != "duel":
            paths.extend(f"{prefix} {choice}" for choice in action.choices)
    return paths


def test_every_command_is_documented() -> None:
    """docs/commands.md names every command the CLI has, so none is missing from the table
    (as `duel positions` once was); `duel bench` subcommands are named by their last word in
    its list ("`duel bench engine`, `mcts`, ...")."""
    text = (ROOT / "docs" / "commands.md").read_text(encoding="utf-8")
    missing = []
    for path in _command_paths(cli_parser(), "duel"):
        words = path.split()
        if words[1] == "bench" and len(words) == 3:
            if f"`{words[2]}`" not in text and f"`{path}`" not in text:
                missing.append(path)
        elif f"`{path}" not in text:
            missing.append(path)
    assert missing == []


def _subparser(parser: argparse.ArgumentParser, name: str) -> argparse.ArgumentParser:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction) and name in action.choices:
            sub: argparse.ArgumentParser = action.choices[name]
            return sub
    raise AssertionError(f"no subcommand {name!r}")


@pytest.mark.parametrize("page", ["server.md", "security.md"])
def test_server_options_named_in_prose_exist(page: str) -> None:
    """The server's pages name its options in prose ("Every limit is a `duel serve` option"):
    each `--option` they name is one of `duel serve`'s."""
    options = {s for a in _subparser(cli_parser(), "serve")._actions for s in a.option_strings}
    text = (ROOT / "docs" / page).read_text(encoding="utf-8")
    named = {m for span in re.findall(r"`([^`\n]+)`", text)
             for m in re.findall(r"--[a-z][a-z-]*", span)}
    assert len(named) >= 5
    assert sorted(named - options) == []

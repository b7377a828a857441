"""The fenced code blocks of the README and the documentation site's pages, and the `duel`
commands of their shell blocks, for the tests that run them (tests/docs)."""

from __future__ import annotations

import argparse
import importlib
import re
import shlex
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SHELL = ("bash", "sh", "shell", "console")
_FENCE = re.compile(r"^(\s*)(`{3,})\s*([\w+-]*)")
_OPERATORS = {";", "&&", "||", "|", "&", "(", ")"}
_REDIRECTS = {">", ">>", "<", ">&", "&>", "2>"}
_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
_VARIABLE = re.compile(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?")


@dataclass(frozen=True)
class Block:
    path: str  # relative to the repository, e.g. "docs/engine.md"
    line: int  # the line of the opening fence, 1-based
    lang: str
    text: str

    @property
    def id(self) -> str:
        return f"{self.path}:{self.line}"


def pages() -> list[Path]:
    """The README and every Markdown page of the site."""
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def blocks(path: Path) -> list[Block]:
    """Every fenced block of a Markdown file (indented ones, inside list items, too)."""
    found: list[Block] = []
    lines = path.read_text(encoding="utf-8").splitlines()
    i = 0
    while i < len(lines):
        m = _FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        indent, fence, lang = m.group(1), m.group(2), m.group(3).lower()
        body: list[str] = []
        j = i + 1
        while j < len(lines) and not lines[j].strip().startswith(fence):
            body.append(lines[j][len(indent):] if lines[j].startswith(indent) else lines[j])
            j += 1
        if j == len(lines):
            raise AssertionError(f"{path}:{i + 1}: a code fence is never closed")
        found.append(Block(str(path.relative_to(ROOT)), i + 1, lang, "\n".join(body) + "\n"))
        i = j + 1
    return found


def all_blocks(*langs: str) -> list[Block]:
    return [b for p in pages() for b in blocks(p) if b.lang in langs]


def shell_commands(block: Block) -> list[str]:
    """The shell commands of a block: every line of a bash block (continuations joined,
    comments dropped), the `$ ` lines of a console block."""
    lines = block.text.splitlines()
    if block.lang == "console":
        lines = [line[2:] for line in lines if line.startswith("$ ")]
    commands: list[str] = []
    current = ""
    for line in lines:
        if line.rstrip().endswith("\\"):
            current += line.rstrip()[:-1] + " "
            continue
        commands.append(current + line)
        current = ""
    if current:
        commands.append(current)
    return [c for c in commands if c.strip() and not c.lstrip().startswith("#")]


def duel_argvs(command: str) -> list[list[str]]:
    """The argument lists of every `duel` invocation in one shell command line: split at the
    control operators, without redirections and leading VAR=value assignments. A shell
    variable ($n) stands for a number in these examples and becomes 1."""
    lexer = shlex.shlex(command, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    segments: list[list[str]] = [[]]
    tokens = list(lexer)
    skip_next = False
    for token in tokens:
        if skip_next:
            skip_next = False
        elif token in _OPERATORS:
            segments.append([])
        elif token in _REDIRECTS:
            skip_next = True  # its target
        else:
            segments[-1].append(token)
    argvs = []
    for seg in segments:
        while seg and _ASSIGNMENT.match(seg[0]):
            seg = seg[1:]
        if seg and seg[0] == "duel":
            argvs.append([_VARIABLE.sub("1", arg) for arg in seg[1:]])
    return argvs


def cli_parser() -> argparse.ArgumentParser:
    """The `duel` command's parser, wherever the CLI keeps its builder."""
    for module in ("duel.cli", "duel.cli.main"):
        try:
            build = getattr(importlib.import_module(module), "build_parser", None)
        except ImportError:
            continue
        if build is not None:
            parser: argparse.ArgumentParser = build()
            return parser
    raise AssertionError("no build_parser() in duel.cli or duel.cli.main")

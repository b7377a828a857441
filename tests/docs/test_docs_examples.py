"""The README's and the documentation's examples work as written.

- Every Python block runs, as a user would paste it into a file: in a fresh interpreter, in an
  empty temporary folder. Examples are written with small budgets and seeds, so they are quick.
  A block that cannot run here (it needs the internet or an LLM key) is listed in SKIPPED with
  the reason, reviewed like code.
- Every `duel` command of a shell block is parsed by the CLI's own parser, and every agent spec
  it names is built, so a renamed command, option or agent parameter breaks this test.
- Every JSON block parses.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from helpers.markdown_blocks import (
    SHELL,
    Block,
    all_blocks,
    cli_parser,
    duel_argvs,
    shell_commands,
)

# (file, a line of the block) -> why it does not run in the suite. Add an entry only for a block
# that needs the internet, an API key or a GPU, and say so.
SKIPPED: dict[tuple[str, str], str] = {
    ("docs/training.md", 'model="Qwen/Qwen2.5-0.5B-Instruct"'):
        "downloads the model from the Hugging Face hub (tests/envs/test_trl_grpo.py trains a "
        "tiny offline model through the same trainer)",
    ("docs/training.md", 'vllm_mode="colocate"'): "needs vLLM and a GPU",
}

# Blocks that use the public `import duel` API of issue 27 (item 8), which another branch
# brings. They are expected to fail with an AttributeError until it is merged; once it is, they
# pass and this test fails, saying to empty PENDING_API (strict xfail).
PENDING_API: dict[tuple[str, str], str] = {}

PYTHON = all_blocks("python", "py")
SHELL_BLOCKS = all_blocks(*SHELL)
JSON_BLOCKS = all_blocks("json")
# Agent specs in these options are built (which checks every parameter), not only parsed.
SPEC_OPTIONS = ("p1", "p2", "vs", "player", "opponent", "model", "spec")
FAKE_KEYS = {"OPENAI_API_KEY": "sk-test", "ANTHROPIC_API_KEY": "sk-ant-test",
             "OPENROUTER_API_KEY": "sk-or-test"}


def _skip_reason(block: Block) -> str | None:
    for (path, line), reason in SKIPPED.items():
        if block.path == path and line in block.text:
            return reason
    return None


def test_skip_lists_name_real_blocks() -> None:
    """A skip entry whose block is gone (renamed, rewritten) is an error, not a silent pass."""
    for (path, line) in SKIPPED:
        assert any(b.path == path and line in b.text for b in PYTHON), (path, line)
    for (path, line) in PENDING_API:
        assert any(b.path == path and line in b.text for b in PYTHON), (path, line)


def test_the_pages_have_examples() -> None:
    paths = {b.path for b in PYTHON}
    assert {"README.md", "docs/engine.md", "docs/python.md", "docs/learning.md"} <= paths
    assert len(SHELL_BLOCKS) >= 15


@pytest.mark.parametrize("block", PYTHON, ids=[b.id for b in PYTHON])
def test_python_example_runs(block: Block, tmp_path: Path) -> None:
    reason = _skip_reason(block)
    if reason:
        pytest.skip(reason)
    script = tmp_path / "example.py"
    script.write_text(block.text, encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    # An example may start `duel` by name (an MCP client does): this environment's, first.
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    done = subprocess.run([sys.executable, str(script)], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=300)
    if any(block.path == path and line in block.text for (path, line) in PENDING_API):
        if done.returncode != 0 and "AttributeError: module 'duel' has no attribute" in \
                done.stderr:
            pytest.xfail("needs the public `import duel` API (issue 27 item 8)")
        assert done.returncode != 0, (f"{block.id} runs now: the public API has landed, "
                                      "remove it from PENDING_API")
    assert done.returncode == 0, f"{block.id} failed:\n{block.text}\n{done.stderr[-3000:]}"


def _commands() -> list[tuple[str, list[str]]]:
    found = []
    for block in SHELL_BLOCKS:
        for command in shell_commands(block):
            for argv in duel_argvs(command):
                found.append((f"{block.id} duel {' '.join(argv)}", argv))
    return found


COMMANDS = _commands()


def test_shell_blocks_hold_duel_commands() -> None:
    assert len(COMMANDS) >= 40


@pytest.mark.parametrize("argv", [c[1] for c in COMMANDS], ids=[c[0][:90] for c in COMMANDS])
def test_duel_command_parses(argv: list[str], monkeypatch: pytest.MonkeyPatch,
                             capsys: pytest.CaptureFixture[str]) -> None:
    parser = cli_parser()
    _no_abbreviations(parser)
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse's way to refuse (2), or --version/--help (0)
        assert exc.code == 0, f"duel {' '.join(argv)}: {capsys.readouterr().err}"
        return
    for name, value in FAKE_KEYS.items():
        monkeypatch.setenv(name, value)  # an LLM spec is built without calling anyone
    _build_specs(args)


def _no_abbreviations(parser: argparse.ArgumentParser) -> None:
    """argparse takes `--rung` for `--rungs`: an example must spell every option in full, so
    that renaming an option breaks it."""
    parser.allow_abbrev = False
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                _no_abbreviations(sub)


def _build_specs(args: object) -> None:
    from duel.agents import make_agent

    specs: list[str] = []
    for option in SPEC_OPTIONS:
        value = getattr(args, option, None)
        if isinstance(value, str) and (":" in value or value in ("rule", "random", "dqn")):
            specs.append(value)
    specs += [item.partition("=")[2] for item in getattr(args, "agent", None) or []]
    specs += list(getattr(args, "players", None) or [])
    for spec in specs:
        agent = make_agent(spec)
        close = getattr(agent, "close", None)
        if callable(close):
            close()


@pytest.mark.parametrize("block", JSON_BLOCKS, ids=[b.id for b in JSON_BLOCKS])
def test_json_example_parses(block: Block) -> None:
    json.loads(block.text)

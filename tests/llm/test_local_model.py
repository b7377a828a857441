"""End to end with the real local model (llama.cpp server, real openai SDK). Slow: the first
call processes the ~12k-token rules prompt on the CPU; later calls reuse the cached prefix."""

from __future__ import annotations

import random

import pytest

from duel.agents import make_agent
from duel.agents.llm.local import MODEL_SHA256, LocalServer, assemble_model, sha256_file
from duel.engine import new_game
from duel.errors import LLMConfigError
from duel.match import decide

pytestmark = pytest.mark.slow


def test_model_chunks_join_into_the_pinned_gguf() -> None:
    path = assemble_model()
    assert path.read_bytes()[:4] == b"GGUF"
    assert sha256_file(path) == MODEL_SHA256


def test_a_checksum_mismatch_is_refused(tmp_path) -> None:  # type: ignore[no-untyped-def]
    part = tmp_path / "part01.bin"
    part.write_bytes(b"GGUF not really a model")
    target = tmp_path / "model.gguf"
    with pytest.raises(LLMConfigError, match="refusing to load it"):
        assemble_model([part], target)
    assert not target.exists() and not list(tmp_path.glob("*.part"))


def test_local_model_decides_legal_moves_through_the_sdk() -> None:
    agent = make_agent("llm:local,max_attempts=2,fallback=random")
    state = new_game(7)
    rng = random.Random(0)
    try:
        calls = []
        for _ in range(4):
            move, details, _ = decide(agent, state, rng)
            assert move in state.legal_moves()
            calls.extend(details["llm"]["calls"])
            state = state.apply(move)
    finally:
        LocalServer.shared().stop()
    assert calls and all(c["provider"] == "local" for c in calls)
    ok = [c for c in calls if c["category"] != "TRANSPORT"]
    assert ok, "the local server answered no call"
    assert all(c["input_tokens"] > 5000 for c in ok)  # the rules prompt was sent

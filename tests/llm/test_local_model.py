"""End to end with the real local model (llama.cpp server, real openai SDK). Slow: the first
call processes the rules text on the CPU (~4k tokens for `local`, the local seat's default);
later calls reuse the cached prefix."""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest

from duel.agents import make_agent
from duel.agents.attempts import Category
from duel.agents.llm.servers.local import LocalServer
from duel.agents.llm.servers.model_source import MODEL_SHA256, assemble_model, sha256_file
from duel.bench.local import positions
from duel.engine import new_game
from duel.engine.perspective import Perspective
from duel.errors import LLMConfigError
from duel.match import decide
from duel.prompts import get_variant

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module", autouse=True)
def one_server() -> Iterator[None]:
    """One model server for the module's games: its cached rules text (~4k tokens, about a
    minute to read on this CPU) serves every test after the first."""
    try:
        yield
    finally:
        LocalServer.shared().stop()


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


def test_local_model_decides_moves_of_the_prompt_s_shape_through_the_sdk() -> None:
    """The unconstrained way (output held only to the move JSON's shape, as for any other
    model): each answer is read as the prompt's move format, re-asked if illegal, and played.
    The local prompt keeps it to one reading of ~4k tokens; the ~11k of the rules prompt would
    take minutes on this CPU and proves nothing more here."""
    agent = make_agent("llm:local,prompt=local,constrain=shape,max_attempts=2,max_tokens=64,"
                       "fallback=random")  # a move is ~25 tokens; a rambling reply is cut off
    state = new_game(7)
    rng = random.Random(0)
    # One decision: a second one (~15 s) exercised nothing the first does not, and the suite
    # must stay under 15 minutes on 2 cores.
    move, details, _ = decide(agent, state, rng)
    assert move in state.legal_moves()
    calls = list(details["llm"]["calls"])
    assert calls and all(c["provider"] == "local" for c in calls)
    ok = [c for c in calls if c["category"] != "TRANSPORT"]
    assert ok, "the local server answered no call"
    assert all(c["input_tokens"] > 3500 for c in ok)  # the local rules text was sent
    # every answer the server gave was read: a move in the prompt's format, or a named failure
    assert all(c["category"] in {Category.OK, Category.TRUNCATED, Category.EMPTY,
                                   Category.UNPARSABLE, Category.SCHEMA, Category.ILLEGAL}
               for c in ok), [c["category"] for c in ok]


def test_the_local_prompt_fits_its_budget_in_the_models_own_tokens() -> None:
    import httpx

    url = LocalServer.shared().ensure_started().removesuffix("/v1")  # llama.cpp's /tokenize
    tokens = httpx.post(url + "/tokenize", json={"content": get_variant("local").system},
                        timeout=60).json()["tokens"]
    assert 3000 < len(tokens) < 4000  # the baseline is ~10,900


def test_the_default_local_seat_answers_legal_moves_at_the_first_try() -> None:
    agent = make_agent("llm:local")
    for pos in positions(2):
        seen = Perspective.to_move(pos.state)
        legal = seen.moves_out(pos.state.legal_moves())
        decision = agent.choose(seen.view(pos.state), legal, random.Random(0))
        llm = decision.details["llm"]
        assert llm["legal_at_attempt"] == 1 and decision.move in legal
        (call,) = llm["calls"]
        # the short rules and the one-line state were sent; the answer is a bare move
        assert 3500 < call["input_tokens"] < 6000 and call["output_tokens"] < 40


def test_the_server_goes_when_its_duel_process_is_killed() -> None:
    import os
    import subprocess
    import sys
    import time

    parent = subprocess.Popen(
        [sys.executable, "-c", "import time\n"
         "from duel.agents.llm.servers.local import LocalServer\n"
         "s = LocalServer(); s.ensure_started()\n"
         "print(s.process.pid, flush=True); time.sleep(600)"],
        stdout=subprocess.PIPE, text=True)
    assert parent.stdout is not None
    server = int(parent.stdout.readline())
    parent.kill()  # SIGKILL: no exit hook runs
    parent.wait()
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:  # gone, or a zombie that nobody reaps here
            if open(f"/proc/{server}/stat").read().rsplit(")", 1)[1].split()[0] == "Z":
                return
        except FileNotFoundError:
            return
        time.sleep(0.5)
    os.kill(server, 9)
    raise AssertionError("the llama.cpp server outlived its duel process by 30 s")

"""The CPU Inspect adds per move (docs/inspect.md): the same games, against the loopback fake
model, played by `inspect eval duel/match`, by `duel tournament` with duel's own LLM seat, and
by TextEnv with no model call; each path's CPU at 2 and at 8 games, the difference per decision
(so a process's start is left out). Run: python tests/inspect_tasks/measure_overhead.py"""

from __future__ import annotations

import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from helpers.fake_llm_server import FakeLLMServer  # noqa: E402
from helpers.inspect_runs import legal_reply  # noqa: E402

from duel.envs import TextEnv  # noqa: E402

BIN = Path(sys.executable).parent


def children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def timed(srv: FakeLLMServer, args: list[str]) -> tuple[float, int]:
    """The command's CPU seconds and the model calls it made."""
    before, calls = children_cpu(), len(srv.requests)
    subprocess.run(args, check=True, capture_output=True, cwd=tempfile.mkdtemp())
    return children_cpu() - before, len(srv.requests) - calls


def inspect_args(srv: FakeLLMServer, games: int) -> list[str]:
    os.environ.update(FAKE_API_KEY="sk-test", FAKE_BASE_URL=f"{srv.url}/v1")
    return [str(BIN / "inspect"), "eval", "duel/match", "--model", "openai-api/fake/m",
            "-T", "opponent=random", "-T", f"games={games}", "-T", "quality=0",
            "--display", "none", "--max-samples", "1"]


def duel_args(srv: FakeLLMServer, games: int) -> list[str]:
    os.environ["OPENAI_API_KEY"] = "sk-test"
    return [str(BIN / "duel"), "tournament", "--p1", f"llm:compat:fake@{srv.url}/v1,mode=text",
            "--p2", "random", "--games", str(games), "--out", tempfile.mkdtemp(),
            "--no-progress"]


def direct(games: int) -> tuple[float, int]:
    start, n = time.process_time(), 0
    for i in range(games):
        env = TextEnv(opponent="random", seat=1 + i % 2)
        obs, rng = env.reset(seed=i // 2), random.Random(i)
        while True:
            r = env.step(json.dumps(rng.choice(obs.legal)))
            n += 1
            if r.done or r.observation is None:
                break
            obs = r.observation
    return time.process_time() - start, n


def main() -> None:
    with FakeLLMServer(responder=legal_reply) as srv:
        for name, make in (("inspect eval duel/match", inspect_args),
                           ("duel tournament, llm:compat", duel_args)):
            (c2, n2), (c8, n8) = timed(srv, make(srv, 2)), timed(srv, make(srv, 8))
            per = (c8 - c2) / (n8 - n2)
            print(f"{name}: {per * 1000:.1f} ms CPU per decision (n={n8 - n2}), start "
                  f"{c2 - n2 * per:.1f} s")
    (c2, n2), (c8, n8) = direct(2), direct(8)
    print(f"TextEnv, no model call: {(c8 - c2) / (n8 - n2) * 1000:.1f} ms per decision "
          f"(n={n8 - n2})")
    print("load average:", " ".join(f"{x:.1f}" for x in os.getloadavg()), "on", os.cpu_count(),
          "CPUs")


if __name__ == "__main__":
    main()

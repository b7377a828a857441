"""The CPU Inspect adds per move (docs/inspect.md): the same games, against the loopback fake
model, played by `inspect eval duel/match`, by `duel tournament` with duel's own LLM seat, and
by TextEnv with no model call; each path's CPU at 2 and at 8 games, the difference per decision
(so a process's start is left out). Run: python tests/inspect_tasks/measure_overhead.py
With --tools: `inspect eval duel/match` with tools=off and tools=on (the scripted tool-calling
model: four look-ups, then make_move, three replies a decision), per decision and per reply."""

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
from helpers.inspect_runs import InspectToolModel, legal_reply  # noqa: E402

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


def decisions(folder: str) -> int:
    """The model's decisions in the games an eval wrote (its seat's moves in the transcripts)."""
    from duel.transcripts import read

    n = 0
    for path in Path(folder).rglob("*.jsonl"):
        t = read(path)
        seat = next(p for p in (1, 2) if (t.spec(p) or "").startswith("llm:"))
        n += sum(1 for m in t.moves if m.get("player") == seat)
    return n


def tools(games: int, on: bool) -> tuple[float, int, int]:
    """CPU seconds, decisions and model replies of one eval of `games` games."""
    model = InspectToolModel("careful")
    with FakeLLMServer(responder=model if on else legal_reply) as srv:
        games_dir = tempfile.mkdtemp()
        before = children_cpu()
        subprocess.run([*inspect_args(srv, games), "-T", f"tools={'on' if on else 'off'}",
                        "-T", f"transcripts={games_dir}"], check=True, capture_output=True,
                       cwd=tempfile.mkdtemp())
        return children_cpu() - before, decisions(games_dir), len(srv.requests)


def main() -> None:
    if "--tools" in sys.argv:
        for on in (False, True):
            (c2, d2, r2), (c8, d8, r8) = tools(2, on), tools(8, on)
            print(f"tools={'on' if on else 'off'}: {(c8 - c2) / (d8 - d2) * 1000:.1f} ms CPU per "
                  f"decision (n={d8 - d2}), {(c8 - c2) / (r8 - r2) * 1000:.1f} ms per reply "
                  f"(n={r8 - r2})")
        print("load average:", " ".join(f"{x:.1f}" for x in os.getloadavg()), "on",
              os.cpu_count(), "CPUs")
        return
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

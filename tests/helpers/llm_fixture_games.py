"""The games of the fixed LLM transcripts in tests/llm/data (see test_llm_fixed_transcripts.py),
and the script that wrote them: against loopback servers, so the files hold every kind of call
record the seats write.

- ``openai_vs_http.jsonl``: an OpenAI reasoning model at high effort (priced, reasoning tokens)
  whose replies are now and then cut off, empty, not JSON, malformed, illegal or a 500, with one
  move left to the fallback; against an ``http:`` bot that now and then answers 404, 500, not
  JSON, malformed or illegal, with one move left to its fallback.
- ``compat_vs_anthropic.jsonl``: an unpriced model behind a compatible endpoint that refuses
  temperature and max_tokens (adaptations recorded, cost null), against Claude thinking with a
  budget (thinking text recorded).

Run ``python tests/helpers/llm_fixture_games.py OUT_DIR`` with the duel whose format the files
should show (they were written by main at 5e7254c, before the attempt policy and the typed
records); the files are fixed after that, never rewritten by the tests.
"""

from __future__ import annotations

import json
import os
import random
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from helpers.fake_llm_server import FakeLLMServer, Scripted, error_reply  # noqa: E402
from helpers.fake_reasoning_servers import (  # noqa: E402
    AnthropicThinkingModel,
    OpenAIReasoningModel,
)

from duel.agents import make_agent  # noqa: E402
from duel.engine import InfoSet, new_game  # noqa: E402
from duel.match import play_match  # noqa: E402
from duel.transcripts import TranscriptWriter  # noqa: E402

SEED = 7
# What a file's spec needs today to mean what it meant when the file was written: the Responses
# API became llm:openai's default after, so its OpenAI seat now says api=chat.
PINNED = {"openai_vs_http.jsonl": ",api=chat"}


class Unreliable:
    """An OpenAI reasoning model whose `n`-th request (1-based) gets `faults[n]` instead."""

    def __init__(self, model: OpenAIReasoningModel, faults: dict[int, Scripted]) -> None:
        self.model = model
        self.faults = faults
        self.n = 0

    def __call__(self, body: dict[str, Any]) -> Scripted:
        self.n += 1
        fault = self.faults.get(self.n)
        return fault if fault is not None else self.model(body)


def content(text: str | None, finish: str = "stop", completion: int = 40) -> Scripted:
    return OpenAIReasoningModel.reply(text, finish, completion, 0)


def openai_faults() -> dict[int, Scripted]:
    illegal = json.dumps({"move": "CONSTRUCT_BUILDING", "moveData": {"cardIndex": 0}})
    malformed = json.dumps({"move": "CONSTRUCT_BUILDING", "moveData": {"cardIndex": 99}})
    faults = {3: content("I would rather not say."), 6: content(illegal),
              9: content(malformed), 12: content(""), 15: error_reply(500),
              18: content('{"move": "DISC', "length", 16000)}
    for n in (21, 22, 23):  # a whole decision without a usable reply: the fallback plays
        faults[n] = content("pass")
    return faults


class Bot(ThreadingHTTPServer):
    """A user's bot: the first legal move of the state it is sent, except on the requests
    listed in `faults` (status, body)."""

    def __init__(self, faults: dict[int, tuple[int, str]]) -> None:
        self.faults = faults
        self.n = 0
        self.lock = threading.Lock()
        bot = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:  # noqa: N802
                body = json.loads(self.rfile.read(int(self.headers["content-length"])))
                with bot.lock:
                    bot.n += 1
                    fault = bot.faults.get(bot.n)
                if fault is None:
                    state = InfoSet.from_view(body["state"]).sample(random.Random(0))
                    fault = (200, json.dumps(state.legal_moves()[0].to_json()))
                data = fault[1].encode()
                self.send_response(fault[0])
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        super().__init__(("127.0.0.1", 0), Handler)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"


def bot_faults() -> dict[int, tuple[int, str]]:
    return {2: (404, '{"detail": "Not Found"}'), 4: (200, "not json"),
            6: (500, "busy"), 8: (200, '{"move": "FLY", "moveData": {}}'),
            10: (200, json.dumps({"move": "CHOOSE_STARTING_PLAYER",
                                  "moveData": {"playerNumber": 1}})),
            13: (200, "[]"), 14: (200, "[]")}


@contextmanager
def serving(bot: Bot) -> Iterator[Bot]:
    thread = threading.Thread(target=bot.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield bot
    finally:
        bot.shutdown()
        bot.server_close()


def write_game(path: Path, p1: Any, p2: Any) -> None:
    state = new_game(SEED)
    writer = TranscriptWriter.for_match(path, SEED, state.deal, (p1, p2), True)
    try:
        result = play_match(p1, p2, seed=SEED, deal=state.deal, on_move=writer.record)
        writer.finish(result.result)
    finally:
        writer.close()


def budget_then(agent: Any, max_tokens: int) -> Any:
    """The output budget duel started a model at when the files were written (before models
    that reason started at their output limit): the same records today, under the same spec."""
    agent.base_settings = replace(agent.base_settings, max_tokens=max_tokens)
    return agent


def openai_vs_http(path: Path) -> None:
    with FakeLLMServer(Unreliable(OpenAIReasoningModel(reasoning=300),
                                  openai_faults())) as llm, serving(Bot(bot_faults())) as bot:
        # Chat Completions, OpenAI's default when the file was written (PINNED: its spec then)
        p1 = make_agent(f"llm:openai:gpt-5-mini,base_url={llm.url}/v1,reasoning_effort=high,"
                        "backoff=0.01" + PINNED["openai_vs_http.jsonl"])
        budget_then(p1, 16000)
        p2 = make_agent(f"http:{bot.url},agent=rule,max_attempts=2")
        write_game(path, p1, p2)


def compat_vs_anthropic(path: Path) -> None:
    with FakeLLMServer(OpenAIReasoningModel(reasoning=200)) as compat, \
            FakeLLMServer(AnthropicThinkingModel(thinks=500)) as claude:
        # mode=tool: the compatible servers' default when this game was recorded
        p1 = make_agent(f"llm:compat:thinker@{compat.url}/v1,mode=tool,temperature=0,"
                        "fallback=rule")
        p2 = make_agent(f"llm:anthropic:claude-sonnet-4-6,base_url={claude.url},"
                        "thinking=2048,fallback=forfeit")
        budget_then(p2, 2048 + 1024)
        write_game(path, p1, p2)


GAMES: dict[str, Callable[[Path], None]] = {
    "openai_vs_http.jsonl": openai_vs_http,
    "compat_vs_anthropic.jsonl": compat_vs_anthropic,
}


if __name__ == "__main__":
    os.environ.setdefault("OPENAI_API_KEY", "sk-test")
    os.environ.setdefault("ANTHROPIC_API_KEY", "sk-ant-test")
    out = Path(sys.argv[1])
    for name, game in GAMES.items():
        game(out / name)
        print(out / name)

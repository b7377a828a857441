"""Real tournaments for the leaderboard's tests: MCTS rungs with small budgets, rule, random and
an LLM seat on a fake OpenAI server (priced as gpt-4o-mini), some of its games analysed."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from helpers.fake_llm_server import FakeLLMServer, Scripted, openai_reply

from duel.analysis import Settings, analyse_file
from duel.engine import InfoSet
from duel.runs import tournament

LLM = "llm:openai:gpt-4o-mini,base_url={url}/v1,api=chat,backoff=0.01"
# The Python search with tree reuse (native=0,reuse=1, the default when they were written): the
# figures these tests check (the rule agent placed above MCTS-40) are those of its seeded games.
RUNGS = ("mcts:iterations=4,native=0,reuse=1", "mcts:iterations=40,native=0,reuse=1")
# (player A, player B, games): a ladder of two rungs, rule and random on it, the LLM against
# random and rule.
PAIRINGS = (
    (RUNGS[0], RUNGS[1], 6), ("rule", RUNGS[0], 6), ("rule", RUNGS[1], 6),
    ("random", RUNGS[0], 6), ("random", "rule", 4), ("{llm}", "random", 6),
    ("{llm}", "rule", 4))


class Model:
    """A fake model that plays the first legal move, but answers every fifth request with
    words (a re-ask follows, so first-try legality is below 100%)."""

    def __init__(self) -> None:
        self.calls = 0

    def __call__(self, body: dict[str, Any]) -> Scripted:
        self.calls += 1
        if self.calls % 5 == 0:
            return openai_reply("I will take the card on the left.")
        text = next(m["content"] for m in body["messages"] if m["role"] == "user")
        view, _ = json.JSONDecoder().raw_decode(text, text.index("{"))
        legal = InfoSet.from_view(view).sample(random.Random(0)).legal_moves()
        return openai_reply(json.dumps(legal[0].to_json()))


def play_all(root: Path, analyse: int = 2) -> tuple[list[Path], str]:
    """Every pairing's tournament under `root` (a folder each); then the analyser's verdict on
    the LLM's seat in its first `analyse` games. The folders and the LLM's spec."""
    folders = []
    with FakeLLMServer(responder=Model()) as srv:
        llm = LLM.format(url=srv.url)
        for i, (a, b, games) in enumerate(PAIRINGS):
            out = root / f"t{i}"
            tournament.run(a.format(llm=llm), b.format(llm=llm), games, seed=10 * i,
                           out=str(out), progress=False)
            folders.append(out)
    lines = [json.loads(line) for line in
             (root / "t5" / "games.jsonl").read_text().splitlines()][:analyse]
    for line in lines:
        seat = 1 if line["player1"] == llm else 2
        analyse_file(root / "t5" / line["transcript"], (seat,), Settings(iterations=30), jobs=1)
    return folders, llm

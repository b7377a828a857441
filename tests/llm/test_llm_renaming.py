"""names=renamed: no true card, wonder or token name reaches the model (every request body the
fake server receives is scanned: rules prompt, states, the game so far, legal moves, re-ask
reasons, schemas), the model's invented names are mapped back before the engine sees the move,
the transcript keeps the true names and the mapping, and the game replays under true names."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path
from typing import Any

import pytest
from helpers.fake_harness_model import turns
from helpers.fake_llm_server import FakeLLMServer, Scripted, anthropic_reply, openai_reply
from helpers.fake_responses_server import OpenAIResponsesModel

from duel.agents.llm.framing.renaming import Renaming, forms, true_names
from duel.cli import main
from duel.engine import InfoSet
from duel.prompts import get_variant
from duel.transcripts import read, verified_result

SEED = 1


class RenamedModel:
    """Plays legal moves knowing only the invented names: it reads the state through the
    inverse mapping (as a test may; the model never sees it) and answers in invented names.
    Every `bad_every`-th first answer names an illegal slot, to get a re-ask reason."""

    def __init__(self, renaming: Renaming, bad_every: int = 4) -> None:
        self.r = renaming
        self.calls = 0
        self.bad_every = bad_every

    def __call__(self, body: dict[str, Any]) -> Scripted:
        self.calls += 1
        user = [m["content"] for m in turns(body) if m["role"] == "user"]
        text = self.r.text_back(user[0] if isinstance(user[0], str) else user[0][0]["text"])
        start = text.index("{", text.index("you are player2"))
        view, _ = json.JSONDecoder().raw_decode(text, start)
        legal = InfoSet.from_view(view).sample(random.Random(0)).legal_moves()
        move = random.Random(self.calls).choice(legal).to_json()
        if len(user) == 1 and self.calls % self.bad_every == 0 and "cardIndex" in str(move):
            move = {"move": "CONSTRUCT_BUILDING", "moveData": {"cardIndex": 0}}
        answer = self.r.json(move)
        sent = json.dumps(body)  # notes=on (in the schema, or the prompt's text): a plan naming
        if '"note"' in sent or '\\"note\\"' in sent:  # a card, as the model knows it
            answer["note"] = self.r.text(f"{NOTE} (call {self.calls})")
        if "system" in body and isinstance(body["system"], list):
            return anthropic_reply(tool_input=answer)
        if "input" in body:  # the Responses API
            return OpenAIResponsesModel.response(body, "completed", [
                {"type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
                 "content": [{"type": "output_text", "text": json.dumps(answer),
                              "annotations": []}]}], 40, 0, 0)
        return openai_reply(content=json.dumps(answer))


NOTE = "next: LUMBER_YARD, then The Hanging Gardens"


def true_name_pattern() -> re.Pattern[str]:
    every = {f for n in true_names() for f in forms(n)}
    alternatives = "|".join(re.escape(f) for f in sorted(every, key=len, reverse=True))
    return re.compile(rf"(?<![A-Za-z0-9_])(?:{alternatives})(?![A-Za-z0-9_])")


@pytest.mark.parametrize("spec", [
    "llm:openai:gpt-4o-mini,base_url={url}/v1,api=chat,backoff=0.01",
    "llm:openai:gpt-4.1-mini,base_url={url}/v1,backoff=0.01",
    "llm:anthropic:claude-sonnet-4-6,base_url={url},backoff=0.01",
    "llm:compat:m@{url}/v1,mode=text,backoff=0.01",
])
def test_no_true_name_reaches_the_model_and_the_game_replays_under_true_names(
        server: FakeLLMServer, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        spec: str) -> None:
    renaming = Renaming(SEED, get_variant("baseline").system)
    server.responder = RenamedModel(renaming)
    path = tmp_path / "g.jsonl"
    code = main(["match", "--p1",
                 spec.format(url=server.url) + ",names=renamed,history=all,notes=on",
                 "--p2", "rule", "--seed", "2", "-v", "--transcript", str(path)])
    out = capsys.readouterr().out
    assert code == 0, out
    leaks = true_name_pattern()
    bodies = [json.dumps(r["body"]) for r in server.requests]
    assert len(bodies) > 30
    for i, body in enumerate(bodies):
        found = leaks.search(body)
        assert found is None, f"request {i} names {found.group(0)!r}"
    invented = set(renaming.names.values())
    assert sum(any(w in body for w in invented) for body in bodies) == len(bodies)
    t = read(path)
    verified_result(t)  # every move replays on the engine under its true name
    prompt = t.header["players"]["1"]["prompt"]
    assert prompt["harness"] == "history=all,notes=on,names=renamed"
    # the note comes back mapped to true names, and goes to the model renamed again
    first = next(m for m in t.moves if m["player"] == 1)
    assert first["details"]["llm"]["note"].startswith(f"{NOTE} (call ")
    assert any(f"Your note from your last move: {renaming.text(NOTE)} (call " in b
               for b in bodies)
    assert prompt["renaming"] == {"seed": SEED, "names": renaming.names}
    calls = [c for m in t.moves if m["player"] == 1 for c in m["details"]["llm"]["calls"]]
    reasked = [c for c in calls if c["category"] == "ILLEGAL"]
    assert reasked  # the re-ask reasons were sent (renamed) too
    # the transcript keeps the true names: replies are recorded mapped back
    text = json.dumps(calls)
    assert not any(w in text for w in invented)
    assert any(n in text for n in true_names())


def test_the_renaming_is_seeded_consistent_and_unambiguous() -> None:
    system = get_variant("baseline").system
    a, b, c = Renaming(1, system), Renaming(1, system), Renaming(2, system)
    assert a.names == b.names and a.names != c.names
    assert len(set(a.names.values())) == len(a.names) == len(true_names())
    words = {w.upper() for w in re.findall(r"[A-Za-z]+", system)}
    assert not set(a.names.values()) & words
    line = "Player 1 builds The Hanging Gardens with Lumber Yard; THE_HANGING_GARDENS, LUMBER_YARD"
    out = a.text(line)
    assert "Hanging" not in out and "Lumber" not in out and "LUMBER" not in out
    assert a.text_back(out) == line
    assert a.json({"move": "SELECT_WONDER", "moveData": {"wonder": "PIRAEUS"}}) == \
        {"move": "SELECT_WONDER", "moveData": {"wonder": a.names["PIRAEUS"]}}
    assert "Puraeus" not in a.text(system)


def test_names_setting_values() -> None:
    from duel.errors import SpecError
    from duel.prompts.harness import Harness

    assert Harness.from_options({"names": "renamed"}).renaming_seed == 1
    assert Harness.from_options({"names": "renamed:7"}).renaming_seed == 7
    assert Harness().renaming_seed is None
    with pytest.raises(SpecError, match="names must be true, renamed or renamed:N"):
        Harness.from_options({"names": "shuffled"})

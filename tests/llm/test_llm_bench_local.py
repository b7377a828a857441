"""`duel bench local` without the model: the fixed positions, the candidates, and a whole run
against a stand-in server that speaks the OpenAI API (through the real SDK) and, like llama.cpp
under a schema, answers what the schema admits."""

from __future__ import annotations

import json
import signal
from pathlib import Path
from typing import Any

import pytest
from helpers.fake_llm_server import FakeLLMServer, Scripted, openai_reply

from duel.agents.llm.servers.local import LocalServer
from duel.bench.local import bench_local, candidate_spec, positions, quotas, table
from duel.errors import SpecError


def test_quotas_cover_every_kind_and_add_up() -> None:
    assert quotas(20) == {"draft": 3, "age1": 4, "age2": 4, "age3": 4, "token": 2, "start": 1,
                          "wonder": 2}
    for n in (1, 5, 7, 13, 40):
        assert sum(quotas(n).values()) == n
    assert all(quotas(7).values())


def test_positions_are_fixed_and_each_one_is_a_choice() -> None:
    first, again = positions(20), positions(20)
    assert [(p.kind, p.seed, p.ply) for p in first] == [(p.kind, p.seed, p.ply) for p in again]
    assert [p.kind for p in first] == [k for k, n in quotas(20).items() for _ in range(n)]
    for p in first:
        assert len(p.state.legal_moves()) >= 2 and not p.state.is_terminal()
        step, age = p.state.step_name, p.state.age
        assert {"draft": step == "WONDER_SELECTION", "token": step == "CHOOSE_PROGRESS_TOKEN",
                "start": step == "CHOOSE_STARTING_PLAYER",
                "wonder": step in ("DESTROY_BROWN", "DESTROY_GREY", "CONSTRUCT_FROM_DISCARD",
                                   "CHOOSE_PROGRESS_TOKEN_FROM_DISCARD"),
                }.get(p.kind, step == "PLAY_CARD" and p.kind == f"age{age}")
    assert positions(20, seed=1)[0].seed != first[0].seed


def test_candidate_names() -> None:
    assert candidate_spec("default") == "llm:local"
    assert candidate_spec("baseline") == "llm:local,prompt=baseline,constrain=shape"
    assert candidate_spec("local+legal") == "llm:local,prompt=local,constrain=legal"
    # Settings as grading names them: on the shipped seat, or on a prompt variant.
    assert candidate_spec("default+think=text") == "llm:local,think=text"
    assert candidate_spec("default+legal+tools=on+tool_steps=2") == \
        "llm:local,constrain=legal,tools=on,tool_steps=2"
    assert candidate_spec("local+legal+names=renamed") == \
        "llm:local,prompt=local,constrain=legal,names=renamed"
    assert candidate_spec("think=text") == "llm:local,prompt=baseline,constrain=shape,think=text"
    for bad in ("nosuch", "local+strict", "default+compact", "default+think=loud"):
        with pytest.raises(SpecError, match="unknown candidate .* valid: default"):
            candidate_spec(bad)
    with pytest.raises(SpecError, match="history need a game's earlier moves"):
        candidate_spec("default+history=all")


class StandInServer:
    """In place of LocalServer.shared(): the fake OpenAI server, always running."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.process = None
        self.settings: dict[str, str] = {}
        self.stops = 0
        self.calls = 0

    def ensure_started(self) -> str:
        return self.url

    def slot_for(self, prefix: str) -> int:
        return 0

    def stop(self) -> None:
        self.stops += 1


def schema_answer(body: dict[str, Any]) -> Scripted:
    """The first move a legal-move schema admits; prose (no move) under the move schema."""
    fmt = body["response_format"]  # json_schema (the default) or json_object with a schema
    schema = fmt["json_schema"]["schema"] if fmt.get("type") == "json_schema" else fmt["schema"]
    branch = schema.get("anyOf", [schema])[0]
    move = branch["properties"]["move"]
    if "const" not in move:
        return openai_reply(content="I would build the pyramids.")
    data = {k: f["const"] if "const" in f else f["enum"][0]
            for k, f in branch["properties"]["moveData"]["properties"].items()}
    return openai_reply(content=json.dumps({"move": move["const"], "moveData": data}))


def test_a_run_prints_the_table_and_records_every_decision(
        server: FakeLLMServer, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    stand_in = StandInServer(server.url + "/v1")
    monkeypatch.setattr(LocalServer, "shared", lambda: stand_in)
    server.responder = schema_answer
    out = tmp_path / "decisions.jsonl"
    printed: list[str] = []
    handler = signal.getsignal(signal.SIGTERM)
    rows = bench_local(["local+legal", "local"], n=7, quality_iterations=50,
                       server_settings={"flash_attn": "true"}, out=str(out), echo=printed.append)
    legal, free = rows
    assert legal["candidate"] == "local+legal" and legal["n"] == 7
    assert legal["first_try"][0] == 7 and legal["legal"][0] == 7 and legal["calls"] == 7
    assert free["first_try"][0] == 0 and free["legal"][0] == 0 and free["calls"] == 21
    assert free["legal_per_min"] == 0.0 and legal["legal_per_min"] > 0
    assert 0 <= legal["share"] <= 1 and 0 < legal["random_share"] <= 0.5
    assert stand_in.settings == {"flash_attn": "true"} and stand_in.stops >= 2
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(records) == 14 and {r["candidate"] for r in records} == {"local+legal", "local"}
    assert all(r["calls"] >= 1 and r["seconds"] > 0 for r in records)
    # the system prompt is the short one, the state compact, the output constrained
    first = server.requests[0]["body"]
    assert first["messages"][0]["content"].startswith("You are a player")
    assert len(first["messages"][0]["content"]) < 14000
    assert printed[-1] == table(rows)
    assert printed[-1].splitlines()[2].startswith("| local+legal | 7 | 7/7 100% [65-100] |")
    assert "| local | 7 | 0/7 0% [0-35] | 0/7 0% [0-35] |" in printed[-1]
    assert "load average" in printed[0]
    assert printed[1].startswith("MCTS share of reference players: random 0.")
    assert signal.getsignal(signal.SIGTERM) is handler  # only the run itself exits on SIGTERM

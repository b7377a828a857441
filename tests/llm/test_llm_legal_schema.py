"""The legal-move schema admits exactly the legal moves: checked with jsonschema against every
move the move format can express, in states of many random games, in the seat's own labels; and
a constrained agent sends it through the real SDK, where an unconstrained one sends the move
schema."""

from __future__ import annotations

import copy
import itertools
import json
import random
from typing import Any

import pytest
from helpers.fake_llm_server import FakeLLMServer, Scripted, openai_reply
from helpers.games import random_game_states
from jsonschema import Draft202012Validator

from duel.agents import make_agent
from duel.agents.llm.legal_schema import legal_move_schema
from duel.agents.llm.schema import structured_schema
from duel.engine import Move
from duel.engine.moves import (
    BUILD_MOVES,
    DESTROY_MOVES,
    DISCARD_MOVES,
    FROM_DISCARD_MOVES,
    LIBRARY_MOVES,
    SELECT_MOVES,
    START_MOVES,
    TOKEN_MOVES,
    WONDER_MOVES,
)
from duel.engine.perspective import Perspective

# Every move the format can express: 460 of them.
EVERY_MOVE: tuple[Move, ...] = (*BUILD_MOVES, *DISCARD_MOVES, *itertools.chain(*WONDER_MOVES),
                                *SELECT_MOVES, *TOKEN_MOVES, *LIBRARY_MOVES, *DESTROY_MOVES,
                                *FROM_DISCARD_MOVES, *START_MOVES)


def sampled_states(games: int, per_game: int) -> list[Any]:
    """A few states of each random game, every step kind included over the games."""
    out = []
    for seed in range(games):
        states = [s for s in random_game_states(seed) if not s.is_terminal()]
        rng = random.Random(seed)
        special = [s for s in states if s.step_name != "PLAY_CARD"]
        out.extend(rng.sample(states, min(per_game, len(states))))
        out.extend(rng.sample(special, min(3, len(special))))
    return out


@pytest.mark.parametrize("chunk", range(4))
def test_the_schema_admits_the_legal_moves_and_nothing_else(chunk: int) -> None:
    steps = set()
    for state in sampled_states(40, 4)[chunk::4]:
        seen = Perspective.to_move(state)
        legal = seen.moves_out(state.legal_moves())
        validator = Draft202012Validator(legal_move_schema(legal))
        steps.add(state.step_name)
        for move in EVERY_MOVE:
            assert validator.is_valid(move.to_json()) == (move in legal), (state.step_name, move)
    assert {"WONDER_SELECTION", "PLAY_CARD"} <= steps


def test_malformed_forms_of_a_legal_move_are_refused() -> None:
    state = random_game_states(3)[30]
    legal = state.legal_moves()
    validator = Draft202012Validator(legal_move_schema(legal))
    good = legal[0].to_json()
    assert validator.is_valid(good)
    extra_key = {**good, "why": "because"}
    extra_data = copy.deepcopy(good)
    extra_data["moveData"]["wonder"] = "THE_PYRAMIDS"
    as_text = copy.deepcopy(good)
    as_text["moveData"]["cardIndex"] = str(good["moveData"]["cardIndex"])
    no_data = {"move": good["move"]}
    for bad in (extra_key, extra_data, as_text, no_data, [good], json.dumps(good)):
        assert not validator.is_valid(bad), bad


def test_one_branch_per_kind_and_later_fields() -> None:
    legal = [Move("DISCARD", card_index=3), Move("DISCARD", card_index=7),
             Move("CONSTRUCT_WONDER", card_index=3, wonder="THE_SPHINX"),
             Move("CONSTRUCT_WONDER", card_index=7, wonder="THE_SPHINX"),
             Move("CONSTRUCT_WONDER", card_index=7, wonder="PIRAEUS")]
    branches = legal_move_schema(legal)["anyOf"]
    assert [b["properties"]["move"]["const"] for b in branches] == \
        ["DISCARD", "CONSTRUCT_WONDER", "CONSTRUCT_WONDER"]
    data = [b["properties"]["moveData"]["properties"] for b in branches]
    assert data[0] == {"cardIndex": {"type": "integer", "enum": [3, 7]}}
    assert data[1]["cardIndex"]["enum"] == [3, 7] and data[1]["wonder"]["const"] == "THE_SPHINX"
    assert data[2]["cardIndex"]["const"] == 7 and data[2]["wonder"]["const"] == "PIRAEUS"
    # the prompt's key order, which the grammar writes them in
    assert list(data[1]) == ["cardIndex", "wonder"]
    single = legal_move_schema([Move("CHOOSE_STARTING_PLAYER", player_number=2)])
    assert "anyOf" not in single
    assert single["properties"]["moveData"]["properties"]["playerNumber"]["const"] == 2


def test_no_legal_moves_is_an_error() -> None:
    with pytest.raises(ValueError, match="at least one legal move"):
        legal_move_schema([])


def first_admitted(schema: dict[str, Any]) -> dict[str, Any]:
    """A move the schema admits: the first value of each field of its first branch."""
    branch = schema.get("anyOf", [schema])[0]
    fields = branch["properties"]["moveData"]["properties"]
    return {"move": branch["properties"]["move"]["const"],
            "moveData": {k: f["const"] if "const" in f else f["enum"][0]
                         for k, f in fields.items()}}


@pytest.mark.parametrize("mode", ["json_object", "tool"])
def test_the_agent_sends_the_legal_schema_through_the_sdk(server: FakeLLMServer,
                                                          mode: str) -> None:
    def answer(body: dict[str, Any]) -> Scripted:
        if mode == "tool":
            schema = body["tools"][0]["function"]["parameters"]
            return openai_reply(tool_args=json.dumps(first_admitted(schema)))
        return openai_reply(content=json.dumps(first_admitted(body["response_format"]["schema"])))

    server.responder = answer
    # servers that enforce the schema in that mode (servers.py): llama.cpp's json_object,
    # vLLM's forced tool
    named = {"json_object": "llamacpp", "tool": "vllm"}[mode]
    agent = make_agent(f"llm:compat:m@{server.url}/v1,constrain=legal,mode={mode},"
                       f"server={named}")
    state = random_game_states(2)[30]
    seen = Perspective.to_move(state)
    legal = seen.moves_out(state.legal_moves())
    decision = agent.choose(seen.view(state), legal, random.Random(0))
    assert decision.details["llm"]["legal_at_attempt"] == 1
    assert decision.details["llm"]["constrain"] == "legal"
    body = server.requests[-1]["body"]
    sent = body["tools"][0]["function"]["parameters"] if mode == "tool" \
        else body["response_format"]["schema"]
    assert sent == legal_move_schema(legal)


def test_unconstrained_agents_send_the_move_schema(server: FakeLLMServer) -> None:
    server.enqueue(openai_reply(content='{"move": "SELECT_WONDER", "moveData": {"wonder": "X"}}'))
    agent = make_agent(f"llm:compat:m@{server.url}/v1,mode=json_object,max_attempts=1")
    state = random_game_states(2)[0]
    agent.choose(Perspective.to_move(state).view(state), state.legal_moves(), random.Random(0))
    assert server.requests[0]["body"]["response_format"]["schema"] == structured_schema()

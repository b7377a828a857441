"""`POST /agents/move` reads the state as given, through the one loader: the rules prompt's
example and a Great Library choice written by the format's origin server (its drawn tokens
repeated in tokensUnavailable) each get a legal move, in the state's labels."""

from __future__ import annotations

import random
from typing import Any

import pytest
from fastapi.testclient import TestClient
from helpers.reference_states import great_library_choice, prompt_example

from duel.engine import InfoSet, Move


def ask(client: TestClient, agent: str, state: dict[str, Any]) -> Move:
    r = client.post("/agents/move", json={"agent": agent, "state": state})
    assert r.status_code == 200, r.text
    body = r.json()
    return Move.from_json({"move": body["move"], "moveData": body["moveData"]})


@pytest.mark.parametrize("agent", ["random", "rule", "mcts:iterations=40"])
def test_the_prompt_s_example_gets_a_legal_move(client: TestClient, agent: str) -> None:
    """Player2 is to move: the agent reads the example itself, unchanged."""
    example = prompt_example()
    move = ask(client, agent, example)
    assert move in InfoSet.from_view(example).sample(random.Random(0)).legal_moves()


@pytest.mark.parametrize("agent", ["random", "rule", "mcts:iterations=40"])
def test_a_great_library_choice_gets_one_of_its_tokens(client: TestClient, agent: str) -> None:
    """Player 1 chooses among the three drawn tokens, though tokensUnavailable lists them too."""
    true, reference = great_library_choice()
    move = ask(client, agent, reference)
    assert move in true.legal_moves()
    assert move.token in reference["tokensFromUnavailable"]

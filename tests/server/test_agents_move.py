"""POST /agents/move: a legal move from any prompt-format state (the rules prompt's own example
included, as the reference server sent it), the mover shown as player2, and bad input refused
with a clear 422, never a 5xx."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from duel.engine import (
    CARD_NAMES,
    GameState,
    InfoSet,
    Move,
    Perspective,
    new_game,
    seat_view,
    swap_move,
    swap_text,
)
from server.main import create_app

PROMPT_EXAMPLE: dict[str, Any] = {"code": "F1HKyIPJ",
     "step": "PLAY_CARD",
     "age": 2,
     "currentPlayerNumber": 2,
     "player1": {"id": 71,
                 "money": 15,
                 "wonders": {"THE_COLOSSUS": 0,
                             "THE_TEMPLE_OF_ARTEMIS": 2,
                             "THE_HANGING_GARDENS": 0,
                             "THE_MAUSOLEUM": 0},
                 "tokens": ["URBANISM"],
                 "won": False,
                 "score": {},
                 "sortedHand": {"CIVILIAN_BUILDING": ["ALTER", "BATHS", "THEATRE", "TEMPLE"],
                                "SCIENTIFIC_BUILDING": ["APOTHECARY", "SCHOOL"],
                                "COMMERCIAL_BUILDING": ["CLAY_RESERVE"],
                                "MILITARY_BUILDING": ["PALISADE", "BARRACKS"],
                                "RAW_MATERIAL_AND_MANUFACTURED_GOOD": ["LUMBER_YARD",
                                                                       "STONE_PIT"]}},
     "player2": {"id": 72,
                 "money": 5,
                 "wonders": {"PIRAEUS": 2,
                             "THE_STATUE_OF_ZEUS": 0,
                             "CIRCUS_MAXIMUS": 0,
                             "THE_GREAT_LIBRARY": 1},
                 "tokens": ["ARCHITECTURE", "AGRICULTURE"],
                 "won": False,
                 "score": {},
                 "sortedHand": {"CIVILIAN_BUILDING": ["COURTHOUSE"],
                                "SCIENTIFIC_BUILDING": ["PHARMACIST", "WORKSHOP", "DISPENSARY"],
                                "COMMERCIAL_BUILDING": ["TAVERN", "WOOD_RESERVE"],
                                "MILITARY_BUILDING": ["GARRISON", "STABLE"],
                                "RAW_MATERIAL_AND_MANUFACTURED_GOOD": ["PRESS"]}},
     "military": {"id": 36,
                  "militaryPosition": 0,
                  "loot5Player1Available": True,
                  "loot2Player1Available": True,
                  "loot2Player2Available": True,
                  "loot5Player2Available": True},
     "discardedCards": ["SHELF_QUARRY", "GUARD_TOWER", "HORSE_BREEDERS", "LOGGING_CAMP",
                        "CLAY_PIT", "STONE_RESERVE"],
     "tokensAvailable": ["MASONRY", "THEOLOGY", "ECONOMY"],
     "tokensUnavailable": ["PHILOSOPHY", "LAW", "STRATEGY", "MATHEMATICS", "AGRICULTURE"],
     "tokensFromUnavailable": [],
     "wondersAvailable": [],
     "wondersUnavailable": ["THE_SPHINX", "THE_PYRAMIDS", "THE_APPIAN_WAY",
                            "THE_GREAT_LIGHTHOUSE"],
     "visiblePyramid": {"0": {"cardName": "ARCHERY_RANGE", "isActive": True},
                        "1": {"cardName": "PARADE_GROUND", "isActive": False},
                        "2": {"cardName": "BRICKYARD", "isActive": False},
                        "3": {"cardName": "BREWERY", "isActive": False},
                        "4": {"cardName": "FORUM", "isActive": False},
                        "5": {"cardName": "POSTRUM", "isActive": False},
                        "7": {"cardName": "AQUEDUCT", "isActive": True},
                        "8": {"cardName": "AGE_TWO_BACK", "isActive": False},
                        "9": {"cardName": "AGE_TWO_BACK", "isActive": False},
                        "10": {"cardName": "SAWMILL", "isActive": True},
                        "13": {"cardName": "CARAVANSERY", "isActive": True}}}


def _positions(seed: int, every: int = 7) -> list[GameState]:
    rng = random.Random(seed)
    state, out = new_game(seed=seed), []
    while not state.is_terminal():
        if state.ply % every == 0:
            out.append(state)
        state = state.apply(rng.choice(state.legal_moves()))
    return out


@pytest.mark.parametrize("agent", ["random", "rule", "mcts:iterations=30"])
def test_agents_move_returns_a_legal_move(client: TestClient, agent: str) -> None:
    for state in _positions(31)[:8]:
        seat = state.current_player
        view = Perspective.of_player(seat).view(state)
        r = client.post("/agents/move", json={"agent": agent, "state": view})
        assert r.status_code == 200, r.text
        body = r.json()
        move = Move.from_json({"move": body["move"], "moveData": body["moveData"]})
        true_move = swap_move(move) if seat == 1 else move
        assert true_move in state.legal_moves(), (agent, state.step_name, body)
        assert isinstance(body["details"], dict)


MISSING = object()


@pytest.mark.parametrize("changes,needle", [
    ({"agent": "nosuchagent"}, "unknown agent"),
    ({"agent": "mcts:time=1000"}, "budget"),
    ({"agent": "mcts:iterations=100000000"}, "budget"),
    ({"agent": "mcts:c=abc"}, "mcts"),
    ({"state": {"step": "PLAY_CARD"}}, "schema"),
    ({"state": "GAME"}, ""),
    ({"state": []}, ""),
    ({"extra": 1}, ""),
    ({"agent": 5}, ""),
    ({"agent": MISSING}, ""),
    ({"state": MISSING}, ""),
])
def test_agents_move_rejects_bad_input(client: TestClient, changes: dict[str, Any],
                                       needle: str) -> None:
    state = _positions(32)[3]
    body = {"agent": "rule", "state": Perspective.of_player(state.current_player).view(state),
            **changes}
    body = {k: v for k, v in body.items() if v is not MISSING}
    r = client.post("/agents/move", json=body)
    assert r.status_code == 422, r.text
    assert needle in json.dumps(r.json()["detail"])


def test_agents_move_at_game_end_is_422(client: TestClient) -> None:
    rng = random.Random(5)
    state = new_game(seed=5)
    while not state.is_terminal():
        state = state.apply(rng.choice(state.legal_moves()))
    r = client.post("/agents/move", json={"agent": "rule", "state": seat_view(state)})
    assert r.status_code == 422 and "over" in r.text


def test_agents_move_never_crashes_on_altered_states(db: str) -> None:
    """States that pass the schema but are not positions of any game: 200 or 422, never 5xx."""
    rng = random.Random(2024)
    names = list(CARD_NAMES) + ["AGE_1_BACK", "AGE_2_BACK", "GUILD_BACK", "THE_SPHINX",
                                "PIRAEUS", "LAW", "THEOLOGY", "PLAY_CARD", "GAME_END",
                                "DESTROY_GREY", "CHOOSE_STARTING_PLAYER"]
    views = [Perspective.of_player(s.current_player).view(s) for s in _positions(3, every=3)]

    def leaves(obj: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[tuple[Any, ...], Any]]:
        items = obj.items() if isinstance(obj, dict) else enumerate(obj) \
            if isinstance(obj, list) else None
        if items is None:
            yield path, obj
            return
        for k, v in items:
            yield from leaves(v, (*path, k))

    def altered(view: dict[str, Any]) -> dict[str, Any]:
        view = json.loads(json.dumps(view))
        for _ in range(rng.randint(1, 3)):
            path, value = rng.choice(list(leaves(view)))
            if not path:
                continue
            if isinstance(value, bool):
                new: Any = not value
            elif isinstance(value, int):
                new = rng.choice([0, 1, 2, 3, -1, 7, 19, 20, 99, value + 1, value - 1])
            elif isinstance(value, str):
                new = rng.choice(names)
            else:
                continue
            target = view
            for key in path[:-1]:
                target = target[key]
            target[path[-1]] = new
        return view

    statuses: dict[int, int] = {}
    with TestClient(create_app(db, rate=1e6, burst=10**6), raise_server_exceptions=False) as c:
        for _ in range(400):
            state = altered(rng.choice(views))
            r = c.post("/agents/move", json={"agent": rng.choice(["random", "rule"]),
                                             "state": state})
            statuses[r.status_code] = statuses.get(r.status_code, 0) + 1
            assert r.status_code in (200, 422), (r.status_code, r.text[:300],
                                                  json.dumps(state)[:2000])
    assert statuses.get(200) and statuses.get(422)


@pytest.mark.parametrize("agent", ["random", "rule", "mcts:iterations=60"])
def test_agents_move_from_the_prompt_s_example_state(client: TestClient, agent: str) -> None:
    """The state the rules prompt shows, as the reference server sent it: a legal move, in the
    state's labels (player2 to move)."""
    r = client.post("/agents/move", json={"agent": agent, "state": PROMPT_EXAMPLE})
    assert r.status_code == 200, r.text
    body = r.json()
    move = Move.from_json({"move": body["move"], "moveData": body["moveData"]})
    fixed = dict(PROMPT_EXAMPLE, tokensUnavailable=[
        t for t in PROMPT_EXAMPLE["tokensUnavailable"] if t != "AGRICULTURE"])
    state = InfoSet.from_view(fixed).sample(random.Random(1))
    assert move in state.legal_moves(), body


def test_agents_move_for_player_1_to_move(client: TestClient) -> None:
    """A spectator's view where player 1 is to move: the move is player 1's, in those labels."""
    rng = random.Random(69)
    state = new_game(seed=69)
    while not (state.step_name == "PLAY_CARD" and state.current_player == 1):
        state = state.apply(rng.choice(state.legal_moves()))
    view = seat_view(state)
    assert view["currentPlayerNumber"] == 1
    for agent in ("rule", "mcts:iterations=40"):
        r = client.post("/agents/move", json={"agent": agent, "state": view})
        assert r.status_code == 200, r.text
        move = Move.from_json({"move": r.json()["move"], "moveData": r.json()["moveData"]})
        assert move in state.legal_moves()


def test_agents_move_shows_the_mover_as_player2(client: TestClient,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """As in matches (and as the prompt tells an LLM), the agent is player2 in what it sees:
    player 1's turn reaches it relabelled, previousMove included, and its answer ("I start",
    player 2 in its labels) comes back in the state's labels (player 1)."""
    from duel.agents.base import Decision

    seen: list[tuple[dict[str, Any], list[Move]]] = []

    class Spy:
        spec = "spy"

        def choose(self, view: dict[str, Any], legal: Any, rng: random.Random) -> Decision:
            seen.append((view, list(legal)))
            return Decision(Move("CHOOSE_STARTING_PLAYER", player_number=2), {})

    monkeypatch.setattr("server.work.catalogue.make_agent", lambda spec: Spy())
    rng = random.Random(5)
    for seed in range(40):
        state = new_game(seed=seed)
        while not state.is_terminal() and not (state.step_name == "CHOOSE_STARTING_PLAYER"
                                               and state.current_player == 1):
            state = state.apply(rng.choice(state.legal_moves()))
        if not state.is_terminal():
            break
    assert state.step_name == "CHOOSE_STARTING_PLAYER" and state.current_player == 1
    r = client.post("/agents/move", json={"agent": "rule", "state": seat_view(state)})
    assert r.status_code == 200, r.text
    assert r.json()["moveData"] == {"playerNumber": 1}
    view, legal = seen[0]
    assert view == Perspective.of_player(1).view(state)
    before = seat_view(state)["previousMove"]
    assert view["currentPlayerNumber"] == 2 and before and view["previousMove"] != before
    assert view["previousMove"] == swap_text(before)
    assert Move("CHOOSE_STARTING_PLAYER", player_number=2) in legal


@pytest.mark.parametrize("breakage", [
    lambda s: s.update(step="DESTROY_GREY"),
    lambda s: s["visiblePyramid"].update({"0": {"cardName": "AGE_ONE_BACK", "isActive": True}}),
    lambda s: s["player1"].update(tokens=["LAW", "LAW"]),
    lambda s: s.update(tokensAvailable=["MASONRY", "THEOLOGY", "ECONOMY", "URBANISM"]),
    lambda s: s["military"].update(militaryPosition=12),
    lambda s: s.pop("visiblePyramid"),
    lambda s: s.update(age="II"),
])
def test_agents_move_on_broken_reference_states_is_a_clear_422(client: TestClient,
                                                               breakage: Any) -> None:
    state = json.loads(json.dumps(PROMPT_EXAMPLE))
    breakage(state)
    for agent in ("rule", "mcts:iterations=20"):
        r = client.post("/agents/move", json={"agent": agent, "state": state})
        assert r.status_code in (200, 422), r.text
        if r.status_code == 422:
            detail = r.json()["detail"]
            assert detail and "Traceback" not in json.dumps(detail)


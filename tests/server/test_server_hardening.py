"""Server hardening found in the issue-5 audit, through the real app (TestClient, lifespan
included): the order of 404/401/403 before 422, the rate limit per seat token, tokens kept out of
the access log, agent budgets in seats, agents thinking apart from storage, restarts with an agent
that cannot be built any more or a damaged game, event streams that fall behind, retried moves,
transcript headers like the match runner's, and /agents/move on the rules prompt's own example
state (a state from the reference server)."""

from __future__ import annotations

import asyncio
import json
import logging
import random
import threading
import time
from pathlib import Path
from typing import Any, cast

import pytest
from fastapi.testclient import TestClient
from server_helpers import (
    GatedAgent,
    assert_valid_state,
    bearer,
    check_transcript,
    create,
    move_body,
    parse_sse,
    wait_until,
)

from duel.agents.spec import make_agent
from duel.engine import Deal, GameState, InfoSet, Move, new_game, seat_view, swap_text
from duel.engine.perspective import Perspective
from duel.transcripts import TranscriptWriter
from duel.transcripts import read as read_transcript
from server.games import MAX_SECONDS, GameManager, LiveGame
from server.main import MAX_BUCKETS, RateLimiter, RedactTokens, create_app
from server.store import GameRow, SQLiteStore

WAIT = 60.0

# The example state of the rules prompt, verbatim: a state the reference server sent. It lists
# AGRICULTURE both in player2's tokens (taken with the Great Library) and in tokensUnavailable.
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


# ============================================================================ helpers
# The db, client and test_agents fixtures live in conftest.py.


def manager(client: TestClient) -> GameManager:
    app: Any = client.app
    return cast(GameManager, app.state.manager)


def live(client: TestClient, code: str) -> LiveGame:
    return manager(client).games[code]


def legal(client: TestClient, code: str, token: str) -> dict[str, Any]:
    r = client.get(f"/games/{code}/moves", headers=bearer(token))
    assert r.status_code == 200, r.text
    return cast(dict[str, Any], r.json())


def wait_turn(client: TestClient, code: str, token: str) -> dict[str, Any]:
    def ready() -> dict[str, Any] | None:
        m = legal(client, code, token)
        return m if m["yourTurn"] else None
    return cast(dict[str, Any], wait_until(ready, WAIT, "the seat's turn"))


def play(client: TestClient, code: str, token: str, rng: random.Random) -> dict[str, Any]:
    m = wait_turn(client, code, token)
    r = client.post(f"/games/{code}/moves", headers=bearer(token),
                    json=move_body(rng.choice(m["moves"]), m["ply"]))
    assert r.status_code == 200, r.text
    return cast(dict[str, Any], r.json())


def states_by_ply(client: TestClient, code: str) -> dict[int, GameState]:
    """Every state of the game so far, replayed from its stored moves."""
    game = live(client, code)
    state = new_game(deal=Deal.from_json(game.row.options["deal"]),
                     open_box=game.row.options["open_box"], code=code)
    out = {0: state}
    for row in manager(client).store.moves(code):
        state = state.apply(row.move)
        out[state.ply] = state
    return out


# ============================================================================ 404/401/403 first
@pytest.mark.parametrize("content", [
    b"garbage", b'{"move": 5}', b'{"move": "SELECT_WONDER", "moveData": {}, "ply": -1}'])
def test_game_and_token_are_checked_before_the_body(client: TestClient, content: bytes) -> None:
    """Whatever the body holds: an unknown game is 404, no or a forged token 401, another
    game's token 403; only a seat of this game hears that its body is malformed (422)."""
    code, tokens = create(client, "external", "external", seed=1)
    _, other = create(client, "external", "external", seed=1)
    json_type = {"content-type": "application/json"}
    cases = [("NOSUCHGM", {}, 404), ("NOSUCHGM", bearer(tokens["1"]), 404),
             (code, {}, 401), (code, bearer("forged"), 401),
             (code, {"Authorization": "Basic eDp5"}, 401),
             (code, bearer(other["1"]), 403), (code, bearer(tokens["1"]), 422)]
    for game, headers, status in cases:
        r = client.post(f"/games/{game}/moves", content=content, headers={**json_type, **headers})
        assert r.status_code == status, (game, headers, r.status_code, r.text)
        assert r.json()["detail"]
        if status == 401:
            assert r.headers.get("www-authenticate") == "Bearer"
    assert manager(client).store.moves(code) == []


# ============================================================================ rate limit
def test_made_up_tokens_do_not_escape_the_rate_limit(db: str) -> None:
    with TestClient(create_app(db, rate=0.01, burst=3)) as c:
        statuses = [c.get("/games/NOSUCHGAME", headers=bearer(f"forged-{i}")).status_code
                    for i in range(6)]
        assert statuses == [404, 404, 404, 429, 429, 429]
        statuses = [c.get("/games/NOSUCHGAME", params={"token": f"forged-{i}"}).status_code
                    for i in range(2)]
        assert statuses == [429, 429]


def test_a_seat_token_has_its_own_bucket(db: str) -> None:
    """Bots behind one address each get their own allowance once they hold a seat."""
    with TestClient(create_app(db, rate=0.01, burst=4)) as c:
        r = c.post("/games", json={"player1": "external", "player2": "external", "seed": 1})
        assert r.status_code == 201, r.text
        code, tokens = r.json()["code"], r.json()["tokens"]
        assert [c.get(f"/games/{code}").status_code for _ in range(4)] == [200, 200, 200, 429]
        for seat in ("1", "2"):
            statuses = [c.get(f"/games/{code}/moves", headers=bearer(tokens[seat])).status_code
                        for _ in range(5)]
            assert statuses == [200, 200, 200, 200, 429], seat


def test_the_rate_limiter_forgets_idle_clients() -> None:
    limiter = RateLimiter(rate=1e9, burst=2)
    for i in range(3 * MAX_BUCKETS):
        assert limiter.allow(f"client-{i}")
    assert len(limiter.buckets) <= MAX_BUCKETS
    busy = RateLimiter(rate=1e-9, burst=1)
    for i in range(MAX_BUCKETS + 10):
        busy.allow(f"client-{i}")
    assert len(busy.buckets) <= MAX_BUCKETS


# ============================================================================ tokens in logs
def test_tokens_are_kept_out_of_the_access_log() -> None:
    """uvicorn's access log prints the query string, where event streams carry their token."""
    record = logging.LogRecord(
        "uvicorn.access", logging.INFO, __file__, 1, '%s - "%s %s HTTP/%s" %d',
        ("127.0.0.1:5", "GET", "/games/AbCd/events?token=s3cr3t-T0ken_x&x=1", "1.1", 200), None)
    assert RedactTokens().filter(record)
    line = record.getMessage()
    assert "s3cr3t" not in line and "token=***&x=1" in line
    create_app(":memory:")
    assert any(isinstance(f, RedactTokens) for f in logging.getLogger("uvicorn.access").filters)


# ============================================================================ agent budgets
@pytest.mark.parametrize("spec", [f"mcts:time={MAX_SECONDS * 10:g}",
                                  "mcts:iterations=100000000", "mcts:workers=512"])
def test_agent_seats_have_a_bounded_budget(client: TestClient, spec: str) -> None:
    r = client.post("/games", json={"player1": spec, "player2": "external"})
    assert r.status_code == 422 and "budget" in r.text, r.text
    assert manager(client).games == {}
    r = client.post("/agents/move", json={"agent": spec, "state": seat_view(new_game(seed=1))})
    assert r.status_code == 422 and "budget" in r.text, r.text


def test_thinking_agents_never_hold_up_other_games(client: TestClient,
                                                   test_agents: None) -> None:
    """Many agent seats deep in thought (held at their gate) must not queue the moves of other
    games: agents think on their own threads, storage calls run on others."""
    gate = threading.Event()
    GatedAgent.gates.append(gate)
    try:
        held = [create(client, "testgate", "external", seed=i)[0] for i in range(10)]
        code, tokens = create(client, "external", "external", seed=50)
        rng = random.Random(50)
        start = time.monotonic()
        for _ in range(6):
            play(client, code, tokens[str(live(client, code).state.current_player)], rng)
        assert time.monotonic() - start < 20, "moves waited for the agents' thinking"
        assert all(live(client, c).state.ply == 0 for c in held)
    finally:
        gate.set()
    wait_until(lambda: all(live(client, c).state.ply == 1 for c in held), WAIT,
               "the held agents' moves")
    GatedAgent.gates.remove(gate)


def test_agents_move_refuses_when_its_searches_are_all_busy(client: TestClient,
                                                             test_agents: None) -> None:
    """A flood of /agents/move searches is refused with 429 (not queued for ever in front of
    the games' agent seats)."""
    m = manager(client)
    m.max_asking = 1
    gate = threading.Event()
    GatedAgent.gates.append(gate)
    state = new_game(seed=3)
    body = {"agent": "testgate", "state": Perspective.of_player(1).view(state)}
    answers: list[int] = []
    asker = threading.Thread(target=lambda: answers.append(
        client.post("/agents/move", json=body).status_code), daemon=True)
    try:
        asker.start()
        wait_until(lambda: m.asking == 1, WAIT, "the first search")
        r = client.post("/agents/move", json={**body, "agent": "random"})
        assert r.status_code == 429 and r.headers["retry-after"] == "1", r.text
        assert "busy" in r.json()["detail"]
    finally:
        gate.set()
    asker.join(WAIT)
    GatedAgent.gates.remove(gate)
    assert answers == [200] and m.asking == 0
    assert client.post("/agents/move", json={**body, "agent": "random"}).status_code == 200


# ============================================================================ restarts
def test_restart_without_an_agent_s_api_key_falls_back_and_goes_on(
        db: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An LLM seat whose provider key is gone after a restart: the server starts, the seat's
    turns fall back as configured, and the game goes on to its end."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-used")
    with TestClient(create_app(db)) as first:
        # Seat 1 (external) drafts first: the LLM seat never gets a turn before the restart.
        code, tokens = create(first, "external", "llm:openai:gpt-4o", seed=61, fallback="rule")
    monkeypatch.delenv("OPENAI_API_KEY")
    with TestClient(create_app(db)) as second:
        rng = random.Random(61)
        for _ in range(200):
            if live(second, code).over:
                break
            if live(second, code).state.current_player == 1:
                play(second, code, tokens["1"], rng)
            else:
                ply = live(second, code).state.ply
                wait_until(lambda ply=ply: live(second, code).state.ply > ply, WAIT, "the fallback")
        assert live(second, code).state.is_terminal()
        theirs = [r for r in manager(second).store.moves(code) if r.seat.player == 2]
        assert theirs and all(r.details["fallback"] == "rule" for r in theirs)
        assert all("OPENAI_API_KEY" in r.details["error"] for r in theirs)
        check_transcript(second.get(f"/games/{code}/transcript").text, tmp_path / "t.jsonl")


def test_a_damaged_game_does_not_stop_the_server(db: str) -> None:
    with TestClient(create_app(db)) as first:
        code, tokens = create(first, "external", "external", seed=62)
        play(first, code, tokens["1"], random.Random(1))
    store = SQLiteStore(db)
    try:
        store.create_game(GameRow("Broken01", ["external", "rule"], {}, {
            "seed": None, "deal": {"nonsense": True}, "open_box": True, "time_per_move": None,
            "fallback": "random"}, 0, False), {})
    finally:
        store.close()
    with TestClient(create_app(db)) as second:
        assert second.get("/games/Broken01").status_code == 404
        assert live(second, code).state.ply == 1
        play(second, code, tokens["2"], random.Random(2))


# ============================================================================ event streams
def test_a_stream_that_fell_behind_gets_every_ply(client: TestClient,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """A reader busy while several moves happen still gets one event per ply, each with the
    state of that ply (not the latest state under an old id, nor a skipped id)."""
    code, tokens = create(client, "external", "external", seed=63)
    original = GameManager.views
    held: list[bool] = []

    async def slow_views(self: GameManager, game: LiveGame, first: int, last: int,
                         seat: int | None) -> list[tuple[int, dict[str, Any]]]:
        if not held:  # the first event waits until three more moves have been played
            held.append(True)
            deadline = time.monotonic() + WAIT
            while game.row.ply < 3 and time.monotonic() < deadline:
                await asyncio.sleep(0.01)
        return await original(self, game, first, last, seat)

    monkeypatch.setattr(GameManager, "views", slow_views)
    events: list[dict[str, Any]] = []
    errors: list[BaseException] = []

    def read() -> None:
        try:
            with client.stream("GET", f"/games/{code}/events",
                               params={"token": tokens["2"]}) as r:
                assert r.status_code == 200
                events.extend(parse_sse(r.iter_lines()))
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    wait_until(lambda: held, WAIT, "the stream to start")
    rng = random.Random(63)
    for _ in range(300):
        if live(client, code).over:
            break
        play(client, code, tokens[str(live(client, code).state.current_player)], rng)
    reader.join(WAIT)
    assert not reader.is_alive() and not errors, errors
    states = states_by_ply(client, code)
    assert [int(e["id"]) for e in events] == sorted(states)
    for e in events:
        assert json.loads(e["data"]) == Perspective.of_player(2).view(states[int(e["id"])]), e["id"]


def test_past_views_come_from_recent_states_or_a_replay(client: TestClient) -> None:
    code, tokens = create(client, "external", "external", seed=64)
    rng = random.Random(64)
    while not live(client, code).over:
        play(client, code, tokens[str(live(client, code).state.current_player)], rng)
    game = live(client, code)
    states = states_by_ply(client, code)
    assert min(game.recent) > 0  # the early plies are only in storage now
    for seat in (None, 1, 2):
        views = client.portal.call(manager(client).views, game, 0, game.row.ply, seat)
        assert [ply for ply, _ in views] == sorted(states)
        for ply, view in views:
            assert view == Perspective.of_player(seat).view(states[ply]), (seat, ply)


# ============================================================================ retried moves
def test_a_retried_move_is_told_it_was_applied(client: TestClient) -> None:
    code, tokens = create(client, "external", "external", seed=65)
    m = legal(client, code, tokens["1"])
    request = move_body(m["moves"][0], 0)
    first = client.post(f"/games/{code}/moves", headers=bearer(tokens["1"]), json=request)
    assert first.status_code == 200, first.text
    retry = client.post(f"/games/{code}/moves", headers=bearer(tokens["1"]), json=request)
    assert retry.status_code == 409
    assert "already applied as move 1" in retry.json()["detail"]
    other = client.post(f"/games/{code}/moves", headers=bearer(tokens["1"]),
                        json=move_body(m["moves"][1], 0))
    assert other.status_code == 409 and "another move" in other.json()["detail"]
    assert len(manager(client).store.moves(code)) == 1


@pytest.mark.parametrize("agent", ["rule", "random"])
def test_the_answer_is_the_state_right_after_the_move(client: TestClient, agent: str) -> None:
    """Even when an agent answers at once, a move's answer shows the ply it made."""
    code, tokens = create(client, "external", agent, seed=66)
    rng = random.Random(66)
    for _ in range(12):
        m = wait_turn(client, code, tokens["1"])
        r = client.post(f"/games/{code}/moves", headers=bearer(tokens["1"]),
                        json=move_body(rng.choice(m["moves"]), m["ply"]))
        assert r.status_code == 200, r.text
        body = r.json()
        assert body["ply"] == m["ply"] + 1
        states = states_by_ply(client, code)
        assert body["state"] == Perspective.of_player(1).view(states[body["ply"]])


# ============================================================================ transcripts
def test_transcript_lines_have_the_match_runner_s_fields(client: TestClient,
                                                          tmp_path: Path) -> None:
    code, _ = create(client, "rule", "random", seed=67)
    wait_until(lambda: live(client, code).over, WAIT, "the agents' game")
    served = check_transcript(client.get(f"/games/{code}/transcript").text,
                              tmp_path / "served.jsonl")
    deal = new_game(seed=67).deal
    path = tmp_path / "runner.jsonl"
    writer = TranscriptWriter.for_match(path, 67, deal, (make_agent("rule"), make_agent("random")))
    writer.close()
    runner = read_transcript(path)
    assert set(served.header) == set(runner.header)
    assert served.header["deal_from_seed"] is True
    assert served.header["seed"] == 67 and served.header["deal"] == deal.to_json()


def test_a_forfeit_record_has_no_price(client: TestClient, test_agents: None) -> None:
    """As in the match runner: a resignation's move was never played, so it cost nothing."""
    code, _ = create(client, "testfail", "external", seed=68, fallback="forfeit")
    wait_until(lambda: live(client, code).over, WAIT, "the forfeit")
    rows = manager(client).store.moves(code)
    assert rows[-1].details.get("forfeit") is True and rows[-1].price == 0


# ============================================================================ /agents/move
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

    monkeypatch.setattr("server.routes.agents.make_agent", lambda spec: Spy())
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


def test_create_responses_validate_against_the_published_schemas(client: TestClient) -> None:
    """The OpenAPI document carries the published state and deal schemas."""
    doc = client.get("/openapi.json").json()
    text = json.dumps(doc)
    assert "visiblePyramid" in text and "wonderDraft" in text
    code, tokens = create(client, "external", "external", seed=70)
    assert_valid_state(client.get(f"/games/{code}", headers=bearer(tokens["1"])).json())


def test_the_database_is_wal_and_keeps_no_token_in_clear(client: TestClient, db: str) -> None:
    """Tokens are shown once, in the create response: the database holds only their hashes,
    and no later response repeats them."""
    import sqlite3

    r = client.post("/games", json={"player1": "external", "player2": "external", "seed": 3})
    body = r.json()
    tokens = list(body["tokens"].values())
    code = body["code"]
    auth = {"authorization": f"Bearer {tokens[0]}"}
    later = [client.get(f"/games/{code}", headers=auth).text,
             client.get(f"/games/{code}/moves", headers=auth).text,
             client.get(f"/games/{code}").text, client.get("/openapi.json").text]
    with sqlite3.connect(db) as con:
        assert con.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        dump = "\n".join(con.iterdump())
    for token in tokens:
        assert token not in dump
        assert all(token not in text for text in later)


def test_the_interactive_docs_are_served(client: TestClient) -> None:
    r = client.get("/docs")
    assert r.status_code == 200 and "swagger" in r.text.lower()
    assert "/openapi.json" in r.text

"""A server on a database of many stored games, on SQLite and PostgreSQL alike: it starts
without reading the finished ones into memory, serves any of them on request, and keeps at most
`finished_kept` of them in memory however many are read. On PostgreSQL (a store servers share)
it reads no unfinished game either until asked, or until it takes over its turns."""

from __future__ import annotations

import random
import time

import pytest
from fastapi.testclient import TestClient
from helpers.play_helpers import manager
from helpers.server_helpers import BACKENDS

from duel.engine import Deal, Result, Seat, new_game, seat_view
from duel.records import MoveRecord
from server.main import create_app
from server.routes.games import LISTED
from server.settings import Limits
from server.store import GameRow, open_store

pytestmark = pytest.mark.parametrize("db", BACKENDS, indirect=True)
STORED = 300  # finished games, each a few moves long


def fill(db: str) -> list[str]:
    """STORED finished games and one unfinished one (external seats) in `db`; their codes."""
    store = open_store(db)
    codes = []
    try:
        for i in range(STORED + 1):
            code = f"Many{i:04d}"
            deal = Deal.random(random.Random(i))
            state = new_game(deal=deal, code=code)
            row = GameRow(code, ["external", "external"], {Seat.of_player(1): "h1"},
                          {"seed": i, "deal": deal.to_json(), "open_box": True,
                           "time_per_move": None, "fallback": "random"}, 0, False,
                          time.time())
            store.create_game(row, seat_view(state))
            for _ in range(3):
                move = state.legal_moves()[0]
                record = MoveRecord.decided(state, move, 0.0, {})
                state = state.apply(move)
                store.append_move(code, record, seat_view(state), False)
            if i < STORED:  # the last one stays unfinished
                record = MoveRecord.decided(state, state.legal_moves()[0], 0.0, {}, True)
                store.append_move(code, record, seat_view(state), True,
                                  Result.forfeited(record.seat, state.scores()))
            codes.append(code)
    finally:
        store.close()
    return codes


def test_many_stored_games_are_not_all_held_in_memory(db: str) -> None:
    codes = fill(db)
    with TestClient(create_app(db, limits=Limits(finished_kept=10))) as client:
        m = manager(client)
        unfinished = codes[-1]
        # Only the unfinished game, on a server of its own; none on a shared store.
        assert set(m.games) == (set() if m.sharing is not None else {unfinished})
        for code in codes[:60]:
            r = client.get(f"/games/{code}")
            assert r.status_code == 200, r.text
            assert r.json()["step"] == "GAME_END"
            assert len([g for g in m.games.values() if g.over]) <= 10
        r = client.get(f"/games/{unfinished}")
        assert r.status_code == 200 and r.json()["step"] != "GAME_END"
        assert client.get("/games/Nothere1").status_code == 404


def test_the_lobby_lists_the_newest_stored_games_without_reading_them_all(db: str) -> None:
    """GET /games on a database of many stored games: the newest LISTED, newest first, each
    finished one with its stored winner, and no game read into memory to list it."""
    codes = fill(db)
    with TestClient(create_app(db, limits=Limits(finished_kept=10))) as client:
        m = manager(client)
        before = set(m.games)
        listed = client.get("/games").json()["games"]
        assert [g["code"] for g in listed] == codes[::-1][:LISTED]
        assert set(m.games) == before  # listing read no game into memory
        unfinished, *finished = listed
        assert (unfinished["over"], unfinished["winner"], unfinished["victory"]) == (
            False, None, None)
        # Each finished game was resigned by the seat to move at ply 3 (player 2's turn or
        # player 1's, as the deal has it): the stored result names the other seat.
        for game in finished:
            moves = m.store.moves(game["code"])
            assert game["over"] and game["victory"] == "forfeit"
            assert game["winner"] == moves[-1].seat.other.player

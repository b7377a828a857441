"""The `Store` protocol's promises, kept by SQLite and PostgreSQL alike: games and moves read
back as stored, a move stored with its game's new ply in one transaction and only at the next
ply (two writers of one ply: one wins, the other stores nothing), stored data surviving a
reopen; and PostgreSQL's shared-store promises: leases on the games that need a runner, taken
over once their holder stops renewing, and every store hearing of every move."""

from __future__ import annotations

import random
import threading
import time
from typing import Any

import pytest
from server_helpers import BACKENDS, wait_until

from duel.engine import Deal, GameState, Seat, new_game, seat_view
from duel.errors import StoreError
from duel.records import MoveRecord
from server.store import GameRow, SharedStore, Store, open_store

pytestmark = pytest.mark.parametrize("db", BACKENDS, indirect=True)


def new_row(code: str, seats: list[str] | None = None, seed: int = 1,
            **options: Any) -> tuple[GameRow, GameState]:
    deal = Deal.random(random.Random(seed))
    row = GameRow(code, seats or ["external", "external"],
                  {Seat.of_player(1): "hash1", Seat.of_player(2): "hash2"},
                  {"seed": seed, "deal": deal.to_json(), "open_box": True,
                   "time_per_move": None, "fallback": "random", **options}, 0, False,
                  time.time())
    return row, new_game(deal=deal, code=code)


def next_record(state: GameState, pick: int = 0) -> tuple[MoveRecord, GameState]:
    move = state.legal_moves()[pick]
    return MoveRecord.decided(state, move, 0.01, {"why": "test"}), state.apply(move)


@pytest.fixture
def store(db: str) -> Any:
    s = open_store(db, lease_seconds=1.0)
    yield s
    s.close()


def play(store: Store, code: str, state: GameState, n: int) -> GameState:
    for _ in range(n):
        record, state = next_record(state)
        store.append_move(code, record, seat_view(state), state.is_terminal())
    return state


def test_games_and_moves_read_back_as_stored(store: Store) -> None:
    row, state = new_row("Store001")
    store.create_game(row, seat_view(state))
    records = []
    for _ in range(3):
        record, state = next_record(state)
        store.append_move("Store001", record, seat_view(state), False)
        records.append(record)
    back = store.game("Store001")
    assert back is not None
    assert (back.code, back.seats, back.token_hashes, back.options, back.ply, back.over) == (
        row.code, row.seats, row.token_hashes, row.options, 3, False)
    assert store.moves("Store001") == records
    assert store.moves("Store001", after=1) == records[1:]
    assert store.moves("Store001", after=3) == []
    assert store.game("Nope0000") is None and store.moves("Nope0000") == []


def test_unfinished_games_are_listed_apart(store: Store) -> None:
    for i, over in enumerate([False, True, False]):
        row, state = new_row(f"List000{i}", seed=i)
        row.over = over
        row.created = 1000.0 + i
        store.create_game(row, seat_view(state))
    assert [g.code for g in store.games()] == ["List0000", "List0001", "List0002"]
    assert [g.code for g in store.games(unfinished=True)] == ["List0000", "List0002"]


def test_a_move_is_stored_only_at_the_next_ply(store: Store) -> None:
    row, state = new_row("Store002")
    store.create_game(row, seat_view(state))
    state = play(store, "Store002", state, 2)
    record, after = next_record(state)
    stale = MoveRecord(record.ply - 1, record.seat, record.step, record.move, record.price,
                       record.view_hash, record.seconds, record.details)
    with pytest.raises(StoreError, match="not at ply"):
        store.append_move("Store002", stale, seat_view(after), True)
    back = store.game("Store002")
    assert back is not None and (back.ply, back.over) == (2, False)  # nothing half-stored
    assert [m.ply for m in store.moves("Store002")] == [1, 2]


def test_two_writers_of_one_ply_store_it_once(db: str, store: Store) -> None:
    """Two stores (as two server processes would have) race to store a different move at the
    same ply: exactly one is stored."""
    other = open_store(db)
    try:
        row, state = new_row("Race0001")
        store.create_game(row, seat_view(state))
        outcomes: list[str] = []
        start = threading.Barrier(2)

        def write(s: Store, pick: int) -> None:
            record, after = next_record(state, pick)
            start.wait()
            try:
                s.append_move("Race0001", record, seat_view(after), False)
                outcomes.append(f"stored {pick}")
            except StoreError:
                outcomes.append("refused")

        threads = [threading.Thread(target=write, args=(s, pick))
                   for s, pick in ((store, 0), (other, 1))]
        for t in threads:
            t.start()
        for t in threads:
            t.join(30)
        assert sorted(outcomes)[0] == "refused" and len(outcomes) == 2
        winner = int(sorted(outcomes)[1].split()[1])
        assert store.moves("Race0001") == [next_record(state, winner)[0]]
        assert other.moves("Race0001") == store.moves("Race0001")
    finally:
        other.close()


def test_stored_games_outlive_the_store(db: str, store: Store) -> None:
    row, state = new_row("Keep0001")
    store.create_game(row, seat_view(state))
    play(store, "Keep0001", state, 4)
    store.close()
    again = open_store(db)
    try:
        back = again.game("Keep0001")
        assert back is not None and back.ply == 4
        assert [m.ply for m in again.moves("Keep0001")] == [1, 2, 3, 4]
    finally:
        again.close()


def test_a_bad_storage_url_is_named(db: str) -> None:
    with pytest.raises(StoreError, match="'mysql'://...; use sqlite"):
        open_store("mysql://root:secret@127.0.0.1/duel")
    if db.startswith("postgresql://"):
        # Nothing listens on port 9 of the loopback: the error says so, without the password.
        with pytest.raises(StoreError, match="cannot reach the PostgreSQL database") as exc:
            open_store("postgresql://duel:s3cret@127.0.0.1:9/duel")
        assert "s3cret" not in str(exc.value)


# ---------------------------------------------------------------------------- shared stores
def shared(store: Store) -> SharedStore:
    if not isinstance(store, SharedStore):
        pytest.skip("a store of one process: no leases, no notifications")
    return store


def test_leases_go_to_one_holder_and_pass_on_when_it_stops(db: str, store: Store) -> None:
    first = shared(store)
    second = open_store(db, lease_seconds=1.0)
    assert isinstance(second, SharedStore) and second.holder != first.holder
    try:
        agent_row, state = new_row("Lease001", ["external", "random"])
        first.create_game(agent_row, seat_view(state))
        clock_row, state = new_row("Lease002", time_per_move=5)
        first.create_game(clock_row, seat_view(state))
        plain_row, state = new_row("Lease003")  # external seats without a clock: no runner
        first.create_game(plain_row, seat_view(state))
        done_row, state = new_row("Lease004", ["random", "random"])
        done_row.over = True
        first.create_game(done_row, seat_view(state))
        # The creator holds them while it renews; nobody else can take them.
        assert first.renew() == {"Lease001", "Lease002", "Lease003"}
        assert second.claim(10) == []
        # Its holder stops renewing: once the lease runs out the games with a runner to run
        # pass to the other store, each once.
        time.sleep(1.2)
        claimed = second.claim(10)
        assert sorted(claimed) == ["Lease001", "Lease002"]
        assert second.claim(10) == []
        assert first.renew() == {"Lease003"}
        # Letting go hands them over at once.
        second.release()
        assert sorted(first.claim(1) + first.claim(10)) == ["Lease001", "Lease002"]
    finally:
        second.close()


def test_every_store_hears_of_every_move(db: str, store: Store) -> None:
    first = shared(store)
    second = open_store(db)
    assert isinstance(second, SharedStore)
    heard: list[tuple[str, int]] = []
    try:
        second.listen(lambda code, ply: heard.append((code, ply)))
        row, state = new_row("Note0001")
        first.create_game(row, seat_view(state))
        play(first, "Note0001", state, 3)
        wait_until(lambda: len(heard) >= 3, 10, "three notifications")
        assert heard == [("Note0001", 1), ("Note0001", 2), ("Note0001", 3)]
    finally:
        second.close()

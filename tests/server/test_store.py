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
from helpers.server_helpers import BACKENDS, wait_until

from duel.engine import Deal, GameState, Result, Seat, new_game, seat_view
from duel.errors import StoreError
from duel.records import MoveRecord
from server.store import GameRow, SharedStore, SQLiteStore, Store, open_store
from server.store.rows import NEWEST, ROW_COLUMNS

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


def test_the_newest_games_are_listed_with_their_results(store: Store) -> None:
    states = {}
    for i in range(5):
        row, states[i] = new_row(f"Newest0{i}", seed=i)
        row.created = 2000.0 + i
        store.create_game(row, seat_view(states[i]))
    # Newest01 is played to its end, Newest03 resigned by player 2 at its second move.
    rng, state = random.Random(5), states[1]
    while not state.is_terminal():
        record, after = next_record(state, rng.randrange(len(state.legal_moves())))
        store.append_move("Newest01", record, seat_view(after), after.is_terminal(),
                          after.result())
        state = after
    played = state.result()
    assert played is not None
    state = play(store, "Newest03", states[3], 1)
    resign = MoveRecord.decided(state, state.legal_moves()[0], 0.0, {}, True)
    store.append_move("Newest03", resign, seat_view(state), True,
                      Result.forfeited(resign.seat, state.scores()))
    assert [g.code for g in store.list_games(3)] == ["Newest04", "Newest03", "Newest02"]
    listed = {g.code: g for g in store.list_games(10)}
    assert list(listed) == [f"Newest0{i}" for i in (4, 3, 2, 1, 0)]
    assert (listed["Newest03"].over, listed["Newest03"].winner,
            listed["Newest03"].victory) == (True, resign.seat.other.player, "forfeit")
    assert (listed["Newest01"].over, listed["Newest01"].winner, listed["Newest01"].victory) == (
        True, played.winner.player if played.winner else 0, played.victory)
    assert (listed["Newest02"].over, listed["Newest02"].winner,
            listed["Newest02"].victory) == (False, None, None)
    assert store.list_games(0) == []


def test_the_listing_reads_only_the_newest_rows_through_an_index(db: str, store: Store
                                                                   ) -> None:
    """The listing's query is answered by walking the creation-time index from its newest
    end and stopping after `limit` rows: no scan and no sort of every stored game."""
    query = f"SELECT {ROW_COLUMNS} FROM games {NEWEST} LIMIT 100"
    if isinstance(store, SQLiteStore):
        plan = " ".join(str(r[-1]) for r in store._db.execute("EXPLAIN QUERY PLAN " + query))
        assert "USING INDEX games_created" in plan and "TEMP B-TREE" not in plan, plan
        return
    import psycopg

    with psycopg.connect(db, autocommit=True) as conn:
        # On a near-empty table a scan costs less than the index; forbid both scans and
        # sorts, so the plan shows whether the index alone can serve the order.
        conn.execute("SET enable_seqscan = off")
        conn.execute("SET enable_sort = off")
        plan = " ".join(r[0] for r in conn.execute("EXPLAIN " + query.replace("100", "%s"),
                                                   (100,)))
    assert "Index Scan Backward using games_created" in plan and "Sort" not in plan, plan


def test_a_database_from_before_results_were_kept_gains_their_columns(db: str) -> None:
    """A database the previous release made (its games table without winner and victory)
    opens, its games listed without a stored result, and new results are kept."""
    columns = ("code TEXT PRIMARY KEY, created {real} NOT NULL, seats TEXT NOT NULL, tokens "
               "TEXT NOT NULL, options TEXT NOT NULL, ply INTEGER NOT NULL, over {flag} NOT "
               "NULL, view TEXT NOT NULL{more}")
    insert = ("INSERT INTO games (code, created, seats, tokens, options, ply, over, view) "
              "VALUES ('Old00001', 1.0, '[\"external\", \"external\"]', '{{}}', '{{}}', 3, "
              "{done}, '{{}}')")
    if db.startswith("postgresql://"):
        import psycopg

        with psycopg.connect(db, autocommit=True) as conn:
            conn.execute("CREATE TABLE games (" + columns.format(
                real="DOUBLE PRECISION", flag="BOOLEAN",
                more=", needs_runner BOOLEAN NOT NULL DEFAULT false, runner TEXT NOT NULL "
                     "DEFAULT '', lease_until DOUBLE PRECISION NOT NULL DEFAULT 0") + ")")
            conn.execute(insert.format(done="true"))
    else:
        import sqlite3

        old = sqlite3.connect(db)
        old.execute("CREATE TABLE games (" + columns.format(real="REAL", flag="INTEGER",
                                                             more="") + ")")
        old.execute(insert.format(done="1"))
        old.commit()
        old.close()
    store = open_store(db)
    try:
        [row] = store.list_games(5)
        assert (row.code, row.over, row.winner, row.victory) == ("Old00001", True, None, None)
        new, state = new_row("New00001")
        new.created = 2.0
        store.create_game(new, seat_view(state))
        state = play(store, "New00001", state, 1)
        resign = MoveRecord.decided(state, state.legal_moves()[0], 0.0, {}, True)
        store.append_move("New00001", resign, seat_view(state), True,
                          Result.forfeited(resign.seat, state.scores()))
        assert [(g.code, g.victory) for g in store.list_games(5)] == [
            ("New00001", "forfeit"), ("Old00001", None)]
    finally:
        store.close()


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
        # Its holder stops renewing: once the lease runs out (the second store's clock moved
        # on past it, no wait) the games with a runner to run pass to it, each once.
        assert second.claim(10) == []
        second.advance(1.2)
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


def test_a_runner_s_move_is_stored_only_while_it_holds_the_game(db: str, store: Store) -> None:
    """A server stalled past its lease (another took the game over) cannot store its agent's
    move: the store checks the lease in the move's own transaction. A move sent by a seat
    (not the runner's) is stored by any server, and the new holder's agent moves are."""
    first = shared(store)
    second = open_store(db, lease_seconds=1.0)
    assert isinstance(second, SharedStore)
    try:
        row, state = new_row("Runner01", ["random", "external"])
        first.create_game(row, seat_view(state))
        record, after = next_record(state)
        first.append_move("Runner01", record, seat_view(after), False, runner=True)
        state = after
        # The first store stalls: its lease runs out (the second's clock moves past it, no
        # wait), the second takes over.
        second.advance(1.2)
        assert second.claim(10) == ["Runner01"]
        late, late_after = next_record(state)
        with pytest.raises(StoreError, match="run by another server now"):
            first.append_move("Runner01", late, seat_view(late_after), False, runner=True)
        back = first.game("Runner01")
        assert back is not None and back.ply == 1 and [m.ply for m in first.moves("Runner01")
                                                        ] == [1]
        # The new holder's agent move at that ply is stored; the ply check still comes
        # first for the old one (it is told the ply is taken).
        theirs, state = next_record(state, 1)
        second.append_move("Runner01", theirs, seat_view(state), False, runner=True)
        with pytest.raises(StoreError, match="not at ply 1"):
            first.append_move("Runner01", late, seat_view(late_after), False, runner=True)
        # A seat's own move (sent over HTTP to any server) needs no lease.
        sent, state = next_record(state)
        first.append_move("Runner01", sent, seat_view(state), False)
        assert first.moves("Runner01") == [record, theirs, sent]
    finally:
        second.close()

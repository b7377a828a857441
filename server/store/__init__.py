"""Storage behind one small interface (`Store`, server/store/rows.py): SQLite by default
(server/store/sqlite.py), PostgreSQL for several `duel serve` processes sharing one database
(server/store/postgresql.py, which is also a `SharedStore`: leases on the games whose agent seats
or clocks they run, and word of the moves the others apply). `open_store` picks one by URL."""

from __future__ import annotations

from duel.errors import StoreError
from server.store.rows import GameRow, SharedStore, Store, result_columns
from server.store.sqlite import SQLiteStore

__all__ = ["GameRow", "SQLiteStore", "SharedStore", "Store", "open_store", "result_columns",
           "shown"]


def shown(url: str) -> str:
    """A storage URL fit to print: without its password."""
    scheme, sep, rest = url.partition("://")
    if not sep or "@" not in rest:
        return url
    who, _, where = rest.rpartition("@")
    return f"{scheme}://{who.split(':')[0]}:***@{where}" if ":" in who else url


def open_store(url: str, lease_seconds: float = 15.0) -> Store:
    """`sqlite:///path/to/file.db` or a plain path (SQLite), or `postgresql://...` (a libpq
    URL; needs the `postgresql` extra). `lease_seconds`: see SharedStore."""
    if url.startswith("sqlite:///"):
        return SQLiteStore(url[len("sqlite:///"):])
    if url.startswith(("postgresql://", "postgres://")):
        from server.store.postgresql import PostgresStore

        return PostgresStore(url, lease_seconds)
    if "://" in url:
        raise StoreError(f"unsupported storage URL {url.split('://')[0]!r}://...; use "
                         "sqlite:///PATH, a path, or postgresql://USER@HOST:PORT/DATABASE")
    return SQLiteStore(url)

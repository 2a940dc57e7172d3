"""Game records in SQLite: the table's memory across power cuts.

One file (`games.sqlite3` in the data directory), standard library `sqlite3`, WAL with
`synchronous=FULL`: when `append` returns, the event is on disk and survives the plug
being pulled. The layout is versioned in a `schema` table; a file we did not write, a
corrupt file or one from a newer companion is refused with a `StoreError` that says so,
and is never written to (nothing is created or migrated until the file is recognised).
"""

from __future__ import annotations

import errno
import json
import logging
import os
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any, Mapping

from companion.rules import BadRecord, Event, GameRecord
from companion.rules.events import from_dict
from companion.rules.record import VERSION as RECORD_VERSION

log = logging.getLogger("companion.store")

SCHEMA_VERSION = 1
#: SQLite's header field for "which application owns this file" ("GTCo").
APPLICATION_ID = 0x4754436F
FILE_NAME = "games.sqlite3"

_SCHEMA = """
CREATE TABLE schema (version INTEGER NOT NULL);
CREATE TABLE games (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    game TEXT NOT NULL,
    players TEXT NOT NULL,
    options TEXT NOT NULL,
    meta TEXT NOT NULL,
    record_version INTEGER NOT NULL,
    created REAL NOT NULL,
    final_slate TEXT,
    finished REAL
);
CREATE TABLE events (
    game_id INTEGER NOT NULL REFERENCES games(id),
    idx INTEGER NOT NULL,
    body TEXT NOT NULL,
    PRIMARY KEY (game_id, idx)
) WITHOUT ROWID;
"""


class StoreError(Exception):
    """The game database cannot be used; the message says why and what to do."""


class CorruptStore(StoreError):
    """The file is damaged or is not a game database at all."""


class ReadOnlyStore(StoreError):
    """The game database can be read but not written (a read-only disk or mount)."""


class NewerStore(StoreError):
    """The file was written by a newer companion: upgrade rather than lose games."""


class StoreFull(StoreError):
    """The disk holding the game database is full (an SD card filled up): this write was
    not made, and nothing stored before is lost. Writes go through again once there is
    space; nothing needs restarting."""


class GameNotFound(StoreError, KeyError):
    """No game with that id in the database."""

    def __str__(self) -> str:  # KeyError would quote the message
        return self.args[0]


class SqliteStore:
    """A `companion.store.Store` in one SQLite file. Thread-safe (one connection, one lock)."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self._lock = threading.Lock()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fresh = not self.path.exists() or self.path.stat().st_size == 0
        try:
            self._db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False, timeout=5.0)
        except sqlite3.Error as exc:
            raise StoreError(f"cannot open the game database {self.path}: {exc}") from None
        try:
            self._open(fresh)
        except BaseException:
            self._db.close()
            raise

    @classmethod
    def in_dir(cls, data_dir: str | Path) -> "SqliteStore":
        return cls(Path(data_dir) / FILE_NAME)

    # --- opening: recognise first, write only then -------------------------------

    def _open(self, fresh: bool) -> None:
        try:
            tables = {row[0] for row in self._db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
            app_id = self._db.execute("PRAGMA application_id").fetchone()[0]
        except sqlite3.DatabaseError as exc:
            raise CorruptStore(self._damaged(f"it is not a readable SQLite database ({exc})")) from None
        if not tables and app_id == 0 and (fresh or self._empty_database()):
            self._create()
            return
        if app_id != APPLICATION_ID or "schema" not in tables:
            raise CorruptStore(self._damaged("it is a database of some other program, not the companion's games"))
        try:
            row = self._db.execute("SELECT version FROM schema").fetchone()
        except sqlite3.DatabaseError as exc:
            raise CorruptStore(self._damaged(f"its version table is unreadable ({exc})")) from None
        if row is None or not isinstance(row[0], int):
            raise CorruptStore(self._damaged("its version table is empty"))
        if row[0] > SCHEMA_VERSION:
            raise NewerStore(
                f"the game database {self.path} was written by a newer companion (layout {row[0]}, this one "
                f"reads up to {SCHEMA_VERSION}); upgrade the companion. The file was left untouched."
            )
        missing = sorted({"games", "events"} - tables)
        if missing:
            raise CorruptStore(self._damaged(f"a table it needs is missing ({', '.join(missing)})"))
        self._check_integrity()
        self._configure()
        self._check_writable()

    def _check_writable(self) -> None:
        """Refuse a database that opens but cannot take a write (an SD card remounted
        read-only, a read-only mount): the companion would start and then fail every
        action of the game. Probed by setting a header field to its own value and rolling
        back, so nothing is written."""
        try:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                self._db.execute(f"PRAGMA application_id = {APPLICATION_ID}")
            finally:
                self._db.execute("ROLLBACK")
        except sqlite3.OperationalError as exc:
            raise ReadOnlyStore(
                f"cannot write the game database {self.path} ({exc}): is the disk or SD card read-only? "
                "Nothing was changed; make it writable (or start with another --data-dir) and start again."
            ) from None

    def _empty_database(self) -> bool:
        """A zero-table file at version 0 (e.g. touched but never written) may be set up."""
        return self._db.execute("PRAGMA user_version").fetchone()[0] == 0

    def _check_integrity(self) -> None:
        try:
            problems = [row[0] for row in self._db.execute("PRAGMA quick_check")]
        except sqlite3.DatabaseError as exc:
            raise CorruptStore(self._damaged(f"the integrity check failed ({exc})")) from None
        if problems != ["ok"]:
            raise CorruptStore(self._damaged(f"the integrity check found: {'; '.join(problems[:3])}"))

    def _damaged(self, why: str) -> str:
        return (
            f"cannot use the game database {self.path}: {why}. It was left untouched; move it aside "
            "(keep a copy: past games are in it) or start with another --data-dir."
        )

    def _configure(self) -> None:
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=FULL")
        self._db.execute("PRAGMA foreign_keys=ON")

    def _create(self) -> None:
        try:
            os.chmod(self.path, 0o600)  # the running game's secret calls are in here
        except OSError:
            pass
        self._configure()
        self._db.execute("BEGIN IMMEDIATE")
        try:
            for statement in _SCHEMA.split(";"):
                if statement.strip():
                    self._db.execute(statement)
            self._db.execute("INSERT INTO schema (version) VALUES (?)", (SCHEMA_VERSION,))
            self._db.execute(f"PRAGMA application_id = {APPLICATION_ID}")
            self._db.execute("COMMIT")
        except BaseException:
            self._db.execute("ROLLBACK")
            raise
        _sync_dir(self.path.parent)
        log.info("created the game database %s", self.path)

    # --- the Store protocol ------------------------------------------------------

    def create(self, record: GameRecord) -> str:
        return self._insert_game(record, None)

    def create_finished(self, record: GameRecord, slate: Mapping[str, Any]) -> str:
        """Store a whole game, its events and its final slate, in one transaction.

        For an imported record: cut short (the process killed, the disk full), it leaves
        either the finished game or nothing, never a half game that `unfinished` would
        offer as the game in progress.
        """
        return self._insert_game(record, slate)

    def _insert_game(self, record: GameRecord, slate: Mapping[str, Any] | None) -> str:
        """A game and its events in one transaction; finished when `slate` is given."""
        now = time.time()
        with self._lock, self._transaction():
            cursor = self._db.execute(
                "INSERT INTO games (game, players, options, meta, record_version, created, final_slate, finished) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (record.game, _dump(list(record.players)), _dump(dict(record.options)), _dump(dict(record.meta)),
                 RECORD_VERSION, now, None if slate is None else _dump(dict(slate)), None if slate is None else now),
            )
            game_id = cursor.lastrowid
            for index, event in enumerate(record.events):
                self._insert_event(game_id, index, event)
        return str(game_id)

    def append(self, game_id: str, index: int, event: Event) -> None:
        """Store event `index` of a game; durable (fsynced) when this returns."""
        key = _key(game_id)
        with self._lock, self._transaction():
            row = self._db.execute(
                "SELECT (SELECT count(*) FROM events WHERE game_id = ?), finished FROM games WHERE id = ?", (key, key)
            ).fetchone()
            if row is None:
                raise GameNotFound(f"there is no game {game_id} in {self.path}")
            if index != row[0]:
                raise ValueError(f"event {index} out of order for game {game_id} (it has {row[0]} events)")
            self._insert_event(key, index, event)

    def finish(self, game_id: str, slate: Mapping[str, Any]) -> None:
        self._set_end(game_id, _dump(dict(slate)), time.time())

    def reopen(self, game_id: str) -> None:
        """The game is in play again (an undo took back its last event): no longer finished,
        so a restart resumes it."""
        self._set_end(game_id, None, None)

    def _set_end(self, game_id: str, slate: str | None, finished: float | None) -> None:
        key = _key(game_id)
        with self._lock, self._transaction():
            changed = self._db.execute(
                "UPDATE games SET final_slate = ?, finished = ? WHERE id = ?", (slate, finished, key)
            ).rowcount
            if not changed:
                raise GameNotFound(f"there is no game {game_id} in {self.path}")

    def unfinished(self) -> list[tuple[str, GameRecord]]:
        """Games without a final slate, oldest first (the table resumes the last one)."""
        with self._lock:
            ids = [row[0] for row in self._db.execute("SELECT id FROM games WHERE finished IS NULL ORDER BY id")]
            return [(str(i), self._load(i)) for i in ids]

    def list_games(self) -> list[dict[str, Any]]:
        """One summary per game, oldest first, without reading any event."""
        with self._lock:
            rows = self._db.execute(
                "SELECT id, game, players, meta, final_slate, finished, "
                "(SELECT count(*) FROM events e WHERE e.game_id = g.id) FROM games g ORDER BY id"
            ).fetchall()
        games = []
        for game_id, game, players, meta, final, finished, count in rows:
            slate = self._final_slate(game_id, final)
            games.append({
                "id": str(game_id), "game": game, "players": self._listed(game_id, "players", players, list) or [],
                "started": (self._listed(game_id, "meta", meta, dict) or {}).get("started"), "events": count,
                "finished": finished is not None, "winner": (slate or {}).get("winner"), "slate": slate,
            })
        return games

    def _listed(self, game_id: int | str, what: str, text: Any, kind: type) -> Any:
        """A JSON column of a game as the history shows it, or None when it is damaged
        (hand-edited, say), with a warning: the game is listed without it rather than
        breaking every history page."""
        try:
            value = json.loads(text)
        except (TypeError, ValueError):
            value = None
        if not isinstance(value, kind):
            log.warning("the %s of game %s in %s: damaged, so the game is listed without it", what, game_id, self.path)
            return None
        return value

    def load(self, game_id: str) -> GameRecord:
        with self._lock:
            return self._load(_key(game_id))

    def final_slate(self, game_id: str) -> dict[str, Any] | None:
        with self._lock:
            row = self._db.execute("SELECT final_slate FROM games WHERE id = ?", (_key(game_id),)).fetchone()
        if row is None:
            raise GameNotFound(f"there is no game {game_id} in {self.path}")
        return self._final_slate(game_id, row[0])

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def __enter__(self) -> "SqliteStore":
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    # --- inside -------------------------------------------------------------------

    def _load(self, key: int) -> GameRecord:
        row = self._db.execute(
            "SELECT game, players, options, meta, record_version FROM games WHERE id = ?", (key,)
        ).fetchone()
        if row is None:
            raise GameNotFound(f"there is no game {key} in {self.path}")
        game, players, options, meta, version = row
        bodies = [r[0] for r in self._db.execute("SELECT body FROM events WHERE game_id = ? ORDER BY idx", (key,))]
        try:
            return GameRecord.from_dict({
                "version": version, "game": game, "players": json.loads(players), "options": json.loads(options),
                "meta": json.loads(meta), "events": [json.loads(b) for b in bodies],
            })
        except (ValueError, BadRecord) as exc:
            raise BadRecord(f"game {key} in {self.path} cannot be read: {exc}") from None

    def _final_slate(self, game_id: str | int, text: str | None) -> dict[str, Any] | None:
        """A finished game's stored slate (None while it plays on, or when damaged: see _listed)."""
        return self._listed(game_id, "final slate", text, dict) if text else None

    def _insert_event(self, key: int, index: int, event: Event) -> None:
        body = event.to_dict()
        from_dict(body, index=index, hidden_ok=True)  # never store what cannot be read back (as its record reads it)
        self._db.execute("INSERT INTO events (game_id, idx, body) VALUES (?, ?, ?)", (key, index, _dump(body)))

    def _transaction(self) -> "_Transaction":
        return _Transaction(self._db, self.path)


class _Transaction:
    """BEGIN IMMEDIATE ... COMMIT (ROLLBACK on error); COMMIT is the fsync point. A full
    disk, met at any step, is rolled back and raised as StoreFull."""

    def __init__(self, db: sqlite3.Connection, path: Path):
        self._db = db
        self._path = path

    def __enter__(self) -> None:
        try:
            self._db.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as exc:
            self._raise_if_full(exc)
            raise

    def __exit__(self, exc_type, exc, tb) -> None:
        if exc_type is None:
            try:
                self._db.execute("COMMIT")
                return
            except sqlite3.Error as failed:  # SQLite may keep the transaction open after it
                exc = failed
        if self._db.in_transaction:
            self._db.execute("ROLLBACK")
        self._raise_if_full(exc)
        if exc_type is None:
            raise exc

    def _raise_if_full(self, exc: BaseException | None) -> None:
        if _disk_full(exc):
            raise StoreFull(full_message(self._path.parent)) from exc


def _disk_full(exc: BaseException | None) -> bool:
    """SQLite's SQLITE_FULL (the disk, or the database's page limit), or the OS's ENOSPC."""
    if isinstance(exc, sqlite3.Error):
        return getattr(exc, "sqlite_errorcode", None) == sqlite3.SQLITE_FULL or "disk is full" in str(exc)
    return isinstance(exc, OSError) and exc.errno == errno.ENOSPC


def full_message(folder: Path) -> str:
    """What the host is told while the disk holding `folder` is full."""
    return (f"the SD card is full (the disk holding {folder}): nothing more can be stored. Free some space on it "
            "(old backups, logs); the table goes on by itself once there is room, and everything already "
            "acknowledged is kept")


def _key(game_id: str) -> int:
    try:
        return int(game_id)
    except (TypeError, ValueError):
        raise GameNotFound(f"there is no game {game_id!r}") from None


def _dump(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), sort_keys=True)


def _sync_dir(folder: Path) -> None:
    """Make the new file's directory entry durable too (POSIX)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)

"""The table's outbox: the finished games the broker has not yet acknowledged.

The games themselves are in the table's store, stored before anyone is told; the outbox
keeps, in its own small SQLite file beside it, which of them the broker has taken (its
QoS 1 acknowledgement) and with how many events. A game is due when it is finished and
played out (not ended early by the host), not imported, newer than the last game
finished before the table joined the meetup (so the game in progress then is sent),
and not yet taken as it is now (a game reopened by an undo and finished again is due
again). So a game finished while the broker or the Wi-Fi is away, or just before the
power went, is sent when both are back, and nothing is marked sent before the broker
has acknowledged it. From then on the broker alone holds it for a leaderboard that is
away: the installed broker saves its database after every change, just after the
acknowledgement, so a broker killed or losing power in those milliseconds (or its SD
card failing) can still lose it (docs/meetup.md, "Nothing lost").
"""

from __future__ import annotations

import sqlite3
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from companion.history import ended_early

FILE_NAME = "meetup-outbox.sqlite3"


@dataclass(frozen=True)
class DueGame:
    local_id: str
    events: int


class Outbox:
    """Which finished games of `store` are still to be sent. Thread-safe."""

    def __init__(self, path: str | Path, store: Any):
        self.path = Path(path)
        self.store = store
        self._lock = threading.Lock()
        self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=FULL")
        self._db.execute("CREATE TABLE IF NOT EXISTS joined (after INTEGER NOT NULL, at REAL NOT NULL)")
        self._db.execute("CREATE TABLE IF NOT EXISTS sent (game_id TEXT PRIMARY KEY, events INTEGER NOT NULL, "
                         "at REAL NOT NULL)")
        row = self._db.execute("SELECT after FROM joined").fetchone()
        if row is None:  # games finished before the table joined a meetup stay at home; the game
            # in progress (the service resumes it) and every later one are the meetup's
            after = max((int(g["id"]) for g in store.list_games() if g["finished"]), default=0)
            self._db.execute("INSERT INTO joined VALUES (?, ?)", (after, time.time()))
            row = (after,)
        self.joined_after = int(row[0])
        self._home: dict[tuple[str, int], bool] = {}  # (game, events) -> whether it stays at home

    @classmethod
    def in_dir(cls, data_dir: str | Path, store: Any) -> "Outbox":
        return cls(Path(data_dir) / FILE_NAME, store)

    def due(self) -> list[DueGame]:
        """The games to send, oldest first."""
        with self._lock:
            sent = dict(self._db.execute("SELECT game_id, events FROM sent").fetchall())
        due = []
        for summary in self.store.list_games():
            local_id = str(summary["id"])
            if not summary["finished"] or int(local_id) <= self.joined_after or sent.get(local_id) == summary["events"]:
                continue
            due.append(DueGame(local_id, summary["events"]))
        return [g for g in due if not self._stays_home(g)]

    def _stays_home(self, game: DueGame) -> bool:
        """An imported game, or one the host ended early (not played: the table's own stats
        leave it out, and the leaderboard refuses it), is never sent."""
        key = (game.local_id, game.events)  # an undo and more play change the events, not the meta
        if key not in self._home:
            try:
                record = self.store.load(game.local_id)
            except (KeyError, LookupError):
                return True
            self._home[key] = "imported" in record.meta or ended_early(record)
        return self._home[key]

    def taken(self, game: DueGame) -> None:
        """The broker acknowledged `game` (as it had `game.events` events)."""
        with self._lock:
            self._db.execute("INSERT OR REPLACE INTO sent VALUES (?, ?, ?)", (game.local_id, game.events, time.time()))

    def close(self) -> None:
        with self._lock:
            self._db.close()

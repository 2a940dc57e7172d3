"""The leaderboard's evening: every game that arrived, counted once, and the tables' tiles.

One SQLite file (`leaderboard.sqlite3` in the leaderboard's data directory) holds the
evening: the games (keyed by table and stable id, so a game that arrives twice, or ten
times, is one game), each player's result in each, the tables as last heard (their public
slate, online or offline since when) and the messages refused (so each is logged once).
Standings are counted from the stored results with the evening's `Scoring`.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

from companion.meetup.messages import ArrivedGame

FILE_NAME = "leaderboard.sqlite3"
COUNTS = ("calls", "correct_calls", "bluffs", "bluffs_worked")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    table_name TEXT NOT NULL, id TEXT NOT NULL, game TEXT NOT NULL, title TEXT NOT NULL, players TEXT NOT NULL,
    winner INTEGER, events INTEGER NOT NULL, arrived REAL NOT NULL, record TEXT NOT NULL,
    PRIMARY KEY (table_name, id));
CREATE TABLE IF NOT EXISTS results (
    table_name TEXT NOT NULL, id TEXT NOT NULL, seat INTEGER NOT NULL, player TEXT NOT NULL, game TEXT NOT NULL,
    won INTEGER NOT NULL, calls INTEGER NOT NULL, correct_calls INTEGER NOT NULL, bluffs INTEGER NOT NULL,
    bluffs_worked INTEGER NOT NULL, PRIMARY KEY (table_name, id, seat));
CREATE TABLE IF NOT EXISTS tables (
    name TEXT PRIMARY KEY, title TEXT, online INTEGER NOT NULL DEFAULT 0, since REAL, slate TEXT);
CREATE TABLE IF NOT EXISTS refused (key TEXT PRIMARY KEY, reason TEXT NOT NULL, at REAL NOT NULL);
"""


@dataclass(frozen=True)
class Scoring:
    """How the evening is won: "wins" (a point a game won) or "points" (a game kind's points
    for a win, `points` per game kind, 1 for a kind not named)."""

    mode: str = "wins"
    points: Mapping[str, int] = field(default_factory=dict)

    def for_win(self, game: str) -> int:
        return 1 if self.mode == "wins" else int(self.points.get(game, 1))

    def describe(self) -> str:
        if self.mode == "wins":
            return "a point for each game won"
        named = ", ".join(f"{game} {points}" for game, points in sorted(self.points.items()))
        return "points for each game won" + (f" ({named}; others 1)" if named else "")


class Board:
    """The evening's games and tables. Thread-safe (the MQTT thread writes, the web reads)."""

    def __init__(self, path: str | Path, *, clock=time.time):
        self.path = Path(path)
        self._clock = clock
        self._lock = threading.Lock()
        self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.executescript(_SCHEMA)
        self._slates: dict[str, dict[str, Any]] = {}

    @classmethod
    def in_dir(cls, data_dir: str | Path, **kwargs: Any) -> "Board":
        return cls(Path(data_dir) / FILE_NAME, **kwargs)

    def close(self) -> None:
        with self._lock:
            self._db.close()

    # --- what arrives ------------------------------------------------------------------

    def add_game(self, game: ArrivedGame) -> bool:
        """Count `game` once; True when it changed the evening. The same game again is
        ignored; a version with more events (the table took its end back and played on)
        replaces the one before, never adds to it."""
        with self._lock:
            row = self._db.execute("SELECT events FROM games WHERE table_name = ? AND id = ?",
                                   (game.table, game.id)).fetchone()
            if row is not None and row[0] >= game.events:
                return False
            self._db.execute("BEGIN IMMEDIATE")
            try:
                self._db.execute("DELETE FROM results WHERE table_name = ? AND id = ?", (game.table, game.id))
                self._db.execute("INSERT OR REPLACE INTO games VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", (
                    game.table, game.id, game.game, game.title, json.dumps(list(game.players)), game.winner,
                    game.events, self._clock(), json.dumps(game.record.to_dict(public=True))))
                for seat, player in enumerate(game.players):
                    counts = game.tally.get(seat, {})
                    self._db.execute("INSERT INTO results VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", (
                        game.table, game.id, seat, player, game.game, int(game.winner == seat),
                        *(int(counts.get(key, 0)) for key in COUNTS)))
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            return True

    def table_status(self, table: str, online: bool) -> None:
        """A table came online or went offline (since now, the leaderboard's clock)."""
        with self._lock:
            row = self._db.execute("SELECT online FROM tables WHERE name = ?", (table,)).fetchone()
            if row is not None and bool(row[0]) == online:
                return
            self._db.execute("INSERT INTO tables (name, online, since) VALUES (?, ?, ?) ON CONFLICT(name) DO "
                             "UPDATE SET online = excluded.online, since = excluded.since",
                             (table, int(online), self._clock()))

    def table_slate(self, table: str, shown: Mapping[str, Any]) -> None:
        """A table's latest public slate: kept in memory only (a slate changes with every
        action, and the broker hands the retained one over again after a restart)."""
        with self._lock:
            self._slates[table] = dict(shown)

    def first_refusal(self, key: str, reason: str) -> bool:
        """Remember a refused message; True the first time (log it), False after."""
        with self._lock:
            cursor = self._db.execute("INSERT OR IGNORE INTO refused VALUES (?, ?, ?)", (key, reason, self._clock()))
            return cursor.rowcount == 1

    # --- what the screen shows ----------------------------------------------------------

    def game_count(self) -> int:
        with self._lock:
            return self._db.execute("SELECT count(*) FROM games").fetchone()[0]

    def game_ids(self) -> list[tuple[str, str]]:
        with self._lock:
            return self._db.execute("SELECT table_name, id FROM games ORDER BY table_name, id").fetchall()

    def tiles(self, expected: tuple[str, ...] = ()) -> list[dict[str, Any]]:
        """One tile per table heard from (and per expected one): online or offline since when
        (seconds since the epoch: the page shows it in local time), its public slate."""
        with self._lock:
            rows = self._db.execute("SELECT name, online, since FROM tables").fetchall()
            played = dict(self._db.execute("SELECT table_name, count(*) FROM games GROUP BY table_name").fetchall())
            slates = dict(self._slates)
        tiles = {name: {"table": name, "title": name, "online": False, "since": None, "games": played.get(name, 0),
                        "slate": None, "prompt": None} for name in set(slates) | {row[0] for row in rows}}
        for name, online, since in rows:
            tiles[name].update(online=bool(online), since=since)
        for name, shown in slates.items():
            tiles[name].update(title=shown["title"], slate=shown["slate"], prompt=shown["prompt"])
        for name in expected:
            tiles.setdefault(name, {"table": name, "title": name, "online": False, "since": None,
                                    "games": played.get(name, 0), "slate": None, "prompt": None})
        return sorted(tiles.values(), key=lambda tile: tile["table"])

    def standings(self, scoring: Scoring, game: str | None = None) -> list[dict[str, Any]]:
        """Players by points (then wins, fewer games, name), over every game or one kind."""
        where, args = ("WHERE game = ?", (game,)) if game else ("", ())
        with self._lock:
            rows = self._db.execute(
                f"SELECT player, game, count(*), sum(won), {', '.join(f'sum({k})' for k in COUNTS)} "
                f"FROM results {where} GROUP BY player, game", args).fetchall()
        players: dict[str, dict[str, Any]] = {}
        for player, kind, games, wins, *counts in rows:
            row = players.setdefault(player, {"player": player, "games": 0, "wins": 0, "points": 0,
                                              **dict.fromkeys(COUNTS, 0)})
            row["games"] += games
            row["wins"] += wins
            row["points"] += wins * scoring.for_win(kind)
            for key, value in zip(COUNTS, counts):
                row[key] += value
        ranked = sorted(players.values(), key=lambda r: (-r["points"], -r["wins"], r["games"], r["player"]))
        for place, row in enumerate(ranked, 1):
            row["place"] = place
        return ranked

    def view(self, scoring: Scoring, expected: tuple[str, ...] = ()) -> dict[str, Any]:
        """Everything the leaderboard page shows, as JSON data."""
        with self._lock:
            kinds = self._db.execute("SELECT game, title, count(*) FROM games GROUP BY game ORDER BY game").fetchall()
        return {
            "tables": self.tiles(expected),
            "overall": self.standings(scoring),
            "by_game": [{"game": kind, "title": title, "games": n, "standings": self.standings(scoring, kind)}
                        for kind, title, n in kinds],
            "games": sum(n for _, _, n in kinds),
            "scoring": {"mode": scoring.mode, "points": dict(scoring.points), "text": scoring.describe()},
        }

"""Where game records live: the `Store` the table writes every event to before it is
acknowledged. `MemoryStore` keeps them in memory (tests, experiments); `SqliteStore`
(companion.sqlite_store) keeps them in one SQLite file, the table's memory across power
cuts. Both, and the SQLite store's errors, are importable from here.
"""

from __future__ import annotations

import itertools
from typing import Any, Mapping, Protocol

from companion.rules import Event, GameRecord
from companion.sqlite_store import (CorruptStore, GameNotFound, NewerStore, ReadOnlyStore, SqliteStore, StoreError,
                                    StoreFull)

__all__ = ["CorruptStore", "GameNotFound", "MemoryStore", "NewerStore", "ReadOnlyStore", "SqliteStore", "Store",
           "StoreError", "StoreFull", "summary"]


class Store(Protocol):
    """Where game records live. `append` must be durable when it returns."""

    def create(self, record: GameRecord) -> str: ...
    def create_finished(self, record: GameRecord, slate: Mapping[str, Any]) -> str: ...
    def append(self, game_id: str, index: int, event: Event) -> None: ...
    def finish(self, game_id: str, slate: Mapping[str, Any]) -> None: ...
    def reopen(self, game_id: str) -> None: ...
    def unfinished(self) -> list[tuple[str, GameRecord]]: ...
    def list_games(self) -> list[dict[str, Any]]: ...
    def load(self, game_id: str) -> GameRecord: ...


class MemoryStore:
    """A Store kept in memory: tests and `--data-dir` less experiments."""

    def __init__(self) -> None:
        self._records: dict[str, GameRecord] = {}
        self._slates: dict[str, dict[str, Any]] = {}
        self._ids = itertools.count(1)

    def create(self, record: GameRecord) -> str:
        game_id = str(next(self._ids))
        self._records[game_id] = record
        return game_id

    def create_finished(self, record: GameRecord, slate: Mapping[str, Any]) -> str:
        game_id = self.create(record)
        self._slates[game_id] = dict(slate)
        return game_id

    def append(self, game_id: str, index: int, event: Event) -> None:
        record = self._records[game_id]
        if index != len(record.events):
            raise ValueError(f"event {index} out of order for game {game_id}")
        self._records[game_id] = record.appended(event)

    def finish(self, game_id: str, slate: Mapping[str, Any]) -> None:
        self._slates[game_id] = dict(slate)

    def reopen(self, game_id: str) -> None:
        self._slates.pop(game_id, None)

    def unfinished(self) -> list[tuple[str, GameRecord]]:
        return [(i, r) for i, r in self._records.items() if i not in self._slates]

    def list_games(self) -> list[dict[str, Any]]:
        return [summary(i, r, self._slates.get(i)) for i, r in self._records.items()]

    def load(self, game_id: str) -> GameRecord:
        return self._records[game_id]


def summary(game_id: str, record: GameRecord, final: Mapping[str, Any] | None) -> dict[str, Any]:
    """The line a history list shows for a game."""
    return {
        "id": game_id,
        "game": record.game,
        "players": list(record.players),
        "started": record.meta.get("started"),
        "events": len(record.events),
        "finished": final is not None,
        "winner": (final or {}).get("winner"),
        "slate": dict(final) if final else None,
    }

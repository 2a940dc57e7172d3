"""The store's health as the table shows it: the slate's and host panel's "store" status.

Two things the table learns of its store while it writes: the disk is full (a write
raised StoreFull: an SD card filled up), and a finished game's end is not stored yet (it
is stored again before the next game and on restart). Either is said until it is over;
then the status is ok again. A status of the store set by someone else (the service, at
start) stays until the table has one of its own to say.
"""

from __future__ import annotations

import logging
from contextlib import contextmanager
from typing import Callable, Iterator

from companion.store import StoreFull

log = logging.getLogger("companion.table")

DEVICE = "store"


class StoreHealth:
    """Kept by the table under its lock; writes `devices[DEVICE]` (the table's device dict)."""

    def __init__(self, devices: dict[str, dict[str, str]]):
        self._devices = devices
        self.full: str | None = None  # why the last write found the disk full, until one goes through
        self.end_unsaved = False  # the current game is over, but the store has not taken its end yet
        self._told = False  # the store's status is ours (full, or an end unsaved)

    @contextmanager
    def writing(self, publish: Callable[[], None], game_id: str | None) -> Iterator[None]:
        """One write to the store. A full disk (StoreFull, raised on) is said and published
        at once; the first write that goes through again takes it back, so the table goes
        on once there is room, with no restart."""
        try:
            yield
        except StoreFull as exc:
            news = self.full != str(exc)
            self.full = str(exc)
            if news:
                self.show(game_id)
                publish()
            raise
        if self.full is not None:
            log.info("the store takes writes again")
            self.full = None
            self.show(game_id)
            publish()  # said at once, whether or not the write's caller publishes

    def end_stored(self, stored: bool, game_id: str | None) -> None:
        """Whether the current game's end is in the store (shown with the next publication)."""
        self.end_unsaved = not stored
        self.show(game_id)

    def show(self, game_id: str | None) -> None:
        if self.full is not None:
            self._devices[DEVICE] = {"status": "full", "message": self.full}
        elif self.end_unsaved:
            self._devices[DEVICE] = {"status": "warning", "message": (
                f"game {game_id} is over but the store did not take its end (see the log); "
                "it is stored again before the next game starts and on restart")}
        elif self._told:
            self._devices[DEVICE] = {"status": "ok", "message": ""}
        self._told = self.full is not None or self.end_unsaved

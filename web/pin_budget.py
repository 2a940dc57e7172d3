"""How many PIN guesses the whole network gets, kept across restarts.

A slow-down per client address is not enough on a venue's Wi-Fi: rotating 1,100
addresses checked 357-472 PINs a second, and even a /24 network's 254 addresses made
some 17,000 guesses an hour, so a 6-digit PIN fell within the hour. The budget is
shared by every client: a wrong PIN spends a guess, guesses come back at `per_day`
(250) a day up to `burst` (50) in hand, and with none in hand no PIN is checked at all,
the right one included. A 6-digit PIN then takes some 2,000 days of guessing on
average (500,000 guesses), and a restart gives nothing back: the budget lives in a file
in the data directory (`pin-budget.json`), dated by the wall clock. A new PIN starts a
full budget (the file holds a keyed fingerprint of the PIN it was spent on), which is
also how a host locked out by someone's guessing gets back in: change the PIN.
"""

from __future__ import annotations

import json
import logging
import os
import tempfile
import time
from pathlib import Path
from typing import Callable

log = logging.getLogger("web.pin")

#: Guesses in hand when the budget is full: a host's typos never come near it.
BURST = 50
#: Guesses that come back a day.
PER_DAY = 250


class PinBudget:
    """Guesses the whole network may make; not thread-safe (PinGuard holds its lock)."""

    def __init__(self, *, burst: int = BURST, per_day: float = PER_DAY, path: Path | None = None,
                 pin_mark: str | None = None, clock: Callable[[], float] = time.time):
        self.burst = burst
        self.rate = per_day / 86400.0
        self.path = None if path is None else Path(path)
        self._pin_mark = pin_mark
        self._clock = clock
        self._level = float(burst)
        self._at = clock()
        self._load()

    def wait(self) -> float:
        """Seconds until a guess may be checked (0: one may be now)."""
        self._refill()
        return 0.0 if self._level >= 1 else (1 - self._level) / self.rate

    def spend(self) -> None:
        """A wrong PIN was checked: one guess fewer, on disk before the answer."""
        self._refill()
        self._level = max(0.0, self._level - 1)
        self._save()

    @property
    def left(self) -> int:
        self._refill()
        return int(self._level)

    def _refill(self) -> None:
        now = self._clock()
        # a clock set back (a Pi without a clock, before NTP) gives nothing back
        self._level = min(float(self.burst), self._level + max(0.0, now - self._at) * self.rate)
        self._at = now

    def _load(self) -> None:
        if self.path is None:
            return
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return
        except (OSError, ValueError) as exc:
            log.warning("the PIN guess budget in %s cannot be read (%s); starting a full one", self.path, exc)
            return
        if not isinstance(data, dict) or data.get("pin") != self._pin_mark:
            return  # another PIN's budget: a new PIN starts afresh
        level, at = data.get("left"), data.get("at")
        if isinstance(level, (int, float)) and isinstance(at, (int, float)):
            self._level, self._at = min(float(self.burst), max(0.0, float(level))), min(float(at), self._clock())
            self._refill()

    def _save(self) -> None:
        if self.path is None:
            return
        data = json.dumps({"pin": self._pin_mark, "left": self._level, "at": self._at}).encode("utf-8")
        name = None
        try:
            handle, name = tempfile.mkstemp(prefix=".pin-budget-", dir=self.path.parent)  # mode 0600
            try:
                os.write(handle, data)
                os.fsync(handle)
            finally:
                os.close(handle)
            os.replace(name, self.path)
        except OSError as exc:
            if name is not None and os.path.exists(name):
                os.unlink(name)
            log.warning("the PIN guess budget cannot be saved to %s: %s", self.path, exc)

"""The time a read may spend looking harder ([vision] read_budget_ms).

The budget counts from the start of the read. A first look is always made whole. The
harder looks after it (more levels, lower cut-offs, dice read again grown, at the throw's
size, whole) are made while the budget lasts, and within a look the candidates' faces are
read surest first, a chunk at a time, while it lasts: a look over a cloth's pattern can
offer a hundred candidates for one die (seconds of reading). Anything not made or read for
time is noted, and the reading is then held for the host with the reason, rather than read
on while the table waits.
"""

from __future__ import annotations

import time
from contextvars import ContextVar
from typing import Callable, Sequence

#: The budget of the read under way on this thread, for the face reads deep in its looks.
_CURRENT: ContextVar["LookBudget | None"] = ContextVar("look_budget", default=None)


class LookBudget:
    """The harder looks' deadline for one read; `seconds` None: no limit."""

    def __init__(self, seconds: float | None, clock: Callable[[], float] = time.perf_counter):
        self.seconds = seconds
        self._clock = clock
        self._deadline = None if seconds is None else clock() + seconds
        self.cut = False  # a harder look was not made for time
        self.armed = False  # the first look is made: face reads now count against the budget
        _CURRENT.set(self)  # the newest read's budget replaces any an earlier read left

    def allows(self) -> bool:
        """Whether a harder look may start now. Ask only when the look is wanted: a no
        marks the reading as cut short."""
        if self._deadline is None or self._clock() < self._deadline:
            return True
        self.cut = True
        return False

    def close(self) -> None:
        """The read is over, however it ended: no face read counts against this budget."""
        self.armed = False
        if _CURRENT.get() is self:
            _CURRENT.set(None)

    def finish(self, reason: str | None) -> str | None:
        """The read's reason, with why the reading is held added when a look was cut for time."""
        if not self.cut:
            return reason
        return f"{reason}; {self.reason()}" if reason else self.reason()

    def reason(self) -> str | None:
        """Why the reading is held, when a look was cut."""
        if not self.cut:
            return None
        return (f"the reader stopped looking harder after {self.seconds * 1000:.0f} ms "
                "([vision] read_budget_ms): please check")


def in_force() -> LookBudget | None:
    """The budget of the read under way, once its first look is made; else None."""
    budget = _CURRENT.get()
    return budget if budget is not None and budget.armed and budget.seconds is not None else None


#: Candidates whose faces are read between two looks at the clock.
CHUNK = 48


def in_turn(cands: Sequence, read: Callable[[Sequence], Sequence], unread) -> list[tuple]:
    """(candidate, probabilities) for each of `cands`, read by `read`. In a harder look
    (`in_force`), the surest (highest `score`) first, CHUNK at a time while the budget
    lasts; those left get `unread` (read as no die: the reading is held anyway)."""
    budget = in_force()
    if budget is None or not cands:
        return list(zip(cands, read(cands)))
    order = sorted(cands, key=lambda c: -c.score)
    out: list[tuple] = []
    for i in range(0, len(order), CHUNK):
        if not budget.allows():
            return out + [(c, unread) for c in order[i:]]
        some = order[i:i + CHUNK]
        out += zip(some, read(some))
    return out

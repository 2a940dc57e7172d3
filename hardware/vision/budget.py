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
        self.per_read = 0.0  # seconds a candidate's face read took in this read's last chunk (in_turn)
        _CURRENT.set(self)  # the newest read's budget replaces any an earlier read left

    def allows(self, needs: float = 0.0) -> bool:
        """Whether a harder look may start now, and end `needs` seconds later before the
        deadline. Ask only when the look is wanted: a no marks the reading as cut short."""
        if self._deadline is None or self._clock() + needs < self._deadline:
            return True
        self.cut = True
        return False

    def timed(self, read: Callable[[Sequence], Sequence], cands: Sequence) -> Sequence:
        """`read(cands)`, noting how long it took a candidate (`per_read`)."""
        t0 = self._clock()
        got = read(cands)
        self.per_read = (self._clock() - t0) / len(cands)
        return got

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


def current() -> LookBudget | None:
    """The budget of the read under way, when it has a limit; else None."""
    budget = _CURRENT.get()
    return budget if budget is not None and budget.seconds is not None else None


#: Candidates whose faces are read between two looks at the clock.
CHUNK = 48


def in_turn(cands: Sequence, read: Callable[[Sequence], Sequence], unread) -> list[tuple]:
    """(candidate, probabilities) for each of `cands`, read by `read`. In a harder look
    (the read's budget armed), the surest (highest `score`) first, CHUNK at a time while the budget
    lasts; those left get `unread` (read as no die: the reading is held anyway). A chunk
    starts only when, read as fast as the read's last one was (the first look's included),
    it would end before the deadline: a chunk of a speckled table's candidates takes
    about a quarter of a second, so one started just before the deadline ran that far past."""
    budget = current()
    if budget is None or not cands:
        return list(zip(cands, read(cands)))
    if not budget.armed:  # the first look: read whole, timed for the chunks after it
        return list(zip(cands, budget.timed(read, cands)))
    order = sorted(cands, key=lambda c: -c.score)
    out: list[tuple] = []
    for i in range(0, len(order), CHUNK):
        some = order[i:i + CHUNK]
        if not budget.allows(budget.per_read * len(some)):
            return out + [(c, unread) for c in order[i:]]
        out += zip(some, budget.timed(read, some))
    return out

"""The time a read may spend looking harder ([vision] read_budget_ms).

A first look is always made. The harder looks after it (more levels, lower cut-offs,
dice read again grown, at the throw's size, whole) are made while the budget lasts;
one not made for time is noted, and the reading is then held for the host with the
reason, rather than read on for seconds while the table waits. A look already under
way finishes, so a read takes at most the budget and one look.
"""

from __future__ import annotations

import time
from typing import Callable


class LookBudget:
    """The harder looks' deadline for one read; `seconds` None: no limit."""

    def __init__(self, seconds: float | None, clock: Callable[[], float] = time.perf_counter):
        self.seconds = seconds
        self._clock = clock
        self._deadline = None if seconds is None else clock() + seconds
        self.cut = False  # a harder look was not made for time

    def allows(self) -> bool:
        """Whether a harder look may start now. Ask only when the look is wanted: a no
        marks the reading as cut short."""
        if self._deadline is None or self._clock() < self._deadline:
            return True
        self.cut = True
        return False

    def reason(self) -> str | None:
        """Why the reading is held, when a look was cut."""
        if not self.cut:
            return None
        return (f"the reader stopped looking harder after {self.seconds * 1000:.0f} ms "
                "([vision] read_budget_ms): please check")

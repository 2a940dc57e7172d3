"""A host's double tap is one action, not two.

Every POST the host panel sends carries an `X-Once` key: a hash of the action and of the
table state the panel showed when it was tapped (host.js `post`). A second request with
the same key from the same host session gets the first one's answer and changes nothing;
one that comes while the first is still running waits for it. A refusal is not kept (it
changed nothing: tried again, it is asked again, say once the camera answers). A request
without the key (a script, a plain form post) is taken as it comes.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any, Callable

#: The most keys remembered: far more than taps in the time a panel takes to redraw.
KEEP = 256
#: The longest key taken; a longer one is ignored (the request is taken as it comes).
MAX_KEY = 128
#: How long a repeat waits for the first request's answer, in seconds.
WAIT = 30.0


class _Answer:
    def __init__(self) -> None:
        self.ready = threading.Event()
        self.value: Any = None
        self.error: BaseException | None = None

    @property
    def refused(self) -> bool:
        """It raised, or answered with an error status: it changed nothing, so is not kept."""
        return self.error is not None or getattr(self.value, "status_code", 200) >= 400


class Once:
    """The answers of the latest keyed requests, each given once and repeated after."""

    def __init__(self, keep: int = KEEP) -> None:
        self._keep = keep
        self._lock = threading.Lock()
        self._answers: OrderedDict[tuple[str, str], _Answer] = OrderedDict()

    def run(self, scope: str, key: str | None, action: Callable[[], Any]) -> Any:
        """`action()`'s answer; for a key `scope` has sent before and that went through,
        that first answer without running `action` again."""
        if not key or len(key) > MAX_KEY:
            return action()
        with self._lock:
            answer = self._answers.get((scope, key))
            first = answer is None
            if first:
                answer = self._answers[(scope, key)] = _Answer()
                while len(self._answers) > self._keep:
                    self._answers.popitem(last=False)
        if first:
            try:
                answer.value = action()
            except BaseException as exc:
                answer.error = exc
                raise
            finally:
                if answer.refused:
                    with self._lock:  # a refusal is not kept: a repeat is asked again
                        self._answers.pop((scope, key), None)
                answer.ready.set()
            return answer.value
        if not answer.ready.wait(WAIT):
            _still_running()
        if answer.refused:
            return self.run(scope, key, action)  # the first was refused: this one is asked again
        return answer.value


def _still_running():
    from flask import abort

    abort(409, "the same tap is still being carried out: look at the panel again in a moment")

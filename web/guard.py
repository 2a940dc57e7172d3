"""What keeps the host panel the host's: the PIN check with its slow-down, and CSRF tokens.

Wrong PINs are counted per client (its address): after a few, that client must wait
before its next try (1, 2, 4 ... seconds, capped), while everyone else tries freely.
Nobody waits on a sleeping thread: a try during the wait is refused at once (429).
The PIN itself is never logged, echoed or put in a page.
"""

from __future__ import annotations

import hmac
import secrets
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass
from typing import Callable

from flask import abort, request, session

#: Wrong PINs a client may make before it has to wait.
FREE_TRIES = 3
#: The longest wait between tries, in seconds.
MAX_DELAY = 60.0
#: Clients remembered at once (oldest forgotten first), so a flood cannot grow memory.
MAX_CLIENTS = 1024


@dataclass
class Attempts:
    failures: int = 0
    wait_until: float = 0.0


class PinRefused(Exception):
    """A login try that was not checked or did not match. `retry_after` > 0: too soon."""

    def __init__(self, message: str, retry_after: float = 0.0):
        super().__init__(message)
        self.message = message
        self.retry_after = retry_after


class PinGuard:
    """Checks the host PIN and slows down clients that keep getting it wrong."""

    def __init__(self, pin: str | None, delay: float | None = None, *, clock: Callable[[], float] = time.monotonic):
        self._pin = str(pin) if pin not in (None, "") else None
        self._delay = None if delay is None else float(delay)
        self._clock = clock
        self._lock = threading.Lock()
        self._clients: OrderedDict[str, Attempts] = OrderedDict()

    @property
    def enabled(self) -> bool:
        return self._pin is not None

    def check(self, client: str, given: str) -> None:
        """Return when `given` is the PIN; raise PinRefused (wrong, or too soon) otherwise."""
        now = self._clock()
        with self._lock:
            attempts = self._clients.get(client)
            if attempts is not None and now < attempts.wait_until:
                wait = attempts.wait_until - now
                raise PinRefused(f"too many wrong PINs: try again in {wait:.0f} s", retry_after=wait)
        if self._pin is not None and hmac.compare_digest(as_bytes(given), as_bytes(self._pin)):
            with self._lock:
                self._clients.pop(client, None)
            return
        with self._lock:
            attempts = self._clients.pop(client, None) or Attempts()
            attempts.failures += 1
            extra = attempts.failures - FREE_TRIES
            if extra >= 0:
                attempts.wait_until = now + self.delay_after(extra)
            self._clients[client] = attempts
            while len(self._clients) > MAX_CLIENTS:
                self._clients.popitem(last=False)
        raise PinRefused("wrong PIN")

    def delay_after(self, extra: int) -> float:
        """Seconds to wait after the `extra`-th wrong PIN beyond the free ones (0-based)."""
        if self._delay is not None:
            return self._delay
        return min(2.0 ** extra, MAX_DELAY)


def as_bytes(text: str) -> bytes:
    """UTF-8 that cannot fail: a lone surrogate (JSON's "\\ud800") is kept as its own
    bytes, which are not UTF-8 and so match no PIN, and the try is counted like any
    wrong PIN instead of ending in a 500 that the slow-down never sees."""
    return text.encode("utf-8", "surrogatepass")


# --- CSRF: one random token per browser session, sent back with every change ---------

def csrf_token() -> str:
    token = session.get("csrf")
    if not token:
        token = secrets.token_urlsafe(32)
        session["csrf"] = token
    return token


def check_csrf() -> None:
    """Abort 403 unless the request carries this session's token (form field or header)."""
    expected = session.get("csrf")
    given = request.headers.get("X-CSRF-Token") or request.form.get("csrf_token") or ""
    if not expected or not hmac.compare_digest(str(given).encode(), str(expected).encode()):
        abort(403, "the form expired or came from elsewhere: reload the host panel and try again")


def is_host() -> bool:
    return bool(session.get("host"))

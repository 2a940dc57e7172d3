"""What keeps the host panel the host's: the PIN check with its slow-down, the host's
login, and CSRF tokens.

Wrong PINs are counted per client (its address): after a few, that client must wait
before its next try (1, 2, 4 ... seconds, capped). Every client also draws on one budget
of guesses for the whole network (`web.pin_budget`), kept across restarts, so rotating
addresses gains nothing. Nobody waits on a sleeping thread: a try during a wait is
refused at once (429) and not checked. Refused logins are logged as one summary line a
minute at most. The PIN itself is never logged, echoed or put in a page.

A login lives in Flask's signed cookie, which anyone holding it can read and replay, so
what it carries is checked here on every request: its own random id (logout revokes
it), a keyed fingerprint of the PIN it was opened with (a new PIN ends it) and when it
was opened (an evening at most).
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import math
import secrets
import threading
import time
from collections import Counter, OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from flask import abort, current_app, request, session

from web.pin_budget import BURST, PER_DAY, PinBudget

#: Wrong PINs a client may make before it has to wait.
FREE_TRIES = 3
#: The longest wait between tries, in seconds.
MAX_DELAY = 60.0
#: Clients remembered at once (oldest forgotten first), so a flood cannot grow memory.
MAX_CLIENTS = 1024
#: The longest a host login lasts, in seconds: an evening. Then the PIN is asked again.
MAX_LOGIN_SECONDS = 12 * 60 * 60
#: Logged-out logins remembered at once (see PinGuard.revoke).
MAX_REVOKED = 1024


@dataclass
class Attempts:
    failures: int = 0
    wait_until: float = 0.0


class PinRefused(Exception):
    """A login try that was not checked or did not match. `retry_after` > 0: too soon."""

    def __init__(self, message: str, retry_after: float = 0.0, reason: str = "wrong PIN"):
        super().__init__(message)
        self.message = message
        self.retry_after = retry_after
        #: For the log: "wrong PIN", "too soon" (this client), "no guesses left" (everyone).
        self.reason = reason


class PinGuard:
    """Checks the host PIN, slows down clients that keep getting it wrong, and says
    which host logins still stand.

    `key` is the app's secret key: the PIN's fingerprint in a login is keyed with it, so
    a cookie's reader cannot test guesses against it, and the same key kept across a
    restart keeps the host logged in (a random one when absent). `wall_clock` dates
    logins and the network's guess budget: unlike `clock` (for the slow-down), its time
    means the same after a restart. `budget_file` keeps that budget (None: in memory);
    `burst` and `per_day` size it.
    """

    def __init__(self, pin: str | None, delay: float | None = None, *, key: bytes | str | None = None,
                 clock: Callable[[], float] = time.monotonic, wall_clock: Callable[[], float] = time.time,
                 budget_file: Path | str | None = None, burst: int = BURST, per_day: float = PER_DAY):
        self._pin = str(pin) if pin not in (None, "") else None
        self._delay = None if delay is None else float(delay)
        self._clock = clock
        self._wall_clock = wall_clock
        self._lock = threading.Lock()
        self._clients: OrderedDict[str, Attempts] = OrderedDict()
        key = secrets.token_bytes(32) if key is None else key
        key = as_bytes(key) if isinstance(key, str) else key
        self._pin_mac = None if self._pin is None else hmac.new(
            key, b"host pin\0" + as_bytes(self._pin), hashlib.sha256).hexdigest()
        self._revoked: OrderedDict[str, float] = OrderedDict()
        self._revoked_before = float("-inf")
        self.budget = PinBudget(burst=burst, per_day=per_day, path=None if budget_file is None else Path(budget_file),
                                pin_mark=self._pin_mac, clock=wall_clock)

    @property
    def enabled(self) -> bool:
        return self._pin is not None

    def check(self, client: str, given: str) -> None:
        """Return when `given` is the PIN; raise PinRefused (wrong, or too soon) otherwise.

        The check and the spending of a guess happen under one lock, so concurrent
        tries cannot check more PINs than the budget holds."""
        now = self._clock()
        with self._lock:
            attempts = self._clients.get(client)
            if attempts is not None and now < attempts.wait_until:
                wait = attempts.wait_until - now
                raise PinRefused(f"too many wrong PINs: try again in {wait:.0f} s", retry_after=wait, reason="too soon")
            wait = self.budget.wait()
            if wait > 0:
                raise PinRefused(f"too many wrong PINs have been tried here lately: try again in {wait_words(wait)}",
                                 retry_after=wait, reason="no guesses left")
            if self._pin is not None and hmac.compare_digest(as_bytes(given), as_bytes(self._pin)):
                self._clients.pop(client, None)
                return
            self.budget.spend()
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

    # --- the host's login --------------------------------------------------------------

    def open_session(self) -> dict[str, Any]:
        """What a login after the right PIN puts in the host's cookie."""
        return {"id": secrets.token_urlsafe(16), "pin_mac": self._pin_mac, "since": int(self._wall_clock())}

    def admits(self, login: Any) -> bool:
        """True while `login` (from the cookie) stands: opened with the PIN in force, not
        logged out, and less than an evening old. A clock set back before the login
        asks for the PIN again rather than trust a date it cannot place."""
        if self._pin_mac is None or not isinstance(login, dict):
            return False
        login_id, pin_mac, since = login.get("id"), login.get("pin_mac"), login.get("since")
        if not isinstance(login_id, str) or not isinstance(pin_mac, str):
            return False
        if not isinstance(since, (int, float)) or isinstance(since, bool):
            return False
        if not 0 <= self._wall_clock() - since < MAX_LOGIN_SECONDS:
            return False
        if not hmac.compare_digest(as_bytes(pin_mac), as_bytes(self._pin_mac)):
            return False
        with self._lock:
            return login_id not in self._revoked and since > self._revoked_before

    def revoke(self, login: Any) -> None:
        """Log `login` out for good, also for any copy of its cookie.

        Revoked ids are kept in memory only: a restart forgets them, and a copied cookie
        of a logged-out login works again until its evening is over (MAX_LOGIN_SECONDS)
        unless the PIN is changed. At most MAX_REVOKED are kept; past that the oldest is
        dropped and every login opened no later than it is refused with it, so a
        forgotten id never comes back to life.
        """
        if not self.admits(login):
            return  # refused already: nothing to remember
        with self._lock:
            self._revoked[login["id"]] = login["since"]
            while len(self._revoked) > MAX_REVOKED:
                _, dropped = self._revoked.popitem(last=False)
                self._revoked_before = max(self._revoked_before, dropped)


def wait_words(seconds: float) -> str:
    """ "40 s", "6 min"."""
    return f"{math.ceil(seconds)} s" if seconds < 60 else f"{math.ceil(seconds / 60)} min"


class RefusedLogins:
    """Refused host logins, told to the log as one line a minute at most.

    A 70 s guessing run once wrote 22,860 lines, past journald's rate limit (10,000
    lines in 30 s), which then dropped the game's own lines. The first refusal after a
    quiet minute is told at once; the rest of that minute in one summary line when it
    is over (a timer). Never the PIN tried.
    """

    def __init__(self, logger: logging.Logger, every: float = 60.0, clock: Callable[[], float] = time.monotonic):
        self._log = logger
        self._every = every
        self._clock = clock
        self._lock = threading.Lock()
        self._reasons: Counter[str] = Counter()
        self._clients: set[str] = set()
        self._last = float("-inf")
        self._timer: threading.Timer | None = None

    def note(self, client: str, reason: str) -> None:
        with self._lock:
            self._reasons[reason] += 1
            if len(self._clients) < 100_000:
                self._clients.add(client)
            now = self._clock()
            if now - self._last >= self._every:
                self._tell(now)
            elif self._timer is None:
                self._timer = threading.Timer(self._last + self._every - now, self.flush)
                self._timer.daemon = True
                self._timer.start()

    def flush(self) -> None:
        """Tell what is pending now (the timer's end of a minute; tests)."""
        with self._lock:
            self._timer = None
            if self._reasons:
                self._tell(self._clock())

    def _tell(self, now: float) -> None:
        count = sum(self._reasons.values())
        reasons = ", ".join(f"{n} {reason}" for reason, n in self._reasons.most_common())
        if count == 1:
            self._log.warning("host login refused for %s: %s", next(iter(self._clients)), next(iter(self._reasons)))
        else:
            self._log.warning("host logins refused in the last minute: %d (%s) from %d addresses",
                              count, reasons, len(self._clients))
        self._reasons.clear()
        self._clients.clear()
        self._last = now


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
    """Whether this request comes from a host whose login still stands (PinGuard.admits)."""
    return current_app.extensions["companion"]["guard"].admits(session.get("host"))

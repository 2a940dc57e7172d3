"""Telling systemd the table is up and still turning (`Type=notify`, `WatchdogSec=`).

systemd passes a datagram socket in `$NOTIFY_SOCKET` (a path, or an abstract name written
with a leading "@") and, with `WatchdogSec=`, the allowed silence in `$WATCHDOG_USEC`.
The service sends `READY=1` once it serves, `STOPPING=1` when it stops, and `WATCHDOG=1`
every third of the allowed silence, but only while every check passes: the camera loop has
finished a turn lately and the web server answers a request. A stuck loop or server stops
the pings, and systemd kills and restarts the service. Messages go through python3-systemd
(`systemd.daemon.notify`, Raspberry Pi OS's package, seen through the venv's
--system-site-packages) when it can be imported; otherwise through the sd_notify protocol
(man sd_notify) in a few lines of socket code, so no library is required. Without
`$NOTIFY_SOCKET` (a laptop, the tests) every message is a no-op.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import time
import urllib.request
from collections.abc import Callable, Mapping

log = logging.getLogger("companion.watchdog")

#: Seconds the camera loop may go without finishing a turn before it counts as stuck: a
#: turn waits at most a frame's time-out (5 s) plus a camera-page job (15 s).
LOOP_STUCK_AFTER = 30.0
#: Seconds the web server has to answer the watchdog's own request.
HTTP_TIMEOUT = 10.0


def notify(message: str, environ: Mapping[str, str] | None = None) -> bool:
    """Send `message` ("READY=1", "WATCHDOG=1", ...) to systemd; False when not under it.

    With the process's own environment (`environ` None) python3-systemd sends it when
    installed; an `environ` given (tests) or no python3-systemd: the socket code below."""
    own = environ is None
    environ = os.environ if own else environ
    address = environ.get("NOTIFY_SOCKET")
    if not address:
        return False
    if own:
        sent = _library_notify(message)
        if sent is not None:
            return sent
    return _socket_notify(message, address)


def _library_notify(message: str) -> bool | None:
    """python3-systemd's `daemon.notify(message)`; None when it is not importable or fails."""
    try:
        from systemd import daemon
    except ImportError:
        return None
    try:
        return bool(daemon.notify(message))
    except Exception as exc:  # a broken or odd install: the socket code still works
        log.debug("python3-systemd could not send %r (%s); using the socket", message, exc)
        return None


def _socket_notify(message: str, address: str) -> bool:
    """The sd_notify protocol itself: one datagram to `address` ("@name": an abstract socket)."""
    if address.startswith("@"):
        address = "\0" + address[1:]
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC) as sock:
            sock.connect(address)
            sock.sendall(message.encode())
    except OSError as exc:
        log.warning("could not tell systemd %r: %s", message, exc)
        return False
    return True


def ping_interval(environ: Mapping[str, str] | None = None) -> float | None:
    """Seconds between pings (a third of `WatchdogSec=`), or None without a watchdog."""
    environ = os.environ if environ is None else environ
    usec, pid = environ.get("WATCHDOG_USEC"), environ.get("WATCHDOG_PID")
    if not usec or (pid and pid.isdigit() and int(pid) != os.getpid()):
        return None
    try:
        return max(int(usec) / 1e6 / 3, 0.05)
    except ValueError:
        return None


def own_url(host: str, port: int, path: str) -> str:
    """The URL at which this machine reaches its own server listening on `host`."""
    if host in ("0.0.0.0", ""):
        host = "127.0.0.1"
    elif host == "::":
        host = "::1"
    return f"http://[{host}]:{port}{path}" if ":" in host else f"http://{host}:{port}{path}"


def http_answers(url: str, timeout: float = HTTP_TIMEOUT) -> Callable[[], bool]:
    """A check that the web server at `url` answers (a worker took the request and replied)."""

    def check() -> bool:
        try:
            with urllib.request.urlopen(url, timeout=timeout) as response:
                response.read()
                return response.status < 500
        except OSError:
            return False

    return check


def turned_lately(last_turn: Callable[[], float], stuck_after: float = LOOP_STUCK_AFTER,
                  clock: Callable[[], float] = time.monotonic) -> Callable[[], bool]:
    """A check that a loop finished a turn in the last `stuck_after` seconds."""
    return lambda: clock() - last_turn() < stuck_after


def start(checks: Mapping[str, Callable[[], bool]], environ: Mapping[str, str] | None = None) -> Watchdog | None:
    """A running Watchdog when systemd asked for one (`WatchdogSec=`), else None."""
    interval = ping_interval(environ)
    if interval is None:
        return None
    dog = Watchdog(checks, interval)
    dog.start()
    log.info("pinging systemd's watchdog every %.0f s while the camera loop and the web server turn", interval)
    return dog


class Watchdog:
    """Pings systemd's watchdog every `interval` seconds while every named check passes."""

    def __init__(self, checks: Mapping[str, Callable[[], bool]], interval: float,
                 send: Callable[[str], bool] = notify) -> None:
        self.checks = dict(checks)
        self.interval = interval
        self._send = send
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.stuck: list[str] = []

    def check_once(self) -> bool:
        """Run the checks; ping when all pass. Returns whether it pinged."""
        stuck = []
        for name, check in self.checks.items():
            try:
                if not check():
                    stuck.append(name)
            except Exception:
                log.exception("the watchdog's %s check failed", name)
                stuck.append(name)
        if stuck and stuck != self.stuck:
            log.error("%s stuck: not pinging systemd's watchdog (it restarts the service)", " and ".join(stuck))
        elif not stuck and self.stuck:
            log.info("%s turning again", " and ".join(self.stuck))
        self.stuck = stuck
        if stuck:
            return False
        self._send("WATCHDOG=1")
        return True

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="watchdog", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            self.check_once()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(self.interval + HTTP_TIMEOUT)

"""The table's buttons: gpiozero edges in, debounced `Press` values out on one queue.

gpiozero calls `when_pressed` on its own background threads (one per pin factory on
lgpio, the driving thread on MockFactory). Those callbacks only decide "is this a real,
enabled press?" under a lock and put a `Press` on the queue; the session consumes the
queue on its own thread and alone decides what the press means in the current phase.

Debounce lives here, not only in gpiozero's `bounce_time`, because each pin factory
implements that differently (a glitch filter on lgpio, an edge lock-out on RPi.GPIO,
nothing at all on MockFactory). We still pass `bounce_time` to gpiozero for the
hardware filter, and add one rule that behaves the same everywhere and that tests can
drive: a press counts only if that button's line was quiet (no edge either way) for
`bounce_time` seconds before it. Contacts chattering on press or on release never make
a second press; a real double tap, slower than `bounce_time`, makes two.

Each button is a `gpiozero.DigitalInputDevice` with the pull-up on, which is what
`gpiozero.Button` is minus its hold thread: the table never uses holds, and fourteen
idle threads polling ten times a second are a waste on a small Pi (and make closing
the table take over a second).

A call's colour is a secret until the reveal: presses are logged at DEBUG only.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable

import gpiozero

from hardware.faults import GpioUnavailable
from hardware.table.pins import make_pin_factory
from hardware.table.presses import ButtonKind, Press
from hardware.table.wiring import Wiring, describe_pin

log = logging.getLogger(__name__)

ButtonKey = tuple[int | None, ButtonKind]


class TableButtons:
    """All buttons of one table, feeding `events` with `Press` values.

    `pin_factory` is a gpiozero factory (MockFactory in tests); None builds one from
    `wiring.pin_factory` and closes it with the buttons. Raises GpioUnavailable if a
    button cannot be set up, leaving no pin claimed.
    """

    def __init__(
        self,
        wiring: Wiring,
        events: queue.Queue,
        pin_factory=None,
        *,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._events = events
        self._bounce_time = wiring.bounce_time
        self._clock = clock
        self._lock = threading.Lock()
        self._last_edge: dict[ButtonKey, float] = {}
        self._disabled: set[ButtonKey] = set()
        self._devices: dict[ButtonKey, gpiozero.DigitalInputDevice] = {}
        self._owned_factory = None
        if pin_factory is None:
            pin_factory = self._owned_factory = make_pin_factory(wiring.pin_factory, wiring.chip)
        try:
            for seat, kind, pin in wiring.buttons():
                self._devices[(seat, kind)] = self._open(seat, kind, pin, pin_factory)
        except Exception:
            self.close()
            raise
        log.info("table buttons ready: %d seats, %d buttons", len(wiring.seats), len(self._devices))

    def _open(self, seat: int | None, kind: ButtonKind, pin: int, factory) -> gpiozero.DigitalInputDevice:
        key = (seat, kind)
        try:
            button = gpiozero.DigitalInputDevice(
                pin, pull_up=True, bounce_time=self._bounce_time or None, pin_factory=factory
            )
        except Exception as exc:  # gpiozero's pin errors, OSError, lgpio.error
            raise GpioUnavailable(f"cannot use {describe_pin(pin)} for the {_name(key)} button: {exc}") from exc
        # when_activated / when_deactivated are what gpiozero.Button calls when_pressed / when_released.
        button.when_activated = lambda: self._edge(key, pressed=True)
        button.when_deactivated = lambda: self._edge(key, pressed=False)
        return button

    def _edge(self, key: ButtonKey, *, pressed: bool) -> None:
        """Called on gpiozero's threads: touch only the debounce clock and the queue."""
        now = self._clock()
        with self._lock:
            previous = self._last_edge.get(key)
            self._last_edge[key] = now
            if not pressed:
                return
            if previous is not None and now - previous < self._bounce_time:
                log.debug("ignored bounce on %s", _logged(key))
                return
            if key in self._disabled:
                log.debug("ignored press on disabled %s", _logged(key))
                return
            # Put under the lock so presses reach the queue in the order they were accepted.
            self._events.put(Press(*key))
        log.debug("press: %s", _logged(key))

    def disable(self, seat: int | None = None, button: ButtonKind | None = None) -> None:
        """Drop presses (DEBUG-logged) from the matching buttons from now on; None matches
        every seat / every kind."""
        keys = self._matching(seat, button)
        with self._lock:
            self._disabled.update(keys)

    def is_enabled(self, seat: int | None, button: ButtonKind) -> bool:
        key = (seat, button)
        if key not in self._devices:
            raise ValueError(f"there is no {_name(key)} button on this table")
        with self._lock:
            return key not in self._disabled

    def wired(self) -> list[ButtonKey]:
        """(seat, kind) of every button this table has, in wiring order."""
        return list(self._devices)

    def _matching(self, seat: int | None, button: ButtonKind | None) -> set[ButtonKey]:
        keys = {k for k in self._devices if (seat is None or k[0] == seat) and (button is None or k[1] is button)}
        if not keys and self._devices:
            wanted = " ".join(part for part in (f"seat {seat}" if seat is not None else "", button.value if button else "") if part)
            raise ValueError(f"there is no {wanted} button on this table")
        return keys

    def close(self) -> None:
        """Release every pin (and the pin factory if we built it). Safe to call twice."""
        devices, self._devices = self._devices, {}
        for device in devices.values():
            try:
                device.close()
            except Exception:  # closing must never stop the table from shutting down
                log.debug("error closing %r", device, exc_info=True)
        factory, self._owned_factory = self._owned_factory, None
        if factory is not None:
            factory.close()

    def __enter__(self) -> TableButtons:
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()


def _name(key: ButtonKey) -> str:
    seat, kind = key
    return kind.value if seat is None else f"seat {seat + 1} {kind.value}"  # people count seats from 1


def _logged(key: ButtonKey) -> str:
    """The button as a press is logged. A seat's two buttons are its secret call, so neither
    is told from the other at any log level (the journal on a Pi keeps DEBUG too); a wiring
    check names them in `companion check-hardware`, not here."""
    seat, kind = key
    return kind.value if seat is None else f"seat {seat + 1} call button"

"""Seat lights: steady when that seat's call is in, blinking on that seat's turn.

A light says *that* a seat has called, never *what*: it cannot leak a secret. The
session computes a `LightState` per seat from its state and calls `show()` with the
whole picture; only lights whose state changed are touched, so a blinking light is
not restarted (no flicker) when another seat calls in.
"""

from __future__ import annotations

import enum
import logging
import threading
from collections.abc import Mapping

import gpiozero

from hardware.faults import GpioUnavailable
from hardware.table.pins import make_pin_factory
from hardware.table.wiring import Wiring, describe_pin

log = logging.getLogger(__name__)


class LightState(enum.Enum):
    OFF = "off"
    CALL_IN = "call-in"  # steady: this seat's call is in
    TURN = "turn"  # blinking: this seat is to act


class SeatLights:
    """The LEDs of the seats that have one. `pin_factory` as for TableButtons."""

    def __init__(self, wiring: Wiring, pin_factory=None, *, blink_seconds: float = 0.4) -> None:
        self._seats = set(wiring.seat_numbers())
        self._blink_seconds = blink_seconds
        self._lock = threading.Lock()
        self._leds: dict[int, gpiozero.LED] = {}
        self._shown: dict[int, LightState] = {}
        self._owned_factory = None
        if pin_factory is None:
            pin_factory = self._owned_factory = make_pin_factory(wiring.pin_factory, wiring.chip)
        try:
            for seat, pin in wiring.lights().items():
                self._leds[seat] = self._open(seat, pin, pin_factory)
                self._shown[seat] = LightState.OFF
        except Exception:
            self.close()
            raise

    @staticmethod
    def _open(seat: int, pin: int, factory) -> gpiozero.LED:
        try:
            return gpiozero.LED(pin, initial_value=False, pin_factory=factory)
        except Exception as exc:
            raise GpioUnavailable(f"cannot use {describe_pin(pin)} for seat {seat + 1}'s light: {exc}") from exc

    def show(self, states: Mapping[int, LightState]) -> None:
        """Set every light: seats missing from `states` go OFF; seats without an LED are skipped."""
        unknown = sorted(set(states) - self._seats)
        if unknown:
            raise ValueError(f"no seat {unknown[0] + 1} at this table (seats {min(self._seats) + 1}-{max(self._seats) + 1})")
        for seat, state in states.items():
            if not isinstance(state, LightState):
                raise TypeError(f"seat {seat + 1}: expected a LightState, got {state!r}")
        with self._lock:
            for seat, led in self._leds.items():
                wanted = states.get(seat, LightState.OFF)
                if self._shown.get(seat) is wanted:
                    continue
                if wanted is LightState.TURN:
                    led.blink(on_time=self._blink_seconds, off_time=self._blink_seconds, background=True)
                elif wanted is LightState.CALL_IN:
                    led.on()
                else:
                    led.off()
                self._shown[seat] = wanted

    def shown(self) -> dict[int, LightState]:
        """What each lit-capable seat currently shows."""
        with self._lock:
            return dict(self._shown)

    def close(self) -> None:
        """Turn everything off and release the pins. Safe to call twice."""
        leds, self._leds = self._leds, {}
        for led in leds.values():
            try:
                led.off()  # stops a blink too; closing alone may leave the pin driven high
                led.close()
            except Exception:
                log.debug("error closing %r", led, exc_info=True)
        factory, self._owned_factory = self._owned_factory, None
        if factory is not None:
            factory.close()

    def __enter__(self) -> SeatLights:
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()

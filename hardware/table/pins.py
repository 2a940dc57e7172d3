"""Choosing gpiozero's pin factory, the one seam between the table and real pins.

Every device of the table takes its factory by injection (gpiozero's `pin_factory=`):
the Pi gets lgpio, tests and `--pin-factory mock` get `MockFactory`, and a laptop gets a
`GpioUnavailable` it can show before falling back to the host panel's virtual buttons.
`Device.pin_factory` (gpiozero's class-wide default) is never set here.
"""

from __future__ import annotations

import os
from importlib.metadata import entry_points

from hardware.faults import GpioUnavailable

# gpiozero's own preference when nothing is named (pigpio needs a daemon: named only).
_AUTO_ORDER = ("lgpio", "rpigpio", "native")
_FALLBACK_HINT = "the table keeps working with the virtual buttons on the host panel"


def pin_factory_names() -> list[str]:
    """Names gpiozero registers (GPIOZERO_PIN_FACTORY values): lgpio, rpigpio, pigpio, native, mock."""
    return sorted(ep.name for ep in entry_points(group="gpiozero_pin_factories"))


def make_pin_factory(name: str | None = None, chip: int | None = None):
    """A gpiozero pin factory by name; None honours GPIOZERO_PIN_FACTORY, then tries lgpio, rpigpio, native.
    `chip` is lgpio's /dev/gpiochipN (gpiozero's LGPIOFactory(chip=...)); None lets gpiozero pick.

    Raises GpioUnavailable (never gpiozero's or lgpio's own errors) when the factory
    cannot be built here, e.g. off a Raspberry Pi.
    """
    if name is None:
        name = os.environ.get("GPIOZERO_PIN_FACTORY") or None
    if name is not None:
        name = name.strip().lower()
        if chip is not None and name not in ("lgpio", "mock"):
            raise GpioUnavailable(f"[gpio] chip = {chip} is for the lgpio pin factory, not {name}")
        if name not in pin_factory_names():
            raise GpioUnavailable(f"unknown pin factory {name!r}; choose one of: {', '.join(pin_factory_names())}")
        try:
            return _build(name, chip)
        except Exception as exc:  # ImportError off a Pi, lgpio.error, RuntimeError from RPi.GPIO...
            raise GpioUnavailable(f"GPIO via {name} is not available here ({exc}); {_FALLBACK_HINT}") from exc
    reasons = []
    for candidate in ("lgpio",) if chip is not None else _AUTO_ORDER:
        try:
            return _build(candidate, chip)
        except Exception as exc:
            reasons.append(f"{candidate}: {exc}")
    raise GpioUnavailable(f"no GPIO on this machine (is it a Raspberry Pi?); {_FALLBACK_HINT}. Tried " + "; ".join(reasons))


def _build(name: str, chip: int | None = None):
    (entry,) = [ep for ep in entry_points(group="gpiozero_pin_factories") if ep.name == name]
    if chip is not None and name == "lgpio":
        return entry.load()(chip=chip)
    return entry.load()()

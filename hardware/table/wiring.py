"""Which GPIO each button and light of the table is wired to: the `[gpio]` config section.

Defaults are the shipped six-seat wiring (hardware/data/default-wiring.toml, drawn in
docs/wiring.md). A config file only lists what it changes; every mistake a builder can
make on paper (a pin used twice, a header position instead of a GPIO number, a seventh
seat) is refused here, naming the key, before any pin is touched.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from typing import Any

from hardware.faults import WiringError
from hardware.table.presses import ButtonKind

MAX_SEATS = 6
DEFAULT_BOUNCE_TIME = 0.05

# BCM GPIO number -> physical position on the 40-pin header (all Pi models since the B+).
HEADER_PIN: dict[int, int] = {
    2: 3, 3: 5, 4: 7, 14: 8, 15: 10, 17: 11, 18: 12, 27: 13, 22: 15, 23: 16, 24: 18,
    10: 19, 9: 21, 25: 22, 11: 23, 8: 24, 7: 26, 0: 27, 1: 28, 5: 29, 6: 31, 12: 32,
    13: 33, 19: 35, 16: 36, 26: 37, 20: 38, 21: 40,
}
_RESERVED = {0: "the HAT ID EEPROM", 1: "the HAT ID EEPROM"}
_TOP_KEYS = ("seats", "reveal", "liar", "bounce_time", "pin_factory", "chip")
_SEAT_KEYS = ("green", "yellow", "led")


@dataclass(frozen=True)
class SeatWiring:
    """One seat's two buttons and optional light (BCM GPIO numbers).

    `seat` is the rules engine's seat index: 0 for the first `[[gpio.seats]]` entry.
    """

    seat: int
    green: int
    yellow: int
    led: int | None = None


@dataclass(frozen=True)
class Wiring:
    """The whole table's wiring. Build it with `from_mapping` or `default()`."""

    seats: tuple[SeatWiring, ...]
    reveal: int | None
    liar: int | None
    bounce_time: float = DEFAULT_BOUNCE_TIME
    pin_factory: str | None = None
    chip: int | None = None  # /dev/gpiochipN for lgpio; None: what gpiozero picks

    @classmethod
    def default(cls) -> Wiring:
        return cls.from_mapping({})

    @classmethod
    def from_mapping(cls, mapping: Mapping[str, Any]) -> Wiring:
        """Parse a `[gpio]` section over the shipped defaults; raise WiringError naming the key."""
        if not isinstance(mapping, Mapping):
            raise WiringError("[gpio] must be a table of keys")
        for key in mapping:
            if key not in _TOP_KEYS:
                raise WiringError(f"[gpio] unknown key {key!r}; known keys: {', '.join(_TOP_KEYS)}")
        defaults = _default_mapping()
        merged = {**defaults, **mapping}
        wiring = cls(
            seats=_parse_seats(merged["seats"], defaults["seats"]),
            reveal=_parse_optional_pin(merged.get("reveal"), "gpio.reveal"),
            liar=_parse_optional_pin(merged.get("liar"), "gpio.liar"),
            bounce_time=_parse_bounce_time(merged.get("bounce_time", DEFAULT_BOUNCE_TIME)),
            pin_factory=_parse_pin_factory(merged.get("pin_factory")),
            chip=_parse_chip(merged.get("chip")),
        )
        wiring._check_unique_pins()
        return wiring

    def buttons(self) -> list[tuple[int | None, ButtonKind, int]]:
        """Every wired button as (seat or None, kind, GPIO), seats first, in seat order."""
        found: list[tuple[int | None, ButtonKind, int]] = []
        for seat in self.seats:
            found.append((seat.seat, ButtonKind.GREEN, seat.green))
            found.append((seat.seat, ButtonKind.YELLOW, seat.yellow))
        if self.reveal is not None:
            found.append((None, ButtonKind.REVEAL, self.reveal))
        if self.liar is not None:
            found.append((None, ButtonKind.LIAR, self.liar))
        return found

    def lights(self) -> dict[int, int]:
        """Seat number -> LED GPIO, for the seats that have a light."""
        return {seat.seat: seat.led for seat in self.seats if seat.led is not None}

    def seat_numbers(self) -> list[int]:
        return [seat.seat for seat in self.seats]

    def _check_unique_pins(self) -> None:
        used: dict[int, str] = {}
        named = [(f"gpio.seats[{s.seat}].{field}", getattr(s, field)) for s in self.seats for field in _SEAT_KEYS]
        named += [("gpio.reveal", self.reveal), ("gpio.liar", self.liar)]
        for key, pin in named:
            if pin is None:
                continue
            if pin in used:
                raise WiringError(f"{key}: GPIO{pin} is already used by {used[pin]}; every button and light needs its own pin")
            used[pin] = key


def describe_pin(pin: int) -> str:
    """'GPIO17 (header pin 11)': how a builder finds the pin on the board."""
    return f"GPIO{pin} (header pin {HEADER_PIN[pin]})" if pin in HEADER_PIN else f"GPIO{pin}"


def _default_mapping() -> dict[str, Any]:
    text = resources.files("hardware").joinpath("data/default-wiring.toml").read_text(encoding="utf-8")
    return tomllib.loads(text)


def _parse_seats(value: Any, default_seats: list[dict[str, Any]]) -> tuple[SeatWiring, ...]:
    if isinstance(value, int) and not isinstance(value, bool):
        if not 1 <= value <= MAX_SEATS:
            raise WiringError(f"gpio.seats = {value}: a table has 1 to {MAX_SEATS} seats")
        value = default_seats[:value]
    if not isinstance(value, list):
        raise WiringError("gpio.seats must be a number of seats (1-6) or a list of [[gpio.seats]] tables")
    if not 1 <= len(value) <= MAX_SEATS:
        raise WiringError(f"gpio.seats: a table has 1 to {MAX_SEATS} seats (got {len(value)})")
    return tuple(_parse_seat(number, entry) for number, entry in enumerate(value))


def _parse_seat(number: int, entry: Any) -> SeatWiring:
    where = f"gpio.seats[{number}]"
    if not isinstance(entry, Mapping):
        raise WiringError(f"{where} must be a table with green, yellow and optionally led")
    for key in entry:
        if key not in _SEAT_KEYS:
            raise WiringError(f"{where}: unknown key {key!r}; known keys: {', '.join(_SEAT_KEYS)}")
    for key in ("green", "yellow"):
        if key not in entry:
            raise WiringError(f"{where}.{key} is missing: every seat has a green and a yellow button")
    return SeatWiring(
        seat=number,
        green=_parse_pin(entry["green"], f"{where}.green"),
        yellow=_parse_pin(entry["yellow"], f"{where}.yellow"),
        led=_parse_optional_pin(entry.get("led"), f"{where}.led"),
    )


def _parse_optional_pin(value: Any, key: str) -> int | None:
    """`false` (or leaving the key out of a seat) means "not wired"."""
    if value is None or value is False:
        return None
    return _parse_pin(value, key)


def _parse_pin(value: Any, key: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise WiringError(f"{key} = {value!r}: give a BCM GPIO number such as 17")
    if value in _RESERVED:
        raise WiringError(f"{key} = {value}: GPIO{value} is reserved for {_RESERVED[value]}; pick another pin")
    if value not in HEADER_PIN:
        raise WiringError(
            f"{key} = {value}: not a GPIO on the 40-pin header; use BCM numbers GPIO2..GPIO27, "
            "not header positions (see docs/wiring.md)"
        )
    return value


def _parse_bounce_time(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1:
        raise WiringError(f"gpio.bounce_time = {value!r}: give seconds between 0 and 1, such as 0.05")
    return float(value)


def _parse_chip(value: Any) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 63:
        raise WiringError(f"gpio.chip = {value!r}: give the number N of /dev/gpiochipN (companion check-hardware lists them)")
    return value


def _parse_pin_factory(value: Any) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip():
        raise WiringError(f"gpio.pin_factory = {value!r}: give a gpiozero pin factory name such as \"lgpio\"")
    return value.strip().lower()

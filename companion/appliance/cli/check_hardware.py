"""`companion check-hardware`: walk the table's builder through every wire.

Asks for each button in turn ("press seat 2 green") and checks the right one arrived,
lights each seat's LED and asks whether it is on, then saves a camera snapshot to look
at. Seats are named as the builder labels them, from 1 ("seat 1" is the engine's
seat 0, the first `[[gpio.seats]]` entry); presses and lights stay 0-based inside. Everything it talks to is injected (`say`, `ask`, pin factory, clock of the waits),
so a test runs the very same walk with gpiozero's MockFactory.
"""

from __future__ import annotations

import argparse
import queue
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2

from hardware.camera import open_camera
from hardware.camera_config import CameraConfig
from hardware.faults import HardwareFault
from hardware.gpio import (
    LightState,
    Press,
    SeatLights,
    TableButtons,
    Wiring,
    describe_pin,
    make_pin_factory,
)

from hardware.table.chips import GpioChip, describe_chips, list_chips

PARTS = ("buttons", "lights", "camera")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--config", type=Path, help="config file (TOML) whose [gpio] and [camera] sections to check; default: the shipped wiring and the Pi camera")
    parser.add_argument("--pin-factory", help="gpiozero pin factory: lgpio, rpigpio, native or mock (default: [gpio] pin_factory, else automatic)")
    parser.add_argument("--timeout", type=float, default=20.0, help="seconds to wait for each press (default 20)")
    parser.add_argument("--snapshot", type=Path, default=Path("check-hardware.jpg"), help="where to save the camera snapshot (default check-hardware.jpg)")
    parser.add_argument("--skip", action="append", choices=PARTS, default=[], help="leave out a part (repeatable)")


def run(args: argparse.Namespace) -> int:
    try:
        sections, base_dir = _read_config(args.config)
        wiring = Wiring.from_mapping(sections.get("gpio", {}))
        camera = CameraConfig.from_mapping(sections.get("camera", {}), base_dir=base_dir)
    except (OSError, tomllib.TOMLDecodeError, HardwareFault) as exc:
        print(f"check-hardware: {exc}")
        return 2
    check = HardwareCheck(
        wiring,
        camera,
        pin_factory_name=args.pin_factory,
        timeout=args.timeout,
        snapshot=args.snapshot,
        skip=tuple(args.skip),
    )
    return check.run()


def _read_config(path: Path | None) -> tuple[dict[str, Any], Path | None]:
    if path is None:
        return {}, None
    with path.open("rb") as handle:
        return tomllib.load(handle), path.resolve().parent


@dataclass
class Outcome:
    """What the walk found: one line per problem; empty means the table is wired right."""

    problems: list[str] = field(default_factory=list)
    checked: int = 0


class HardwareCheck:
    """One interactive walk over buttons, lights and camera."""

    def __init__(
        self,
        wiring: Wiring,
        camera: CameraConfig,
        *,
        pin_factory=None,
        pin_factory_name: str | None = None,
        say: Callable[[str], None] | None = None,
        ask: Callable[[str], str] | None = None,
        timeout: float = 20.0,
        snapshot: Path = Path("check-hardware.jpg"),
        skip: tuple[str, ...] = (),
        list_chips: Callable[[], list[GpioChip]] = list_chips,
        read_dice: Callable[..., Any] | None = None,
    ) -> None:
        self._list_chips = list_chips
        self._read_dice = read_dice
        self.wiring = wiring
        self.camera = camera
        self._pin_factory = pin_factory
        self._pin_factory_name = pin_factory_name
        self._say = say or print
        self._ask = ask or input
        self._timeout = timeout
        self._snapshot = snapshot
        self._skip = skip
        self.outcome = Outcome()

    def run(self) -> int:
        """0 when every checked part works, 1 otherwise."""
        if "buttons" not in self._skip or "lights" not in self._skip:
            self._check_gpio()
        if "camera" not in self._skip:
            self._check_camera()
        if self.outcome.problems:
            self._say(f"{len(self.outcome.problems)} problem(s):")
            for problem in self.outcome.problems:
                self._say(f"  - {problem}")
            return 1
        self._say(f"all {self.outcome.checked} checks passed")
        return 0

    def _problem(self, text: str) -> None:
        self.outcome.problems.append(text)
        self._say(f"  PROBLEM: {text}")

    def _check_gpio(self) -> None:
        chips = self._list_chips()
        self._say(describe_chips(chips))
        chip = self.wiring.chip
        self._say(f"using gpiochip{chip} ([gpio] chip)" if chip is not None
                  else "using the chip gpiozero picks (set [gpio] chip to choose one)")
        factory = self._pin_factory
        owned = factory is None
        try:
            if owned:
                factory = make_pin_factory(self._pin_factory_name or self.wiring.pin_factory, self.wiring.chip)
            if "buttons" not in self._skip:
                self._check_buttons(factory)
            if "lights" not in self._skip:
                self._check_lights(factory)
        except HardwareFault as exc:
            self._problem(f"GPIO: {exc}")
        finally:
            if owned and factory is not None:
                factory.close()

    def _check_buttons(self, factory) -> None:
        events: queue.Queue[Press] = queue.Queue()
        self._say(f"Buttons: press each one when asked ({self._timeout:g} s each).")
        with TableButtons(self.wiring, events, pin_factory=factory) as buttons:
            for seat, kind, pin in self.wiring.buttons():
                self.outcome.checked += 1
                _drain(events)
                expected = Press(seat, kind)
                self._say(f"press {_label(expected)} ({describe_pin(pin)})")
                got = self._wait_for_press(events)
                if got is None:
                    self._problem(f"{_label(expected)}: no press within {self._timeout:g} s; check {describe_pin(pin)} and the ground wire")
                elif got != expected:
                    wrong_pin = _pin_of(self.wiring, got)
                    self._problem(f"{_label(expected)}: got {_label(got)} instead; the wires on {describe_pin(pin)} and {describe_pin(wrong_pin)} look swapped")
                else:
                    self._say("  ok")
            buttons.disable()

    def _wait_for_press(self, events: queue.Queue[Press]) -> Press | None:
        try:
            return events.get(timeout=self._timeout)
        except queue.Empty:
            return None

    def _check_lights(self, factory) -> None:
        lit = self.wiring.lights()
        if not lit:
            self._say("Lights: no seat lights in this wiring.")
            return
        self._say("Lights: each seat's light comes on in turn.")
        with SeatLights(self.wiring, pin_factory=factory) as lights:
            for seat, pin in lit.items():
                self.outcome.checked += 1
                lights.show({seat: LightState.CALL_IN})
                try:
                    answer = self._ask(f"is {_seat_name(seat)}'s light on ({describe_pin(pin)})? [y/n] ")
                except EOFError:
                    answer = ""
                lights.show({})
                if answer.strip().lower() in ("y", "yes"):
                    self._say("  ok")
                else:
                    self._problem(f"{_seat_name(seat)}'s light: not confirmed on; check {describe_pin(pin)}, the resistor and the LED's direction (long leg to the resistor)")

    def _check_camera(self) -> None:
        self._check_reader()
        self.outcome.checked += 1
        self._say(f"Camera ({self.camera.source}):")
        try:
            source = open_camera(self.camera)
            if source is None:
                self._say("  no camera configured (source = \"none\"): dice are entered on the host panel")
                return
            with source:
                frame = source.read()
        except HardwareFault as exc:
            self._problem(f"camera: {exc}")
            return
        self._snapshot.parent.mkdir(parents=True, exist_ok=True)
        if not cv2.imwrite(str(self._snapshot), frame):
            self._problem(f"camera: could not save the snapshot to {self._snapshot}")
            return
        height, width = frame.shape[:2]
        self._say(f"  saved a {width}x{height} snapshot to {self._snapshot}: check the whole tray is in view and sharp")

    def _check_reader(self) -> None:
        """The dice reader reads a bundled photo of pip dice: a reader that raises (a model
        this OpenCV cannot run, a broken install) fails the check, before any game holds
        every reveal for typed dice. A reading other than the photo's label is only said."""
        self.outcome.checked += 1
        from hardware.demo_camera import demo_folder, load_manifest

        photo = demo_folder() / READER_PHOTO
        labelled = next(tuple(s["dice"]) for s in load_manifest(photo.parent)["scenes"] if s["file"] == READER_PHOTO)
        self._say(f"Dice reader (a bundled photo of {len(labelled)} pip dice):")
        try:
            read = self._read_dice or _vision_read_dice()
            reading = read(cv2.imread(str(photo)), "pips", expect=len(labelled))
        except Exception as exc:  # noqa: BLE001 - whatever it is, the reader cannot work
            self._problem(f"dice reader: reading {photo.name} failed: {type(exc).__name__}: {exc}. "
                          "Every reveal would wait for typed dice: reinstall (scripts/install-pi.sh) "
                          "or report it with this line")
            return
        values = tuple(d.value for d in reading.dice)
        if sorted(values) == sorted(labelled) and not reading.flagged:
            self._say(f"  ok: read {', '.join(map(str, values))}, as labelled")
        else:
            self._say(f"  read {', '.join(map(str, values)) or 'nothing'} where the photo shows "
                      f"{', '.join(map(str, labelled))}{f' ({reading.reason})' if reading.reason else ''}: "
                      "the reader runs, but check it on the camera page")


#: The photo the reader check reads (bundled with the demo; its label in the manifest).
READER_PHOTO = "pips-2-0009.jpg"


def _vision_read_dice():
    from hardware.vision import read_dice

    return read_dice


def _drain(events: queue.Queue[Press]) -> None:
    while True:
        try:
            events.get_nowait()
        except queue.Empty:
            return


def _label(press: Press) -> str:
    if press.seat is None:
        return f"the shared {press.button.value.upper()} button"
    return f"{_seat_name(press.seat)} {press.button.value}"


def _seat_name(seat: int) -> str:
    """A person counts seats from 1 (the buttons are labelled "Seat 1".."Seat 6"); the engine from 0."""
    return f"seat {seat + 1}"


def _pin_of(wiring: Wiring, press: Press) -> int:
    return next(pin for seat, kind, pin in wiring.buttons() if (seat, kind) == (press.seat, press.button))

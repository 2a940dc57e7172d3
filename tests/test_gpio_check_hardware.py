"""`companion check-hardware` walked by a test playing the builder on MockFactory pins."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import cv2
import numpy as np
import pytest
from gpiozero.pins.mock import MockFactory

from companion.appliance.cli import check_hardware
from companion.appliance.cli.check_hardware import HardwareCheck
from hardware.camera_config import CameraConfig
from hardware.gpio import Wiring

PROMPT = re.compile(r"^press (?:seat (\d) (green|yellow)|the shared (REVEAL|LIAR) button)")


class Builder:
    """Answers the walk's prompts by driving mock pins, optionally mis-wired or sleepy.

    Like a person at the table it reads seats as labelled, from 1: "seat 3" is wiring.seats[2].
    `dark` and `lights_seen` use the engine's seat indices (from 0).
    """

    def __init__(self, factory: MockFactory, wiring: Wiring, *, swapped: tuple[int, int] | None = None, asleep: set[int] = frozenset(), dark: set[int] = frozenset()):
        self.factory, self.wiring = factory, wiring
        self.swapped, self.asleep, self.dark = swapped, asleep, dark
        self.heard: list[str] = []
        self.lights_seen: list[tuple[int, list[int]]] = []

    def say(self, text: str) -> None:
        self.heard.append(text)
        match = PROMPT.match(text)
        if not match:
            return
        pin = self._pin_for(match)
        if pin in self.asleep:
            return
        if self.swapped and pin in self.swapped:
            pin = self.swapped[1] if pin == self.swapped[0] else self.swapped[0]
        self.factory.pin(pin).drive_low()
        self.factory.pin(pin).drive_high()

    def _pin_for(self, match: re.Match) -> int:
        seat, colour, shared = match.groups()
        if shared:
            return getattr(self.wiring, shared.lower())
        return getattr(self.wiring.seats[int(seat) - 1], colour)

    def ask(self, question: str) -> str:
        seat = int(re.search(r"seat (\d)'s light", question).group(1)) - 1
        lit = [s for s, pin in self.wiring.lights().items() if self.factory.pin(pin).state]
        self.lights_seen.append((seat, lit))
        return "n" if seat in self.dark else ("y" if lit == [seat] else "n")


@pytest.fixture
def factory():
    mock = MockFactory()
    yield mock
    mock.close()


@pytest.fixture
def recorded_camera(tmp_path: Path) -> CameraConfig:
    folder = tmp_path / "table"
    folder.mkdir()
    cv2.imwrite(str(folder / "a.png"), np.full((30, 40, 3), 90, np.uint8))
    return CameraConfig.from_mapping({"source": "recorded", "folder": str(folder)})


def walk(factory, builder, camera, tmp_path, **options):
    check = HardwareCheck(
        builder.wiring, camera, pin_factory=factory, say=builder.say, ask=builder.ask,
        timeout=0.2, snapshot=tmp_path / "snap" / "table.jpg", **options,
    )
    return check.run(), check


def test_a_well_wired_table_passes_every_check_and_saves_a_snapshot(factory, recorded_camera, tmp_path):
    wiring = Wiring.default()
    builder = Builder(factory, wiring)
    code, check = walk(factory, builder, recorded_camera, tmp_path)
    assert code == 0, check.outcome.problems
    assert check.outcome.checked == 14 + 6 + 1 + 1  # buttons, lights, the dice reader, the camera
    assert builder.heard.count("  ok") == 20
    assert any(text.startswith("  ok: read ") and text.endswith(", as labelled") for text in builder.heard)
    assert "press seat 3 green (GPIO5 (header pin 29))" in builder.heard  # seats read from 1, as labelled
    prompts = [text for text in builder.heard if text.startswith("press seat")]
    assert prompts[0].startswith("press seat 1 green") and prompts[-1].startswith("press seat 6 yellow")
    assert builder.lights_seen == [(seat, [seat]) for seat in range(6)]  # each LED alone, in turn
    snapshot = cv2.imread(str(tmp_path / "snap" / "table.jpg"))
    assert snapshot.shape == (30, 40, 3)


def test_a_dice_reader_that_raises_fails_the_check_loudly(factory, recorded_camera, tmp_path):
    """Issue 64: an OpenCV release whose importer broke the models made every reveal wait
    for typed dice while the camera said "ok"; check-hardware now reads a bundled photo."""
    def broken(frame, kind, expect=None):
        raise ValueError("vision model die_faces_second.onnx has no ReLU layer to take features from")

    builder = Builder(factory, Wiring.default())
    code, check = walk(factory, builder, recorded_camera, tmp_path, skip=("buttons", "lights"), read_dice=broken)
    assert code == 1
    [problem] = check.outcome.problems
    assert problem.startswith("dice reader: reading pips-2-0009.jpg failed: ValueError: vision model")
    assert "typed dice" in problem


def test_swapped_wires_are_reported_with_both_pins(factory, recorded_camera, tmp_path):
    wiring = Wiring.default()
    builder = Builder(factory, wiring, swapped=(wiring.seats[1].green, wiring.seats[1].yellow))
    code, check = walk(factory, builder, recorded_camera, tmp_path, skip=("lights", "camera"))
    assert code == 1
    assert check.outcome.problems == [
        "seat 2 green: got seat 2 yellow instead; the wires on GPIO23 (header pin 16) and GPIO24 (header pin 18) look swapped",
        "seat 2 yellow: got seat 2 green instead; the wires on GPIO24 (header pin 18) and GPIO23 (header pin 16) look swapped",
    ]


def test_a_dead_button_and_a_dark_light_are_reported(factory, recorded_camera, tmp_path):
    wiring = Wiring.default()
    builder = Builder(factory, wiring, asleep={wiring.reveal}, dark={4})
    code, check = walk(factory, builder, recorded_camera, tmp_path, skip=("camera",))
    assert code == 1
    assert len(check.outcome.problems) == 2
    assert check.outcome.problems[0].startswith("the shared REVEAL button: no press within 0.2 s; check GPIO4 (header pin 7)")
    assert check.outcome.problems[1].startswith("seat 5's light: not confirmed on; check GPIO21 (header pin 40)")


def test_no_camera_is_a_reported_problem_not_a_crash(factory, tmp_path):
    builder = Builder(factory, Wiring.default())
    missing = CameraConfig.from_mapping({"source": "recorded", "folder": str(tmp_path / "nowhere")})
    code, check = walk(factory, builder, missing, tmp_path, skip=("buttons", "lights"))
    assert code == 1
    assert check.outcome.problems == [f"camera: recording not found: {tmp_path / 'nowhere'}"]


def test_no_gpio_here_is_a_reported_problem_and_the_camera_is_still_checked(recorded_camera, tmp_path, monkeypatch):
    def not_a_pi(name):
        raise ImportError("No module named 'lgpio'")

    monkeypatch.setattr("hardware.table.pins._build", not_a_pi)
    said: list[str] = []
    check = HardwareCheck(Wiring.default(), recorded_camera, pin_factory_name="lgpio", say=said.append, ask=lambda q: "y", snapshot=tmp_path / "s.jpg")
    assert check.run() == 1
    assert check.outcome.problems[0].startswith("GPIO: GPIO via lgpio is not available here")
    assert (tmp_path / "s.jpg").exists()


def test_the_command_reads_the_config_file_and_reports_bad_sections(tmp_path, capsys):
    config = tmp_path / "table.toml"
    config.write_text('[gpio]\nseats = 9\n[camera]\nsource = "none"\n')
    parser = argparse.ArgumentParser()
    check_hardware.add_arguments(parser)
    assert check_hardware.run(parser.parse_args(["--config", str(config)])) == 2
    assert "gpio.seats = 9" in capsys.readouterr().out


def test_the_command_with_the_mock_pin_factory_runs_to_the_end(tmp_path, capsys, monkeypatch):
    (tmp_path / "shots").mkdir()
    cv2.imwrite(str(tmp_path / "shots" / "1.png"), np.zeros((8, 8, 3), np.uint8))
    config = tmp_path / "table.toml"
    config.write_text('[gpio]\nseats = 1\nliar = false\n[camera]\nsource = "recorded"\nfolder = "shots"\n')
    monkeypatch.setattr("builtins.input", lambda question: "y")
    parser = argparse.ArgumentParser()
    check_hardware.add_arguments(parser)
    args = parser.parse_args(["--config", str(config), "--pin-factory", "mock", "--timeout", "0.05", "--snapshot", str(tmp_path / "out.jpg")])
    assert check_hardware.run(args) == 1  # nobody pressed the three mock buttons
    out = capsys.readouterr().out
    assert "3 problem(s)" in out and "no press within 0.05 s" in out
    assert (tmp_path / "out.jpg").exists()  # the relative camera folder was found beside the config file

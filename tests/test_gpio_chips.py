"""Issue 24: `[gpio] chip`, the GPIO chips check-hardware lists, and a loud fallback."""

from __future__ import annotations

import sys
import types
from pathlib import Path

import pytest

from companion.appliance.cli.check_hardware import HardwareCheck
from companion.appliance.config import parse_config
from companion.appliance.service import TableService
from hardware.faults import GpioUnavailable, WiringError
from hardware.gpio import Wiring, make_pin_factory
from hardware.table import chips, pins
from hardware.table.chips import GpioChip, describe_chips, list_chips

PI5 = {"gpiochip0": ("pinctrl-rp1", 54), "gpiochip10": ("gpio-brcmstb@107d508500", 32),
       "gpiochip11": ("gpio-brcmstb@107d517c00", 15)}


def fake_dev(tmp_path: Path, chips_there: dict[str, tuple[str, int]]) -> Path:
    dev = tmp_path / "dev"
    dev.mkdir()
    for name in chips_there:
        (dev / name).touch()
    (dev / "gpiomem0").touch()  # not a chip
    return dev


def test_list_chips_reads_each_chip_in_number_order_and_names_the_header(tmp_path):
    dev = fake_dev(tmp_path, PI5)
    found = list_chips(dev, info=lambda path: PI5[path.name])
    assert [chip.number for chip in found] == [0, 10, 11]
    assert [chip.has_header for chip in found] == [True, False, False]
    line = describe_chips(found)
    assert "gpiochip0 (pinctrl-rp1, 54 lines, the 40-pin header)" in line
    assert line.endswith("set [gpio] chip = 0 if the buttons are not found")


def test_an_unreadable_chip_is_listed_not_fatal_and_none_at_all_is_said(tmp_path):
    dev = fake_dev(tmp_path, {"gpiochip4": ("", 0)})

    def refuse(path):
        raise PermissionError(13, "Permission denied")

    assert list_chips(dev, info=refuse) == [GpioChip(4, "unreadable: Permission denied", 0)]
    assert "no GPIO chips found" in describe_chips([])


def test_chip_info_unpacks_the_kernels_gpiochip_info(monkeypatch, tmp_path):
    path = tmp_path / "gpiochip0"
    path.touch()
    asked = []

    def ioctl(fd, request, buffer):
        asked.append(request)
        return chips._CHIPINFO.pack(b"gpiochip0", b"pinctrl-bcm2711", 58)

    monkeypatch.setattr(chips.fcntl, "ioctl", ioctl)
    assert chips.chip_info(path) == ("pinctrl-bcm2711", 58)
    assert asked == [0x8044B401]


def test_gpio_chip_setting_is_parsed_and_checked():
    assert Wiring.from_mapping({}).chip is None
    assert Wiring.from_mapping({"chip": 4}).chip == 4
    for bad in (-1, "4", True, 1.5):
        with pytest.raises(WiringError, match="gpio.chip"):
            Wiring.from_mapping({"chip": bad})


def test_the_chip_is_handed_to_lgpio_and_refused_for_other_factories(monkeypatch):
    made = []

    class FakeLGPIOFactory:
        def __init__(self, chip=None):
            made.append(chip)

    entry = types.SimpleNamespace(name="lgpio", load=lambda: FakeLGPIOFactory)
    monkeypatch.setattr(pins, "entry_points", lambda group: [entry])
    make_pin_factory("lgpio", 4)
    make_pin_factory("lgpio")
    make_pin_factory(None, 0)  # automatic with a chip: only lgpio takes one
    assert made == [4, None, 0]
    with pytest.raises(GpioUnavailable, match="is for the lgpio pin factory"):
        make_pin_factory("rpigpio", 4)


def test_check_hardware_lists_the_chips_and_which_it_uses(tmp_path, monkeypatch):
    said = []
    found = [GpioChip(0, "pinctrl-rp1", 54)]
    check = HardwareCheck(Wiring.from_mapping({"chip": 0}), None, pin_factory_name="lgpio", say=said.append,
                          ask=lambda q: "y", skip=("camera",), list_chips=lambda: found)
    monkeypatch.setitem(sys.modules, "lgpio", None)  # no lgpio here: the walk reports it
    check._check_gpio()
    assert said[0] == describe_chips(found)
    assert said[1] == "using gpiochip0 ([gpio] chip)"


def test_falling_back_to_virtual_buttons_is_said_loudly_with_the_chips(tmp_path, monkeypatch, caplog):
    monkeypatch.setattr(chips, "list_chips", lambda: [GpioChip(4, "pinctrl-rp1", 54)])
    config = parse_config({"web": {"host": "127.0.0.1"}, "gpio": {"pin_factory": "lgpio", "chip": 0}})
    service = TableService(config, tmp_path, port=0, open_camera=lambda: None, make_reader=lambda: None)
    service.start()
    try:
        buttons = service.table.snapshot()["devices"]["buttons"]
        assert buttons["status"] == "unavailable"
        assert buttons["message"].startswith("VIRTUAL BUTTONS ONLY:")
        assert "gpiochip4 (pinctrl-rp1" in buttons["message"] and "set [gpio] chip = 4" in buttons["message"]
    finally:
        service.stop()
    assert any(r.levelname == "ERROR" and "VIRTUAL BUTTONS" in r.getMessage() for r in caplog.records)

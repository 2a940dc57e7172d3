"""The [gpio] config section: defaults, overrides, and the builder's mistakes refused by key."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

from hardware.gpio import HEADER_PIN, ButtonKind, SeatWiring, Wiring, WiringError

REPO = Path(__file__).resolve().parent.parent


def test_the_default_wiring_is_six_seats_with_lights_and_both_shared_buttons():
    wiring = Wiring.default()
    assert len(wiring.seats) == 6
    assert wiring.seats[0] == SeatWiring(seat=0, green=17, yellow=27, led=22)
    assert [s.seat for s in wiring.seats] == [0, 1, 2, 3, 4, 5]
    assert (wiring.reveal, wiring.liar, wiring.bounce_time, wiring.pin_factory) == (4, 18, 0.05, None)
    assert len(wiring.lights()) == 6


def test_the_default_wiring_keeps_the_eeprom_i2c_and_serial_pins_free():
    used = {pin for _, _, pin in Wiring.default().buttons()} | set(Wiring.default().lights().values())
    assert len(used) == 20
    assert not used & {0, 1, 2, 3, 14, 15}


def test_an_empty_section_is_the_default():
    assert Wiring.from_mapping({}) == Wiring.default()


def test_a_number_of_seats_takes_the_first_default_seats():
    wiring = Wiring.from_mapping({"seats": 4})
    assert wiring.seats == Wiring.default().seats[:4]


def test_a_seat_list_replaces_the_default_seats_and_led_is_optional():
    wiring = Wiring.from_mapping({"seats": [{"green": 2, "yellow": 3}, {"green": 14, "yellow": 15, "led": 7}], "liar": False})
    assert wiring.seats == (SeatWiring(0, 2, 3, None), SeatWiring(1, 14, 15, 7))
    assert wiring.liar is None and wiring.reveal == 4
    assert wiring.lights() == {1: 7}
    assert [(seat, kind) for seat, kind, _ in wiring.buttons()] == [
        (0, ButtonKind.GREEN), (0, ButtonKind.YELLOW), (1, ButtonKind.GREEN), (1, ButtonKind.YELLOW), (None, ButtonKind.REVEAL)
    ]


def test_bounce_time_and_pin_factory_are_read():
    wiring = Wiring.from_mapping({"bounce_time": 0.02, "pin_factory": "LGPIO"})
    assert (wiring.bounce_time, wiring.pin_factory) == (0.02, "lgpio")


@pytest.mark.parametrize(
    ("section", "message"),
    [
        ({"colour": 1}, r"unknown key 'colour'"),
        ({"seats": [{"green": 17, "yellow": 27, "light": 22}]}, r"gpio.seats\[0\]: unknown key 'light'"),
        ({"seats": [{"green": 17}]}, r"gpio.seats\[0\].yellow is missing"),
        ({"seats": 7}, r"gpio.seats = 7: a table has 1 to 6 seats"),
        ({"seats": [{"green": 2 + i, "yellow": 10 + i} for i in range(7)]}, r"1 to 6 seats \(got 7\)"),
        ({"seats": 0}, r"1 to 6 seats"),
        ({"reveal": 40}, r"gpio.reveal = 40: not a GPIO .*BCM numbers"),
        ({"liar": 1}, r"gpio.liar = 1: GPIO1 is reserved for the HAT ID EEPROM"),
        ({"liar": "GPIO18"}, r"gpio.liar = 'GPIO18': give a BCM GPIO number"),
        ({"liar": True}, r"gpio.liar = True: give a BCM GPIO number"),
        ({"liar": 17}, r"gpio.liar: GPIO17 is already used by gpio.seats\[0\].green"),
        ({"seats": [{"green": 5, "yellow": 5}]}, r"gpio.seats\[0\].yellow: GPIO5 is already used by gpio.seats\[0\].green"),
        ({"seats": 2, "reveal": 25}, r"gpio.reveal: GPIO25 is already used by gpio.seats\[1\].led"),
        ({"bounce_time": 5}, r"gpio.bounce_time = 5"),
        ({"bounce_time": "50ms"}, r"gpio.bounce_time = '50ms'"),
        ({"pin_factory": 3}, r"gpio.pin_factory = 3"),
    ],
)
def test_wiring_mistakes_are_refused_naming_the_key(section, message):
    with pytest.raises(WiringError, match=message):
        Wiring.from_mapping(section)


def test_wiring_errors_are_value_errors_too():
    with pytest.raises(ValueError):
        Wiring.from_mapping({"seats": "six"})


def test_the_shipped_default_file_is_a_valid_gpio_section():
    text = (REPO / "hardware" / "data" / "default-wiring.toml").read_text(encoding="utf-8")
    assert Wiring.from_mapping(tomllib.loads(text)) == Wiring.default()


def test_the_pin_map_in_docs_matches_the_shipped_wiring():
    """docs/wiring.md's table is what builders solder by: it must be the default wiring."""
    text = (REPO / "docs" / "wiring.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\|\s*(seat \d|shared)\s*\|\s*([a-zA-Z!]+)\s*\|\s*GPIO(\d+)\s*\|\s*(\d+)\s*\|", text, re.MULTILINE)
    documented = {(who, what.lower().rstrip("!"), int(gpio), int(header)) for who, what, gpio, header in rows}
    wiring = Wiring.default()
    expected = set()
    for seat in wiring.seats:
        for what, pin in (("green", seat.green), ("yellow", seat.yellow), ("led", seat.led)):
            expected.add((f"seat {seat.seat + 1}", what, pin, HEADER_PIN[pin]))  # people count seats from 1
    expected.add(("shared", "reveal", wiring.reveal, HEADER_PIN[wiring.reveal]))
    expected.add(("shared", "liar", wiring.liar, HEADER_PIN[wiring.liar]))
    assert documented == expected


def test_the_wiring_diagram_labels_every_default_pin():
    svg = (REPO / "docs" / "wiring.svg").read_text(encoding="utf-8")
    wiring = Wiring.default()
    pins = {pin for _, _, pin in wiring.buttons()} | set(wiring.lights().values())
    for pin in pins:
        assert re.search(rf">GPIO{pin}<", svg), f"GPIO{pin} missing from docs/wiring.svg"
    for seat in wiring.seats:  # labelled as the builder numbers the seats, from 1
        for label, pin in (("green button", seat.green), ("yellow button", seat.yellow), ("light (LED)", seat.led)):
            assert f">GPIO{pin}</tspan> · seat {seat.seat + 1} {label}<" in svg, f"GPIO{pin} is not labelled seat {seat.seat + 1} {label}"

"""Seat lights on MockFactory pins: off, steady when the call is in, blinking on the seat's turn."""

from __future__ import annotations

import time

import gpiozero
import pytest
from gpiozero.pins.mock import MockFactory

from hardware.gpio import LightState, SeatLights, Wiring

BLINK = 0.01


@pytest.fixture
def factory():
    mock = MockFactory()
    yield mock
    mock.close()


def led_pin(factory, seat: int):
    return factory.pin(Wiring.default().seats[seat].led)


def toggles_within(pin, seconds: float) -> int:
    """How many times the pin changed during the next `seconds`."""
    pin.clear_states()
    time.sleep(seconds)
    return len(pin.states) - 1


def test_lights_start_off(factory):
    with SeatLights(Wiring.default(), pin_factory=factory, blink_seconds=BLINK):
        assert all(not led_pin(factory, seat).state for seat in range(6))


def test_a_seat_whose_call_is_in_shows_a_steady_light(factory):
    with SeatLights(Wiring.default(), pin_factory=factory, blink_seconds=BLINK) as lights:
        lights.show({2: LightState.CALL_IN})
        assert led_pin(factory, 2).state
        assert toggles_within(led_pin(factory, 2), 6 * BLINK) == 0
        assert not any(led_pin(factory, seat).state for seat in (0, 1, 3, 4, 5))


def test_the_seat_to_act_blinks(factory):
    with SeatLights(Wiring.default(), pin_factory=factory, blink_seconds=BLINK) as lights:
        lights.show({4: LightState.TURN})
        assert toggles_within(led_pin(factory, 4), 30 * BLINK) >= 3  # room for a busy machine
        assert toggles_within(led_pin(factory, 0), 4 * BLINK) == 0


def test_seats_left_out_go_off(factory):
    with SeatLights(Wiring.default(), pin_factory=factory, blink_seconds=BLINK) as lights:
        lights.show({0: LightState.CALL_IN, 1: LightState.TURN})
        lights.show({0: LightState.CALL_IN})
        assert led_pin(factory, 0).state
        assert toggles_within(led_pin(factory, 1), 4 * BLINK) == 0 and not led_pin(factory, 1).state
        assert lights.shown()[1] is LightState.OFF


def test_another_seat_calling_in_does_not_restart_a_blinking_light(factory, monkeypatch):
    # A restarted blink begins its "on" phase again, which a pin's states do not show (the
    # light is on either way), so the blinks started are counted.
    started = []
    blink = gpiozero.LED.blink
    monkeypatch.setattr(gpiozero.LED, "blink", lambda led, *a, **k: (started.append(led.pin.info.name), blink(led, *a, **k)))
    with SeatLights(Wiring.default(), pin_factory=factory, blink_seconds=1.0) as lights:
        lights.show({3: LightState.TURN})
        pin = led_pin(factory, 3)
        assert len(started) == 1 and pin.state
        pin.clear_states()
        lights.show({3: LightState.TURN, 5: LightState.CALL_IN})
        assert len(started) == 1  # the blink of seat 4 goes on as it was
        assert len(pin.states) == 1 and pin.state  # and the light was not switched off and on again
        assert led_pin(factory, 5).state


def test_an_unknown_seat_is_refused_and_nothing_changes(factory):
    with SeatLights(Wiring.from_mapping({"seats": 3}), pin_factory=factory, blink_seconds=BLINK) as lights:
        lights.show({1: LightState.CALL_IN})
        with pytest.raises(ValueError, match=r"no seat 4 at this table \(seats 1-3\)"):
            lights.show({0: LightState.CALL_IN, 3: LightState.CALL_IN})
        with pytest.raises(TypeError, match="LightState"):
            lights.show({0: "on"})
        assert lights.shown() == {0: LightState.OFF, 1: LightState.CALL_IN, 2: LightState.OFF}
        assert led_pin(factory, 1).state and not led_pin(factory, 0).state


def test_seats_without_a_light_are_skipped(factory):
    wiring = Wiring.from_mapping({"seats": [{"green": 17, "yellow": 27}, {"green": 23, "yellow": 24, "led": 25}]})
    with SeatLights(wiring, pin_factory=factory, blink_seconds=BLINK) as lights:
        lights.show({0: LightState.TURN, 1: LightState.CALL_IN})
        assert lights.shown() == {1: LightState.CALL_IN}
        assert factory.pin(25).state


def test_close_turns_the_lights_off_and_frees_the_pins(factory):
    lights = SeatLights(Wiring.default(), pin_factory=factory, blink_seconds=BLINK)
    lights.show({0: LightState.CALL_IN, 1: LightState.TURN})
    lights.close()
    lights.close()
    assert not led_pin(factory, 0).state
    with SeatLights(Wiring.default(), pin_factory=factory, blink_seconds=BLINK) as again:
        again.show({0: LightState.CALL_IN})
        assert led_pin(factory, 0).state

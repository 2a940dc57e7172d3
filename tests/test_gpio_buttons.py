"""Table buttons on gpiozero's MockFactory: a pin driven low is a button pressed (pull-up wiring)."""

from __future__ import annotations

import logging
import queue
import sys
import threading
import time

import gpiozero
import pytest
from gpiozero.pins.mock import MockFactory

from hardware.gpio import ButtonKind, GpioUnavailable, Press, TableButtons, Wiring, make_pin_factory


class ManualClock:
    """Stands in for time.monotonic so debounce tests do not sleep."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def factory():
    mock = MockFactory()
    yield mock
    mock.close()


def tap(factory: MockFactory, pin: int) -> None:
    factory.pin(pin).drive_low()
    factory.pin(pin).drive_high()


def drain(events: queue.Queue) -> list[Press]:
    found = []
    while not events.empty():
        found.append(events.get_nowait())
    return found


def test_every_wired_button_gives_its_own_press(factory):
    wiring = Wiring.default()
    events: queue.Queue = queue.Queue()
    with TableButtons(wiring, events, pin_factory=factory):
        for seat, kind, pin in wiring.buttons():
            tap(factory, pin)
            assert drain(events) == [Press(seat, kind)], f"GPIO{pin}"


def test_default_table_has_six_seats_of_two_buttons_and_two_shared_buttons(factory):
    with TableButtons(Wiring.default(), queue.Queue(), pin_factory=factory) as buttons:
        wired = buttons.wired()
    assert [key for key in wired if key[0] is not None] == [(s, k) for s in range(6) for k in (ButtonKind.GREEN, ButtonKind.YELLOW)]
    assert [key for key in wired if key[0] is None] == [(None, ButtonKind.REVEAL), (None, ButtonKind.LIAR)]


def test_press_values_are_what_the_engine_understands():
    assert Press(2, ButtonKind.YELLOW).button.value == "yellow"
    assert Press(None, ButtonKind.LIAR).button.value == "liar"
    with pytest.raises(ValueError):
        Press(None, ButtonKind.GREEN)
    with pytest.raises(ValueError):
        Press(1, ButtonKind.REVEAL)


def test_a_changed_call_arrives_after_the_first_in_press_order(factory):
    """Last press counts is the session's ruling; the queue must keep the order it needs."""
    wiring = Wiring.from_mapping({"bounce_time": 0})
    events: queue.Queue = queue.Queue()
    seat = wiring.seats[3]
    with TableButtons(wiring, events, pin_factory=factory):
        for pin in (seat.green, seat.yellow, seat.green, seat.yellow):
            tap(factory, pin)
    assert drain(events) == [Press(3, ButtonKind.GREEN), Press(3, ButtonKind.YELLOW), Press(3, ButtonKind.GREEN), Press(3, ButtonKind.YELLOW)]


def test_chattering_contacts_on_press_give_one_press(factory):
    clock = ManualClock()
    events: queue.Queue = queue.Queue()
    wiring = Wiring.default()  # bounce_time 0.05
    pin = factory.pin(wiring.seats[0].green)
    with TableButtons(wiring, events, pin_factory=factory, clock=clock):
        for _ in range(8):  # eight bounces, a millisecond apart
            pin.drive_low()
            clock.now += 0.001
            pin.drive_high()
            clock.now += 0.001
        pin.drive_low()
    assert drain(events) == [Press(0, ButtonKind.GREEN)]


def test_chattering_on_release_after_a_long_hold_gives_no_second_press(factory):
    clock = ManualClock()
    events: queue.Queue = queue.Queue()
    wiring = Wiring.default()
    pin = factory.pin(wiring.reveal)
    with TableButtons(wiring, events, pin_factory=factory, clock=clock):
        pin.drive_low()
        clock.now += 2.0  # held down two seconds
        for _ in range(3):
            pin.drive_high()
            clock.now += 0.002
            pin.drive_low()
            clock.now += 0.002
        pin.drive_high()
    assert drain(events) == [Press(None, ButtonKind.REVEAL)]


def test_a_deliberate_double_tap_slower_than_bounce_time_gives_two_presses(factory):
    clock = ManualClock()
    events: queue.Queue = queue.Queue()
    wiring = Wiring.default()
    pin = factory.pin(wiring.seats[1].yellow)
    with TableButtons(wiring, events, pin_factory=factory, clock=clock):
        pin.drive_low()
        clock.now += 0.12
        pin.drive_high()
        clock.now += 0.12
        pin.drive_low()
    assert drain(events) == [Press(1, ButtonKind.YELLOW), Press(1, ButtonKind.YELLOW)]


def test_rapid_toggles_on_the_real_clock_give_one_press(factory):
    events: queue.Queue = queue.Queue()
    wiring = Wiring.from_mapping({"bounce_time": 0.5})
    with TableButtons(wiring, events, pin_factory=factory):
        for _ in range(20):
            tap(factory, wiring.liar)
    assert drain(events) == [Press(None, ButtonKind.LIAR)]


def test_bounce_time_of_one_seat_does_not_hide_another_seats_press(factory):
    clock = ManualClock()
    events: queue.Queue = queue.Queue()
    wiring = Wiring.default()
    with TableButtons(wiring, events, pin_factory=factory, clock=clock):
        tap(factory, wiring.seats[0].green)
        tap(factory, wiring.seats[1].green)  # same instant, other button
        tap(factory, wiring.seats[0].yellow)
    assert drain(events) == [Press(0, ButtonKind.GREEN), Press(1, ButtonKind.GREEN), Press(0, ButtonKind.YELLOW)]


def test_many_seats_pressing_at_once_from_several_threads_lose_and_duplicate_nothing(factory):
    """gpiozero calls back on its own threads on a Pi; here each seat's thread drives its pins."""
    previous_interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)  # switch threads often, so the seats' callbacks really interleave
    wiring = Wiring.from_mapping({"bounce_time": 0})
    events: queue.Queue = queue.Queue()
    rounds = 150
    plans = {
        seat.seat: [(seat.green, Press(seat.seat, ButtonKind.GREEN)) if i % 3 else (seat.yellow, Press(seat.seat, ButtonKind.YELLOW)) for i in range(rounds)]
        for seat in wiring.seats
    }
    plans[None] = [(wiring.reveal, Press(None, ButtonKind.REVEAL))] * rounds
    start = threading.Barrier(len(plans))

    def play(plan):
        start.wait()
        for pin, _ in plan:
            tap(factory, pin)
            time.sleep(0)  # let the other seats in between presses, as real hands would

    try:
        with TableButtons(wiring, events, pin_factory=factory):
            threads = [threading.Thread(target=play, args=(plan,)) for plan in plans.values()]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join(timeout=10)
    finally:
        sys.setswitchinterval(previous_interval)
    presses = drain(events)
    seat_changes = sum(1 for a, b in zip(presses, presses[1:]) if a.seat != b.seat)
    assert seat_changes > 2 * len(plans), f"the threads did not overlap ({seat_changes} switches): the test proves nothing"
    assert len(presses) == rounds * len(plans)
    for seat, plan in plans.items():
        assert [p for p in presses if p.seat == seat] == [press for _, press in plan], f"seat {seat}"


def test_disabled_buttons_drop_presses(factory):
    wiring = Wiring.from_mapping({"bounce_time": 0})
    events: queue.Queue = queue.Queue()
    with TableButtons(wiring, events, pin_factory=factory) as buttons:
        buttons.disable(seat=2)
        buttons.disable(button=ButtonKind.LIAR)
        assert not buttons.is_enabled(2, ButtonKind.GREEN) and not buttons.is_enabled(None, ButtonKind.LIAR)
        assert buttons.is_enabled(1, ButtonKind.GREEN)
        for pin in (wiring.seats[2].green, wiring.seats[2].yellow, wiring.liar, wiring.seats[1].green):
            tap(factory, pin)
        assert drain(events) == [Press(1, ButtonKind.GREEN)]


def test_disabling_a_button_the_table_lacks_is_refused(factory):
    wiring = Wiring.from_mapping({"seats": 2, "liar": False})
    with TableButtons(wiring, queue.Queue(), pin_factory=factory) as buttons:
        with pytest.raises(ValueError, match="seat 4"):
            buttons.disable(seat=4)
        with pytest.raises(ValueError, match="liar"):
            buttons.disable(button=ButtonKind.LIAR)
        assert buttons.is_enabled(0, ButtonKind.GREEN)


def test_call_colours_never_reach_the_log_at_any_level(factory, caplog):
    caplog.set_level(logging.DEBUG)
    wiring = Wiring.default()
    events: queue.Queue = queue.Queue()
    with TableButtons(wiring, events, pin_factory=factory):
        for seat in wiring.seats:
            tap(factory, seat.green)
            tap(factory, seat.yellow)
    assert len(drain(events)) == 12
    debug_text = " ".join(r.getMessage() for r in caplog.records if r.levelno == logging.DEBUG)
    assert debug_text.count("press: seat 1 call button") == 2  # each press is there for whoever asks for DEBUG...
    for record in caplog.records:  # ...but never which of the two it was
        assert "green" not in record.getMessage() and "yellow" not in record.getMessage(), record.getMessage()


def test_close_releases_every_pin_for_the_next_table(factory):
    wiring = Wiring.default()
    TableButtons(wiring, queue.Queue(), pin_factory=factory).close()
    events: queue.Queue = queue.Queue()
    with TableButtons(wiring, events, pin_factory=factory):
        tap(factory, wiring.reveal)
    assert drain(events) == [Press(None, ButtonKind.REVEAL)]


def test_a_pin_already_in_use_is_a_clear_gpio_unavailable_and_claims_nothing(factory):
    wiring = Wiring.default()
    squatter = gpiozero.LED(wiring.seats[4].yellow, pin_factory=factory)
    with pytest.raises(GpioUnavailable, match=r"GPIO26 \(header pin 37\) for the seat 5 yellow button"):
        TableButtons(wiring, queue.Queue(), pin_factory=factory)
    squatter.close()
    with TableButtons(wiring, queue.Queue(), pin_factory=factory) as buttons:  # nothing was left claimed
        assert len(buttons.wired()) == 14


def test_pin_factory_by_name_and_from_the_environment(monkeypatch):
    assert isinstance(make_pin_factory("mock"), MockFactory)
    assert isinstance(make_pin_factory(" Mock "), MockFactory)
    monkeypatch.setenv("GPIOZERO_PIN_FACTORY", "mock")
    assert isinstance(make_pin_factory(None), MockFactory)


def test_unknown_pin_factory_names_the_choices():
    with pytest.raises(GpioUnavailable, match="unknown pin factory 'gpio5'.*lgpio.*mock"):
        make_pin_factory("gpio5")


def test_no_gpio_off_a_pi_is_a_typed_error_pointing_to_the_virtual_buttons(monkeypatch):
    monkeypatch.delenv("GPIOZERO_PIN_FACTORY", raising=False)

    def not_a_pi(name):
        raise ImportError(f"No module named {name!r}")

    monkeypatch.setattr("hardware.table.pins._build", not_a_pi)
    with pytest.raises(GpioUnavailable, match="Raspberry Pi.*virtual buttons.*lgpio.*rpigpio.*native"):
        make_pin_factory(None)
    with pytest.raises(GpioUnavailable, match="via lgpio is not available"):
        make_pin_factory("lgpio")


def test_table_buttons_without_a_factory_build_one_from_the_wiring():
    events: queue.Queue = queue.Queue()
    with TableButtons(Wiring.from_mapping({"pin_factory": "mock", "seats": 1}), events) as buttons:
        assert buttons.wired()[0] == (0, ButtonKind.GREEN)

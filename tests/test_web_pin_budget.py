"""Issue 25: PIN guesses from the whole network draw on one budget, kept across
restarts; refused logins reach the log as one line a minute at most."""

from __future__ import annotations

import json
import logging

import pytest

from web.guard import PinGuard, PinRefused, RefusedLogins
from web_app import PIN, make_app, page_token

DAY = 86400.0


def guess(guard: PinGuard, client: str, pin: str = "000000") -> str:
    """The refusal's reason, or "admitted"."""
    try:
        guard.check(client, pin)
    except PinRefused as refused:
        return refused.reason
    return "admitted"


def test_rotating_addresses_gets_no_more_guesses_than_the_budget():
    wall = [1_000_000.0]
    guard = PinGuard("482913", wall_clock=lambda: wall[0])
    reasons = [guess(guard, f"10.0.{i // 250}.{i % 250}") for i in range(1100)]
    assert reasons.count("wrong PIN") == 50 and reasons.count("no guesses left") == 1050
    assert guess(guard, "10.9.9.9", "482913") == "no guesses left"  # not even the right PIN is checked now


def test_guesses_come_back_at_250_a_day_and_the_right_pin_spends_none():
    wall = [1_000_000.0]
    guard = PinGuard("482913", wall_clock=lambda: wall[0])
    for i in range(50):
        guess(guard, f"c{i}")
    wall[0] += DAY / 250 * 10.5  # ten guesses come back
    assert [guess(guard, f"d{i}") for i in range(11)].count("wrong PIN") == 10
    wall[0] += DAY / 250
    assert guess(guard, "host", "482913") == "admitted"
    assert guard.budget.left == 1
    wall[0] += 100 * DAY
    assert guard.budget.left == 50  # never more than the burst in hand


def spent(tmp_path):
    """(the wall clock, the budget file) after 50 wrong guesses: the whole burst spent."""
    wall = [1_000_000.0]
    path = tmp_path / "pin-budget.json"
    guard = PinGuard("482913", key="k", budget_file=path, wall_clock=lambda: wall[0])
    for i in range(50):
        guess(guard, f"c{i}")
    return wall, path


def test_a_restart_keeps_the_spent_budget_and_a_new_pin_starts_afresh(tmp_path):
    wall, path = spent(tmp_path)
    assert "482913" not in path.read_text()
    again = PinGuard("482913", key="k", budget_file=path, wall_clock=lambda: wall[0])
    assert guess(again, "c", "482913") == "no guesses left"
    new_pin = PinGuard("590318", key="k", budget_file=path, wall_clock=lambda: wall[0])
    assert new_pin.budget.left == 50 and guess(new_pin, "c", "590318") == "admitted"


def test_a_clock_set_back_gives_no_guesses_back(tmp_path):
    wall, path = spent(tmp_path)
    wall[0] = 10.0  # a Pi without a clock boots in 1970
    again = PinGuard("482913", key="k", budget_file=path, wall_clock=lambda: wall[0])
    assert again.budget.left == 0
    wall[0] += DAY / 250
    assert again.budget.left == 1


def test_an_unreadable_budget_file_starts_a_full_budget(tmp_path, caplog):
    path = tmp_path / "pin-budget.json"
    path.write_text("{not json")
    guard = PinGuard("482913", key="k", budget_file=path)
    assert guard.budget.left == 50 and "cannot be read" in caplog.text
    guess(guard, "c")
    assert json.loads(path.read_text())["left"] == pytest.approx(49, abs=0.01)


def test_refused_logins_are_one_line_a_minute_and_never_the_pin(caplog):
    caplog.set_level(logging.DEBUG)
    now = [0.0]
    logger = logging.getLogger("test.refused")
    refused = RefusedLogins(logger, clock=lambda: now[0])
    for i in range(22_860):  # the 70 s guessing run
        now[0] = i * 70 / 22_860
        refused.note(f"10.0.{i % 200}.1", "wrong PIN" if i < 50 else "no guesses left")
    refused.flush()
    lines = [r.getMessage() for r in caplog.records if r.name == "test.refused"]
    assert len(lines) <= 3, lines
    assert lines[0] == "host login refused for 10.0.0.1: wrong PIN"
    assert "from 200 addresses" in lines[1] and "49 wrong PIN" in lines[1]
    assert sum(int(line.split(": ")[1].split(" ")[0]) for line in lines[1:]) == 22_859


def test_the_app_logs_a_burst_of_wrong_pins_as_one_line_and_never_the_pin(caplog):
    caplog.set_level(logging.DEBUG)
    app, _ = make_app()
    clients = []
    for i in range(30):
        client = app.test_client()
        token = page_token(client)
        response = client.post("/host/login", data={"pin": "918273", "csrf_token": token},
                               environ_base={"REMOTE_ADDR": f"10.0.0.{i}"})
        assert response.status_code == 401
        clients.append(client)
    refusals = [r for r in caplog.records if "refused" in r.getMessage()]
    assert len(refusals) == 1 and "918273" not in caplog.text and PIN not in caplog.text

"""The host panel: PIN, slow-down, CSRF, and every action forwarded to the table."""

from __future__ import annotations

import logging

import pytest

from companion.rules import ChipCall, Declaration
from companion.readings import OfferedReading
from web.guard import PinGuard, PinRefused
from web_app import PIN, login, make_app, page_token

FIVE_RED = ["red"] * 5


@pytest.fixture
def host():
    """(client, fetch headers, table) with the host logged in."""
    app, table = make_app()
    client = app.test_client()
    return client, login(client), table


def start_tregald(client, headers, **options):
    response = client.post("/host/start", json={"game": "tregald", "players": ["Ann", "Ben", "Cara"],
                                                "options": {"rounds": 1, **options}}, headers=headers)
    assert response.status_code == 200, response.get_json()
    return response


# --- logging in ------------------------------------------------------------------------

def test_host_panel_asks_for_the_pin_and_never_shows_it():
    app, _ = make_app()
    client = app.test_client()
    page = client.get("/host")
    assert page.status_code == 200 and 'name="pin"' in page.get_data(as_text=True)
    assert PIN not in page.get_data(as_text=True)
    assert client.get("/host/state").status_code == 401


def test_wrong_pin_is_401_and_logs_nobody_in(caplog):
    caplog.set_level(logging.DEBUG)
    app, table = make_app()
    client = app.test_client()
    token = page_token(client)
    response = client.post("/host/login", data={"pin": "0000", "csrf_token": token})
    assert response.status_code == 401
    assert "wrong PIN" in response.get_data(as_text=True)
    assert client.get("/host/state").status_code == 401
    assert client.post("/host/start", json={"game": "tregald", "players": ["A", "B"]},
                       headers={"X-CSRF-Token": token}).status_code == 401
    assert table.session is None
    assert "0000" not in caplog.text


def test_right_pin_opens_the_panel_and_the_pin_is_in_no_log_or_page(caplog):
    caplog.set_level(logging.DEBUG)
    app, _ = make_app()
    client = app.test_client()
    headers = login(client)
    page = client.get("/host").get_data(as_text=True)
    assert "Start a game" in page and PIN not in page
    assert PIN not in client.get("/host/state").get_data(as_text=True)
    assert PIN not in caplog.text
    assert headers["X-CSRF-Token"]


def test_login_without_the_csrf_token_is_refused():
    app, _ = make_app()
    client = app.test_client()
    client.get("/host")
    assert client.post("/host/login", data={"pin": PIN}).status_code == 403
    assert client.get("/host/state").status_code == 401


def test_login_by_json():
    app, _ = make_app()
    client = app.test_client()
    token = page_token(client)
    response = client.post("/host/login", json={"pin": PIN}, headers={"X-CSRF-Token": token})
    assert response.status_code == 200 and response.get_json()["ok"]
    assert client.get("/host/state").status_code == 200


def test_wrong_pins_slow_that_client_but_not_others():
    app, _ = make_app()
    slow = app.test_client()
    token = page_token(slow)
    for _ in range(3):  # three free tries, then a wait
        assert slow.post("/host/login", data={"pin": "1111", "csrf_token": token}).status_code == 401
    # now even the right PIN must wait
    response = slow.post("/host/login", data={"pin": PIN, "csrf_token": token})
    assert response.status_code == 429 and int(response.headers["Retry-After"]) >= 1
    assert slow.get("/host/state").status_code == 401
    other = app.test_client()
    other_token = page_token(other)
    response = other.post("/host/login", data={"pin": PIN, "csrf_token": other_token},
                          environ_base={"REMOTE_ADDR": "10.0.0.9"})
    assert response.status_code == 303


def test_a_pin_that_is_not_utf8_is_a_wrong_pin_and_counts_towards_the_wait(caplog):
    """A lone surrogate arrives through JSON's \\ud800 escape and cannot be encoded."""
    app, _ = make_app()
    client = app.test_client()
    token = page_token(client)
    headers = {"X-CSRF-Token": token, "Content-Type": "application/json"}
    statuses = [client.post("/host/login", data='{"pin": "\\ud800"}', headers=headers).status_code
                for _ in range(4)]
    assert statuses == [401, 401, 401, 429]
    assert "Traceback" not in caplog.text
    with pytest.raises(PinRefused, match="wrong PIN"):
        PinGuard("2468").check("a", "24\udc8068")


@pytest.mark.parametrize("blank", ["", "   ", "\t\n"])
def test_a_blank_pin_asks_for_the_pin_and_uses_up_no_free_try(blank):
    app, _ = make_app()
    client = app.test_client()
    token = page_token(client)
    for _ in range(5):
        response = client.post("/host/login", data={"pin": blank, "csrf_token": token})
        assert response.status_code == 400 and "enter the PIN" in response.get_data(as_text=True)
        response = client.post("/host/login", json={"pin": blank}, headers={"X-CSRF-Token": token})
        assert response.status_code == 400 and response.get_json() == {"error": "enter the PIN"}
    for _ in range(2):
        assert client.post("/host/login", data={"pin": "1111", "csrf_token": token}).status_code == 401
    assert client.post("/host/login", data={"pin": PIN, "csrf_token": token}).status_code == 303


def test_pin_delay_grows_and_is_capped():
    now = [0.0]
    guard = PinGuard("2468", clock=lambda: now[0])
    waits = []
    for _ in range(12):
        with pytest.raises(PinRefused) as refused:
            guard.check("a", "0000")
        assert refused.value.retry_after == 0
        state = guard._clients["a"]
        waits.append(max(0.0, state.wait_until - now[0]))
        now[0] = max(now[0], state.wait_until)
    assert waits[:6] == [0, 0, 1, 2, 4, 8]
    assert max(waits) == 60
    with pytest.raises(PinRefused) as refused:  # during the wait nothing is checked
        guard._clients["a"].wait_until = now[0] + 5
        guard.check("a", "2468")
    assert refused.value.retry_after == 5
    now[0] += 5
    guard.check("a", "2468")  # the right PIN after the wait, and the count starts again
    assert "a" not in guard._clients


def test_fixed_pin_delay_setting():
    now = [0.0]
    guard = PinGuard("1", 7, clock=lambda: now[0])
    for _ in range(5):
        with pytest.raises(PinRefused):
            guard.check("a", "2")
        now[0] = guard._clients["a"].wait_until
    assert guard.delay_after(0) == guard.delay_after(9) == 7


def test_no_pin_configured_closes_the_host_panel():
    app, _ = make_app(host_pin=None)
    client = app.test_client()
    assert client.get("/host").status_code == 503
    assert client.post("/host/login", data={"pin": ""}).status_code == 503


def test_actions_need_the_csrf_token_and_change_nothing_without_it(host):
    client, headers, table = host
    response = client.post("/host/start", json={"game": "tregald", "players": ["A", "B"]})
    assert response.status_code == 403
    response = client.post("/host/start", json={"game": "tregald", "players": ["A", "B"]},
                           headers={"X-CSRF-Token": "forged"})
    assert response.status_code == 403
    assert table.session is None


def test_logout_ends_the_host_session(host):
    client, headers, _ = host
    assert client.post("/host/logout", headers=headers).status_code == 303
    assert client.get("/host/state").status_code == 401


def copy_of_the_cookie(client, app):
    """Another browser holding this one's host cookie (copied off a shared tablet)."""
    other = app.test_client()
    other.set_cookie("companion_host", client.get_cookie("companion_host").value)
    return other


def test_logout_ends_the_session_for_a_copy_of_its_cookie_too():
    app, table = make_app()
    client = app.test_client()
    headers = login(client)
    thief = copy_of_the_cookie(client, app)
    assert "Import a game record" in thief.get("/games").get_data(as_text=True)
    assert client.post("/host/logout", headers=headers).status_code == 303
    assert thief.get("/host/state").status_code == 401
    response = thief.post("/host/start", json={"game": "tregald", "players": ["A", "B"]}, headers=headers)
    assert response.status_code == 401 and table.session is None
    assert "Import a game record" not in thief.get("/games").get_data(as_text=True)


def test_a_restart_with_the_same_pin_keeps_the_host_logged_in():
    app, _ = make_app()
    client = app.test_client()
    login(client)
    restarted, _ = make_app()  # the same PIN and the same cookie key, kept in the data directory
    assert copy_of_the_cookie(client, restarted).get("/host/state").status_code == 200


def test_a_new_pin_ends_every_session_opened_with_the_old_one():
    app, _ = make_app()
    client = app.test_client()
    login(client)
    restarted, _ = make_app(host_pin="999999")
    assert copy_of_the_cookie(client, restarted).get("/host/state").status_code == 401


def test_the_cookie_holds_neither_the_pin_nor_a_plain_hash_of_it():
    """Flask's cookie is signed, not encrypted: anyone holding it can read it."""
    import hashlib
    import json

    app, _ = make_app()
    client = app.test_client()
    login(client)
    data = app.session_interface.get_signing_serializer(app).loads(client.get_cookie("companion_host").value)
    text = json.dumps(data)
    assert data["host"]["id"] and PIN not in text
    for name in ("md5", "sha1", "sha256", "sha512"):
        assert hashlib.new(name, PIN.encode()).hexdigest() not in text


def test_a_host_login_lasts_an_evening_at_most():
    app, _ = make_app()
    now = [1_000_000.0]
    app.extensions["companion"]["guard"] = PinGuard(PIN, key=app.secret_key, wall_clock=lambda: now[0])
    client = app.test_client()
    login(client)
    now[0] += 11.9 * 3600
    assert client.get("/host/state").status_code == 200
    now[0] += 0.1 * 3600
    assert client.get("/host/state").status_code == 401
    assert 'name="pin"' in client.get("/host").get_data(as_text=True)
    login(client)  # the PIN again, for another evening
    assert client.get("/host/state").status_code == 200


def test_logged_out_sessions_are_remembered_within_a_bound_that_fails_closed(monkeypatch):
    """Past the bound the oldest revoked ids are forgotten, and every login as old as
    them is refused with them, so a forgotten id never comes back to life."""
    monkeypatch.setattr("web.guard.MAX_REVOKED", 2)
    now = [1_000_000.0]
    guard = PinGuard(PIN, wall_clock=lambda: now[0])
    logins = []
    for _ in range(3):
        logins.append(guard.open_session())
        now[0] += 60
    kept = guard.open_session()
    for login_ in logins:
        guard.revoke(login_)
    assert len(guard._revoked) == 2
    assert not any(guard.admits(login_) for login_ in logins)
    assert guard.admits(kept)
    now[0] += 1
    assert guard.admits(guard.open_session())


@pytest.mark.parametrize("forged", [True, "yes", {"id": "x"}, {"id": "x", "pin_mac": "00", "since": 0}])
def test_only_a_login_the_guard_opened_is_admitted(forged):
    assert not PinGuard(PIN).admits(forged)


# --- starting games ------------------------------------------------------------------------

def test_start_a_game_by_form_redirects_back_to_the_panel(host):
    client, headers, table = host
    token = headers["X-CSRF-Token"]
    response = client.post("/host/start", data={"csrf_token": token, "game": "tregald",
                                                "players": "Ann\nBen\n\nCara\n", "option.dice": "spike",
                                                "option.declaration": "at_least", "option.rounds": "2"})
    assert response.status_code == 303 and response.headers["Location"].endswith("/host")
    assert table.session.record.players == ("Ann", "Ben", "Cara")
    assert dict(table.session.record.options) == {"dice": "spike", "declaration": "at_least", "rounds": 2}


def test_start_tricksters_tavern_with_a_class_per_seat(host):
    client, headers, table = host
    response = client.post("/host/start", headers=headers, data={
        "game": "tricksters-tavern", "players": "Ann\nBen", "option.start": "seat0",
        "option.classes": '["Brawler", "Commoner"]', "option.class_file": ""})
    assert response.status_code == 200, response.get_json()
    dice = [p["dice"] for p in table.snapshot()["slate"]["players"]]
    assert sorted(dice) == [4, 5]  # Brawler 2d6+2d8, Commoner 5d6


def test_start_refusals_carry_the_engines_message(host):
    client, headers, table = host
    response = client.post("/host/start", json={"game": "tregald", "players": ["Solo"]}, headers=headers)
    assert response.status_code == 409 and "at least 2 players" in response.get_json()["error"]
    response = client.post("/host/start", json={"game": "tregald", "players": ["A", "B"], "options": {"rounds": "x"}},
                           headers=headers)
    assert response.status_code == 409 and "rounds" in response.get_json()["error"]
    response = client.post("/host/start", json={"game": "chess", "players": ["A", "B"]}, headers=headers)
    assert response.status_code == 422 and "chess" in response.get_json()["error"]
    assert table.session is None


def test_start_while_a_game_runs_is_refused(host):
    client, headers, table = host
    start_tregald(client, headers)
    game_id = table.game_id
    response = client.post("/host/start", json={"game": "tregald", "players": ["X", "Y"]}, headers=headers)
    assert response.status_code == 409 and "in progress" in response.get_json()["error"]
    assert table.game_id == game_id


@pytest.mark.parametrize("body, kwargs", [
    ("{not json", {"content_type": "application/json"}),
    ("[1, 2]", {"content_type": "application/json"}),
    ('{"game": 5, "players": ["A", "B"]}', {"content_type": "application/json"}),
    ('{"game": "tregald", "players": "A"}', {"content_type": "application/json"}),
    ('{"game": "tregald", "players": ["A", "B"], "options": [1]}', {"content_type": "application/json"}),
])
def test_malformed_start_requests_are_400(host, body, kwargs):
    client, headers, table = host
    response = client.post("/host/start", data=body, headers=headers, **kwargs)
    assert response.status_code == 400, response.get_data(as_text=True)
    assert "error" in response.get_json() and "Traceback" not in response.get_data(as_text=True)
    assert table.session is None


def test_malformed_start_form_is_400(host):
    client, headers, table = host
    response = client.post("/host/start", data={"game": "tregald", "players": "A\nB", "option.rounds": "three"},
                           headers=headers)
    assert response.status_code == 400 and "rounds" in response.get_json()["error"]
    response = client.post("/host/start", data={"game": "tregald", "players": "A\nB", "option.dice": "d20"},
                           headers=headers)
    assert response.status_code == 400
    assert table.session is None


# --- playing Tregald from the panel ------------------------------------------------------

def test_a_tregald_turn_from_the_panel_declaration_buttons_and_dice(host):
    client, headers, table = host
    start_tregald(client, headers)
    response = client.post("/host/event", data={"kind": "declaration", "seat": "0", "count": "3", "face": "red"},
                           headers=headers)
    assert response.status_code == 200, response.get_json()
    assert client.post("/host/press", data={"seat": "1", "button": "green"}, headers=headers).status_code == 200
    assert client.post("/host/event", json={"kind": "chip_call", "seat": 2, "chip": "yellow"},
                       headers=headers).status_code == 200
    assert table.snapshot()["prompt"]["dice"]["count"] == 5
    response = client.post("/host/dice", data={"values": "red, red, red, blue, blue"}, headers=headers)
    assert response.status_code == 200, response.get_json()
    reveal = table.snapshot()["slate"]["reveal"]
    assert reveal["dice"] == ["red", "red", "red", "blue", "blue"]
    assert reveal["verdict"].startswith("True")


def test_an_illegal_action_is_409_with_the_engines_message_and_changes_nothing(host):
    client, headers, table = host
    start_tregald(client, headers)
    seq = table.seq
    response = client.post("/host/event", json={"kind": "declaration", "seat": 1, "count": 2, "face": "red"},
                           headers=headers)
    assert response.status_code == 409
    assert response.get_json() == {"error": "Ben is not the Tregald: Ann declares this turn"}
    assert table.seq == seq and len(table.session.record.events) == 0


def test_an_illegal_form_post_shows_the_message_on_a_page(host):
    client, headers, table = host
    start_tregald(client, headers)
    response = client.post("/host/event", data={"csrf_token": headers["X-CSRF-Token"], "kind": "chip_call",
                                                "seat": "1", "chip": "green"})
    assert response.status_code == 409
    assert "wait for Ann" in response.get_data(as_text=True) and "<html" in response.get_data(as_text=True)


@pytest.mark.parametrize("fields", [
    {"kind": "declaration", "seat": "first", "count": "3", "face": "red"},
    {"kind": "declaration", "count": "3", "face": "red"},
    {"kind": "teleport", "seat": "0"},
    {"seat": "0"},
    {"kind": "declaration", "seat": "0", "count": "3", "face": "red", "colour": "x"},
])
def test_malformed_events_are_400(host, fields):
    client, headers, table = host
    start_tregald(client, headers)
    response = client.post("/host/event", data=fields, headers=headers)
    assert response.status_code == 400, response.get_json()
    assert table.session.record.events == ()


@pytest.mark.parametrize("field, typed", [
    ("seat", "\u00b9"),             # superscript one: str.isdigit() passes it, int() does not
    ("count", "\u00b2"),            # superscript two
    ("seat", "\uff11"),             # fullwidth one: int() reads it as 1
    ("seat", "\u0663"),             # Arabic-Indic three
    ("seat", "--1"),
    ("count", "1" * 5000),          # more digits than Python turns into an integer
])
def test_a_number_typed_other_than_in_the_digits_0_to_9_is_400_in_plain_words(host, field, typed):
    client, headers, table = host
    start_tregald(client, headers)
    fields = {"kind": "declaration", "seat": "0", "count": "3", "face": "red", field: typed}
    response = client.post("/host/event", data=fields, headers=headers)
    assert response.status_code == 400, response.get_json()
    assert response.get_json()["error"].startswith(f"{field} must be a whole number in the digits 0-9")
    assert table.session.record.events == ()


@pytest.mark.parametrize("typed", ["\u00b2", "\uff12", "\u0663"])
def test_a_die_typed_other_than_in_the_digits_0_to_9_is_400_in_plain_words(host, typed):
    client, headers, table = host
    start_tregald(client, headers)
    table.submit(Declaration(0, 3, "red"))
    table.submit(ChipCall(1, "green"))
    table.submit(ChipCall(2, "green"))
    events = table.session.record.events
    response = client.post("/host/dice", data={"values": f"red, red, red, red, {typed}"}, headers=headers)
    assert response.status_code == 400, response.get_json()
    assert "digits 0-9" in response.get_json()["error"]
    assert table.session.record.events == events


def test_corrections_cannot_be_sneaked_in_as_events(host):
    client, headers, table = host
    start_tregald(client, headers)
    assert client.post("/host/event", json={"kind": "undo"}, headers=headers).status_code == 400


def test_a_button_that_means_nothing_now_is_409(host):
    client, headers, table = host
    start_tregald(client, headers)
    response = client.post("/host/press", data={"seat": "1", "button": "green"}, headers=headers)
    assert response.status_code == 409 and "means nothing now" in response.get_json()["error"]
    assert client.post("/host/press", data={"seat": "1", "button": "purple"}, headers=headers).status_code == 400
    assert client.post("/host/press", data={"seat": "x", "button": "green"}, headers=headers).status_code == 400


def test_actions_without_a_game_say_so(host):
    client, headers, _ = host
    response = client.post("/host/undo", headers=headers)
    assert response.status_code == 409 and "no game is running" in response.get_json()["error"]
    assert client.post("/host/dice", json={"values": FIVE_RED}, headers=headers).status_code == 409


def test_wrong_dice_count_is_refused_with_the_engines_words(host):
    client, headers, table = host
    start_tregald(client, headers)
    table.submit(Declaration(0, 1, "blue"))
    table.submit(ChipCall(1, "green"))
    table.submit(ChipCall(2, "green"))
    response = client.post("/host/dice", json={"values": ["red", "blue"]}, headers=headers)
    assert response.status_code == 409
    assert "5 chance cubes are in play but 2 were read" in response.get_json()["error"]
    assert client.post("/host/dice", json={"values": "red"}, headers=headers).status_code == 400
    assert client.post("/host/dice", json={}, headers=headers).status_code == 400


def tregald_revealed(client, headers, table):
    start_tregald(client, headers)
    table.submit(Declaration(0, 2, "red"))
    table.submit(ChipCall(1, "green"))
    table.submit(ChipCall(2, "yellow"))
    photo = b"\xff\xd8fake\xff\xd9"
    boxes = [(10 * i, 5, 10 * i + 8, 13) for i in range(5)]
    assert table.offer_reading(OfferedReading(["red", "red", "red", "blue", "blue"], boxes=boxes), photo=photo) == "applied"
    return table.snapshot()["photo"]["event"]


def test_fix_a_misread_die_amends_that_reading(host):
    client, headers, table = host
    target = tregald_revealed(client, headers, table)
    assert table.snapshot()["slate"]["reveal"]["verdict"].startswith("False")  # 3 red, 2 declared
    response = client.post("/host/fix-die", data={"target": str(target), "die": "2", "value": "blue"}, headers=headers)
    assert response.status_code == 200, response.get_json()
    events = table.session.record.to_dict()["events"]
    assert events[-1] == {"kind": "amend", "target": target,
                          "event": {"kind": "dice", "values": ["red", "red", "blue", "blue", "blue"], "seat": 0,
                                    "source": "host"}}
    assert table.snapshot()["slate"]["reveal"]["verdict"].startswith("True")


@pytest.mark.parametrize("fields, status", [
    ({"target": "0", "die": "0", "value": "red"}, 422),   # a declaration, not a reading
    ({"target": "99", "die": "0", "value": "red"}, 422),
    ({"target": "3", "die": "7", "value": "red"}, 422),
    ({"target": "3", "die": "0", "value": "green"}, 409),  # the engine refuses the face
    ({"target": "3", "die": "0"}, 400),
    ({"target": "x", "die": "0", "value": "red"}, 400),
])
def test_bad_die_fixes_change_nothing(host, fields, status):
    client, headers, table = host
    assert tregald_revealed(client, headers, table) == 3
    before = table.session.record
    response = client.post("/host/fix-die", data=fields, headers=headers)
    assert response.status_code == status, response.get_json()
    assert table.session.record == before


def test_amend_a_mistyped_declaration(host):
    client, headers, table = host
    start_tregald(client, headers)
    table.submit(Declaration(0, 2, "red"))
    response = client.post("/host/amend", json={"target": 0, "event": {"kind": "declaration", "seat": 0, "count": 4,
                                                                       "face": "blue"}}, headers=headers)
    assert response.status_code == 200, response.get_json()
    assert table.snapshot()["slate"]["current"] == "Ann declares 4 blue"
    response = client.post("/host/amend", json={"target": 0, "event": {"kind": "chip_call", "seat": 1, "chip": "green"}},
                           headers=headers)
    assert response.status_code == 409
    assert client.post("/host/amend", json={"target": 0, "event": "x"}, headers=headers).status_code == 400


def test_held_reading_is_shown_to_the_host_and_confirmed_by_dice_entry(host):
    client, headers, table = host
    start_tregald(client, headers)
    table.submit(Declaration(0, 2, "red"))
    table.submit(ChipCall(1, "green"))
    table.submit(ChipCall(2, "green"))
    assert table.offer_reading(OfferedReading(["red", "red"], flagged=True, reason="two dice touch"), photo=b"\xff\xd8x") == "held"
    view = client.get("/host/state").get_json()
    assert view["held_reading"]["reason"] == "3 dice not found: tap where they are, or type them; two dice touch"
    assert view["held_reading"]["photo"] and view["held_reading"]["missing"] == [{"box": None}] * 3
    assert view["players"] == ["Ann", "Ben", "Cara"] and view["options"]["rounds"] == 1
    stale = client.post("/host/dice", json={"values": ["red"] * 5, "readings": 1}, headers=headers)
    assert stale.status_code == 409 and "a reading came in" in stale.get_json()["error"]  # filled against another state
    response = client.post("/host/dice", json={"values": ["red", "red", "blue", "blue", "blue"], "readings": 0},
                           headers=headers)
    assert response.status_code == 200
    assert client.get("/host/state").get_json()["held_reading"] is None


def test_read_the_dice_now_calls_the_camera_and_reports_its_status():
    calls = []
    app, table = make_app(on_reveal=lambda: calls.append(1) or "read 5 dice")
    client = app.test_client()
    headers = login(client)
    response = client.post("/host/reveal", headers=headers)
    assert response.get_json() == {"ok": True, "message": "read 5 dice"} and calls == [1]


def test_read_the_dice_now_without_a_camera_is_409(host):
    client, headers, _ = host
    response = client.post("/host/reveal", headers=headers)
    assert response.status_code == 409 and "enter the dice by hand" in response.get_json()["error"]


def test_a_crash_behind_an_action_is_a_500_without_a_stack_trace(caplog):
    def broken():
        raise RuntimeError("camera driver exploded")

    app, _ = make_app(on_reveal=broken)
    client = app.test_client()
    headers = login(client)
    with caplog.at_level(logging.ERROR):
        response = client.post("/host/reveal", headers=headers)
    assert response.status_code == 500
    body = response.get_data(as_text=True)
    assert "Traceback" not in body and "exploded" not in body and "error" in response.get_json()


def test_undo_and_end_are_record_events(host):
    client, headers, table = host
    start_tregald(client, headers)
    table.submit(Declaration(0, 2, "red"))
    assert client.post("/host/undo", headers=headers).status_code == 200
    assert table.snapshot()["slate"]["current"] is None
    response = client.post("/host/end", data={"reason": "venue closing"}, headers=headers)
    assert response.status_code == 200
    kinds = [e.kind for e in table.session.record.events]
    assert kinds == ["declaration", "undo", "end_game"]
    assert table.session.record.events[-1].reason == "venue closing"
    assert client.post("/host/end", headers=headers).status_code == 409  # already over


def test_undo_takes_back_only_the_action_the_host_saw_last(host):
    client, headers, table = host
    start_tregald(client, headers)
    table.submit(Declaration(0, 2, "red"))  # mistyped: the host means to take it back...
    shown = [e for e in client.get("/host/state").get_json()["events"] if e["in_force"]][-1]["index"]
    assert table.press(1, "green")  # ...but Ben's press lands first
    response = client.post("/host/undo", data={"expect": str(shown)}, headers=headers)
    assert response.status_code == 409 and "changed" in response.get_json()["error"]
    assert [e.kind for e in table.session.record.events] == ["declaration", "chip_call"]  # Ben's call stands
    latest = [e for e in client.get("/host/state").get_json()["events"] if e["in_force"]][-1]["index"]
    assert client.post("/host/undo", data={"expect": str(latest)}, headers=headers).status_code == 200
    assert client.post("/host/undo", data={"expect": "¹"}, headers=headers).status_code == 400


def test_tricksters_tavern_ability_is_forwarded(host):
    client, headers, table = host
    client.post("/host/start", json={"game": "tricksters-tavern", "players": ["Ann", "Ben"],
                                     "options": {"start": "seat0"}}, headers=headers)
    response = client.post("/host/event", data={"kind": "add_die", "seat": "1", "size": "4"}, headers=headers)
    assert response.status_code == 200, response.get_json()
    assert table.session.record.events[-1].to_dict() == {"kind": "add_die", "seat": 1, "size": 4}
    response = client.post("/host/event", data={"kind": "wild_face", "face": "3", "seat": "", "size": ""},
                           headers=headers)
    assert response.status_code == 200, response.get_json()
    assert table.session.record.events[-1].to_dict() == {"kind": "wild_face", "face": 3, "seat": None, "size": None}


def test_panel_lists_every_game_with_its_options(host):
    client, _, _ = host
    page = client.get("/host").get_data(as_text=True)
    for name in ("tregald", "val-des", "gyvahrs", "leiras-dice", "tricksters-tavern"):
        assert f'value="{name}"' in page
    assert 'name="option.rounds"' in page and 'name="option.classes"' in page and "data-cards=" in page


def test_a_green_and_a_yellow_press_are_the_same_length_asked_and_answered(host):
    """Issue 25: "green" and "yellow" differ by a byte, which even encrypted traffic shows."""
    client, headers, table = host
    start_tregald(client, headers)
    refused = [client.post("/host/press", data={"seat": "1", "button": b, "pad": "_" * (6 - len(b))}, headers=headers)
               for b in ("green", "yellow")]  # before the declaration a chip means nothing
    assert [r.status_code for r in refused] == [409, 409]
    assert refused[0].get_data() == refused[1].get_data()
    client.post("/host/event", json={"kind": "declaration", "seat": 0, "count": 2, "face": "red"}, headers=headers)
    sizes = []
    for seat, button in ((1, "green"), (2, "yellow")):
        fields = {"seat": str(seat), "button": button, "pad": "_" * (6 - len(button))}  # as host.js sends it
        sizes.append(sum(len(k) + len(v) for k, v in fields.items()))
        response = client.post("/host/press", data=fields, headers=headers)
        assert response.status_code == 200 and response.get_json()["message"] == f"{button} pressed for seat {seat + 1}"
        sizes.append(len(response.get_data()))
    assert sizes[0] == sizes[2] and sizes[1] == sizes[3]
    assert [e.chip for e in table.session.record.events[1:]] == ["green", "yellow"]


def a_held_reading_of_three_dice(table):
    """Tregald waiting for 5 chance cubes; the camera read 3 (the second doubted) and saw
    one more die-like thing it could not read (at photo pixels 300..340)."""
    table.submit(Declaration(0, 2, "red"))
    table.submit(ChipCall(1, "green"))
    table.submit(ChipCall(2, "green"))
    reading = OfferedReading(["red", "blue", "red"], boxes=[(10, 10, 50, 50), (100, 10, 140, 50), (200, 10, 240, 50)],
                             flagged=True, reason="something at (521,686) may be a die I cannot read: please check",
                             unsure=[1], suspects=[(300, 10, 340, 50)])
    assert table.offer_reading(reading, photo=b"\xff\xd8x") == "held"


def test_a_held_reading_says_where_its_doubtful_dice_lie_in_words():
    """Issue 66: "the die top left is unclear", never camera pixels; placed in thirds of
    the dice's spread, so it holds on any photo size."""
    from companion.readings import HeldReading, place

    grid = [(x, y, x + 40, y + 40) for y in (0, 100, 200) for x in (0, 100, 200)]
    assert [place(b, grid) for b in grid] == ["top left", "top", "top right", "left", "middle", "right",
                                              "bottom left", "bottom", "bottom right"]
    held = HeldReading(OfferedReading([1] * 9, boxes=grid, flagged=True, unsure=[0, 8],
                                      reason="die at (12,12) is unclear (maybe 4): please check it"), "", None, 9)
    assert held.for_people() == "2 dice unclear (top left, bottom right): tap each to pick its value"


def test_a_held_reading_names_what_to_do_in_words_and_where_each_missing_die_lies(host):
    client, headers, table = host
    start_tregald(client, headers)
    a_held_reading_of_three_dice(table)
    held = client.get("/host/state").get_json()["held_reading"]
    assert held["reason"] == \
        "2 dice not found (one seen right): tap where they are, or type them; 1 die unclear (middle): tap it to pick its value"
    assert "521" not in held["reason"]  # camera pixels mean nothing on the scaled photo
    assert [d["unsure"] for d in held["dice"]] == [False, True, False]
    assert held["missing"] == [{"box": [300, 10, 340, 50]}, {"box": None}]  # one where it was seen, one beside
    assert held["expected"] == 5 and held["extra"] == 0


def test_dice_with_one_unset_are_refused_and_nothing_is_entered(host):
    client, headers, table = host
    start_tregald(client, headers)
    a_held_reading_of_three_dice(table)
    before = len(table.session.record.events)
    form = {"values": ["red", "", "red", "blue", ""], "csrf_token": headers["X-CSRF-Token"]}
    refused = client.post("/host/dice", data=form, headers={**headers, "Accept": "application/json"})
    assert refused.status_code == 422 and refused.get_json()["error"].startswith("2 dice are not set yet")
    as_json = client.post("/host/dice", json={"values": ["red", None, "red", "blue", "blue"]}, headers=headers)
    assert as_json.status_code == 422 and as_json.get_json()["error"].startswith("1 die is not set yet")
    assert len(table.session.record.events) == before and table.host_view()["held_reading"] is not None
    form["values"] = ["red", "red", "red", "blue", "blue"]
    assert client.post("/host/dice", data=form, headers={**headers, "Accept": "application/json"}).status_code == 200
    assert table.session.record.events[-1].values == ("red", "red", "red", "blue", "blue")
    photo = table.snapshot()["photo"]  # the missing die seen on the photo keeps its place there
    assert [d["box"] for d in photo["dice"]] == [[10, 10, 50, 50], [100, 10, 140, 50], [200, 10, 240, 50],
                                                 [300, 10, 340, 50], None]


@pytest.mark.parametrize("fields, message", [
    ({"kind": "upgrade_die", "seat": "0"}, "Upgrading a die needs the die's size (d4, d6, ...): choose it and try again"),
    ({"kind": "declaration", "seat": "0", "face": "red"}, "A declaration needs the count: choose it and try again"),
    ({"kind": "declaration", "seat": "0", "count": "3", "face": "red", "colour": "x"},
     "A declaration takes no colour: leave it empty"),
    ({"kind": "teleport", "seat": "0"}, "that is not an action the table knows ('teleport'): choose one from the panel"),
])
def test_a_malformed_action_is_refused_in_words_a_host_can_act_on(host, fields, message):
    client, headers, table = host
    start_tregald(client, headers)
    response = client.post("/host/event", data=fields, headers=headers)
    assert response.status_code == 400 and response.get_json()["error"] == message
    assert "field" not in message and "malformed" not in message


def test_the_stake_field_takes_what_the_rules_take(host):
    """Issue 66: the panel stopped at 999 while Gyvahrs takes stakes up to 1,000,000."""
    from companion.rules.gyvahrs import MAX_STAKE

    client, _, _ = host
    html = client.get("/host").get_data(as_text=True)
    assert f'name="amount" type="number" min="1" max="{MAX_STAKE}"' in html

"""The host panel in headless Chromium: a held reading fixed with one tap per die, and the
panel's everyday friction (the seat menu, the bid face, the record's lines, the chips after
a fix). Served by waitress as in production; helpers shared with the slate's browser tests."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from companion.readings import OfferedReading
from companion.rules import Bid, Declaration
from companion.table import Table
from test_browser_slate import ARTIFACTS, browser, log_in, served, wait_js  # noqa: F401 (fixtures)

pytestmark = pytest.mark.browser


def felt_with_cubes() -> tuple[bytes, list[tuple[int, int, int, int]]]:
    """A 640x360 JPEG of five chance cubes on felt, left to right: red, blue, red, then two
    more red; their boxes in the photo's pixels."""
    image = np.full((360, 640, 3), (40, 90, 40), np.uint8)
    boxes = []
    for i, colour in enumerate([(40, 40, 215), (215, 110, 40), (40, 40, 215), (40, 40, 215), (40, 40, 215)]):
        x, y = 40 + i * 120, 140
        cv2.rectangle(image, (x, y), (x + 70, y + 70), colour, -1)
        boxes.append((x, y, x + 70, y + 70))
    ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 80])
    assert ok
    return data.tobytes(), boxes


def test_a_held_reading_with_two_dice_missing_and_one_doubtful_is_fixed_with_one_tap_per_die(browser, served):
    server, table, _ = served
    table.start_game("tregald", ["Ann", "Ben"], {"rounds": 1})
    table.submit(Declaration(0, 3, "red"))
    table.press(1, "green")
    photo, boxes = felt_with_cubes()
    # Read: dice 1-3 (die 2 doubted); the fourth cube was seen but not read, the fifth not seen.
    reading = OfferedReading(["red", "red", "red"], boxes=boxes[:3], flagged=True, unsure=[1], suspects=[boxes[3]],
                             reason="something at (1521,686) may be a die I cannot read: please check")
    assert table.offer_reading(reading, photo=photo) == "held"
    host = browser.new_page(viewport={"width": 390, "height": 844})  # the host's phone
    log_in(host, server.url)
    host.wait_for_selector("#held-card:not([hidden])")
    wait_js(host, "document.getElementById('held-img').naturalWidth === 640")
    assert host.inner_text("#held-reason") == \
        "2 dice not found (one seen right): tap where they are, or type them; 1 die unclear (middle): tap it to pick its value"
    marks = host.locator("#held-marks .mark")
    assert marks.count() == 4  # three read, one missing where it was seen
    assert host.locator("#held-marks .mark.unsure:not(.missing)").count() == 1
    assert host.locator("#held-marks .mark.missing").count() == 1
    assert host.locator("#held-unplaced .slot").count() == 1  # the fifth, beside the photo
    mark_box = marks.nth(3).locator("rect")
    assert [int(mark_box.get_attribute(a)) for a in ("x", "y")] == [boxes[3][0], boxes[3][1]]  # photo pixels
    selects = host.locator("#dice-inputs select")
    assert [selects.nth(i).input_value() for i in range(5)] == ["red", "", "red", "", ""]  # nothing invented
    assert host.is_disabled("#dice-enter")
    assert host.inner_text("#dice-unset").startswith("3 dice are not set yet")

    # the host presses Enter anyway (a form submitted by the keyboard): refused, nothing entered
    host.evaluate("document.getElementById('f-dice').requestSubmit()")
    host.wait_for_selector(".host-message.error-message")
    assert "3 dice are not set yet" in host.inner_text("#message")
    assert len(table.session.record.events) == 2

    # one tap per die: the doubtful die is in hand first, then each missing one in turn
    assert "Die 2 (looks like" in host.inner_text("#held-picker-title")
    host.click("#held-picker-values button[data-value=blue]")
    assert host.inner_text("#held-picker-title").startswith("Die 4 (not found)")
    assert host.is_disabled("#dice-enter")
    host.click("#held-picker-values button[data-value=red]")
    assert host.inner_text("#held-picker-title").startswith("Die 5 (not found)")
    assert host.is_disabled("#dice-enter")
    host.click("#held-picker-values button[data-value=blue]")
    assert host.is_enabled("#dice-enter") and host.is_hidden("#dice-unset")
    assert host.locator("#held-marks .mark.set").count() == 4  # every die on the photo now has its value
    assert host.inner_text("#held-unplaced .slot").endswith("blue")
    host.screenshot(path=str(ARTIFACTS / "host-held-fixed.png"), full_page=True)
    host.click("#dice-enter")
    host.wait_for_selector("#held-card[hidden]", state="attached")
    assert table.session.record.events[-1].values == ("red", "blue", "red", "red", "blue")
    assert host.evaluate("document.documentElement.scrollWidth <= window.innerWidth")


def test_tapping_a_sure_die_on_the_held_photo_puts_it_in_hand_to_change(browser, served):
    server, table, _ = served
    table.start_game("tregald", ["Ann", "Ben"], {"rounds": 1})
    table.submit(Declaration(0, 1, "blue"))
    table.press(1, "green")
    photo, boxes = felt_with_cubes()
    values = ["red", "blue", "red", "red", "red"]
    reading = OfferedReading(values, boxes=boxes, flagged=True, reason="die 5 is blurred", unsure=[4])
    assert table.offer_reading(reading, photo=photo) == "held"
    host = browser.new_page(viewport={"width": 1280, "height": 900})
    log_in(host, server.url)
    host.wait_for_selector("#held-card:not([hidden])")
    wait_js(host, "document.querySelectorAll('#held-marks .mark').length === 5")
    assert host.inner_text("#held-reason") == "1 die unclear (right): tap it to pick its value; die 5 is blurred"
    host.screenshot(path=str(ARTIFACTS / "host-held.png"))
    host.locator("#held-marks .mark").nth(0).click()  # the first was misread too
    assert host.inner_text("#held-picker-title") == "Die 1 is:"
    host.click("#held-picker-values button[data-value=blue]")
    assert host.inner_text("#held-picker-title").startswith("Die 5")  # on to the one still unset
    host.click("#held-picker-values button[data-value=red]")
    host.click("#dice-enter")
    host.wait_for_selector("#held-card[hidden]", state="attached")
    assert table.session.record.events[-1].values == ("blue", "blue", "red", "red", "red")


def test_the_seat_menu_follows_the_turn_unless_the_host_is_choosing(browser, served):
    server, table, _ = served
    table.start_game("leiras-dice", ["Ann", "Ben", "Cara"], {"start": "seat0"})
    host = browser.new_page(viewport={"width": 1280, "height": 900})
    log_in(host, server.url)
    host.wait_for_selector("#f-bid:not([hidden])")
    seat = "#f-bid select[name=seat]"
    assert host.input_value(seat) == "0"
    assert host.locator("#f-bid select[name=face] option").all_inner_texts() == ["1", "2", "3", "4", "5", "6"]
    assert host.input_value("#f-bid select[name=face]") == "1"  # a face the game takes, not "(total)"
    host.select_option(seat, "2")  # the host looks at Cara's seat this turn
    host.click("#h-title")  # and leaves the form
    rows = host.locator("#events tr").count()
    table.submit(Bid(0, 2, 3))  # Ann bids at the table
    wait_js(host, f"document.querySelectorAll('#events tr').length > {rows}")
    assert host.input_value(seat) == "1"  # Ben's turn: the menu follows
    host.focus(seat)  # mid-edit: the host's pick holds through a change at the table
    host.select_option(seat, "0")
    table.submit(Bid(1, 3, 3))
    wait_js(host, f"document.querySelectorAll('#events tr').length > {rows + 1}")
    assert host.input_value(seat) == "0"


def test_the_record_reads_as_lines_and_a_tap_fix_shows_on_the_chips(browser, served):
    server, table, _ = served
    table.start_game("val-des", ["Ann", "Ben"])
    host = browser.new_page(viewport={"width": 390, "height": 844})
    log_in(host, server.url)
    host.wait_for_selector("#buttons-card:not([hidden])")
    assert host.inner_text("#seat-buttons .seat-row:nth-child(1) button[data-button=green]") == "green: calls Val (red)"
    assert host.inner_text("#seat-buttons .seat-row:nth-child(1) button[data-button=yellow]") == "yellow: calls Des (blue)"
    table.press(0, "green")
    table.press(1, "yellow")
    photo, boxes = felt_with_cubes()
    assert table.offer_reading(OfferedReading(["red"], boxes=boxes[:1]), photo=photo) == "applied"
    host.wait_for_selector("#fix-frame:not([hidden]) #fix-marks .mark")
    assert host.locator("#fix-dice .die-red").count() == 1
    host.locator("#fix-dice .die").first.click()
    host.click("#picker-values button:has-text('blue')")
    wait_js(host, "document.querySelectorAll('#fix-dice .die-blue').length === 1")
    assert host.locator("#fix-dice .die-red").count() == 0  # the chips show the fix, not the reading
    record = host.inner_text("#events")
    assert "{" not in record and "corrects #2; now dice for Ann: source host; values ● blue (Des)" in record
    assert host.evaluate("document.documentElement.scrollWidth <= window.innerWidth")  # nothing wider than the phone


def pips_photo(count: int) -> tuple[bytes, list[tuple[int, int, int, int]]]:
    """A 640x420 JPEG of `count` white dice on felt in rows of five, with their boxes."""
    image = np.full((420, 640, 3), (40, 90, 40), np.uint8)
    boxes = []
    for i in range(count):
        x, y = 40 + (i % 5) * 120, 30 + (i // 5) * 130
        cv2.rectangle(image, (x, y), (x + 70, y + 70), (235, 235, 235), -1)
        boxes.append((x, y, x + 70, y + 70))
    ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 80])
    assert ok
    return data.tobytes(), boxes


def test_on_a_phone_a_held_reveal_of_fifteen_dice_is_in_view_and_typed_in_one_go(browser):
    """Issue 66: after Reveal on a 390x844 phone the held reading is in view, says in words
    where its doubtful dice lie, and the host enters all 15 values with at most 3 taps
    plus typing (here 2: the row, then Enter)."""
    from companion.rules import Challenge
    from test_browser_slate import Server
    from web_app import make_app

    table = Table()
    table.set_device_status("camera", "ok", "")
    photo, boxes = pips_photo(15)

    def camera_reads():  # the reader found 12 of 15 dice, doubting 3 of them
        reading = OfferedReading([2, 3, 4, 5, 6, 1, 2, 3, 4, 5, 6, 1], boxes=boxes[:12], flagged=True,
                                 unsure=[0, 7, 9], suspects=boxes[12:14], reason="dice at (1,2) and (3,4) overlap")
        return table.offer_reading(reading, photo=photo)

    app, _ = make_app(table, on_reveal=camera_reads, sse_heartbeat=0.3)
    server = Server(app)
    try:
        table.start_game("leiras-dice", ["Ann", "Ben", "Cara"], {"start": "seat0"})
        table.submit(Bid(0, 4, 3))
        table.submit(Challenge(1))
        host = browser.new_page(viewport={"width": 390, "height": 844})
        log_in(host, server.url)
        host.wait_for_selector("#f-dice:not([hidden])")
        host.click("#read-now")  # "Reveal: read the dice now", under the 15 dice slots
        assert host.evaluate("document.getElementById('act-card').getBoundingClientRect().top") < 0  # scrolled down to it
        host.wait_for_selector("#held-card:not([hidden])")
        wait_js(host, "document.querySelectorAll('#held-marks .mark').length === 14")
        top = host.evaluate("document.getElementById('held-card').getBoundingClientRect().top")
        assert 0 <= top < 844 / 3, f"the held reading is not brought into view (its top at {top} px)"
        reason = host.inner_text("#held-reason")
        assert reason.startswith("3 dice not found") and "3 dice unclear (top left, middle, right)" in reason
        assert "(1,2)" not in reason
        assert host.locator("#held-picker-values .pick .pip-face").count() == 6  # values shown as pips

        taps = 0
        host.click("#dice-row"); taps += 1
        typed = "555331212644623"
        host.keyboard.type(typed)
        assert host.is_hidden("#dice-row-note")
        assert host.is_enabled("#dice-enter")
        host.click("#dice-enter"); taps += 1
        host.wait_for_selector("#held-card[hidden]", state="attached")
        host.screenshot(path=str(ARTIFACTS / "host-phone-typed-reveal.png"), full_page=True)
        assert taps <= 3
        reveal = [e for e in table.session.record.events if e.kind == "dice"][-1]
        assert reveal.values == tuple(int(c) for c in typed)
        assert host.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    finally:
        server.stop()


def test_a_typed_row_says_which_die_has_no_such_face_and_sets_nothing_wrong(browser, served):
    server, table, _ = served
    table.start_game("tregald", ["Ann", "Ben"], {"rounds": 1})
    table.submit(Declaration(0, 3, "red"))
    table.press(1, "green")
    host = browser.new_page(viewport={"width": 390, "height": 844})
    log_in(host, server.url)
    host.wait_for_selector("#f-dice:not([hidden])")
    host.fill("#dice-row", "r b x r")
    assert "die 3: x is not one of its faces" in host.inner_text("#dice-row-note")
    selects = host.locator("#dice-inputs select")
    assert [selects.nth(i).input_value() for i in range(5)] == ["red", "blue", "", "red", ""]
    assert host.is_disabled("#dice-enter")
    host.fill("#dice-row", "rbbrb")
    assert host.is_hidden("#dice-row-note") and host.is_enabled("#dice-enter")
    host.click("#dice-enter")
    wait_js(host, "document.getElementById('f-dice').hidden")
    assert [e for e in table.session.record.events if e.kind == "dice"][-1].values == ("red", "blue", "blue", "red", "blue")


def test_once_the_cube_is_seen_a_call_changes_only_by_the_hosts_correction(browser):
    """Issue 66: Val-Des, every call in, the cube read and held for the host. A call can no
    longer change from the seat's button, the panel's buttons or a POST (as any API client
    sends it); the host's correction goes through, and the record and the slate say it is
    the host's."""
    from companion.rules import Amend, ColourCall
    from test_browser_slate import Server
    from web_app import make_app

    table = Table()
    table.set_device_status("camera", "ok", "")
    app, _ = make_app(table, sse_heartbeat=0.3)
    server = Server(app)
    try:
        table.start_game("val-des", ["Ann", "Ben", "Cara"])
        for seat in table.snapshot()["prompt"]["waiting"]:
            assert table.press(seat, "green")  # every call in: Val (red)
        ann = next(i for i, e in enumerate(table.session.record.events) if e.seat == 0)
        host = browser.new_page(viewport={"width": 1280, "height": 900})
        log_in(host, server.url)
        slate = browser.new_page(viewport={"width": 1280, "height": 800})
        slate.goto(server.url + "/")
        photo, boxes = felt_with_cubes()
        reading = OfferedReading(["blue"], boxes=boxes[1:2], flagged=True, unsure=[0], reason="die 1 is blurred")
        assert table.offer_reading(reading, photo=photo) == "held"
        host.wait_for_selector("#held-card:not([hidden])")
        before = list(table.session.record.events)

        assert table.press(0, "yellow") is False  # the seat's own button
        host.click("#seat-buttons .seat-row:nth-child(1) button[data-button=yellow]")  # the panel's
        host.wait_for_selector(".host-message.error-message")
        assert "means nothing now" in host.inner_text("#message")
        assert host.locator("#act-card form:visible").all_inner_texts() != []  # the dice form, and
        assert host.locator("#act-card :is(form, div.act-list):visible button", has_text="Val").count() == 0  # no call
        status, error = host.evaluate("""async () => {
            const r = await fetch('/host/event', {method: 'POST', credentials: 'same-origin',
                headers: {'Content-Type': 'application/json', 'Accept': 'application/json',
                          'X-CSRF-Token': document.getElementById('host').dataset.csrf},
                body: JSON.stringify({kind: 'colour_call', seat: 0, colour: 'blue'})});
            return [r.status, (await r.json()).error];
        }""")
        assert status == 409 and error.startswith("the dice are out: calls are closed")
        assert list(table.session.record.events) == before  # nothing stored by any of them

        row = host.locator("#events tr", has=host.locator("td", has_text="Ann")).filter(has_text="colour call")
        row.locator("button.small-button").click()
        editor = host.locator("#events tr.editor")
        assert editor.locator("select[name=seat]").input_value() == "0"  # "1. Ann", counted from 1
        assert editor.locator("select[name=seat] option").first.inner_text() == "1. Ann"
        editor.locator("select[name=colour]").select_option("blue")
        editor.locator("button[type=submit]").click()
        host.wait_for_selector("#events tr.editor", state="detached")
        last = table.session.record.events[-1]
        assert last == Amend(target=ann, event=ColourCall(0, "blue"))  # kept in the record as the host's
        assert "corrects #%d" % ann in host.inner_text("#events tr.correction")
        wait_js(slate, "document.getElementById('fixes').innerText.includes('Ann')")
        assert slate.inner_text("#fixes") == "Host's fix: Ann's colour call is now blue (Des)"
        slate.screenshot(path=str(ARTIFACTS / "slate-host-fix.png"))

        host.click("#held-picker-values button[data-value=blue]")
        host.click("#dice-enter")
        host.wait_for_selector("#held-card[hidden]", state="attached")
        assert dict((e.seat, e.colour) for _, e in table.session.live_events() if e.kind == "colour_call")[0] == "blue"
    finally:
        server.stop()


def test_a_double_tap_is_one_action_and_each_button_says_what_it_does(browser, served):
    """Issue 66, the panel's friction: a double tap on Start, a chip call or Undo is one
    action with no error; the buttons say what they do in this game, in seat order; Undo
    names what it takes back; the declaration form starts each turn afresh; a new game
    can be started mid-game, ending the one in progress."""
    server, table, _ = served
    host = browser.new_page(viewport={"width": 390, "height": 844})
    log_in(host, server.url)
    host.select_option("#start-game", "tregald")
    host.fill("textarea[name=players]", "Ann\nBen\nCara")
    host.fill("fieldset[data-game=tregald] input[name='option.rounds']", "2")
    host.dblclick("#f-start button[type=submit]")
    host.wait_for_selector("#f-declaration:not([hidden])")
    assert table.game_id is not None and len(table.store.list_games()) == 1  # one game
    assert host.locator(".host-message.error-message").count() == 0

    host.fill("#f-declaration input[name=count]", "4")
    host.select_option("#f-declaration select[name=face]", "blue")
    host.click("#f-declaration button[type=submit]")
    wait_js(host, "document.getElementById('undo-button').textContent.includes('declaration for Ann')")
    rows = [host.inner_text(f"#seat-buttons .seat-row:nth-child({i}) .seat-name") for i in (1, 2, 3)]
    assert rows == ["1. Ann", "2. Ben", "3. Cara"]
    assert host.inner_text("#seat-buttons .seat-row:nth-child(2) button[data-button=green]") == "green: believes"
    assert host.is_hidden("#shared-buttons")  # no shared Liar! in Tregald

    host.dblclick("#seat-buttons .seat-row:nth-child(2) button[data-button=green]")
    wait_js(host, "document.getElementById('undo-button').textContent.includes('chip call for Ben')")
    assert [e.kind for e in table.session.record.events] == ["declaration", "chip_call"]  # stored once
    assert host.inner_text("#undo-button") == "Undo #1: chip call for Ben"
    host.dblclick("#undo-button")
    wait_js(host, "document.getElementById('undo-button').textContent.includes('declaration for Ann')")
    assert [e.kind for e in table.session.record.events] == ["declaration", "chip_call", "undo"]  # one undo
    assert host.locator(".host-message.error-message").count() == 0  # no "a new one came in"

    for seat in (1, 2):
        table.press(seat, "green")
    photo, boxes = felt_with_cubes()
    assert table.offer_reading(OfferedReading(["red"] * 5, boxes=boxes), photo=photo) == "applied"
    wait_js(host, "document.getElementById('h-prompt').textContent.startsWith('Ben declares')")
    assert host.input_value("#f-declaration input[name=count]") != "4"  # last turn's count is not Ben's

    assert not host.evaluate("document.getElementById('start-details').open")  # folded away mid-game
    host.click("#start-details summary")
    host.select_option("#start-game", "gyvahrs")
    host.fill("textarea[name=players]", "Ann\nBen")
    host.click("#f-start button[type=submit]")
    host.wait_for_selector(".host-message.error-message")
    assert "a game is in progress" in host.inner_text("#message") and table.session.game.name == "tregald"
    host.check("#end-current input")
    host.click("#f-start button[type=submit]")
    wait_js(host, "document.getElementById('h-title').textContent.startsWith('Gyvahrs')")
    assert len(table.store.list_games()) == 2 and table.session.game.name == "gyvahrs"
    assert host.is_hidden("#buttons-card")  # Gyvahrs has no table buttons


def test_in_leiras_dice_the_buttons_say_they_challenge(browser, served):
    server, table, _ = served
    table.start_game("leiras-dice", ["Ann", "Ben"], {"start": "seat0"})
    host = browser.new_page(viewport={"width": 390, "height": 844})
    log_in(host, server.url)
    host.wait_for_selector("#buttons-card:not([hidden])")
    assert host.locator("#seat-buttons button[data-button=green]").count() == 0  # green does nothing here
    assert host.inner_text("#seat-buttons .seat-row:nth-child(1) button") == "yellow: challenges (on their turn)"
    assert host.inner_text("#shared-buttons button") == "Liar! (shared): challenges the bid"


def test_a_tricksters_tavern_reveal_is_typed_as_one_row_with_big_dice_spaced(browser, served):
    """Issue 66: the typed reveal was a dropdown per die (17 dice, about 35 taps); one row
    now sets them all, hand by hand, smallest die first; a d20's 19 needs the spaces."""
    from companion.rules import Challenge

    server, table, _ = served
    table.start_game("tricksters-tavern", ["Ann", "Ben"], {"classes": ["Gambler", "Commoner"], "start": "seat0"})
    table.submit(Bid(0, 2, 6))
    table.submit(Challenge(1))
    host = browser.new_page(viewport={"width": 390, "height": 844})
    log_in(host, server.url)
    host.wait_for_selector("#f-dice:not([hidden]) .hand")
    host.fill("#dice-row", "1 2 3 19 1 6 1 1 1")
    assert host.is_hidden("#dice-row-note") and host.is_enabled("#dice-enter")
    host.fill("#dice-row", "1231916111")  # without spaces each digit is a die: 9 on a d6 is said
    assert "is not one of its faces" in host.inner_text("#dice-row-note") and host.is_disabled("#dice-enter")
    host.fill("#dice-row", "1 2 3 19 1 6 1 1 1")
    host.click("#dice-enter")
    wait_js(host, "document.getElementById('f-dice').hidden")
    assert [e for e in table.session.record.events if e.kind == "dice"][-1].values == (1, 2, 3, 19, 1, 6, 1, 1, 1)


def test_spike_dice_are_fixed_by_their_taught_symbols(browser):
    """Issue 66: a held reading of spike dice offers each value as the table's taught
    symbol (the slate's key), not a bare number."""
    from slate_phases import SpikeKey
    from test_browser_slate import Server
    from web_app import make_app

    class CameraPage(SpikeKey):  # as far as the host panel asks it
        def describe(self):
            return {"empty_table": True, "read_only": False}

    table = Table()
    table.set_device_status("camera", "ok", "")
    server = Server(make_app(table, camera=CameraPage(), sse_heartbeat=0.3)[0])
    try:
        table.start_game("tregald", ["Ann", "Ben"], {"rounds": 1, "dice": "spike"})
        table.submit(Declaration(0, 2, 5))
        table.press(1, "green")
        photo, boxes = felt_with_cubes()
        assert table.offer_reading(OfferedReading([5, 5, 1, 2, 3], boxes=boxes, flagged=True, unsure=[2]),
                                   photo=photo) == "held"
        host = browser.new_page(viewport={"width": 390, "height": 844})
        log_in(host, server.url)
        host.wait_for_selector("#held-picker:not([hidden])")
        wait_js(host, "[...document.querySelectorAll('#held-picker-values img')].filter((i) => i.naturalWidth > 0).length === 6")
        assert host.inner_text("#held-picker-values button[data-value='4']").strip() == "4"  # the symbol, then its value
    finally:
        server.stop()

"""The host panel in headless Chromium: a held reading fixed with one tap per die, and the
panel's everyday friction (the seat menu, the bid face, the record's lines, the chips after
a fix). Served by waitress as in production; helpers shared with the slate's browser tests."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from companion.readings import OfferedReading
from companion.rules import ChipCall, Declaration
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
        "2 dice not found: tap where they are, or type them; 1 die unclear: tap it to pick its value"
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
    assert host.inner_text("#held-reason") == "1 die unclear: tap it to pick its value; die 5 is blurred"
    host.locator("#held-marks .mark").nth(0).click()  # the first was misread too
    assert host.inner_text("#held-picker-title") == "Die 1 is:"
    host.click("#held-picker-values button[data-value=blue]")
    assert host.inner_text("#held-picker-title").startswith("Die 5")  # on to the one still unset
    host.click("#held-picker-values button[data-value=red]")
    host.click("#dice-enter")
    host.wait_for_selector("#held-card[hidden]", state="attached")
    assert table.session.record.events[-1].values == ("blue", "blue", "red", "red", "red")

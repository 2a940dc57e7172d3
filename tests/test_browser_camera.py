"""The host panel's camera page in headless Chromium: the table region dragged across the
camera's picture is the region set, in the camera's own pixels."""

from __future__ import annotations

import time

import numpy as np
import pytest

from companion.table import Table
from hardware.calibration import CalibrationStore
from hardware.camera_setup import CameraSetup
from hardware.vision import VisionConfig
from test_browser_slate import ARTIFACTS, Server, browser, log_in, wait_js  # noqa: F401 (a fixture)
from web_app import make_app

pytestmark = pytest.mark.browser

WIDTH, HEIGHT = 1600, 1200  # wider than the page's picture: the page scales both ways


class StillDesk:
    """A camera that always shows the same picture; no dice reader."""

    def __init__(self, frame):
        self.frame = frame

    def latest_frame(self, max_age=3.0):
        return self.frame

    def on_camera_thread(self, job, timeout=8.0):
        return job(self.frame, None)

    measurable = False

    def can_measure_light(self):
        return self.measurable

    def measure_light(self):
        return {"ExposureTime": 16667, "AnalogueGain": 1.8}


@pytest.fixture
def camera_page(tmp_path):
    frame = np.full((HEIGHT, WIDTH, 3), (40, 90, 40), np.uint8)
    frame[300:900, 400:1200] = (60, 140, 60)  # the tray
    store = CalibrationStore(tmp_path)
    setup = CameraSetup(store, VisionConfig(), store.load(), StillDesk(frame), rebuild=lambda vision: None)
    app, _ = make_app(Table())
    app.extensions["companion"]["camera"] = setup
    server = Server(app)
    yield server, setup
    server.stop()


def press_until_the_page_drags(page, x: float, y: float, timeout: float = 10.0) -> None:
    """Press the mouse at (x, y) once the page takes a drag. Until its first look at the
    camera's state has come back, the page ignores a press; on a slow machine that is
    later than the picture shows. A press taken draws the region as the mouse moves."""
    deadline = time.monotonic() + timeout
    while True:
        page.mouse.move(x, y)
        page.mouse.down()
        page.mouse.move(x + 1, y + 1)
        if page.is_visible("#cam-drawing"):
            page.mouse.move(x, y)
            return
        page.mouse.up()
        assert time.monotonic() < deadline, "the camera page never took a drag (no state from the server?)"
        page.wait_for_timeout(50)


def test_a_region_dragged_on_the_picture_is_set_in_camera_pixels(browser, camera_page):  # noqa: F811
    server, setup = camera_page
    page = browser.new_page(viewport={"width": 800, "height": 1000})
    log_in(page, server.url)
    page.click("text=Camera set-up")
    wait_js(page, "document.getElementById('cam-picture').naturalWidth > 0")
    box = page.locator("#cam-picture").bounding_box()
    assert box["width"] < WIDTH  # shown smaller than the camera's pixels
    press_until_the_page_drags(page, box["x"] + box["width"] * 0.25, box["y"] + box["height"] * 0.25)
    page.mouse.move(box["x"] + box["width"] * 0.5, box["y"] + box["height"] * 0.5, steps=4)
    page.mouse.move(box["x"] + box["width"] * 0.75, box["y"] + box["height"] * 0.75, steps=4)
    page.mouse.up()
    typed = [int(page.input_value(f"input[name={k}]")) for k in ("x1", "y1", "x2", "y2")]
    for got, want in zip(typed, (400, 300, 1200, 900)):
        assert abs(got - want) <= 3, typed
    page.click("text=Set the table region")
    page.wait_for_selector("text=table region set to")
    assert setup.vision.roi == tuple(typed)
    page.wait_for_selector("#cam-region:not([hidden])")
    drawn = page.locator("#cam-region").bounding_box()
    box = page.locator("#cam-picture").bounding_box()
    assert abs(drawn["x"] - (box["x"] + box["width"] * 0.25)) <= 3
    assert abs(drawn["width"] - box["width"] * 0.5) <= 4
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "host-camera.png"), full_page=True)

    page.click("text=Take the empty-table photo now")
    page.wait_for_selector("text=empty-table photo taken (1600x1200)")
    assert setup.vision.empty_table and setup.describe()["empty_table_from"] == "panel"

    page.set_viewport_size({"width": 390, "height": 844})  # a phone: nothing sticks out
    page.wait_for_timeout(50)
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    page.screenshot(path=str(ARTIFACTS / "host-camera-phone.png"), full_page=True)


def test_the_light_is_measured_again_with_one_button(browser, camera_page):  # noqa: F811
    server, setup = camera_page
    setup._desk.measurable = True  # a Raspberry Pi camera
    page = browser.new_page(viewport={"width": 390, "height": 900})
    log_in(page, server.url)
    page.click("text=Camera set-up")
    page.click("text=Measure the light again")
    page.wait_for_selector("text=the light was measured again and locked (exposure 16.7 ms, gain 1.8)")
    assert "exposure 16.7 ms, gain 1.8" in page.inner_text("#light-measured")
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "host-camera-light.png"), full_page=True)

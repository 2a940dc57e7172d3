"""The slate and the host panel in headless Chromium, served by waitress as in production.

A Tregald turn is played from the host panel's virtual buttons while the slate follows
live (no reload), the reveal arrives with a recorded photo, a misread die is fixed by
tapping it, and the slate survives a server restart. Screenshots land in artifacts/.
"""

from __future__ import annotations

import os
import random
import shutil
import threading
import time
from pathlib import Path

import cv2
import numpy as np
import pytest
import waitress

from companion.rules import ChipCall, ColourCall, Declaration, get_game
from companion.table import Table
from companion.readings import OfferedReading
from web_app import PIN, make_app, play_out

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run"]
ARTIFACTS = Path(__file__).resolve().parent.parent / "artifacts"
SIZES = {"landscape": (1280, 800), "portrait": (800, 1280), "phone": (390, 844)}

pytestmark = pytest.mark.browser

if not (os.path.exists(CHROMIUM) and shutil.which(CHROMIUM)):
    if os.environ.get("CI"):
        raise RuntimeError(f"browser tests need {CHROMIUM} under CI")
    pytest.skip(f"{CHROMIUM} is not installed", allow_module_level=True)

sync_api = pytest.importorskip("playwright.sync_api")


class Server:
    """waitress on 127.0.0.1 in a background thread; restartable on the same port."""

    def __init__(self, app, port: int = 0):
        self.app = app
        self.server = waitress.create_server(app, host="127.0.0.1", port=port, threads=12, channel_timeout=30)
        self.port = self.server.effective_port
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def stop(self) -> None:
        """Like a process exit: the listener and every open connection close. The closing
        runs on waitress's own loop thread (its trigger), so the loop ends cleanly."""

        server = self.server
        if not self.thread.is_alive():
            return

        def close_connections():
            for channel in list(server._map.values()):
                if channel not in (server, server.trigger):
                    channel.close()

        def wake(thunk):
            try:
                server.trigger.pull_trigger(thunk)
            except OSError:  # the loop closed its trigger already (it is ending): nothing is left to wake
                pass

        wake(close_connections)
        server.task_dispatcher.shutdown(cancel_pending=True, timeout=3)  # the streams see their sockets gone
        wake(server.close)  # listener and trigger: the map is empty, the loop ends
        self.thread.join(timeout=5)



def wait_js(page, expression: str, timeout: float = 30000) -> None:
    """Wait until a JavaScript expression is true in the page. (Playwright's
    wait_for_function evaluates its predicate with eval, which the pages' Content-Security-
    Policy forbids; page.evaluate is not subject to it.)"""
    deadline = time.monotonic() + timeout / 1000
    while not page.evaluate(expression):
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {expression}")
        page.wait_for_timeout(50)

def dice_photo() -> tuple[bytes, list[tuple[int, int, int, int]]]:
    """A small JPEG of five coloured cubes on felt, with their boxes."""
    image = np.full((360, 640, 3), (40, 90, 40), np.uint8)
    colours = [(40, 40, 215), (40, 40, 215), (40, 40, 215), (215, 110, 40), (215, 110, 40)]  # BGR: red x3, blue x2
    boxes = []
    for i, colour in enumerate(colours):
        x, y = 60 + i * 110, 140 + (i % 2) * 40
        cv2.rectangle(image, (x, y), (x + 70, y + 70), colour, -1)
        boxes.append((x, y, x + 70, y + 70))
    ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 80])
    assert ok
    return data.tobytes(), boxes


@pytest.fixture(scope="module")
def browser():
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield browser
        browser.close()


@pytest.fixture
def served():
    table = Table()
    table.set_device_status("buttons", "missing", "no GPIO: use the host panel")
    table.set_device_status("camera", "ok", "")
    app, _ = make_app(table, sse_heartbeat=0.3, title="Thursday table")
    server = Server(app)
    yield server, table, app
    server.stop()


def shot(page, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"))


def layout_problems(page) -> list[str]:
    """Horizontal overflow, and key slate areas that overlap each other."""
    return page.evaluate("""() => {
        const problems = [];
        const doc = document.documentElement;
        if (doc.scrollWidth > window.innerWidth) problems.push(`page is ${doc.scrollWidth}px wide in ${window.innerWidth}px`);
        const names = [".bar", ".play", ".scores", ".history", ".join", "#prompt", "#current", "#reveal", "#players"];
        const boxes = names.map((n) => [n, document.querySelector(n)])
            .filter(([n, e]) => e && e.offsetParent !== null)
            .map(([n, e]) => [n, e.getBoundingClientRect(), e]);
        for (const [n, r] of boxes) if (r.right > window.innerWidth + 0.5 || r.left < -0.5) problems.push(`${n} sticks out`);
        for (let i = 0; i < boxes.length; i++) for (let j = i + 1; j < boxes.length; j++) {
            const [a, ra, ea] = boxes[i], [b, rb, eb] = boxes[j];
            if (ea.contains(eb) || eb.contains(ea)) continue;
            const w = Math.min(ra.right, rb.right) - Math.max(ra.left, rb.left);
            const h = Math.min(ra.bottom, rb.bottom) - Math.max(ra.top, rb.top);
            if (w > 1 && h > 1) problems.push(`${a} overlaps ${b}`);
        }
        for (const sel of ["#prompt", "#current", "#pot", "#verdict", "#lines li:last-child", "#players li:last-child",
                           "#history li:first-child", ".qr", ".join-text"]) {
            const e = document.querySelector(sel);
            if (!e || e.offsetParent === null) continue;
            const r = e.getBoundingClientRect(), box = e.closest(".board > *").getBoundingClientRect();
            if (r.bottom > box.bottom + 1 || r.right > box.right + 1) problems.push(`${sel} is cut off`);
        }
        for (const e of document.querySelectorAll(".player .name, .bar-stage, .verdict, .prompt")) {
            if (e.scrollWidth > e.clientWidth + 1 && getComputedStyle(e).textOverflow !== "ellipsis") problems.push(`text overflows in ${e.className}`);
        }
        return problems;
    }""")


def check_all_sizes(page, name: str) -> None:
    for label, (width, height) in SIZES.items():
        page.set_viewport_size({"width": width, "height": height})
        page.wait_for_timeout(50)
        shot(page, f"slate-{name}-{label}")
        assert layout_problems(page) == [], f"{name} at {label}"
        if label == "landscape":
            fits = page.evaluate("document.documentElement.scrollHeight <= window.innerHeight")
            assert fits, f"{name}: the landscape slate should fit the screen without scrolling"
    page.set_viewport_size({"width": 1280, "height": 800})


def read_qr(image) -> str:
    """The text of a QR code in a screenshot. OpenCV's classic detector misses about one
    code in 200 that phones read (it failed CI on one port number), so the ArUco-based
    detector and two other scales are tried as well; "" when none reads it."""
    for detector in (cv2.QRCodeDetector(), cv2.QRCodeDetectorAruco()):
        for scale in (1, 2, 0.75):
            scaled = image if scale == 1 else cv2.resize(image, None, fx=scale, fy=scale)
            text = detector.detectAndDecode(scaled)[0]
            if text:
                return text
    return ""


def log_in(page, url: str) -> None:
    page.goto(url + "/host")
    page.fill("input[name=pin]", PIN)
    page.click("button[type=submit]")
    page.wait_for_selector("#h-title")


def test_a_tregald_turn_played_from_the_host_panel_shows_live_on_the_slate(browser, served):
    server, table, app = served
    slate = browser.new_page(viewport={"width": 1280, "height": 800})
    slate.goto(server.url + "/")
    slate.evaluate("window.notReloaded = true")
    slate.wait_for_selector("#live[data-state=live]")
    assert slate.inner_text("#prompt") == "Waiting for the host to start a game"
    assert slate.inner_text("#devices") == "buttons: missing"
    assert slate.get_attribute("#devices .notice", "title") == "no GPIO: use the host panel"
    check_all_sizes(slate, "idle")
    qr = cv2.imdecode(np.frombuffer(slate.locator(".qr").screenshot(), np.uint8), cv2.IMREAD_COLOR)
    assert read_qr(qr) == server.url + "/"  # a phone opens this slate

    host = browser.new_page(viewport={"width": 1280, "height": 900})
    log_in(host, server.url)
    host.select_option("#start-game", "tregald")
    host.fill("textarea[name=players]", "Ann\nBen\nCara\nDevika")
    host.fill("fieldset[data-game=tregald] input[name='option.rounds']", "1")
    host.click("#f-start button[type=submit]")
    wait_js(slate, "document.getElementById('prompt').textContent === 'Ann declares'")
    assert slate.inner_text("#game-title") == "Tregald"
    assert "Round 1 of 1" in slate.inner_text("#stage")

    host.wait_for_selector("#f-declaration:not([hidden])")
    host.fill("#f-declaration input[name=count]", "2")
    host.select_option("#f-declaration select[name=face]", "red")
    host.click("#f-declaration button[type=submit]")
    wait_js(slate, "document.getElementById('current').textContent === 'Ann declares 2 red'")

    host.click("#seat-buttons .seat-row:nth-child(2) button[data-button=green]")
    wait_js(slate, "document.getElementById('prompt').textContent === 'Calls in: 1 of 3'")
    host.click("#seat-buttons .seat-row:nth-child(3) button[data-button=yellow]")
    # its answer first: the two presses are concurrent requests, and a "pressed" answer landing
    # after the refusal below would overwrite the message the test looks for
    wait_js(host, "document.getElementById('message').textContent === 'yellow pressed for seat 3'")
    host.click("#seat-buttons .seat-row:nth-child(1) button[data-button=green]")  # the Tregald: means nothing
    host.wait_for_selector(".host-message.error-message")
    assert "means nothing now" in host.inner_text("#message")
    host.click("#seat-buttons .seat-row:nth-child(4) button[data-button=green]")
    wait_js(slate, "document.getElementById('prompt').textContent.startsWith('All calls in')")
    text = slate.inner_text("body")
    assert "yellow" not in text.lower() and "green" not in text.lower()  # calls stay secret
    check_all_sizes(slate, "calls")

    photo, boxes = dice_photo()
    assert table.offer_reading(OfferedReading(["red", "red", "red", "blue", "blue"], boxes=boxes), photo=photo) == "applied"
    slate.wait_for_selector("#reveal:not([hidden]) #photo:not([hidden])")
    wait_js(slate, "document.getElementById('photo-img').naturalWidth === 640")
    assert slate.locator("#dice .die").count() == 5
    assert slate.locator("#dice .die-red .die-word").first.inner_text().lower() == "red"  # colour has a word
    assert slate.locator("#photo-marks text").count() == 5
    assert slate.inner_text("#verdict").startswith("False")
    check_all_sizes(slate, "reveal")

    # the host taps the misread die on the photo and picks its real value
    host.wait_for_selector("#fix-frame:not([hidden]) #fix-marks .mark")
    host.wait_for_timeout(100)
    host.screenshot(path=str(ARTIFACTS / "host-reveal.png"), full_page=True)
    host.locator("#fix-marks .mark").nth(2).click()
    host.click("#picker-values button:has-text('blue')")
    wait_js(slate, "document.getElementById('verdict').textContent.startsWith('True')")
    assert [e.kind for e in table.session.record.events][-1] == "amend"
    assert slate.evaluate("window.notReloaded") is True


def test_while_the_host_checks_a_reading_the_slate_shows_no_earlier_result(browser, served):
    """Issue 66: with a reading held, the slate showed the last set's result under the prompt
    "Ben lifts the cup", and players took it for this throw's. The "Before" list counts as
    the game went, newest first."""
    server, table, app = served
    slate = browser.new_page(viewport={"width": 1280, "height": 800})
    slate.goto(server.url + "/")
    table.start_game("val-des", ["Ann", "Ben", "Cara"])

    def calls():
        while table.session.prompt().waiting:
            table.submit(ColourCall(table.session.prompt().waiting[0], "red"))

    calls()
    assert table.offer_reading(OfferedReading(["blue"])) == "applied"
    slate.wait_for_selector("#reveal:not([hidden])")
    calls()
    assert table.offer_reading(OfferedReading(["red"], flagged=True, reason="a hand?")) == "held"
    slate.wait_for_selector("#held:not([hidden])")
    assert "Checking the dice" in slate.inner_text("#held")
    assert slate.is_hidden("#reveal") and slate.is_hidden("#recent")
    table.confirm_reading(["red"])
    slate.wait_for_selector("#held", state="hidden")
    slate.wait_for_selector("#reveal:not([hidden])")
    history = len(table.session.slate().history)
    assert slate.evaluate("document.getElementById('history').start") == history
    assert slate.evaluate("document.getElementById('history').reversed") is True


def test_slate_reconnects_after_a_server_restart_and_resynchronises(browser, served):
    server, table, app = served
    slate = browser.new_page(viewport={"width": 1280, "height": 800})
    slate.goto(server.url + "/")
    slate.evaluate("window.notReloaded = true")
    slate.wait_for_selector("#live[data-state=live]")
    port = server.port
    server.stop()
    slate.wait_for_selector("#live[data-state=reconnecting]", timeout=5000)
    table.start_game("val-des", ["Ann", "Ben"])  # changes while the slate is away
    restarted = Server(app, port)
    try:
        slate.wait_for_selector("#live[data-state=live]", timeout=8000)
        wait_js(slate, "document.getElementById('game-title').textContent === 'Val-Des'", timeout=5000)
        assert slate.evaluate("window.notReloaded") is True
    finally:
        slate.close()
        restarted.stop()


def test_streams_end_when_the_slates_go_away(browser, served):
    server, table, app = served
    streams = app.extensions["companion"]["streams"]
    pages = [browser.new_page() for _ in range(3)]
    for page in pages:
        page.goto(server.url + "/")
        page.wait_for_selector("#live[data-state=live]")
    assert streams.open == 3
    for page in pages:
        page.close()
    deadline = time.monotonic() + 5
    while streams.open and time.monotonic() < deadline:
        time.sleep(0.05)
    assert streams.open == 0


def test_phone_slate_and_host_pages_do_not_overflow(browser, served):
    server, table, app = served
    table.start_game("gyvahrs", ["Annabel-Longname", "Ben", "Cara", "Dmitri", "Eve"])
    page = browser.new_page(viewport={"width": 390, "height": 844})
    page.goto(server.url + "/")
    page.wait_for_selector("#live[data-state=live]")
    assert layout_problems(page) == []
    shot(page, "slate-gyvahrs-phone")
    log_in(page, server.url)
    page.wait_for_selector("#f-stake:not([hidden])")
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    page.screenshot(path=str(ARTIFACTS / "host-phone.png"), full_page=True)
    for path in ("/games", "/stats"):
        page.goto(server.url + path)
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth"), path


#: Every text on a page read on a phone: at least this many pixels (charts included).
PHONE_TEXT = 14


def test_stats_and_games_read_on_a_phone_with_nothing_cut_off_or_sideways(browser, served):
    """Issue 66: on a 390x844 phone the stats' chart labels were clipped ("omew Maximilian
    F"), its text 8-9 px, and the last columns (Bluffs, Dice lost; JSON and CSV) sat behind
    a sideways scroll. Now every text is page text of 14 px or more, whole, on the screen."""
    server, table, app = served
    long_names = ["Bartholomew Maximilian F", "Wolfeschlegelsteinhausen", "Ann"]
    for seed in (3, 4):
        table.start_game("leiras-dice", long_names, {"start": "seat0"})
        play_out(table, seed)
    page = browser.new_page(viewport={"width": 390, "height": 844})
    for path in ("/stats", "/games"):
        page.goto(server.url + path)
        problems = page.evaluate("""(smallest) => {
            const out = [], W = window.innerWidth;
            if (document.documentElement.scrollWidth > W) out.push(`the page is ${document.documentElement.scrollWidth}px wide`);
            for (const e of document.querySelectorAll("main *")) {
                const text = [...e.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
                if (!text || !e.getClientRects().length) continue;
                const size = parseFloat(getComputedStyle(e).fontSize), r = e.getBoundingClientRect();
                if (size < smallest) out.push(`"${e.textContent.trim().slice(0, 20)}" at ${size}px`);
                if (r.right > W + 1 || r.left < -1) out.push(`"${e.textContent.trim().slice(0, 20)}" off the screen`);
                if (e.scrollWidth > e.clientWidth + 1 && getComputedStyle(e).display !== "inline")
                    out.push(`"${e.textContent.trim().slice(0, 20)}" cut off`);
            }
            return out;
        }""", PHONE_TEXT)
        assert problems == [], f"{path}: {problems}"
        page.screenshot(path=str(ARTIFACTS / f"phone{path.replace('/', '-')}.png"), full_page=True)
    page.goto(server.url + "/stats")
    assert page.locator(".bar-name", has_text="Bartholomew Maximilian F").first.is_visible()
    assert page.locator("td[data-label='Dice lost']").first.is_visible()
    page.goto(server.url + "/games")
    assert page.locator("td[data-label=Record] a", has_text="CSV").first.is_visible()


def advance_to_a_reveal(table: Table, seed: int) -> None:
    """Random legal play (the engine's own moves) until the slate shows a reveal."""
    rng = random.Random(seed)
    for _ in range(300):
        session = table.session
        if session.slate().reveal is not None and session.prompt().dice is None:
            return
        game = get_game(session.record.game)
        actions = game.legal_actions(session.state)
        if session.prompt().dice is not None and (not actions or rng.random() < 0.5):
            table.submit(game.sample_reading(session.state, rng))
        else:
            table.submit(rng.choice(actions))
    raise AssertionError(f"{table.session.record.game}: no reveal")


GAMES = {
    "tregald": (["Ann", "Ben", "Cara", "Devika", "Emil"], {"dice": "spike"}),
    "val-des": (["Ann", "Ben", "Cara", "Devika"], {}),
    "gyvahrs": (["Ann", "Ben", "Cara", "Devika", "Emil", "Farah"], {}),
    "leiras-dice": (["Ann", "Ben", "Cara", "Devika", "Emil"], {}),
    "tricksters-tavern": (["Ann", "Ben", "Cara", "Devika", "Emil", "Farah", "Gus", "Hana"],
                          {"classes": ["Gambler", "Cutpurse", "Hedge Witch", "Innkeeper", "Brawler", "Commoner",
                                       "Commoner", "Gambler"]}),
}


def test_every_game_fits_the_slate_at_a_reveal_and_at_the_end(browser, served):
    server, table, app = served
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    page.goto(server.url + "/")
    page.wait_for_selector("#live[data-state=live]")
    for name, (players, options) in GAMES.items():
        if table.session is not None and not table.session.finished:
            table.end_game("next game")
        table.start_game(name, players, options)
        advance_to_a_reveal(table, seed=7)
        wait_js(page, f"document.body.dataset.seq === '{table.seq}'")
        assert page.locator("#dice .die").count() == len(table.snapshot()["slate"]["reveal"]["dice"])
        check_all_sizes(page, f"{name}-reveal")
    table.end_game("next game")
    table.start_game("tregald", ["Ann", "Ben", "Cara"], {"rounds": 1})
    play_out(table, seed=5)
    wait_js(page, f"document.body.dataset.seq === '{table.seq}'")
    assert page.is_visible("#winner")
    check_all_sizes(page, "tregald-over")


def test_tricksters_tavern_from_the_panel_classes_bid_liar_and_typed_dice(browser, served):
    server, table, app = served
    slate = browser.new_page(viewport={"width": 1280, "height": 800})
    slate.goto(server.url + "/")
    slate.wait_for_selector("#live[data-state=live]")
    host = browser.new_page(viewport={"width": 1280, "height": 900})
    log_in(host, server.url)
    host.select_option("#start-game", "tricksters-tavern")
    host.fill("textarea[name=players]", "Ann\nBen")
    host.select_option("fieldset[data-game=tricksters-tavern] select[name='option.start']", "seat0")
    host.select_option(".per-seat .class-choice:nth-of-type(1) select", "Brawler")
    host.select_option(".per-seat .class-choice:nth-of-type(2) select", "Cutpurse")
    host.click("#f-start button[type=submit]")
    wait_js(slate, "document.getElementById('prompt').textContent.includes('Ann opens round 1')")
    assert "Brawler: 2d6+2d8" in slate.inner_text("#players")
    assert [card.split(" (")[0] for card in table.session.record.options["classes"]] == ["Brawler", "Cutpurse"]

    host.wait_for_selector("#f-bid:not([hidden])")
    assert host.is_visible("#tavern-card")  # class abilities are offered while bidding
    host.fill("#f-bid input[name=quantity]", "3")
    host.select_option("#f-bid select[name=face]", "4")
    host.click("#f-bid button[type=submit]")
    wait_js(slate, "document.getElementById('current').textContent === 'Ann bids 3 fours'")
    host.click("button.press[data-button=liar][data-seat='']")
    host.wait_for_selector("#f-dice:not([hidden]) .hand")
    hands = host.locator("#dice-inputs .hand")
    assert hands.count() == 2
    assert hands.nth(0).locator("select").count() == 4 and hands.nth(1).locator("select").count() == 5
    d8 = hands.nth(0).locator("label:has-text('d8') select").first
    assert d8.locator("option").count() == 1 + 8  # unset ("?") until picked, then 1-8
    assert host.is_disabled("#dice-enter")  # nothing is entered for a die nobody set
    dice = host.locator("#dice-inputs select")
    for i in range(dice.count()):
        dice.nth(i).select_option("1")
    d8.select_option("8")
    host.screenshot(path=str(ARTIFACTS / "host-tavern-dice.png"), full_page=True)
    host.click("#f-dice button[type=submit]")
    slate.wait_for_selector("#reveal:not([hidden])")
    assert slate.locator("#dice .die").count() == 9
    assert "8" in slate.locator("#dice").inner_text()

    # the record downloaded from the history page goes back in through the panel's import,
    # and is recognised as the game already stored (counted once, never twice)
    record = host.request.get(server.url + f"/games/{table.game_id}.json").body()
    upload = ARTIFACTS / "tavern-record.json"
    upload.write_bytes(record)
    host.set_input_files("#f-import input[type=file]", str(upload))
    host.click("#f-import button[type=submit]")
    # the dice's "accepted" message may still be showing: wait for the import's own answer
    wait_js(host, "document.getElementById('message').textContent.includes('already stored here as game')")
    assert "error-message" in host.get_attribute("#message", "class")
    assert len(table.store.list_games()) == 1


def a_declaration_on_the_panel(browser, served):
    """The host panel, logged in, over a Tregald game whose declaration (count 2) is in."""
    server, table, _ = served
    table.start_game("tregald", ["Ann", "Ben"], {"rounds": 1})
    table.submit(Declaration(0, 2, "red"))
    host = browser.new_page(viewport={"width": 1280, "height": 900})
    log_in(host, server.url)
    return host, table


def correcting_a_declaration(browser, served):
    """The host panel with the correction of a Tregald declaration (count 2) open."""
    host, table = a_declaration_on_the_panel(browser, served)
    host.click("#events button:has-text('fix')")
    return host, table


def the_table_plays_on(host, table):
    """A chip call at the table, and the host panel's record redrawn with it."""
    rows = host.locator("#events tr:not(.editor)").count()
    table.submit(ChipCall(1, "green"))
    wait_js(host, f"document.querySelectorAll('#events tr:not(.editor)').length > {rows}")


def test_the_panels_undo_takes_back_what_it_showed_and_not_a_press_that_came_after(browser, served):
    # Ben's press lands before the host's tap, and the panel never hears of it: from the
    # moment the test says so, the server answers the panel's /host/state with the last
    # state it sent before. The lock makes "before" exact: an answer is made whole before
    # the press or after it, however late the panel's event stream connects or its fetch
    # arrives (on a slow machine, patching the table's publisher, then routing the
    # browser's requests, each lost that race now and then).
    _, _, app = served
    real = app.view_functions["host.state"]
    lock, frozen, last = threading.Lock(), [], []

    def state_until_frozen():
        with lock:
            if not frozen:
                last[:] = [real().get_data()]
            return app.response_class(last[0], mimetype="application/json")

    app.view_functions["host.state"] = state_until_frozen
    host, table = a_declaration_on_the_panel(browser, served)
    wait_js(host, "document.getElementById('undo-expect').value === '0'")
    with lock:
        frozen.append(True)
    table.submit(ChipCall(1, "green"))
    assert host.input_value("#undo-expect") == "0"  # the panel still shows the declaration as the last action
    host.click("#f-undo button")
    host.wait_for_selector("text=changed while you tapped Undo")  # refused, and the host is told why
    assert [e.kind for e in table.session.record.events] == ["declaration", "chip_call"]


def test_a_correction_being_typed_stays_open_while_the_table_plays_on(browser, served):
    # The host panel redraws its record on every change at the table; before, that threw
    # away a correction being typed.
    host, table = correcting_a_declaration(browser, served)
    host.fill("#events tr.editor input[name=count]", "3")
    the_table_plays_on(host, table)
    assert host.locator("#events tr.editor").count() == 1
    assert host.input_value("#events tr.editor input[name=count]") == "3"
    assert host.evaluate("document.activeElement.name") == "count"
    host.click("#events tr.editor button[type=submit]")
    host.wait_for_selector("#events tr.editor", state="detached")
    amend = table.session.record.events[-1].to_dict()
    assert amend == {"kind": "amend", "target": 0, "event": {"kind": "declaration", "seat": 0, "count": 3, "face": "red"}}


def test_a_redraw_keeps_what_was_selected_in_a_correction(browser, served):
    # Selected to be typed over, a field's text stays selected through a redraw: before,
    # only the focus came back and the next key went in beside the old text ("2" -> "23").
    host, table = correcting_a_declaration(browser, served)
    field = "#events tr.editor input[name=count]"
    host.focus(field)
    host.evaluate(f"document.querySelector('{field}').select()")
    the_table_plays_on(host, table)
    host.keyboard.type("4")
    assert host.input_value(field) == "4"


def test_a_mistyped_declaration_is_corrected_from_the_record(browser, served):
    server, table, app = served
    table.start_game("tregald", ["Ann", "Ben"], {"rounds": 1})
    table.submit(Declaration(0, 2, "red"))
    slate = browser.new_page(viewport={"width": 1280, "height": 800})
    slate.goto(server.url + "/")
    wait_js(slate, "document.getElementById('current').textContent === 'Ann declares 2 red'")
    host = browser.new_page(viewport={"width": 1280, "height": 900})
    log_in(host, server.url)
    host.click("#events button:has-text('fix')")
    host.fill("#events tr.editor input[name=count]", "4")
    host.click("#events tr.editor button[type=submit]")
    wait_js(slate, "document.getElementById('current').textContent === 'Ann declares 4 red'")
    assert table.session.record.events[-1].to_dict() == {
        "kind": "amend", "target": 0, "event": {"kind": "declaration", "seat": 0, "count": 4, "face": "red"}}
    host.wait_for_selector("#events tr.correction")
    host.click("#events button:has-text('fix')")
    assert host.input_value("#events tr.editor input[name=count]") == "4"  # the amended value is in force
    host.fill("#events tr.editor input[name=count]", "9")
    host.click("#events tr.editor button[type=submit]")
    host.wait_for_selector(".host-message.error-message")
    assert "does not fit the game" in host.inner_text("#message")

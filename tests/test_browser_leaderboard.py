"""The meetup's leaderboard page in headless Chromium: tiles live and offline, the
standings, a game arriving while the page is open, on the kiosk and on a phone."""

from __future__ import annotations

import itertools
import time

import pytest
from test_browser_slate import ARTIFACTS, SIZES, Server, browser, wait_js  # noqa: F401 (browser: the fixture)

from companion.meetup import Board, Scoring, game_message, read_game, slate_message
from companion.rules import GameRecord
from companion.simulate import simulate
from companion.table import Table
from web.leaderboard import create_leaderboard_app

pytestmark = pytest.mark.browser

PLAYERS = ["Ann", "Ben", "Cara"]
WENT_OFFLINE = time.mktime((2026, 11, 26, 21, 14, 0, 0, 0, -1))  # 21:14 local time


#: Every visible text under `smallest` px, as "its text: its size".
SMALL_TEXT_JS = """(smallest) => [...document.body.querySelectorAll("*")]
    .filter((e) => [...e.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim())
                   && e.getClientRects().length > 0 && getComputedStyle(e).visibility !== "hidden")
    .filter((e) => parseFloat(getComputedStyle(e).fontSize) < smallest)
    .map((e) => `${e.textContent.trim().slice(0, 30)}: ${getComputedStyle(e).fontSize}`)"""


def arrive(board: Board, table: str, local_id: str, seed: int) -> None:
    played = simulate("gyvahrs", PLAYERS, seed=seed).record
    record = GameRecord(game=played.game, players=played.players, options=played.options, events=played.events,
                        meta={"started": f"2026-11-26T21:0{seed}:00Z"})
    game_id, payload = game_message(table, local_id, record)
    assert board.add_game(read_game(table, game_id, payload))


@pytest.mark.parametrize("size", ["landscape", "phone"])
def test_the_leaderboard_shows_tables_and_standings_and_follows_new_games(tmp_path, browser, size):
    times = itertools.chain([1000.0, WENT_OFFLINE], itertools.repeat(5000.0))  # however often a slow page asks
    board = Board.in_dir(tmp_path, clock=lambda: next(times))
    table = Table()
    table.start_game("val-des", PLAYERS)
    board.table_status("table-1", True)
    board.table_slate("table-1", {"title": "Back room", "slate": table.snapshot()["slate"], "prompt": None})
    board.table_status("table-2", False)
    arrive(board, "table-2", "1", 0)
    server = Server(create_leaderboard_app(board, {"title": "Friday night", "scoring": Scoring(),
                                                   "tables": ("table-1", "table-2", "table-3")}))
    width, height = SIZES[size]
    page = browser.new_page(viewport={"width": width, "height": height})
    try:
        page.goto(server.url + "/")
        wait_js(page, "document.querySelectorAll('.lb-tile').length === 3")
        tiles = page.evaluate("[...document.querySelectorAll('.lb-tile')].map(t => t.textContent)")
        assert "Back room" in tiles[0] and "live" in tiles[0] and "Val-Des" in tiles[0]
        assert "offline since 21:14" in tiles[1] and "1 game finished" in tiles[1]
        assert "not seen yet" in tiles[2]
        winner = simulate("gyvahrs", PLAYERS, seed=0).slate().winner
        assert page.evaluate("document.querySelector('#lb-overall tbody tr').textContent").startswith("1" + winner)

        arrive(board, "table-1", "1", 1)  # a game finishes while the page is open
        wait_js(page, "document.getElementById('lb-games').textContent.startsWith('2 games')", timeout=10000)
        assert page.evaluate("document.getElementById('live').dataset.state") == "live"
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth"), "no sideways scrolling"
        assert page.evaluate("document.getElementById('lb-overall').scrollWidth <= "
                             "document.querySelector('.lb-standings').clientWidth"), "the standings fit their panel"
        if size == "landscape":  # the kiosk by the door: the slate's size rule, read from two metres
            small = page.evaluate(SMALL_TEXT_JS, 20)
            assert not small, f"text under 20 px on the kiosk: {small}"
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / f"leaderboard-{size}.png"))
    finally:
        page.close()
        server.stop()
        board.close()


def test_one_tables_odd_slate_costs_only_its_own_tile(tmp_path, browser):
    """The server refuses such slates (read_slate); the page survives one anyway."""
    board = Board.in_dir(tmp_path)
    table = Table()
    table.start_game("val-des", PLAYERS)
    board.table_status("table-1", True)
    board.table_slate("table-1", {"title": "Back room", "slate": {"title": "Val-Des", "players": "Ann"},
                                  "prompt": None})
    board.table_status("table-2", True)
    board.table_slate("table-2", {"title": "Front room", "slate": table.snapshot()["slate"], "prompt": None})
    arrive(board, "table-2", "1", 0)
    server = Server(create_leaderboard_app(board, {"title": "Friday night", "scoring": Scoring(),
                                                   "tables": ("table-1", "table-2")}))
    page = browser.new_page()
    try:
        page.goto(server.url + "/")
        wait_js(page, "document.querySelectorAll('.lb-tile').length === 2")
        tiles = page.evaluate("[...document.querySelectorAll('.lb-tile')].map(t => t.textContent)")
        assert "Back room" in tiles[0] and "cannot be shown" in tiles[0]
        assert "Front room" in tiles[1] and "Val-Des" in tiles[1]
        assert page.evaluate("document.getElementById('lb-games').textContent").startswith("1 game")
        assert page.evaluate("document.querySelectorAll('#lb-overall tbody tr').length") == len(PLAYERS)
    finally:
        page.close()
        server.stop()
        board.close()

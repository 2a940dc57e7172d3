"""Issue 64: a full disk (an SD card filled up) is said in words on the slate, the host
panel and the API, nothing acknowledged is lost, and the table goes on the moment there
is room again, with no restart.

The disk is filled the way SQLite meets a full disk (SQLITE_FULL): the database may grow
no further (`PRAGMA max_page_count`), then may again. One test does it on a real 1.2 MB
filesystem where this machine lets root mount one."""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest

from companion.readings import OfferedReading
from companion.store import SqliteStore, StoreFull
from companion.table import Table
from web_app import login, make_app
from test_store import DiskFillsUp


def _fill(store: SqliteStore) -> None:
    """No page more for the database: the next write that needs one meets a full disk."""
    pages = store._db.execute("PRAGMA page_count").fetchone()[0]
    store._db.execute(f"PRAGMA max_page_count = {pages}")


def _room(store: SqliteStore) -> None:
    store._db.execute("PRAGMA max_page_count = 1073741823")


def _turn(table: Table) -> None:
    table.press(0, "green")
    table.press(1, "yellow")
    if table.offer_reading(OfferedReading(["red"])) == "held":  # the disk was full as the dice came
        table.confirm_reading(["red"])  # the host confirms them (StoreFull while it is still full)


def _play_until_full(table: Table, limit: int = 400) -> StoreFull:
    for _ in range(limit):
        try:
            _turn(table)
        except StoreFull as exc:
            return exc
    raise AssertionError("the store never filled up")


def test_a_full_disk_refuses_the_write_in_words_keeps_what_was_stored_and_takes_writes_again(tmp_path):
    with SqliteStore.in_dir(tmp_path) as store:
        table = Table(store)
        game = table.start_game("toy", ["Ann", "Ben"], {"turns": 1000})
        _turn(table)
        _fill(store)
        full = _play_until_full(table)
        assert "the SD card is full" in str(full) and str(tmp_path) in str(full)
        acknowledged = table.session.record.events
        assert store.load(game).events == acknowledged  # the refused press was not applied
        for view in (table.snapshot(), table.host_view()):
            assert view["devices"]["store"]["status"] == "full"
            assert "nothing more can be stored" in view["devices"]["store"]["message"]
        with pytest.raises(StoreFull):  # and again, the same refusal, the table unchanged
            _turn(table)
        assert table.session.record.events == acknowledged
        _room(store)  # space is back: the very next press goes through
        _turn(table)
        assert table.snapshot()["devices"]["store"]["status"] == "ok"
        assert len(store.load(game).events) >= len(acknowledged) + 1
    with SqliteStore.in_dir(tmp_path) as store:  # and it is all on disk
        again = Table(store)
        assert again.resume() and again.session.record.events[:len(acknowledged)] == acknowledged


def test_the_host_panel_is_told_the_disk_is_full_not_that_something_went_wrong(tmp_path):
    with SqliteStore.in_dir(tmp_path) as store:
        app, table = make_app(Table(store))
        client = app.test_client()
        headers = login(client)
        table.start_game("toy", ["Ann", "Ben"], {"turns": 1000})
        for _ in range(400):  # the presses fill the disk; the dice are read with room
            _fill(store)
            response = client.post("/host/press", data={"seat": "0", "button": "green"}, headers=headers)
            if response.status_code == 200:
                response = client.post("/host/press", data={"seat": "1", "button": "yellow"}, headers=headers)
            if response.status_code != 200:
                break
            _room(store)
            table.offer_reading(OfferedReading(["red"]))
        assert response.status_code == 507, response.get_data(as_text=True)
        error = response.get_json()["error"]
        assert error.startswith("the SD card is full") and "something went wrong" not in error
        state = client.get("/host/state", headers=headers).get_json()
        assert state["devices"]["store"]["status"] == "full"
        assert client.get("/api/state").get_json()["devices"]["store"]["status"] == "full"
        _room(store)
        seat = "0" if table.session.record.events[-1].kind != "chip_call" else "1"
        button = "green" if seat == "0" else "yellow"
        assert client.post("/host/press", data={"seat": seat, "button": button}, headers=headers).status_code == 200
        assert client.get("/api/state").get_json()["devices"]["store"]["status"] == "ok"


def test_dice_the_camera_reads_onto_a_full_disk_are_held_for_the_host_not_lost(tmp_path):
    """The camera loop is not the place for StoreFull: the reading waits, saying why."""
    with DiskFillsUp(tmp_path / "games.sqlite3") as store:
        table = Table(store)
        game = table.start_game("toy", ["Ann", "Ben"], {"turns": 3})
        table.press(0, "green")
        table.press(1, "yellow")
        store.room = 0  # the next event finds the disk full
        assert table.offer_reading(OfferedReading(["red"])) == "held"
        held = table.host_view()["held_reading"]
        assert "the sd card is full" in held["reason"].lower()
        assert table.snapshot()["devices"]["store"]["status"] == "full"
        with pytest.raises(StoreFull):
            table.confirm_reading(["red"])
        store.room = 1_000_000
        table.confirm_reading(["red"])  # the host's one tap, once there is room
        assert store.load(game).events[-1] == table.session.record.events[-1]
        assert table.snapshot()["devices"]["store"]["status"] == "ok"


@pytest.fixture
def tiny_disk(tmp_path):
    """A 1.2 MB filesystem (tmpfs), as a full SD card; skipped where mounting is not allowed."""
    where = tmp_path / "sd"
    where.mkdir()
    if os.geteuid() != 0 or shutil.which("mount") is None:
        pytest.skip("mounting a small filesystem needs root")
    made = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1200k", "tmpfs", str(where)], capture_output=True)
    if made.returncode != 0:
        pytest.skip(f"cannot mount a small filesystem here: {made.stderr.decode().strip()}")
    yield where
    subprocess.run(["umount", "-l", str(where)], check=False)


def test_on_a_real_full_filesystem_the_table_says_so_and_goes_on_once_there_is_room(tiny_disk):
    ballast = tiny_disk / "ballast"
    with SqliteStore.in_dir(tiny_disk) as store:
        table = Table(store)
        game = table.start_game("toy", ["Ann", "Ben"], {"turns": 100000})
        _turn(table)
        free = shutil.disk_usage(tiny_disk).free
        ballast.write_bytes(b"\0" * max(0, free - 8192))  # the card all but full
        full = _play_until_full(table, limit=5000)
        assert "the SD card is full" in str(full)
        assert table.snapshot()["devices"]["store"]["status"] == "full"
        acknowledged = table.session.record.events
        assert store.load(game).events == acknowledged
        ballast.unlink()  # space is back
        _turn(table)
        assert table.snapshot()["devices"]["store"]["status"] == "ok"
    with SqliteStore.in_dir(tiny_disk) as store:
        assert store.load(game).events[:len(acknowledged)] == acknowledged

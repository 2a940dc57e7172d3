"""Meetup mode end to end: a real Mosquitto, three `companion serve` tables and one
`companion leaderboard`, all on 127.0.0.1. Every game played appears on the leaderboard
once, through a broker restart and a table killed with SIGKILL; a table cannot publish
under another's name; and no chip colour reaches any topic before its reveal."""

from __future__ import annotations

import json
import os
import re
import sqlite3
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

import pytest
from meetup_broker import Mosquitto, needs_mosquitto
from test_crash_recovery import PIN, Companion, send

from companion.meetup import game_message, game_topic
from companion.simulate import simulate

pytestmark = [pytest.mark.slow, needs_mosquitto]

PLAYERS = ["Ann", "Ben", "Cara"]
TABLES = ("table-1", "table-2", "table-3")
USERS = {"leaderboard": "pw-board", "spy": "pw-spy", "spy-2": "pw-spy-2", **{t: f"pw-{t}" for t in TABLES}}


class Leaderboard:
    """One `companion leaderboard --port 0` process."""

    def __init__(self, config: Path, data_dir: Path):
        self.data_dir = data_dir
        self.process = subprocess.Popen(
            [sys.executable, "-m", "companion", "leaderboard", "--config", str(config), "--data-dir", str(data_dir),
             "--port", "0", "--host", "127.0.0.1"],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env={**os.environ, "PYTHONUNBUFFERED": "1"})
        self.output: list[str] = []
        for line in self.process.stdout:
            self.output.append(line)
            found = re.match(r"Leaderboard: http://[\d.]+:(\d+)/", line)
            if found:
                self.port = int(found.group(1))
                break
        else:
            raise AssertionError("companion leaderboard did not start:\n" + "".join(self.output))
        threading.Thread(target=lambda: self.output.extend(self.process.stdout), daemon=True).start()

    def view(self) -> dict:
        with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/api/leaderboard", timeout=5) as response:
            return json.loads(response.read())

    def game_ids(self) -> list[tuple[str, str]]:
        with sqlite3.connect(f"file:{self.data_dir / 'leaderboard.sqlite3'}?mode=ro", uri=True) as db:
            return db.execute("SELECT table_name, id FROM games ORDER BY table_name, id").fetchall()

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(10)


def wait_until(check, seconds: float = 15.0, what: str = "the leaderboard to catch up"):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


def table_config(folder: Path, table: str, port: int) -> Path:
    path = folder / f"{table}.toml"
    path.write_text(
        f'[host]\npin = "{PIN}"\n[web]\nhost = "127.0.0.1"\nthreads = 8\n[camera]\nsource = "none"\n'
        f'[gpio]\npin_factory = "mock"\n[table]\nname = "Table {table[-1]}"\n'
        f'[meetup]\nenabled = true\nbroker = "127.0.0.1"\nport = {port}\ntable = "{table}"\n'
        f'password = "{USERS[table]}"\n', encoding="utf-8")
    return path


def leaderboard_config(folder: Path, port: int) -> Path:
    path = folder / "leaderboard.toml"
    path.write_text(f'[broker]\nhost = "127.0.0.1"\nport = {port}\nusername = "leaderboard"\n'
                    f'password = "{USERS["leaderboard"]}"\n[leaderboard]\ntitle = "Friday"\n'
                    f'tables = {json.dumps(list(TABLES))}\n', encoding="utf-8")
    return path


def play(table: Companion, seed: int) -> str:
    """A whole game of Gyvahrs through the host panel; its local id."""
    game_id = table.request("/host/start", {"game": "gyvahrs", "players": PLAYERS})["game_id"]
    for event in simulate("gyvahrs", PLAYERS, seed=seed).record.events:
        send(table, event)
    assert table.slate()["finished"]
    return str(game_id)


def leaderboard_status(table: Companion) -> str:
    return json.loads(table.get("/host/state"))["devices"]["leaderboard"]["status"]


@pytest.fixture
def evening(tmp_path):
    broker = Mosquitto(tmp_path / "broker", USERS).start()
    started: list = []
    yield broker, started
    for part in reversed(started):
        try:
            part.stop() if isinstance(part, Leaderboard) else part.terminate()
        except Exception:
            pass
    broker.stop()


def test_every_game_arrives_once_through_a_broker_restart_and_a_sigkill(tmp_path, evening):
    broker, started = evening
    board = Leaderboard(leaderboard_config(tmp_path, broker.port), tmp_path / "board")
    started.append(board)
    tables = {}
    for name in TABLES:
        tables[name] = Companion(table_config(tmp_path, name, broker.port), tmp_path / name)
        started.append(tables[name])
    wait_until(lambda: all(t["online"] for t in board.view()["tables"]), what="every table online")

    expected = {(name, play(tables[name], seed)) for seed, name in enumerate(TABLES)}
    wait_until(lambda: board.view()["games"] == 3)

    assert leaderboard_status(tables["table-1"]) == "connected"  # as the host panel shows it
    broker.stop()  # mid-evening: the broker goes away
    wait_until(lambda: leaderboard_status(tables["table-1"]) == "offline", what="the host panel to say offline")
    expected |= {(name, play(tables[name], 10 + n)) for n, name in enumerate(TABLES[:2])}
    expected.add(("table-3", play(tables["table-3"], 20)))
    tables["table-3"].kill()  # its last game finished, never sent: only in its database
    started.remove(tables["table-3"])
    tables["table-3"] = Companion(table_config(tmp_path, "table-3", broker.port), tmp_path / "table-3")
    started.append(tables["table-3"])
    broker.start()

    view = wait_until(lambda: (v := board.view())["games"] >= 6 and v)
    time.sleep(1.0)  # anything doubled would have arrived by now
    view = board.view()
    assert view["games"] == 6
    assert {tile["table"]: tile["games"] for tile in view["tables"]} == {name: 2 for name in TABLES}
    arrived = board.game_ids()
    assert len(arrived) == 6 and {(t, i.split("-")[0]) for t, i in arrived} == expected
    assert sum(row["games"] for row in view["overall"]) == 6 * len(PLAYERS)
    assert sum(row["wins"] for row in view["overall"]) == 6  # every Gyvahrs game has a winner
    assert all(tile["online"] for tile in view["tables"])
    assert "Leaderboard" in urllib.request.urlopen(f"http://127.0.0.1:{board.port}/").read().decode()

    # A table that goes away is shown offline, and the same game sent again is not counted again.
    tables["table-2"].kill()
    started.remove(tables["table-2"])
    tile = wait_until(lambda: [t for t in board.view()["tables"] if t["table"] == "table-2" and not t["online"]],
                      what="table-2 offline")[0]
    assert tile["since"] is not None
    from companion.store import SqliteStore
    from meetup_clients import publisher

    with SqliteStore.in_dir(tmp_path / "table-1") as store:
        record = store.load("1")
    game_id, payload = game_message("table-1", "1", record)
    again = publisher(broker.port, "table-1", USERS["table-1"])
    again.publish(game_topic("table-1", game_id), payload, qos=1).wait_for_publish(5)
    again.disconnect()
    time.sleep(0.5)
    assert board.view()["games"] == 6
    assert not any("refused" in line for line in board.output), "".join(board.output)

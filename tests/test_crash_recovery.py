"""Never lose a game: a real `companion serve` process, played over HTTP, killed with
SIGKILL at several points and restarted, keeps every acknowledged event and its slate."""

from __future__ import annotations

import http.cookiejar
import json
import re
import signal
import threading
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from serving import ServeProcess

from companion.rules import ChipCall, DiceObserved
from companion.simulate import simulate
from companion.store import SqliteStore

pytestmark = pytest.mark.slow

PIN = "135790"
PLAYERS = ["Ann", "Ben", "Cara"]


class Companion(ServeProcess):
    """One `companion serve` process and a logged-in host session against it."""

    def __init__(self, config: Path, data_dir: Path):
        super().__init__(config, data_dir, start_seconds=15)
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))
        self.csrf = self._login()

    def _login(self) -> str:
        page = self.get("/host").decode()
        token = re.search(r'name="csrf_token" value="([^"]+)"', page).group(1)
        self.request("/host/login", {"pin": PIN}, token)
        page = self.get("/host").decode()
        return re.search(r'data-csrf="([^"]+)"', page).group(1)

    def get(self, path: str) -> bytes:
        with self.opener.open(f"http://127.0.0.1:{self.port}{path}", timeout=10) as response:
            return response.read()

    def request(self, path: str, body: dict, token: str | None = None) -> dict:
        data = json.dumps(body).encode()
        req = urllib.request.Request(f"http://127.0.0.1:{self.port}{path}", data=data, method="POST",
                                     headers={"Content-Type": "application/json", "X-CSRF-Token": token or self.csrf})
        with self.opener.open(req, timeout=10) as response:
            return json.loads(response.read())

    def slate(self) -> dict:
        return json.loads(self.get("/api/state"))["slate"]

    def kill(self) -> None:
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(10)
        self._drainer.join(10)

    def terminate(self) -> int:
        """SIGTERM; the exit code, once all the process printed is in `output` (the thread
        reading it may lag behind the exit)."""
        self.process.send_signal(signal.SIGTERM)
        code = self.process.wait(10)
        self._drainer.join(10)
        assert not self._drainer.is_alive(), "the process's output did not end with it"
        return code


def send(companion: Companion, event) -> None:
    """One table action the way the host panel sends it; returns once acknowledged (200)."""
    if isinstance(event, ChipCall):
        companion.request("/host/press", {"seat": event.seat, "button": event.chip})
    elif isinstance(event, DiceObserved):
        companion.request("/host/dice", {"values": list(event.values)})
    else:
        companion.request("/host/event", event.to_dict())


def same_action(stored, sent) -> bool:
    """The stored event is the one sent (dice typed in carry source "host")."""
    if isinstance(sent, DiceObserved):
        return isinstance(stored, DiceObserved) and stored.values == sent.values
    return stored == sent


@pytest.fixture
def setup(tmp_path):
    config = tmp_path / "config.toml"
    config.write_text(f'[host]\npin = "{PIN}"\n[web]\nhost = "127.0.0.1"\nthreads = 8\n'
                      '[camera]\nsource = "none"\n[gpio]\npin_factory = "mock"\n', encoding="utf-8")
    return config, tmp_path / "data"


def test_every_acknowledged_event_survives_sigkill_and_the_slate_comes_back(setup):
    config, data_dir = setup
    plan = list(simulate("tregald", PLAYERS, seed=11).record.events)
    acked: list = []
    companion = Companion(config, data_dir)
    companion.request("/host/start", {"game": "tregald", "players": PLAYERS})
    for kill_after in (2, 5, 9):  # mid-calls (a secret pending), just after a reveal, mid next round
        while len(acked) < kill_after:
            send(companion, plan[len(acked)])
            acked.append(plan[len(acked)])
        slate_before = companion.slate()
        companion.kill()
        companion = Companion(config, data_dir)
        assert companion.slate() == slate_before
        game = json.loads(companion.get("/api/games/1"))
        assert len(game["record"]["events"]) == len(acked)

    # A kill while requests are in flight: everything acknowledged is kept; the one
    # in flight is either wholly there or wholly absent, never half.
    stop_at = len(plan) - 1  # the game must still be unfinished
    kill_now = threading.Event()

    def hammer():
        try:
            while len(acked) < stop_at:
                send(companion, plan[len(acked)])
                acked.append(plan[len(acked)])
                if len(acked) >= 14:
                    kill_now.set()  # and keep sending: the kill lands mid-request
        except (urllib.error.URLError, ConnectionError, OSError):
            pass

    worker = threading.Thread(target=hammer)
    worker.start()
    assert kill_now.wait(10)
    companion.kill()
    worker.join(10)
    assert len(acked) < stop_at, "the game moved too fast to be killed mid-burst"
    companion = Companion(config, data_dir)
    stored = json.loads(companion.get("/api/state"))
    assert stored["game_id"] == "1"
    final = companion.terminate()
    assert final == 0, "".join(companion.output)

    with SqliteStore.in_dir(data_dir) as store:
        [(game_id, record)] = store.unfinished()
    events = record.events
    assert len(acked) <= len(events) <= len(acked) + 1
    assert all(same_action(s, a) for s, a in zip(events, acked))
    if len(events) > len(acked):
        assert same_action(events[-1], plan[len(acked)])


def test_sigterm_stops_cleanly_and_the_game_resumes(setup):
    config, data_dir = setup
    companion = Companion(config, data_dir)
    companion.request("/host/start", {"game": "val-des", "players": PLAYERS})
    slate = companion.slate()
    assert companion.terminate() == 0
    assert any("stopped" in line for line in companion.output)
    again = Companion(config, data_dir)
    try:
        assert again.slate() == slate
    finally:
        again.terminate()

"""Issue 24: the service tells systemd it is ready and alive (sd_notify), and stops
pinging the watchdog when the camera loop or the web server is stuck."""

from __future__ import annotations

import logging
import os
import socket
import sys
import threading
import time
import types
from types import SimpleNamespace

import pytest

from companion.appliance import watchdog
from companion.appliance.config import parse_config
from companion.appliance.service import TableService
from companion.appliance.watchdog import Watchdog, notify, ping_interval, turned_lately


@pytest.fixture
def systemd(tmp_path):
    """A datagram socket where systemd would listen; `received()` drains it."""
    path = tmp_path / "notify"
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(str(path))
    sock.settimeout(5)

    def received(until: str | None = None, timeout: float = 5.0) -> list[str]:
        messages, deadline = [], time.monotonic() + timeout
        while time.monotonic() < deadline:
            sock.settimeout(max(deadline - time.monotonic(), 0.01) if until else 0.01)
            try:
                messages.append(sock.recv(4096).decode())
            except (TimeoutError, BlockingIOError, socket.timeout):
                break
            if until and until in messages:
                break
        return messages

    yield SimpleNamespace(path=str(path), received=received)
    sock.close()


def test_notify_sends_one_datagram_to_the_socket_systemd_names(systemd):
    assert notify("READY=1", {"NOTIFY_SOCKET": systemd.path})
    assert systemd.received() == ["READY=1"]


def test_notify_reaches_an_abstract_socket_written_with_an_at_sign():
    name = f"companion-test-{os.getpid()}"
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
        sock.bind("\0" + name)
        assert notify("WATCHDOG=1", {"NOTIFY_SOCKET": "@" + name})
        assert sock.recv(64) == b"WATCHDOG=1"


def test_without_systemd_notify_is_a_no_op_and_a_dead_socket_only_warns(tmp_path, caplog):
    assert notify("READY=1", {}) is False
    assert notify("READY=1", {"NOTIFY_SOCKET": str(tmp_path / "gone")}) is False


def test_ping_interval_is_a_third_of_watchdog_sec_for_this_process_only():
    assert ping_interval({"WATCHDOG_USEC": "60000000"}) == 20.0
    assert ping_interval({"WATCHDOG_USEC": "60000000", "WATCHDOG_PID": str(os.getpid())}) == 20.0
    assert ping_interval({"WATCHDOG_USEC": "60000000", "WATCHDOG_PID": "1"}) is None
    assert ping_interval({}) is None


def test_pings_only_while_every_check_passes_and_says_once_what_is_stuck(caplog):
    sent, loop_ok = [], [True]
    dog = Watchdog({"the camera loop": lambda: loop_ok[0], "the web server": lambda: True}, 1.0,
                   send=lambda m: sent.append(m) or True)
    assert dog.check_once() and sent == ["WATCHDOG=1"]
    loop_ok[0] = False
    with caplog.at_level(logging.ERROR, "companion.watchdog"):
        assert not dog.check_once() and not dog.check_once()
    assert sent == ["WATCHDOG=1"]
    assert [r.getMessage() for r in caplog.records].count(
        "the camera loop stuck: not pinging systemd's watchdog (it restarts the service)") == 1
    loop_ok[0] = True
    assert dog.check_once() and sent == ["WATCHDOG=1"] * 2


def test_a_check_that_raises_counts_as_stuck():
    dog = Watchdog({"the web server": lambda: 1 / 0}, 1.0, send=lambda m: True)
    assert not dog.check_once() and dog.stuck == ["the web server"]


def test_turned_lately_follows_the_last_turn():
    now = [100.0]
    check = turned_lately(lambda: 95.0, stuck_after=30.0, clock=lambda: now[0])
    assert check()
    now[0] = 126.0
    assert not check()


def test_the_service_says_ready_pings_while_alive_and_stops_when_the_camera_loop_is_stuck(
        tmp_path, systemd, monkeypatch):
    monkeypatch.setenv("NOTIFY_SOCKET", systemd.path)
    monkeypatch.setenv("WATCHDOG_USEC", "300000")  # a ping every 0.1 s
    monkeypatch.delenv("WATCHDOG_PID", raising=False)
    config = parse_config({"web": {"host": "127.0.0.1"}})
    service = TableService(config, tmp_path / "data", port=0, open_camera=lambda: None, make_reader=lambda: None)
    hung = threading.Event()
    service.start()
    try:
        assert "READY=1" in systemd.received(until="READY=1")
        assert "WATCHDOG=1" in systemd.received(until="WATCHDOG=1")
        monkeypatch.setattr(service.desk, "turn", lambda: hung.wait(30) and 0.1)  # the loop hangs
        time.sleep(0.5)  # past the turn under way
        service.desk.turned_at = time.monotonic() - 3600  # as if 30 s had passed since
        systemd.received(timeout=0.3)  # pings sent before
        assert "WATCHDOG=1" not in systemd.received(timeout=0.5)
    finally:
        hung.set()
        service.stop()
    assert "STOPPING=1" in systemd.received(until="STOPPING=1")


def test_the_http_check_fails_when_nothing_answers():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    assert not watchdog.http_answers(f"http://127.0.0.1:{port}/api/state", timeout=1)()


def test_own_url_reaches_the_server_on_loopback_or_its_own_address():
    assert watchdog.own_url("0.0.0.0", 8000, "/api/state") == "http://127.0.0.1:8000/api/state"
    assert watchdog.own_url("::", 8000, "/x") == "http://[::1]:8000/x"
    assert watchdog.own_url("192.168.1.7", 80, "/") == "http://192.168.1.7:80/"


def _fake_python3_systemd(monkeypatch, answer=True):
    """A stand-in for python3-systemd's `systemd.daemon`; returns the messages it was given."""
    sent = []
    daemon = types.ModuleType("systemd.daemon")
    daemon.notify = lambda message, *args, **kwargs: sent.append(message) or answer
    package = types.ModuleType("systemd")
    package.daemon = daemon
    monkeypatch.setitem(sys.modules, "systemd", package)
    monkeypatch.setitem(sys.modules, "systemd.daemon", daemon)
    return sent


def test_python3_systemd_sends_the_message_when_it_can_be_imported(systemd, monkeypatch):
    sent = _fake_python3_systemd(monkeypatch)
    monkeypatch.setenv("NOTIFY_SOCKET", systemd.path)
    assert notify("READY=1")
    assert sent == ["READY=1"] and systemd.received() == []  # the library, not the socket code
    monkeypatch.delenv("NOTIFY_SOCKET")
    assert notify("WATCHDOG=1") is False and sent == ["READY=1"]  # not under systemd: nothing


def test_without_python3_systemd_the_socket_code_sends_it(systemd, monkeypatch):
    monkeypatch.setitem(sys.modules, "systemd", None)  # `from systemd import daemon` fails
    monkeypatch.setenv("NOTIFY_SOCKET", systemd.path)
    assert notify("READY=1")
    assert systemd.received() == ["READY=1"]


def test_a_failing_python3_systemd_falls_back_to_the_socket(systemd, monkeypatch):
    sent = _fake_python3_systemd(monkeypatch)
    sys.modules["systemd.daemon"].notify = lambda message: (_ for _ in ()).throw(OSError("broken"))
    monkeypatch.setenv("NOTIFY_SOCKET", systemd.path)
    assert notify("STOPPING=1")
    assert systemd.received() == ["STOPPING=1"] and sent == []

"""The kiosk scripts: Chromium's flags and crash bookkeeping, waiting for the slate, the
autostart hand-over to the user unit. Stand-ins for chromium, wtype and systemctl record
how they were called; the slate is a real local HTTP server.
"""

from __future__ import annotations

import http.server
import json
import os
import re
import shutil
import socket
import subprocess
import threading
import time
from pathlib import Path

import pytest

SYSTEMD = Path(__file__).resolve().parent.parent / "systemd"
BROWSER = SYSTEMD / "game-companion-kiosk-browser"
WAIT = SYSTEMD / "game-companion-wait-for-slate"
SESSION = SYSTEMD / "game-companion-kiosk-session"
SH = shutil.which("sh") or "/bin/sh"


def recorder(folder: Path, name: str, log: Path) -> None:
    """A command that writes each of its arguments on its own line to `log`."""
    script = folder / name
    script.write_text(f'#!/bin/sh\nfor a in "$@"; do echo "$a"; done >> "{log}"\n')
    script.chmod(0o755)


def tool_path(folder: Path, *names: str) -> str:
    """A PATH holding only `folder` plus links to the named system tools."""
    for name in names:
        (folder / name).symlink_to(shutil.which(name))
    return str(folder)


@pytest.fixture
def kiosk_home(tmp_path) -> dict[str, str]:
    home = tmp_path / "home"
    home.mkdir()
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    recorder(bin_dir, "chromium", tmp_path / "chromium.args")
    path = tool_path(bin_dir, "mkdir", "sed", "sleep")
    return {"HOME": str(home), "PATH": path}


def run_browser(env: dict[str, str], **extra: str) -> subprocess.CompletedProcess:
    return subprocess.run([SH, str(BROWSER)], env={**env, **extra}, capture_output=True, text=True, timeout=10)


def test_browser_opens_the_slate_in_kiosk_mode_without_pop_ups(kiosk_home, tmp_path):
    result = run_browser(kiosk_home, WAYLAND_DISPLAY="wayland-0")
    assert result.returncode == 0, result.stderr
    args = (tmp_path / "chromium.args").read_text().splitlines()
    for flag in ("--kiosk", "--noerrdialogs", "--disable-infobars", "--disable-session-crashed-bubble",
                 "--no-first-run", "--password-store=basic", "--ozone-platform=wayland"):
        assert flag in args
    assert args[-1] == "http://localhost:8000/"
    profile = Path(kiosk_home["HOME"]) / ".local/state/game-companion/kiosk-chromium"
    assert f"--user-data-dir={profile}" in args


def test_browser_goes_to_the_configured_url_and_stays_on_x11_without_wayland(kiosk_home, tmp_path):
    run_browser(kiosk_home, GAME_COMPANION_URL="http://localhost:8123/")
    args = (tmp_path / "chromium.args").read_text().splitlines()
    assert args[-1] == "http://localhost:8123/"
    assert not any(a.startswith("--ozone-platform") for a in args)


def test_no_restore_pages_bubble_after_a_power_cut(kiosk_home):
    prefs = Path(kiosk_home["HOME"]) / ".local/state/game-companion/kiosk-chromium/Default/Preferences"
    prefs.parent.mkdir(parents=True)
    prefs.write_text(json.dumps({"profile": {"exit_type": "Crashed", "exited_cleanly": False, "name": "kiosk"}}))
    assert run_browser(kiosk_home).returncode == 0
    profile = json.loads(prefs.read_text())["profile"]
    assert profile == {"exit_type": "Normal", "exited_cleanly": True, "name": "kiosk"}


def test_missing_chromium_is_a_clear_error(tmp_path):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    env = {"HOME": str(tmp_path), "PATH": tool_path(bin_dir, "mkdir", "sed", "sleep")}
    result = run_browser(env)
    assert result.returncode == 1
    assert "Chromium is not installed" in result.stderr


def test_pointer_is_hidden_on_labwc_with_the_key_the_installer_binds(kiosk_home, tmp_path):
    wtype_log = tmp_path / "wtype.args"
    recorder(Path(kiosk_home["PATH"]), "wtype", wtype_log)
    run_browser(kiosk_home, LABWC_PID="1234", GAME_COMPANION_POINTER_DELAY="0")
    deadline = time.monotonic() + 5  # wtype runs in the background: wait for all its arguments
    while len(wtype_log.read_text().split() if wtype_log.exists() else []) < 10 and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(0.1)  # and for any it should not have been given
    args = wtype_log.read_text().split()
    assert args == ["-M", "logo", "-M", "alt", "-k", "F12", "-m", "alt", "-m", "logo"]
    key = re.search(r'keybind key="([^"]+)"', (SYSTEMD / "labwc-rc.xml").read_text()).group(1)
    assert key == "W-A-F12"  # W = logo (Super), A = alt: the chord wtype presses


def test_pointer_is_left_alone_outside_labwc(kiosk_home, tmp_path):
    recorder(Path(kiosk_home["PATH"]), "wtype", tmp_path / "wtype.args")
    run_browser(kiosk_home, GAME_COMPANION_POINTER_DELAY="0")
    time.sleep(0.3)
    assert not (tmp_path / "wtype.args").exists()


class _Slate(http.server.BaseHTTPRequestHandler):
    def do_GET(self):  # noqa: N802 (http.server's naming)
        self.send_response(200)
        self.end_headers()
        self.wfile.write(b"slate")

    def log_message(self, *args):
        pass


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def serve_slate(port: int, after: float = 0.0) -> http.server.HTTPServer:
    if after:
        time.sleep(after)
    server = http.server.HTTPServer(("127.0.0.1", port), _Slate)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def wait(url: str, timeout: str) -> subprocess.CompletedProcess:
    return subprocess.run([SH, str(WAIT), url, timeout], capture_output=True, text=True, timeout=20)


def test_wait_returns_once_the_slate_answers(tmp_path):
    port = free_port()
    starter = threading.Thread(target=lambda: servers.append(serve_slate(port, after=0.5)))
    servers: list[http.server.HTTPServer] = []
    starter.start()
    began = time.monotonic()
    try:
        result = wait(f"http://127.0.0.1:{port}/", "10")
    finally:
        starter.join()
        servers[0].shutdown()
    assert result.returncode == 0, result.stderr
    assert "slate answers" in result.stdout
    assert time.monotonic() - began >= 0.4


def test_wait_gives_up_after_its_timeout_naming_the_url():
    port = free_port()
    began = time.monotonic()
    result = wait(f"http://127.0.0.1:{port}/", "1")
    assert result.returncode == 1
    assert f"no answer from http://127.0.0.1:{port}/ after 1s" in result.stderr
    assert 0.9 <= time.monotonic() - began < 8


def test_wait_refuses_a_timeout_that_is_not_seconds():
    result = wait("http://127.0.0.1:9/", "soon")
    assert result.returncode == 2
    assert "whole seconds" in result.stderr


def test_autostart_hands_the_display_to_the_user_manager_then_starts_the_kiosk(tmp_path):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    log = tmp_path / "systemctl.log"
    (bin_dir / "systemctl").write_text(f'#!/bin/sh\necho "$*" >> "{log}"\n')
    (bin_dir / "systemctl").chmod(0o755)
    env = {"PATH": f"{bin_dir}:{os.environ['PATH']}", "WAYLAND_DISPLAY": "wayland-0"}
    result = subprocess.run([SH, str(SESSION)], env=env, capture_output=True, text=True, timeout=10)
    assert result.returncode == 0
    calls = log.read_text().splitlines()
    assert calls[0].startswith("--user import-environment WAYLAND_DISPLAY")
    assert calls[1] == "--user --no-block start game-companion-kiosk.service"

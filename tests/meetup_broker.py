"""A real Mosquitto broker for the meetup tests: its own port on 127.0.0.1, its own
config, password file and ACL in a temporary folder (as scripts/install-pi.sh sets one up)."""

from __future__ import annotations

import getpass
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path

import pytest

MOSQUITTO = shutil.which("mosquitto") or ("/usr/sbin/mosquitto" if Path("/usr/sbin/mosquitto").exists() else None)
PASSWD = shutil.which("mosquitto_passwd")

needs_mosquitto = pytest.mark.skipif(
    MOSQUITTO is None or PASSWD is None,
    reason="the meetup tests need Debian's mosquitto (broker and mosquitto_passwd); .ci/run installs it")

REPO = Path(__file__).resolve().parent.parent
#: The ACL the installer writes (a table writes only under its own name, its user name),
#: and a spy for the tests that reads every topic.
ACL = (REPO / "systemd" / "mosquitto-game-companion.acl").read_text(encoding="utf-8") + "\nuser spy\ntopic read #\n"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Mosquitto:
    """One broker process; `stop()` and `start()` again keep its port and its saved sessions."""

    def __init__(self, folder: Path, users: dict[str, str]):
        self.folder = folder
        self.folder.mkdir(parents=True, exist_ok=True)
        self.port = free_port()
        passwords = folder / "passwords"
        for n, (user, password) in enumerate(users.items()):
            subprocess.run([PASSWD, "-b", *(["-c"] if n == 0 else []), str(passwords), user, password],
                           check=True, capture_output=True)
        (folder / "acl").write_text(ACL, encoding="utf-8")
        self.config = folder / "mosquitto.conf"
        self.config.write_text(
            f"user {getpass.getuser()}\n"  # run as root (CI), mosquitto would switch to a user who cannot read here
            f"listener {self.port} 127.0.0.1\nallow_anonymous false\npassword_file {passwords}\n"
            f"acl_file {folder / 'acl'}\npersistence true\npersistence_location {folder}/\n"
            "max_packet_size 1048576\nmax_queued_messages 10000\nlog_dest stderr\nlog_type error\nlog_type warning\n", encoding="utf-8")
        self.process: subprocess.Popen | None = None

    def start(self) -> "Mosquitto":
        self.process = subprocess.Popen([MOSQUITTO, "-c", str(self.config)], stdout=subprocess.DEVNULL,
                                        stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.2).close()
                return self
            except OSError:
                if self.process.poll() is not None:
                    raise AssertionError("mosquitto did not start: " + self.process.stderr.read())
                time.sleep(0.05)
        raise AssertionError("mosquitto did not open its port")

    def stop(self) -> None:
        """SIGTERM: the broker saves its sessions (persistence) and exits."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            self.process.wait(10)
        self.process = None

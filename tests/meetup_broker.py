"""A real Mosquitto broker for the meetup tests: its own port on 127.0.0.1, and the
installer's own config (systemd/mosquitto-game-companion.conf) and ACL, with only the
listener, the files' paths and the logging changed, all in a temporary folder."""

from __future__ import annotations

import getpass
import os
import re
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path

import pytest

MOSQUITTO = shutil.which("mosquitto") or ("/usr/sbin/mosquitto" if Path("/usr/sbin/mosquitto").exists() else None)
PASSWD = shutil.which("mosquitto_passwd")
MISSING = "the meetup tests need Debian's mosquitto (broker and mosquitto_passwd); .ci/run installs it"

#: Skipped on a machine without mosquitto, except under CI (which installs it): there every
#: test that needs it fails instead, as the browser and HTTPS tests do.
needs_mosquitto = pytest.mark.skipif((MOSQUITTO is None or PASSWD is None) and not os.environ.get("CI"),
                                     reason=MISSING)

REPO = Path(__file__).resolve().parent.parent
#: The ACL the installer writes (a table writes only under its own name, its user name),
#: and spies for the tests that read every topic.
ACL = (REPO / "systemd" / "mosquitto-game-companion.acl").read_text(encoding="utf-8") + \
    "\nuser spy\ntopic read #\nuser spy-2\ntopic read #\n"
INSTALLED_CONF = REPO / "systemd" / "mosquitto-game-companion.conf"
#: The installer's lines this broker replaces: each must be there (else the test would not run what is installed).
REPLACED = ("listener", "password_file", "acl_file")


def installed_config(port: int, folder: Path, passwords: Path, acl: Path) -> str:
    """The installer's config, listening on 127.0.0.1:`port` with the files in `folder`."""
    lines = [line for line in INSTALLED_CONF.read_text(encoding="utf-8").splitlines()
             if line.strip() and not line.lstrip().startswith("#")]
    keys = [line.split()[0] for line in lines]
    missing = [key for key in REPLACED if keys.count(key) != 1]
    assert not missing, f"{INSTALLED_CONF} should have one line each of {missing}"
    replaced = {"listener": f"listener {port} 127.0.0.1", "password_file": f"password_file {passwords}",
                "acl_file": f"acl_file {acl}"}
    body = [replaced.get(key, line) for key, line in zip(keys, lines)]
    assert not any(re.match(r"(persistence_location|user|log_dest)\s", line) for line in body)
    return "\n".join([
        f"user {getpass.getuser()}",  # as root (CI) mosquitto would switch to a user who cannot read here
        *body, f"persistence_location {folder}/", "log_dest stderr", "log_type error", "log_type warning", ""])


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Mosquitto:
    """One broker process; `stop()` and `start()` again keep its port and its saved sessions."""

    def __init__(self, folder: Path, users: dict[str, str]):
        if MOSQUITTO is None or PASSWD is None:
            pytest.fail(MISSING + "; CI is set, so this is a failure, not a skip")
        self.folder = folder
        self.folder.mkdir(parents=True, exist_ok=True)
        self.port = free_port()
        passwords = folder / "passwords"
        for n, (user, password) in enumerate(users.items()):
            subprocess.run([PASSWD, "-b", *(["-c"] if n == 0 else []), str(passwords), user, password],
                           check=True, capture_output=True)
        (folder / "acl").write_text(ACL, encoding="utf-8")
        self.config = folder / "mosquitto.conf"
        self.config.write_text(installed_config(self.port, folder, passwords, folder / "acl"), encoding="utf-8")
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

"""A real `companion serve` process for the tests that need one (crash recovery, venue network)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import threading
import time
from pathlib import Path


class ServeProcess:
    """One `companion serve --port 0` process; the port it took, and all it printed in `output`
    (read by a thread, `_drainer`, which ends when the process's output does)."""

    def __init__(self, config: Path, data_dir: Path, start_seconds: float = 20):
        self.process = subprocess.Popen(
            [sys.executable, "-m", "companion", "serve", "--config", str(config), "--data-dir", str(data_dir),
             "--port", "0"],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )
        self.output: list[str] = []
        self._drainer = threading.Thread(target=self._drain, daemon=True)
        self.port = self._wait_for_port(start_seconds)

    def _wait_for_port(self, seconds: float) -> int:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            line = self.process.stdout.readline()
            if not line:
                break
            self.output.append(line)
            found = re.match(r"(?:Slate|Listening):\s+http://[\d.]+:(\d+)/", line)
            if found:
                self._drainer.start()
                return int(found.group(1))
        self.process.kill()
        raise AssertionError("companion serve did not start:\n" + "".join(self.output))

    def _drain(self) -> None:
        for line in self.process.stdout:
            self.output.append(line)

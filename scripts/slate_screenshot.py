"""Make the README's slate picture: run `companion demo`, play one Tregald turn over the
host panel's HTTP actions, let the demo camera read the reveal, and photograph the slate
in headless Chromium at 1280x800.

    .venv/bin/python scripts/slate_screenshot.py [docs/images/slate.png]

With `--phases FOLDER`, photograph every game with four players in every phase (start,
mid-turn, after a reveal, a held reading, game over), and after a reveal at the full table
(the most seats the game takes, up to twelve) and with 24-character names, at 1280x800 and
800x1280, as the browser test tests/test_browser_slate_fit.py plays them
(tests/slate_phases.py), halved and saved as compressed PNGs for docs/slate.md:

    .venv/bin/python scripts/slate_screenshot.py --phases docs/images/slate
"""

from __future__ import annotations

import http.cookiejar
import json
import re
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run"]


def main(out: Path) -> int:
    with tempfile.TemporaryDirectory() as data:
        demo = subprocess.Popen([sys.executable, "-m", "companion", "demo", "--port", "0", "--data-dir", data],
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        try:
            url = pin = None
            for line in demo.stdout:
                url = url or (re.match(r"Slate:\s+(\S+)", line) or [None, None])[1]
                pin = pin or (re.match(r"Host PIN:\s+(\d+)", line) or [None, None])[1]
                if url and pin:
                    break
            host = Host(url, pin)
            host.post("/host/start", {"game": "tregald", "players": ["Ann", "Ben", "Cara", "Dov"]})
            host.post("/host/event", {"kind": "declaration", "seat": 0, "count": 3, "face": "red"})
            for seat, chip in ((1, "green"), (2, "yellow"), (3, "green")):
                host.post("/host/press", {"seat": seat, "button": chip})
            host.post("/host/reveal", {})
            deadline = time.monotonic() + 10
            while host.state()["prompt"]["phase"] != "declare" and time.monotonic() < deadline:
                time.sleep(0.2)
            shoot(url, out)
        finally:
            demo.terminate()
            demo.wait(10)
    print(f"wrote {out}")
    return 0


class Host:
    def __init__(self, url: str, pin: str):
        self.url = url.rstrip("/")
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))
        token = re.search(r'name="csrf_token" value="([^"]+)"', self.get("/host")).group(1)
        self.post("/host/login", {"pin": pin}, token)
        self.csrf = re.search(r'data-csrf="([^"]+)"', self.get("/host")).group(1)

    def get(self, path: str) -> str:
        with self.opener.open(self.url + path, timeout=10) as response:
            return response.read().decode()

    def post(self, path: str, body: dict, token: str | None = None) -> dict:
        request = urllib.request.Request(self.url + path, data=json.dumps(body).encode(), method="POST",
                                         headers={"Content-Type": "application/json",
                                                  "X-CSRF-Token": token or self.csrf})
        with self.opener.open(request, timeout=20) as response:
            return json.loads(response.read())

    def state(self) -> dict:
        return json.loads(self.get("/api/state"))


def shoot(url: str, out: Path) -> None:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=ARGS)
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        page.goto(url)
        page.wait_for_timeout(1500)
        out.parent.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(out))
        browser.close()


SIZES = {"landscape": (1280, 800), "portrait": (800, 1280)}
SCALE = 0.5  # of the screen: the documented pictures stay small


def phases(folder: Path) -> int:
    """Every game in every phase at both sizes, served in-process as the browser test does."""
    tests = Path(__file__).resolve().parent.parent / "tests"
    sys.path.insert(0, str(tests))
    import cv2
    import numpy as np
    import waitress
    from playwright.sync_api import sync_playwright

    from companion.table import Table
    from slate_phases import GAMES, PHASES, SpikeKey, to_phase
    from web import create_app

    shots = (("four", PHASES), ("twelve", ("reveal",)), ("longest", ("reveal",)))

    folder.mkdir(parents=True, exist_ok=True)
    key = SpikeKey()
    written = 0
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=ARGS)
        page = browser.new_page(viewport={"width": 1280, "height": 800}, reduced_motion="reduce")
        for game in GAMES:
            table = Table()
            table.set_device_status("camera", "ok", "")
            app = create_app(table, {"host_pin": "0000", "title": "Thursday table"}, camera=key)
            server = waitress.create_server(app, host="127.0.0.1", port=0, threads=8)
            threading.Thread(target=server.run, daemon=True).start()
            page.set_viewport_size({"width": 1280, "height": 800})
            page.goto(f"http://127.0.0.1:{server.effective_port}/")
            for roster, phase in [(roster, phase) for roster, phases in shots for phase in phases]:
                to_phase(table, game, phase, roster=roster)
                deadline = time.monotonic() + 10
                while page.evaluate("document.body.dataset.seq") != str(table.seq) or \
                        not page.evaluate("[...document.images].every((i) => i.complete)"):
                    if time.monotonic() > deadline:
                        raise RuntimeError(f"{game} {phase}: the slate did not follow")
                    page.wait_for_timeout(50)
                for label, (width, height) in SIZES.items():
                    page.set_viewport_size({"width": width, "height": height})
                    page.wait_for_timeout(150)
                    shot = cv2.imdecode(np.frombuffer(page.screenshot(), np.uint8), cv2.IMREAD_COLOR)
                    small = cv2.resize(shot, None, fx=SCALE, fy=SCALE, interpolation=cv2.INTER_AREA)
                    name = f"{game}-{roster}-{phase}-{label}.png"
                    cv2.imwrite(str(folder / name), small, [cv2.IMWRITE_PNG_COMPRESSION, 9])
                    written += 1
            page.goto("about:blank")  # the live feed ends before its server does
            server.close()
        browser.close()
    print(f"wrote {written} pictures to {folder}")
    return 0


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--phases":
        sys.exit(phases(Path(sys.argv[2] if len(sys.argv) > 2 else "docs/images/slate")))
    sys.exit(main(Path(sys.argv[1] if len(sys.argv) > 1 else "docs/images/slate.png")))

"""Benchmark the table service (issue 5's bar). Prints figures and writes benchmarks/results/service.txt.

    .venv/bin/python benchmarks/service.py [--presses 200] [--soak-games 200] [--demo-games 10] [--quick]
    .venv/bin/python benchmarks/service.py --only-demo [--demo-games 10]   # part 3 alone

1. Press -> slate: a mock-pin press (gpiozero MockFactory, the same TableButtons as on
   the Pi) until each connected slate has read the server-sent event carrying it; p50
   and p99 with 1 and with 50 connected slates. The service runs in this process (to
   drive the pin); the slates are raw SSE connections in another process, so the
   clients do not compete for this process's interpreter. Both sides use the shared
   CLOCK_MONOTONIC. Every event is fsynced to SQLite before it is published.
2. Start to first served slate: `companion serve` launched until GET / answers 200.
3. Resident memory of `companion demo` after a full game played over HTTP (dice read by
   the demo camera through the reveal flow), and after DEMO_GAMES full games (the five
   games in turn, each throw read by the camera at the Reveal), sampled after each game.
4. Soak: `companion serve` plays SOAK_GAMES simulated games back to back over HTTP (all
   five games in turn) with 20 slates connected; HTTP errors, stream errors, RSS and open
   files are sampled along the way.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import platform
import random
import re
import selectors
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
RESULTS = ROOT / "benchmarks" / "results" / "service.txt"
PIN = "246802"
GAMES = ("tregald", "val-des", "gyvahrs", "leiras-dice", "tricksters-tavern")


# --- slates: raw SSE connections in a separate process ---------------------------------

def slates(port: int, count: int, ready, stop, results) -> None:
    """Hold `count` /events streams; report per stream [(seq, arrival time)], messages, errors, reconnects."""
    selector = selectors.DefaultSelector()
    arrivals: dict[int, list[tuple[int, float]]] = {}
    buffers: dict[socket.socket, bytes] = {}
    stats = {"messages": 0, "errors": 0, "reconnects": 0}

    def connect() -> None:
        # one address per slate, like phones on the venue's Wi-Fi (one address may hold 6 feeds)
        source = f"127.0.{10 + len(arrivals) // 250}.{1 + len(arrivals) % 250}"
        conn = socket.create_connection(("127.0.0.1", port), timeout=10, source_address=(source, 0))
        conn.sendall(b"GET /events HTTP/1.1\r\nHost: bench\r\nAccept: text/event-stream\r\n\r\n")
        conn.setblocking(False)
        buffers[conn] = b""
        selector.register(conn, selectors.EVENT_READ, len(arrivals))
        arrivals[len(arrivals)] = []

    for _ in range(count):
        connect()
    ready.set()
    while not stop.is_set():
        for key, _ in selector.select(0.2):
            conn = key.fileobj
            try:
                data = conn.recv(65536)
            except OSError:
                data = b""
                stats["errors"] += 1
            now = time.monotonic()
            if not data:
                selector.unregister(conn)
                conn.close()
                del buffers[conn]
                if not stop.is_set():
                    stats["reconnects"] += 1
                    connect()
                continue
            buffers[conn] += data
            while b"\n\n" in buffers[conn]:
                block, buffers[conn] = buffers[conn].split(b"\n\n", 1)
                found = re.search(rb"(?m)^id: (\d+)$", block)
                if found:
                    stats["messages"] += 1
                    arrivals[key.data].append((int(found.group(1)), now))
    results.put({"arrivals": arrivals, **stats})


def start_slates(port: int, count: int):
    context = multiprocessing.get_context("spawn")
    ready, stop, results = context.Event(), context.Event(), context.Queue()
    process = context.Process(target=slates, args=(port, count, ready, stop, results), daemon=True)
    process.start()
    if not ready.wait(30):
        raise RuntimeError("the slates did not connect")
    return process, stop, results


def stop_slates(handle) -> dict:
    process, stop, results = handle
    stop.set()
    out = results.get(timeout=60)
    process.join(10)
    return out


# --- 1. press -> slate latency ---------------------------------------------------------

def press_latency(slate_count: int, presses: int) -> dict:
    from gpiozero.pins.mock import MockFactory

    from companion.appliance.config import parse_config
    from companion.appliance.service import TableService

    factory = MockFactory()
    data_dir = tempfile.mkdtemp(prefix="bench-press-")
    config = parse_config({"web": {"host": "127.0.0.1"}, "host": {"pin": PIN}, "camera": {"source": "none"}})
    service = TableService(config, Path(data_dir), port=0, pin_factory=factory)
    service.start()
    deadline = time.monotonic() + 20  # let the camera thread finish loading the reader first
    while service.desk.reader is None and "reader" not in service.table.snapshot()["devices"]:
        if time.monotonic() > deadline:
            break
        time.sleep(0.05)
    table = service.table
    table.start_game("tregald", ["Ann", "Ben", "Cara", "Dov", "Eli", "Fay"])
    rng = random.Random(1)
    table.submit(rng.choice(table.session.game.legal_actions(table.session.state)))  # a declaration
    wiring = config.gpio
    handle = start_slates(service.port, slate_count)
    time.sleep(0.5)
    sent: list[tuple[int, float]] = []
    callers = list(table.session.game.callers(table.session.state))  # every seat but the Tregald's
    ignored = 0
    stored: list[float] = []  # press -> event fsynced and published (seen from this process)
    try:
        for i in range(presses):
            seat = wiring.seats[callers[i % len(callers)]]
            pin = factory.pin(seat.green if (i // len(callers)) % 2 == 0 else seat.yellow)
            before = table.seq
            t0 = time.monotonic()
            pin.drive_low()
            deadline = time.monotonic() + 2
            while table.seq == before and time.monotonic() < deadline:
                time.sleep(0.0002)
            committed = time.monotonic()
            pin.drive_high()
            if table.seq == before:
                ignored += 1  # a press the game did not take: nothing to time
            else:
                sent.append((before + 1, t0))
                stored.append((committed - t0) * 1000)
            time.sleep(0.06)  # past the button's bounce time, and the slates have read it
    finally:
        time.sleep(0.3)
        result = stop_slates(handle)
        service.stop()
        factory.close()
    # A slate that is behind gets the newest state only (each message is the whole
    # state): a press has reached a slate with the first message at or past its seq.
    latencies = []
    missing = 0
    for seq, t0 in sent:
        for stream in result["arrivals"].values():
            t = next((t for s, t in stream if s >= seq), None)
            if t is None:
                missing += 1
            else:
                latencies.append((t - t0) * 1000)
    latencies.sort()
    stored.sort()
    return {
        "stored_p50": _pct(stored, 50), "stored_p99": _pct(stored, 99),
        "slates": slate_count, "presses": len(sent), "ignored": ignored, "missing": missing, "errors": result["errors"],
        "p50": _pct(latencies, 50), "p99": _pct(latencies, 99), "max": latencies[-1] if latencies else float("nan"),
    }


def _pct(values: list[float], p: float) -> float:
    if not values:
        return float("nan")
    k = max(0, min(len(values) - 1, round(p / 100 * len(values) + 0.5) - 1))
    return values[k]


# --- a `companion` process driven over HTTP --------------------------------------------

def unit_environment() -> dict[str, str]:
    """The allocator settings of the appliance's unit (systemd/game-companion.service), so
    the companion is measured as the Pi runs it (--no-unit-env: without them)."""
    unit = Path(__file__).resolve().parents[1] / "systemd" / "game-companion.service"
    pairs = [line.split("=", 1)[1].split("=", 1) for line in unit.read_text(encoding="utf-8").splitlines()
             if line.startswith("Environment=GLIBC_TUNABLES=") or line.startswith("Environment=MALLOC_")]
    return dict(pairs)


UNIT_ENV: dict[str, str] = {}


class Process:
    def __init__(self, command: str, data_dir: str, port: int, config: Path | None = None):
        args = [sys.executable, "-m", "companion", command, "--data-dir", data_dir, "--port", str(port),
                "--log-level", "warning"]
        if config is not None:
            args += ["--config", str(config)]
        self.port = port
        self.started = time.monotonic()
        self.popen = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                      env={**os.environ, **UNIT_ENV})
        self.first_slate = self._wait_for_slate()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor())
        self.csrf = ""

    def _wait_for_slate(self) -> float:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/", timeout=2) as response:
                    if response.status == 200:
                        return time.monotonic() - self.started
            except OSError:
                time.sleep(0.01)
        raise RuntimeError("the companion did not serve its slate within 30 s")

    def login(self, pin: str) -> None:
        page = self.get("/host").decode()
        token = re.search(r'name="csrf_token" value="([^"]+)"', page).group(1)
        self.post("/host/login", {"pin": pin}, token)
        self.csrf = re.search(r'data-csrf="([^"]+)"', self.get("/host").decode()).group(1)

    def get(self, path: str) -> bytes:
        with self.opener.open(f"http://127.0.0.1:{self.port}{path}", timeout=30) as response:
            return response.read()

    def post(self, path: str, body: dict, token: str | None = None) -> dict:
        req = urllib.request.Request(f"http://127.0.0.1:{self.port}{path}", data=json.dumps(body).encode(),
                                     method="POST", headers={"Content-Type": "application/json",
                                                             "X-CSRF-Token": token or self.csrf})
        with self.opener.open(req, timeout=30) as response:
            return json.loads(response.read())

    def rss_mb(self) -> float:
        status = Path(f"/proc/{self.popen.pid}/status").read_text()
        return int(re.search(r"VmRSS:\s+(\d+) kB", status).group(1)) / 1024

    def open_files(self) -> int:
        return len(os.listdir(f"/proc/{self.popen.pid}/fd"))

    def stop(self) -> int:
        self.popen.terminate()
        return self.popen.wait(20)


def play_over_http(proc: Process, game: str, seed: int, *, camera: bool) -> int:
    """A whole random game through the host panel's API; returns the number of requests."""
    from hardware.reveal import CAMERA_KINDS
    from companion.rules import ChipCall, DiceObserved, get_game
    from companion.session import Session
    from companion.simulate import player_names

    players = player_names(3)
    proc.post("/host/start", {"game": game, "players": players})
    rules, rng = get_game(game), random.Random(seed)
    mirror = Session.new(game, players)  # what the server holds, to choose legal moves
    requests, held = 1, 0
    while not mirror.finished:
        request = mirror.prompt().dice
        if request is None:
            event = rng.choice(rules.legal_actions(mirror.state))
            if isinstance(event, ChipCall):
                proc.post("/host/press", {"seat": event.seat, "button": event.chip})
            else:
                proc.post("/host/event", event.to_dict())
            mirror = mirror.submitted(event)
        elif camera and request.kind in CAMERA_KINDS:
            answer = proc.post("/host/reveal", {})
            if not answer["message"].startswith("read"):  # held for the host: type in what "they see"
                proc.post("/host/dice", {"values": list(rules.sample_reading(mirror.state, rng).values)})
                held += 1
            last = json.loads(proc.get("/host/state"))["events"][-1]
            mirror = mirror.submitted(DiceObserved(tuple(last["values"]), seat=request.seat))
            requests += 2
        else:
            event = rules.sample_reading(mirror.state, rng)
            proc.post("/host/dice", {"values": list(event.values)})
            mirror = mirror.submitted(DiceObserved(event.values, seat=request.seat))
        requests += 1
    proc.held = getattr(proc, "held", 0) + held
    return requests


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def write_config(folder: str, **web) -> Path:
    path = Path(folder) / "config.toml"
    extra = "".join(f"{k} = {v}\n" for k, v in web.items())
    path.write_text(f'[host]\npin = "{PIN}"\n[web]\nhost = "127.0.0.1"\n{extra}[camera]\nsource = "none"\n'
                    '[gpio]\npin_factory = "mock"\n', encoding="utf-8")
    return path


# --- 2, 3, 4 ----------------------------------------------------------------------------

def start_times(runs: int) -> list[float]:
    times = []
    for _ in range(runs):
        folder = tempfile.mkdtemp(prefix="bench-start-")
        proc = Process("serve", folder, free_port(), write_config(folder))
        times.append(proc.first_slate)
        proc.stop()
    return times


def demo_memory() -> dict:
    folder = tempfile.mkdtemp(prefix="bench-demo-")
    proc = Process("demo", folder, free_port(), write_config(folder))
    proc.login(PIN)
    before = proc.rss_mb()
    requests = play_over_http(proc, "tregald", seed=3, camera=True)
    after = proc.rss_mb()
    reader = json.loads(proc.get("/api/state"))["devices"].get("reader")
    code = proc.stop()
    return {"rss_start": before, "rss_after_game": after, "requests": requests, "exit": code, "held": proc.held,
            "first_slate": proc.first_slate,
            "reader": "vision" if reader is None else f"fallback ({reader['message'][:60]})"}


def demo_games(games: int) -> dict:
    """`companion demo` playing `games` whole games (the five in turn), the camera reading
    every throw of chance, spike and pip dice at the Reveal; RSS after each game."""
    folder = tempfile.mkdtemp(prefix="bench-demo-games-")
    proc = Process("demo", folder, free_port(), write_config(folder))
    proc.login(PIN)
    samples = [(0, proc.rss_mb())]
    requests = 0
    started = time.monotonic()
    for number in range(games):
        requests += play_over_http(proc, GAMES[number % len(GAMES)], seed=number, camera=True)
        samples.append((number + 1, proc.rss_mb()))
        print(f"   after {number + 1:>2} games: RSS {samples[-1][1]:.1f} MB", file=sys.stderr, flush=True)
    elapsed = time.monotonic() - started
    code = proc.stop()
    return {"games": games, "samples": samples, "requests": requests, "held": proc.held, "seconds": elapsed,
            "exit": code}


def report_demo_games(d: dict, say) -> None:
    rss = [r for _, r in d["samples"]]
    say(f"3b. RSS of companion demo over {d['games']} full games (the five in turn, read by the camera) "
        f"[goal <= 150 MB]: {rss[-1]:.1f} MB after the last, most {max(rss):.1f} MB "
        f"(at start {rss[0]:.1f} MB; {d['requests']} requests, {d['held']} readings held, "
        f"{d['seconds']:.0f} s, exit {d['exit']})")
    say("    after games: " + ", ".join(f"{n}: {r:.1f}" for n, r in d["samples"]))


def soak(games: int, slate_count: int) -> dict:
    folder = tempfile.mkdtemp(prefix="bench-soak-")
    proc = Process("serve", folder, free_port(), write_config(folder))
    proc.login(PIN)
    handle = start_slates(proc.port, slate_count)
    samples, errors, requests = [], 0, 0
    started = time.monotonic()
    for number in range(games):
        try:
            requests += play_over_http(proc, GAMES[number % len(GAMES)], seed=number, camera=False)
        except Exception as exc:  # counted, and the soak goes on
            errors += 1
            print(f"  game {number}: {exc}", file=sys.stderr)
            proc.post("/host/end", {"reason": "soak: error"})
        if number == 9 or (number + 1) % max(10, games // 8) == 0 or number == games - 1:
            samples.append((number + 1, proc.rss_mb(), proc.open_files()))
    elapsed = time.monotonic() - started
    streams = stop_slates(handle)
    stored = len(json.loads(proc.get("/api/games"))["games"])
    code = proc.stop()
    return {"games": games, "stored": stored, "errors": errors, "requests": requests, "seconds": elapsed,
            "samples": samples, "stream_errors": streams["errors"], "stream_messages": streams["messages"],
            "reconnects": streams["reconnects"], "exit": code}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--presses", type=int, default=200)
    parser.add_argument("--soak-games", type=int, default=200)
    parser.add_argument("--quick", action="store_true", help="few presses and games (a smoke run; not for reporting)")
    parser.add_argument("--only-soak", action="store_true", help="run the soak alone (a long one: --soak-games 1000)")
    parser.add_argument("--demo-games", type=int, default=10, help="whole games `companion demo` plays in part 3")
    parser.add_argument("--only-demo", action="store_true", help="run part 3's games in companion demo alone")
    parser.add_argument("--no-unit-env", dest="unit_env", action="store_false",
                        help="run the companion without the unit's allocator settings (GLIBC_TUNABLES)")
    args = parser.parse_args()
    if args.quick:
        args.presses, args.soak_games, args.demo_games = 30, 10, 3
    if args.unit_env:
        UNIT_ENV.update(unit_environment())
    lines = [f"# benchmarks/service.py  {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}",
             f"# {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
             f"command: .venv/bin/python benchmarks/service.py" + (" --quick" if args.quick else "")
             + ("" if args.unit_env else " --no-unit-env"),
             f"# the companion's environment from the unit: {UNIT_ENV or 'none'}"]

    def say(text: str) -> None:
        print(text, flush=True)
        lines.append(text)

    if args.only_demo:
        lines[1] += f" --only-demo --demo-games {args.demo_games}"
        report_demo_games(demo_games(args.demo_games), say)
        RESULTS.with_name("service-demo.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
        return 0
    if args.only_soak:
        lines[1] += f" --only-soak --soak-games {args.soak_games}"
        report_soak(soak(args.soak_games, 20), say)
        RESULTS.with_name("service-soak.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
        return 0
    say("1. press (mock pin) -> slate SSE message, ms [goal: p99 <= 50 with 50 slates]")
    for count in (1, 50):
        r = press_latency(count, args.presses)
        say(f"   {count:>2} slate(s): p50 {r['p50']:.1f}  p99 {r['p99']:.1f}  max {r['max']:.1f}  "
            f"[of which press -> stored+published: p50 {r['stored_p50']:.1f}  p99 {r['stored_p99']:.1f}]  "
            f"({r['presses']} presses timed, {r['ignored']} ignored, {r['missing']} messages missing, "
            f"{r['errors']} stream errors)")
    say(f"   (load average during the run: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores)")
    times = start_times(5)
    say("2. start to first served slate (companion serve), s [goal <= 3]: "
        f"median {statistics.median(times):.2f}  max {max(times):.2f}  (5 starts)")
    m = demo_memory()
    say(f"3. RSS of companion demo after a full Tregald game over HTTP [goal <= 150 MB]: {m['rss_after_game']:.0f} MB "
        f"(at start {m['rss_start']:.0f} MB; {m['requests']} requests; reader: {m['reader']}, {m['held']} readings held; "
        f"exit {m['exit']}; "
        f"first slate {m['first_slate']:.2f} s after launch)")
    report_demo_games(demo_games(args.demo_games), say)
    report_soak(soak(args.soak_games, 20), say)
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return 0


def report_soak(s: dict, say) -> int:
    say(f"4. soak: {s['games']} games back to back, 20 slates connected: {s['errors']} game errors, "
        f"{s['stream_errors']} stream errors, {s['reconnects']} reconnects, {s['stored']} games stored, "
        f"{s['requests']} requests in {s['seconds']:.0f} s, {s['stream_messages']} slate messages, exit {s['exit']}")
    for games, rss, files in s["samples"]:
        say(f"   after {games:>4} games: RSS {rss:.1f} MB, open files {files}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

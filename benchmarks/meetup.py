"""Benchmark meetup mode (issue 26's bar). Prints figures and writes benchmarks/results/meetup.txt.

    .venv/bin/python benchmarks/meetup.py [--tables 50] [--games 2000] [--seconds 60] [--offline-minutes 10]

One Mosquitto (started here, on a free port of 127.0.0.1, with the installer's ACL and a
user per table) and one `companion leaderboard` process, on this machine:

1. Press -> leaderboard: TABLES simulated tables (paho clients in this process, each with
   a persistent session like a table's) play GAMES finished games between them, paced
   evenly over SECONDS, each game preceded by its slate messages (one per event, retained,
   as a table publishes them). The game message leaves at the moment of the press that
   ends the game; its latency is until the leaderboard has replayed it and stored it
   (the `arrived` time in its SQLite, same machine, same clock). p50 / p99 / max.
2. The leaderboard's resident memory (VmRSS) after all of it.
3. Catch-up: one more table, with the real publisher (`TablePublisher`, its outbox and
   SQLite store), whose broker was away for OFFLINE minutes at the benchmark's per-table
   pace: its games are in its store, none sent. Time from its start until the leaderboard
   has every one of them.
"""

from __future__ import annotations

import argparse
import os
import platform
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests"))
sys.path.insert(0, str(REPO))

import paho.mqtt.client as mqtt  # noqa: E402
from meetup_broker import Mosquitto  # noqa: E402

from companion.meetup import game_message, game_topic, slate_message  # noqa: E402
from companion.meetup.messages import slate_topic, status_message, status_topic  # noqa: E402
from companion.rules import GameRecord  # noqa: E402
from companion.session import Session  # noqa: E402
from companion.simulate import simulate  # noqa: E402

GAMES = ("gyvahrs", "val-des", "tregald", "leiras-dice")
PLAYERS = ["Ann", "Ben", "Cara", "Dov"]


def records(count: int, offset: int = 0) -> list[GameRecord]:
    out = []
    for n in range(count):
        played = simulate(GAMES[n % len(GAMES)], PLAYERS[:3 + n % 2], seed=offset + n).record
        out.append(GameRecord(game=played.game, players=played.players, options=played.options,
                              events=played.events, meta={"started": f"2026-11-26T21:{n // 60 % 60:02d}:{n % 60:02d}Z"}))
    return out


def client(port: int, user: str, password: str) -> mqtt.Client:
    c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=f"companion-table-{user}", clean_session=False,
                    protocol=mqtt.MQTTv311)
    c.username_pw_set(user, password)
    c.will_set(status_topic(user), status_message(False), qos=1, retain=True)
    c.connect("127.0.0.1", port, keepalive=15)
    c.loop_start()
    c.publish(status_topic(user), status_message(True), qos=1, retain=True)
    return c


def arrived(db: Path) -> dict[tuple[str, str], float]:
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5) as conn:
        return {(t, i): a for t, i, a in conn.execute("SELECT table_name, id, arrived FROM games")}


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def wait_for(db: Path, count: int, seconds: float) -> dict:
    deadline = time.monotonic() + seconds
    seen: dict = {}
    while time.monotonic() < deadline:
        try:
            seen = arrived(db)
        except sqlite3.OperationalError:
            pass
        if len(seen) >= count:
            return seen
        time.sleep(0.05)
    raise SystemExit(f"the leaderboard had {len(seen)} of {count} games after {seconds} s")


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tables", type=int, default=50)
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--offline-minutes", type=float, default=10.0)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="meetup-bench-"))
    names = [f"table-{n + 1}" for n in range(args.tables)] + ["late"]
    users = {"leaderboard": "pw-board", "spy": "pw-spy", **{n: f"pw-{n}" for n in names}}
    broker = Mosquitto(work / "broker", users).start()
    (work / "board.toml").write_text(f'[broker]\nhost = "127.0.0.1"\nport = {broker.port}\nusername = "leaderboard"\n'
                                     f'password = "pw-board"\n', encoding="utf-8")
    board = subprocess.Popen([sys.executable, "-m", "companion", "leaderboard", "--config", str(work / "board.toml"),
                              "--data-dir", str(work / "board"), "--port", "0", "--host", "127.0.0.1",
                              "--log-level", "warning"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    board_db = work / "board" / "leaderboard.sqlite3"
    try:
        print(board.stdout.readline().strip())
        threading.Thread(target=lambda: [print("leaderboard:", line.strip()) for line in board.stdout], daemon=True).start()
        games = records(args.games)
        clients = {n: client(broker.port, n, users[n]) for n in names[:-1]}
        time.sleep(1.0)
        pressed: dict[tuple[str, str], float] = {}
        start = time.time()
        gap = args.seconds / args.games
        slates = 0
        for n, record in enumerate(games):
            table = names[n % args.tables]
            c = clients[table]
            session = Session.new(record.game, record.players, record.options, dict(record.meta))
            for event in record.events:  # the table's slate, as it changes
                session = session.submitted(event)
                snapshot = {"game_id": str(n // args.tables + 1), "slate": session.slate().to_json(), "prompt": None}
                c.publish(slate_topic(table), slate_message(table, table, snapshot), qos=1, retain=True)
                slates += 1
            while time.time() < start + n * gap:
                time.sleep(0.001)
            game_id, payload = game_message(table, str(n // args.tables + 1), record)
            pressed[(table, game_id)] = time.time()
            c.publish(game_topic(table, game_id), payload, qos=1)
        seen = wait_for(board_db, args.games, 120)
        latencies = sorted((seen[key] - t) * 1000 for key, t in pressed.items())
        memory = rss_kib(board.pid)

        # Catch-up: a table whose broker was away for OFFLINE minutes at this pace.
        per_table_per_minute = args.games / args.tables / (args.seconds / 60)
        backlog = max(1, round(per_table_per_minute * args.offline_minutes))
        late_dir = work / "late"
        late_dir.mkdir()
        from companion.appliance.meetup.publisher import TablePublisher
        from companion.appliance.meetup.settings import Broker, MeetupSection
        from companion.meetup import Outbox
        from companion.store import SqliteStore
        from companion.table import Table

        store = SqliteStore.in_dir(late_dir)
        outbox = Outbox.in_dir(late_dir, store)
        for record in records(backlog, offset=100_000):
            store.create_finished(record, Session.of(record).slate().to_json())
        table = Table(store)
        settings = MeetupSection(enabled=True, table="late",
                                 broker=Broker(host="127.0.0.1", port=broker.port, username="late", password="pw-late"))
        publisher = TablePublisher(table, outbox, settings, title="Late table")
        before = len(arrived(board_db))
        began = time.time()
        publisher.start()
        wait_for(board_db, before + backlog, 300)
        catch_up = time.time() - began
        publisher.stop()
        store.close()
        for c in clients.values():
            c.disconnect()
            c.loop_stop()

        q = statistics.quantiles(latencies, n=100)
        lines = [
            f"meetup benchmark  ({platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}, "
            f"{time.strftime('%Y-%m-%d')})",
            f"  {args.tables} tables, {args.games} finished games over {args.seconds:.0f} s "
            f"({args.games / args.seconds:.1f} games/s) and {slates} slate messages",
            f"  press -> leaderboard: p50 {q[49]:.1f} ms, p99 {q[98]:.1f} ms, max {latencies[-1]:.1f} ms",
            f"  leaderboard RSS after {args.games + 0} games: {memory / 1024:.1f} MiB",
            f"  catch-up after {args.offline_minutes:.0f} min offline ({backlog} games at "
            f"{per_table_per_minute:.0f} games/min): {catch_up:.2f} s",
        ]
        text = "\n".join(lines)
        print(text)
        out = REPO / "benchmarks" / "results" / "meetup.txt"
        out.write_text(text + "\n", encoding="utf-8")
        return 0
    finally:
        board.terminate()
        board.wait(10)
        broker.stop()


if __name__ == "__main__":
    sys.exit(main())

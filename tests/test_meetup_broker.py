"""The installed broker's rules, with a real Mosquitto run from the installer's config: a
session belongs to its user, whatever client id it sends; a publish the ACL drops is still
acknowledged (so a table logs in as itself); the game running when meetup mode is switched
on is sent; an acknowledged game survives a SIGKILL; and docs/meetup.md's TLS listener works."""

from __future__ import annotations

import time
from pathlib import Path

import paho.mqtt.client as mqtt
import pytest
from meetup_broker import Mosquitto, free_port, needs_mosquitto
from meetup_clients import Spy

from companion.appliance.config import parse_config

pytestmark = [needs_mosquitto]

USERS = {"leaderboard": "pw-board", "spy": "pw-spy", "table-1": "pw-1", "table-2": "pw-2"}
GAME = "companion/tables/table-1/games/1-20261126T211400Z"


@pytest.fixture
def broker(tmp_path):
    running = Mosquitto(tmp_path / "broker", USERS).start()
    yield running
    running.stop()


class Client:
    """One paho client that records what it receives and how its connections ended."""

    def __init__(self, port: int, user: str, client_id: str, *, clean: bool = True,
                 will: tuple[str, bytes] | None = None, subscribe: str | None = None):
        self.messages: list[tuple[str, bytes]] = []
        self.disconnects: list[str] = []
        self.connected = False
        self.client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=client_id, clean_session=clean,
                                  protocol=mqtt.MQTTv311, reconnect_on_failure=False)
        self.client.username_pw_set(user, USERS[user])
        if will:
            self.client.will_set(*will, qos=1, retain=False)

        def on_connect(client, _u, _f, reason, _p):
            assert not reason.is_failure, reason
            if subscribe:
                client.subscribe(subscribe, qos=1)
            self.connected = True

        self.client.on_connect = on_connect
        self.client.on_subscribe = lambda *_: setattr(self, "subscribed", True)
        self.client.on_message = lambda _c, _u, m: self.messages.append((m.topic, bytes(m.payload)))
        self.client.on_disconnect = lambda _c, _u, _f, reason, _p: self.disconnects.append(str(reason))
        self.subscribed = subscribe is None
        self.client.connect("127.0.0.1", port)
        self.client.loop_start()
        wait(lambda: self.connected and self.subscribed, "the client to connect")

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


def wait(check, what: str, seconds: float = 5.0):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(0.02)
    raise AssertionError(f"timed out waiting for {what}")


def test_another_users_client_id_cannot_wipe_the_leaderboards_queued_games(broker):
    board = Client(broker.port, "leaderboard", "companion-leaderboard", clean=False,
                   subscribe="companion/tables/+/games/+")
    board.close()  # the leaderboard restarts: the broker keeps its games for it
    table = Client(broker.port, "table-1", "companion-table-table-1")
    table.client.publish(GAME, b"game 1", qos=1).wait_for_publish(5)
    table.close()
    # table-2's password, the leaderboard's client id, a clean session: the broker must not take
    # it for the leaderboard's session (it would discard the game queued there).
    intruder = Client(broker.port, "table-2", "companion-leaderboard", clean=True)
    intruder.close()
    board = Client(broker.port, "leaderboard", "companion-leaderboard", clean=False,
                   subscribe="companion/tables/+/games/+")
    try:
        wait(lambda: board.messages, "the queued game")
        assert board.messages == [(GAME, b"game 1")]
    finally:
        board.close()


def test_another_users_client_id_cannot_knock_a_table_off(broker):
    spy = Spy(broker.port, "spy", USERS["spy"], "companion/tables/+/status")
    table = Client(broker.port, "table-1", "companion-table-table-1", clean=False,
                   will=("companion/tables/table-1/status", b'{"state":"offline"}'))
    try:
        intruder = Client(broker.port, "table-2", "companion-table-table-1")
        intruder.close()
        time.sleep(0.5)
        assert table.disconnects == [] and spy.on("companion/tables/table-1/status") == []
    finally:
        table.close()
        spy.close()


def test_the_broker_acknowledges_a_publish_its_acl_drops_so_the_table_must_log_in_as_itself(broker):
    """Why `[meetup] username` may only be the table's name (finding D1): a game published
    under another user's name is acknowledged (the outbox would mark it sent) and dropped."""
    from companion.appliance.config import ConfigError

    spy = Spy(broker.port, "spy", USERS["spy"], "companion/tables/#")
    as_table_2 = Client(broker.port, "table-2", "companion-table-table-1")
    try:
        info = as_table_2.client.publish(GAME, b"game 1", qos=1)
        info.wait_for_publish(5)
        assert info.is_published()  # acknowledged...
        time.sleep(0.3)
        assert spy.on("companion/tables/") == []  # ...and never delivered
    finally:
        as_table_2.close()
        spy.close()
    with pytest.raises(ConfigError, match="meetup.username must be the table's name"):
        parse_config({"meetup": {"enabled": True, "table": "table-1", "broker": "127.0.0.1", "port": broker.port,
                                 "username": "table-2", "password": USERS["table-2"]}})


def test_the_game_in_progress_when_meetup_mode_is_switched_on_reaches_the_broker(tmp_path, broker):
    """Finding D2: the outbox once counted the running game as played before the table joined."""
    from companion.appliance.meetup.publisher import TablePublisher
    from companion.appliance.meetup.settings import Broker, MeetupSection
    from companion.meetup import Outbox
    from companion.simulate import simulate
    from companion.store import SqliteStore
    from companion.table import Table

    players = ["Ann", "Ben", "Cara"]
    spy = Spy(broker.port, "spy", USERS["spy"], "companion/tables/table-1/games/+")
    with SqliteStore.in_dir(tmp_path) as store:
        table = Table(store)
        table.start_game("gyvahrs", players)
        for event in simulate("gyvahrs", players, seed=0).record.events:
            table.submit(event)  # game 1: finished before the meetup, stays at home
        running = table.start_game("gyvahrs", players)
        events = simulate("gyvahrs", players, seed=1).record.events
        table.submit(events[0])
        settings = MeetupSection(enabled=True, table="table-1", broker=Broker(
            host="127.0.0.1", port=broker.port, username="table-1", password=USERS["table-1"]))
        publisher = TablePublisher(table, Outbox.in_dir(tmp_path, store), settings, title="One")
        publisher.start()
        try:
            wait(lambda: publisher.connected, "the table to connect")
            for event in events[1:]:
                table.submit(event)
            arrived = spy.wait_for("companion/tables/table-1/games/", 1)
            time.sleep(0.3)
            assert [topic.rsplit("/", 1)[1].split("-")[0] for topic, _ in spy.on("companion/")] == [running]
        finally:
            publisher.stop()
            spy.close()
    assert arrived


def test_a_game_the_broker_acknowledged_survives_the_broker_being_killed(broker):
    """Finding D4: once a table's outbox marks a game sent, only the broker has it for a
    leaderboard that is away; a SIGKILL (or a power cut) must not lose it."""
    import signal

    board = Client(broker.port, "leaderboard", "companion-leaderboard", clean=False,
                   subscribe="companion/tables/+/games/+")
    board.close()
    table = Client(broker.port, "table-1", "companion-table-table-1")
    for n in range(3):
        table.client.publish(f"{GAME[:-1]}{n}", b"game %d" % n, qos=1).wait_for_publish(5)
    table.close()
    time.sleep(0.3)  # the save follows the acknowledgement by milliseconds
    broker.process.send_signal(signal.SIGKILL)
    broker.process.wait(5)
    broker.start()
    board = Client(broker.port, "leaderboard", "companion-leaderboard", clean=False,
                   subscribe="companion/tables/+/games/+")
    try:
        wait(lambda: len(board.messages) == 3, "the three games after the restart")
    finally:
        board.close()


def test_the_documented_tls_listener_takes_a_table_with_tls_on(tmp_path):
    """docs/meetup.md's TLS block, as written, with a self-signed certificate as --https makes one."""
    import re
    import shutil
    import subprocess

    from companion.appliance.meetup.publisher import TablePublisher
    from companion.appliance.meetup.settings import MeetupSection
    from companion.meetup import Outbox
    from companion.store import SqliteStore
    from companion.table import Table

    if shutil.which("openssl") is None:
        pytest.skip("openssl makes the certificate")
    docs = (Path(__file__).resolve().parent.parent / "docs" / "meetup.md").read_text(encoding="utf-8")
    [block] = re.findall(r"```conf\n(listener 8883\n.*?)```", docs, re.S)
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                    "-days", "1", "-keyout", str(tmp_path / "key.pem"), "-out", str(tmp_path / "cert.pem"),
                    "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost"],
                   check=True, capture_output=True)
    running = Mosquitto(tmp_path / "broker", USERS)
    tls_port = free_port()
    block = block.replace("listener 8883", f"listener {tls_port} 127.0.0.1") \
        .replace("/etc/mosquitto/certs/game-companion.crt", str(tmp_path / "cert.pem")) \
        .replace("/etc/mosquitto/certs/game-companion.key", str(tmp_path / "key.pem"))
    running.config.write_text(running.config.read_text() + block, encoding="utf-8")
    running.start()
    try:
        settings = parse_config({"meetup": {"enabled": True, "table": "table-1", "broker": "localhost",
                                            "port": tls_port, "password": USERS["table-1"], "tls": True,
                                            "ca_file": str(tmp_path / "cert.pem")}}).meetup
        spy = Spy(running.port, "spy", USERS["spy"], "companion/tables/table-1/status")
        with SqliteStore.in_dir(tmp_path) as store:
            table = Table(store)
            publisher = TablePublisher(table, Outbox.in_dir(tmp_path, store), settings, title="One")
            publisher.start()
            try:
                wait(lambda: publisher.connected, "the table to connect over TLS")
                assert spy.wait_for("companion/tables/table-1/status", 1)  # same users, same ACL
            finally:
                publisher.stop()
                spy.close()
    finally:
        running.stop()

"""What reaches the broker: nothing secret before its reveal, and nothing under another
table's name. A real Mosquitto with the installer's ACL and two `companion serve` tables."""

from __future__ import annotations

import time

import pytest
from meetup_broker import free_port, needs_mosquitto
from meetup_clients import Spy, publisher
from test_crash_recovery import Companion, send
from test_meetup_evening import USERS, evening, table_config  # noqa: F401 (evening: the fixture)

from companion.rules import ChipCall, DiceObserved
from companion.simulate import simulate

pytestmark = [pytest.mark.slow, needs_mosquitto]

PLAYERS = ["Ann", "Ben", "Cara"]
SWAP = {"green": "yellow", "yellow": "green"}


def swapped(event):
    return ChipCall(seat=event.seat, chip=SWAP[event.chip]) if isinstance(event, ChipCall) else event


def stream(spy: Spy, table: str) -> list[bytes]:
    """The table's messages, its own name and title written the same for every table."""
    return [payload.replace(table.encode(), b"TABLE").replace(f"Table {table[-1]}".encode(), b"TITLE")
            for _, payload in spy.on(f"companion/tables/{table}/")]


def play_until_the_reveal(table: Companion, spy: Spy, name: str, events) -> None:
    """Each action, then its slate on the broker, up to (not including) the first reveal."""
    table.request("/host/start", {"game": "tregald", "players": PLAYERS})
    spy.wait_for(f"companion/tables/{name}/slate", 2)
    for event in events:
        if isinstance(event, DiceObserved):
            return
        count = len(spy.on(f"companion/tables/{name}/"))
        send(table, event)
        assert len(spy.wait_for(f"companion/tables/{name}/", count + 1)) == count + 1, "no slate for an action"


def test_no_chip_colour_reaches_any_topic_before_its_reveal(tmp_path, evening):
    broker, started = evening
    spy = Spy(broker.port, "spy", USERS["spy"])
    try:
        tables = {}
        for name in ("table-1", "table-2"):
            tables[name] = Companion(table_config(tmp_path, name, broker.port), tmp_path / name)
            started.append(tables[name])
            spy.wait_for(f"companion/tables/{name}/slate", 1)
        events = list(simulate("tregald", PLAYERS, seed=11).record.events)
        assert any(isinstance(e, ChipCall) for e in events[:events.index(next(
            e for e in events if isinstance(e, DiceObserved)))])
        play_until_the_reveal(tables["table-1"], spy, "table-1", events)
        play_until_the_reveal(tables["table-2"], spy, "table-2", [swapped(e) for e in events])

        before_1, before_2 = stream(spy, "table-1"), stream(spy, "table-2")
        assert len(before_1) >= 5 and before_1 == before_2
        assert all(b"green" not in p and b"yellow" not in p for p in before_1)

        # The reveal shows the calls: from there on the two evenings differ (the check can fail).
        dice = next(e for e in events if isinstance(e, DiceObserved))
        for name in ("table-1", "table-2"):
            count = len(spy.on(f"companion/tables/{name}/"))
            send(tables[name], dice)
            spy.wait_for(f"companion/tables/{name}/", count + 1)
        assert stream(spy, "table-1") != stream(spy, "table-2")
    finally:
        spy.close()


def test_a_table_cannot_publish_under_another_tables_name(evening):
    broker, _ = evening
    spy = Spy(broker.port, "spy", USERS["spy"])
    try:
        table_1 = publisher(broker.port, "table-1", USERS["table-1"])
        table_1.publish("companion/tables/table-2/games/9-20261126T211400Z", b'{"forged": true}', qos=1) \
            .wait_for_publish(5)
        table_1.publish("companion/tables/table-2/slate", b'{"forged": true}', qos=1, retain=True).wait_for_publish(5)
        table_1.publish("companion/tables/table-1/status", b'{"state": "online"}', qos=1).wait_for_publish(5)
        assert spy.wait_for("companion/tables/table-1/status", 1), "the table's own topic should arrive"
        time.sleep(0.3)
        assert spy.on("companion/tables/table-2/") == []
        table_1.disconnect()

        late = Spy(broker.port, "spy-2", USERS["spy-2"])  # nothing forged was retained either
        time.sleep(0.3)
        assert late.on("companion/tables/table-2/") == []
        late.close()
    finally:
        spy.close()


def test_a_wrong_password_is_refused_by_the_broker(evening):
    broker, _ = evening
    import paho.mqtt.client as mqtt

    answers = []
    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="intruder", protocol=mqtt.MQTTv311)
    client.username_pw_set("table-1", "not-its-password")
    client.on_connect = lambda _c, _u, _f, reason, _p: answers.append(reason)
    client.connect("127.0.0.1", broker.port)
    client.loop_start()
    deadline = time.monotonic() + 5
    while not answers and time.monotonic() < deadline:
        time.sleep(0.02)
    client.loop_stop()
    assert answers and answers[0].is_failure and "authori" in str(answers[0]).lower()


def test_the_host_panel_says_when_the_broker_refuses_the_table_and_when_it_is_away(tmp_path, evening):
    from companion.appliance.meetup.publisher import TablePublisher
    from companion.appliance.meetup.settings import Broker, MeetupSection
    from companion.meetup import Outbox
    from companion.store import SqliteStore
    from companion.table import Table

    broker, _ = evening

    def status(table: Table) -> dict:
        return table.snapshot()["devices"]["leaderboard"]

    def wait_status(table: Table, wanted: str) -> dict:
        deadline = time.monotonic() + 10
        while status(table)["status"] != wanted and time.monotonic() < deadline:
            time.sleep(0.05)
        return status(table)

    with SqliteStore.in_dir(tmp_path) as store:
        table = Table(store)
        wrong = MeetupSection(enabled=True, table="table-1", broker=Broker(
            host="127.0.0.1", port=broker.port, username="table-1", password="not-its-password"))
        publisher = TablePublisher(table, Outbox.in_dir(tmp_path, store), wrong, title="One")
        publisher.start()
        try:
            refused = wait_status(table, "refused")
            assert "refused" in refused["message"] and "not-its-password" not in refused["message"]
        finally:
            publisher.stop()
        nobody = MeetupSection(enabled=True, table="table-1", broker=Broker(
            host="127.0.0.1", port=free_port(), username="table-1", password="x"))  # nobody listens there
        publisher = TablePublisher(table, Outbox.in_dir(tmp_path, store), nobody, title="One")
        publisher.start()
        try:
            assert "since" in wait_status(table, "offline")["message"]
        finally:
            publisher.stop()

"""The table's outbox: which finished games are still to be sent to the meetup's broker."""

from __future__ import annotations

import pytest

from companion.meetup import Outbox
from companion.meetup.outbox import DueGame
from companion.simulate import simulate
from companion.store import SqliteStore
from companion.table import Table

PLAYERS = ["Ann", "Ben", "Cara"]


def play(table: Table, seed: int) -> str:
    game_id = table.start_game("gyvahrs", PLAYERS)
    for event in simulate("gyvahrs", PLAYERS, seed=seed).record.events:
        table.submit(event)
    return game_id


def test_games_from_before_the_table_joined_stay_at_home(tmp_path):
    with SqliteStore.in_dir(tmp_path) as store:
        table = Table(store)
        play(table, 0)
        outbox = Outbox.in_dir(tmp_path, store)
        assert outbox.due() == []
        second = play(table, 1)
        assert outbox.due() == [DueGame(second, len(store.load(second).events))]
        outbox.close()


def test_the_game_in_progress_when_the_table_joins_is_sent_when_it_ends(tmp_path):
    with SqliteStore.in_dir(tmp_path) as store:
        table = Table(store)
        play(table, 0)  # finished before: stays at home
        running = table.start_game("gyvahrs", PLAYERS)
        events = simulate("gyvahrs", PLAYERS, seed=1).record.events
        table.submit(events[0])
        outbox = Outbox.in_dir(tmp_path, store)  # meetup mode switched on mid-game
        assert outbox.due() == [] and outbox.joined_after == int(running) - 1
        for event in events[1:]:
            table.submit(event)
        assert outbox.due() == [DueGame(running, len(events))]
        outbox.close()


def test_a_game_is_due_until_the_broker_took_it_and_stays_taken_after_a_restart(tmp_path):
    with SqliteStore.in_dir(tmp_path) as store:
        outbox = Outbox.in_dir(tmp_path, store)
        table = Table(store)
        first = play(table, 0)
        table.start_game("gyvahrs", PLAYERS)  # running, not finished: not due
        [due] = outbox.due()
        assert due.local_id == first
        outbox.taken(due)
        assert outbox.due() == []
        outbox.close()
        again = Outbox.in_dir(tmp_path, store)
        assert again.due() == [] and again.joined_after == 0
        again.close()


def test_an_imported_game_is_not_sent(tmp_path):
    with SqliteStore.in_dir(tmp_path) as store:
        outbox = Outbox.in_dir(tmp_path, store)
        Table(store).import_record(simulate("gyvahrs", PLAYERS, seed=3).record)
        assert outbox.due() == []
        outbox.close()


def test_a_game_the_host_ended_early_stays_at_home_until_it_is_played_out(tmp_path):
    with SqliteStore.in_dir(tmp_path) as store:
        outbox = Outbox.in_dir(tmp_path, store)
        table = Table(store)
        events = simulate("gyvahrs", PLAYERS, seed=2).record.events
        game_id = table.start_game("gyvahrs", PLAYERS)
        for event in events[:3]:
            table.submit(event)
        table.end_game()
        assert store.list_games()[-1]["finished"] and outbox.due() == []
        table.undo()  # the host takes the end back and play goes on
        for event in events[3:]:
            table.submit(event)
        [due] = outbox.due()
        assert due.local_id == game_id
        outbox.close()


def test_a_table_alone_starts_no_publisher_and_keeps_no_outbox(tmp_path):
    from companion.appliance.config import parse_config
    from companion.appliance.meetup import start_publisher

    table = Table()
    assert start_publisher(parse_config({}), table, tmp_path) is None
    assert start_publisher(parse_config({"meetup": {"enabled": False}}), table, tmp_path) is None
    assert list(tmp_path.iterdir()) == [] and "leaderboard" not in table.snapshot()["devices"]


def test_without_mosquitto_the_broker_tests_skip_on_a_laptop_and_fail_under_ci(monkeypatch, tmp_path):
    import importlib

    import meetup_broker

    monkeypatch.setattr("shutil.which", lambda name: None)
    monkeypatch.setattr(meetup_broker.Path, "exists", lambda self: False)
    try:
        monkeypatch.delenv("CI", raising=False)
        assert importlib.reload(meetup_broker).needs_mosquitto.args == (True,)  # skipped
        monkeypatch.setenv("CI", "1")
        reloaded = importlib.reload(meetup_broker)
        assert reloaded.needs_mosquitto.args == (False,)  # not skipped: the test runs, and fails
        with pytest.raises(pytest.fail.Exception, match="mosquitto.*CI is set"):
            reloaded.Mosquitto(tmp_path, {"spy": "pw"})
    finally:
        monkeypatch.undo()
        importlib.reload(meetup_broker)


class _Info:
    def __init__(self, mid: int):
        self.mid, self.rc = mid, 0


class _Client:
    """paho's publish as the publisher sees it: a new message id each time, wrapping as paho's do."""

    def __init__(self, wrap: int = 65535):
        self.mid, self.wrap, self.sent = 0, wrap, []

    def publish(self, topic, payload, qos=0, retain=False):
        self.mid = self.mid % self.wrap + 1
        self.sent.append((self.mid, topic))
        return _Info(self.mid)


def test_a_resent_game_forgets_its_old_message_id_so_a_slate_reusing_it_marks_nothing(tmp_path):
    from types import SimpleNamespace

    from companion.appliance.meetup import publisher as meetup
    from companion.appliance.meetup.settings import Broker

    with SqliteStore.in_dir(tmp_path) as store:
        table = Table(store)
        game_id = play(table, 0)
        outbox = Outbox(tmp_path / "outbox.sqlite3", SimpleNamespace(list_games=lambda: []))  # joined before it
        outbox.store = store
        now = [1000.0]
        sender = meetup.TablePublisher(table, outbox, SimpleNamespace(table="table-1", broker=Broker()),
                                       title="One", clock=lambda: now[0])
        sender._client = _Client(wrap=2)
        sender._send_due()
        first_mid = sender._client.mid
        now[0] += meetup.RESEND_AFTER + 1  # no acknowledgement: sent again, under a new id
        sender._send_due()
        assert list(sender._inflight) == [sender._client.mid] != [first_mid]
        sender._client.publish("companion/tables/table-1/slate", b"{}", qos=1)  # a slate: the ids wrap
        assert sender._client.mid == first_mid
        sender._acks.put(first_mid)  # the slate's acknowledgement
        sender._take_acks()
        assert [g.local_id for g in outbox.due()] == [game_id]  # not taken by the slate's ack
        sender._acks.put(list(sender._inflight)[0])  # the game's own acknowledgement
        sender._take_acks()
        assert outbox.due() == [] and sender._inflight == {}
        outbox.close()

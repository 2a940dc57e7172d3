"""The SQLite store: games survive a restart, a bad file is refused and left untouched."""

from __future__ import annotations

import hashlib
import json
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pytest

from companion.rules import ChipCall, DiceObserved, GameRecord
from companion.store import (CorruptStore, GameNotFound, MemoryStore, NewerStore, ReadOnlyStore, SqliteStore,
                             StoreFull)
from companion.table import Table
from companion.readings import OfferedReading

TESTS = Path(__file__).parent


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _play_some(table: Table) -> None:
    table.start_game("toy", ["Ann", "Ben"], {"turns": 2})
    table.press(0, "green")
    table.press(1, "yellow")
    table.offer_reading(OfferedReading(["red"]))
    table.press(0, "yellow")


def test_an_unfinished_game_resumes_exactly_after_reopening(tmp_path):
    with SqliteStore.in_dir(tmp_path) as store:
        table = Table(store)
        _play_some(table)
        before_record = table.session.record
        before_slate = table.snapshot()["slate"]
    with SqliteStore.in_dir(tmp_path) as store:
        again = Table(store)
        assert again.resume()
        assert again.session.record == before_record
        assert again.snapshot()["slate"] == before_slate
        again.press(1, "green")  # and play goes on from there
        again.offer_reading(OfferedReading(["blue"]))
        assert again.session.finished


def test_the_store_behaves_like_the_memory_store(tmp_path):
    with SqliteStore.in_dir(tmp_path) as sqlite_store:
        memory = MemoryStore()
        for store in (sqlite_store, memory):
            table = Table(store, clock=lambda: 0.0)
            table.start_game("toy", ["Ann", "Ben"], {"turns": 1})
            for seat in (0, 1):
                table.press(seat, "green")
            table.offer_reading(OfferedReading(["red"]))
            table.start_game("toy", ["Cara", "Dov", "Eli"])
            table.press(2, "yellow")
        as_json = lambda value: json.loads(json.dumps(value))  # the slate holds tuples in memory
        assert sqlite_store.list_games() == as_json(memory.list_games())
        assert sqlite_store.unfinished() == memory.unfinished()
        assert sqlite_store.load("1") == memory.load("1")


def test_a_finished_game_keeps_its_final_slate_and_is_not_resumed(tmp_path):
    with SqliteStore.in_dir(tmp_path) as store:
        table = Table(store)
        table.start_game("toy", ["Ann", "Ben"], {"turns": 1})
        table.press(0, "green")
        table.press(1, "green")
        table.offer_reading(OfferedReading(["red"]))
        final = table.snapshot()["slate"]
    with SqliteStore.in_dir(tmp_path) as store:
        assert store.unfinished() == []
        assert store.final_slate("1") == final
        assert store.list_games()[0]["finished"] is True
        assert not Table(store).resume()


def test_an_event_out_of_order_is_refused_and_nothing_is_stored(tmp_path):
    with SqliteStore.in_dir(tmp_path) as store:
        game_id = store.create(GameRecord("toy", ("Ann", "Ben")))
        store.append(game_id, 0, ChipCall(0, "green"))
        with pytest.raises(ValueError, match="out of order"):
            store.append(game_id, 2, ChipCall(1, "green"))
        with pytest.raises(ValueError, match="out of order"):
            store.append(game_id, 0, ChipCall(1, "green"))  # an index already taken
        assert store.load(game_id).events == (ChipCall(0, "green"),)


def test_an_unknown_game_is_a_clear_error(tmp_path):
    with SqliteStore.in_dir(tmp_path) as store:
        with pytest.raises(GameNotFound, match="no game 7"):
            store.load("7")
        with pytest.raises(GameNotFound):
            store.append("nonsense", 0, ChipCall(0, "green"))


def test_the_database_runs_in_wal_mode_with_full_sync_and_is_private(tmp_path):
    with SqliteStore.in_dir(tmp_path) as store:
        assert store._db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert store._db.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
        assert (tmp_path / "games.sqlite3").stat().st_mode & 0o077 == 0  # secret calls inside


def test_a_corrupt_file_is_refused_and_left_untouched(tmp_path):
    path = tmp_path / "games.sqlite3"
    path.write_bytes(b"this is not a database, it is a shopping list\n" * 200)
    digest = _digest(path)
    with pytest.raises(CorruptStore, match="not a readable SQLite database.*left untouched"):
        SqliteStore(path)
    assert _digest(path) == digest
    assert sorted(p.name for p in tmp_path.iterdir()) == ["games.sqlite3"]


def test_a_damaged_page_is_refused_and_left_untouched(tmp_path):
    with SqliteStore.in_dir(tmp_path) as store:
        table = Table(store)
        _play_some(table)
        store._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    path = tmp_path / "games.sqlite3"
    data = bytearray(path.read_bytes())
    page = 4096
    data[2 * page + 100: 3 * page] = os.urandom(page - 100)  # scribble over a table page
    path.write_bytes(bytes(data))
    digest = _digest(path)
    with pytest.raises(CorruptStore):
        SqliteStore(path).unfinished()
    assert _digest(path) == digest


def test_another_programs_database_is_refused_and_left_untouched(tmp_path):
    path = tmp_path / "games.sqlite3"
    other = sqlite3.connect(path)
    other.execute("CREATE TABLE recipes (name TEXT)")
    other.execute("INSERT INTO recipes VALUES ('soup')")
    other.commit()
    other.close()
    digest = _digest(path)
    with pytest.raises(CorruptStore, match="some other program"):
        SqliteStore(path)
    assert _digest(path) == digest


def test_a_database_from_a_newer_companion_is_refused_and_left_untouched(tmp_path):
    with SqliteStore.in_dir(tmp_path) as store:
        Table(store).start_game("toy", ["Ann", "Ben"])
        store._db.execute("UPDATE schema SET version = 99")
        store._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    path = tmp_path / "games.sqlite3"
    digests = {p.name: _digest(p) for p in tmp_path.iterdir()}
    with pytest.raises(NewerStore, match="newer companion.*upgrade"):
        SqliteStore(path)
    assert {p.name: _digest(p) for p in tmp_path.iterdir()} == digests


def test_an_empty_file_becomes_a_new_database(tmp_path):
    path = tmp_path / "games.sqlite3"
    path.touch()
    with SqliteStore(path) as store:
        assert store.list_games() == []


def test_an_appended_event_survives_the_process_being_killed_right_after(tmp_path):
    """Durable when `append` returns: the writer SIGKILLs itself at once."""
    script = textwrap.dedent(f"""
        import os, signal, sys
        sys.path.insert(0, {str(TESTS)!r})
        from companion.rules import registry
        registry.register("toy", "toy_game")
        from companion.store import SqliteStore
        from companion.table import Table
        table = Table(SqliteStore.in_dir({str(tmp_path)!r}))
        table.start_game("toy", ["Ann", "Ben"])
        table.press(0, "green")
        table.press(1, "yellow")
        print("acknowledged", flush=True)
        os.kill(os.getpid(), signal.SIGKILL)
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert done.returncode == -signal.SIGKILL
    assert "acknowledged" in done.stdout
    with SqliteStore.in_dir(tmp_path) as store:
        [(game_id, record)] = store.unfinished()
        assert record.events == (ChipCall(0, "green"), ChipCall(1, "yellow"))


def test_many_threads_pressing_at_once_store_every_accepted_event(tmp_path):
    with SqliteStore.in_dir(tmp_path) as store:
        table = Table(store)
        table.start_game("toy", ["Ann", "Ben", "Cara", "Dov"], {"turns": 50})
        accepted = []

        def player(seat):
            for _ in range(25):
                if table.press(seat, "green"):
                    accepted.append(seat)
                table.offer_reading(OfferedReading(["red"]))

        threads = [threading.Thread(target=player, args=(s,)) for s in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        stored = store.load(table.game_id).events
        assert stored == table.session.record.events
        assert sum(isinstance(e, ChipCall) for e in stored) == len(accepted)
        assert any(isinstance(e, DiceObserved) for e in stored)


def test_a_record_stored_is_exported_as_the_same_json(tmp_path):
    with SqliteStore.in_dir(tmp_path) as store:
        table = Table(store)
        _play_some(table)
        live = table.session.record.to_dict()
        assert json.loads(store.load(table.game_id).to_json()) == live


class DiskFillsUp(SqliteStore):
    """The disk fills up after `room` more events have been written."""

    room = 1_000_000

    def _insert_event(self, key, index, event):
        if self.room <= 0:
            raise sqlite3.OperationalError("database or disk is full")
        self.room -= 1
        super()._insert_event(key, index, event)


def test_a_history_import_cut_short_stores_nothing_and_the_game_in_progress_resumes(tmp_path):
    """Half an import must not be left unfinished: a restart would resume it as the live game."""
    finished = Table()
    finished.start_game("toy", ["Cy", "Di"], {"turns": 3})
    for _ in range(3):
        finished.press(0, "green")
        finished.press(1, "yellow")
        finished.offer_reading(OfferedReading(["red"]))
    with DiskFillsUp(tmp_path / "games.sqlite3") as store:
        table = Table(store)
        _play_some(table)
        live_id, live_record = table.game_id, table.session.record
        store.room = 4  # the import's fifth event finds the disk full: said in words
        with pytest.raises(StoreFull, match="the SD card is full"):
            table.import_record(finished.session.record)
        assert [g["id"] for g in store.list_games()] == [live_id]
    with SqliteStore.in_dir(tmp_path) as store:
        again = Table(store)
        assert again.resume()
        assert (again.game_id, again.session.record) == (live_id, live_record)


def test_an_imported_game_is_stored_finished_with_all_its_events(tmp_path):
    played = Table()
    played.start_game("toy", ["Cy", "Di"], {"turns": 1})
    played.press(0, "green")
    played.press(1, "yellow")
    played.offer_reading(OfferedReading(["red"]))
    with SqliteStore.in_dir(tmp_path) as store:
        game_id = Table(store).import_record(played.session.record)
        assert store.load(game_id).events == played.session.record.events
        assert store.final_slate(game_id) == json.loads(json.dumps(played.snapshot()["slate"]))
        assert store.unfinished() == []


class PowerCutBeforeFinish(SqliteStore):
    """The power goes after a game's last event is stored and before its end is."""

    def finish(self, game_id, slate):
        pass


def _play_to_the_end(table: Table, players=("Ann", "Ben")) -> None:
    table.start_game("toy", list(players), {"turns": 1})
    table.press(0, "green")
    table.press(1, "yellow")
    table.offer_reading(OfferedReading(["red"]))
    assert table.session.finished


def test_a_game_over_but_not_yet_finished_in_the_store_is_finished_on_restart_not_resumed(tmp_path):
    with PowerCutBeforeFinish(tmp_path / "games.sqlite3") as store:
        table = Table(store)
        _play_to_the_end(table)
        final = table.snapshot()["slate"]
    with SqliteStore.in_dir(tmp_path) as store:
        again = Table(store)
        assert not again.resume()
        assert again.session is None and again.snapshot()["slate"] is None
        assert store.unfinished() == []
        assert store.final_slate("1") == final
        [game] = store.list_games()
        assert game["finished"] and game["winner"] == "Ann"


def test_an_undo_that_takes_back_a_games_end_puts_it_in_play_again_across_a_restart(tmp_path):
    with SqliteStore.in_dir(tmp_path) as store:
        table = Table(store)
        _play_to_the_end(table)
        assert store.unfinished() == []
        table.undo()  # the last reading was wrong: the host takes it back
        assert not table.session.finished
        assert [game_id for game_id, _ in store.unfinished()] == ["1"]
        assert not store.list_games()[0]["finished"]
    with SqliteStore.in_dir(tmp_path) as store:
        again = Table(store)
        assert again.resume() and again.game_id == "1" and not again.session.finished
        again.offer_reading(OfferedReading(["red"]))  # read again
        assert again.session.finished and store.unfinished() == []
        assert store.final_slate("1")["winner"] == "Ann"


class ReopenFails(SqliteStore):
    def reopen(self, game_id):
        raise OSError("disk I/O error")


def test_an_undo_of_a_games_end_the_store_cannot_take_is_refused_and_the_game_stays_over(tmp_path):
    with ReopenFails(tmp_path / "games.sqlite3") as store:
        table = Table(store)
        _play_to_the_end(table)
        events = len(table.session.record.events)
        with pytest.raises(OSError):
            table.undo()
        assert table.session.finished and len(table.session.record.events) == events
        assert store.unfinished() == [] and store.final_slate("1")["winner"] == "Ann"
    with SqliteStore.in_dir(tmp_path) as store:
        assert not Table(store).resume()


def test_the_game_in_progress_resumes_and_an_older_game_left_over_is_finished(tmp_path):
    with PowerCutBeforeFinish(tmp_path / "games.sqlite3") as store:
        table = Table(store)
        _play_to_the_end(table)
        table.start_game("toy", ["Cy", "Di"])
        table.press(0, "green")
    with SqliteStore.in_dir(tmp_path) as store:
        again = Table(store)
        assert again.resume()
        assert again.game_id == "2" and again.session.record.players == ("Cy", "Di")
        assert [game_id for game_id, _ in store.unfinished()] == ["2"]
        assert store.final_slate("1")["winner"] == "Ann"


def test_half_an_import_left_by_an_older_companion_is_never_resumed(tmp_path):
    with SqliteStore.in_dir(tmp_path) as store:
        table = Table(store)
        _play_some(table)
        live_record = table.session.record
        half = store.create(GameRecord("toy", ("Cy", "Di"), {"turns": 3}, meta={"imported": "2024-05-01T20:00:00Z"}))
        store.append(half, 0, ChipCall(0, "green"))
    with SqliteStore.in_dir(tmp_path) as store:
        again = Table(store)
        assert again.resume()
        assert (again.game_id, again.session.record) == ("1", live_record)


def test_a_database_missing_its_events_table_is_refused_and_left_untouched(tmp_path):
    with SqliteStore.in_dir(tmp_path) as store:
        _play_some(Table(store))
        store._db.execute("DROP TABLE events")
        store._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    path = tmp_path / "games.sqlite3"
    digests = {p.name: _digest(p) for p in tmp_path.iterdir()}
    with pytest.raises(CorruptStore, match=r"games\.sqlite3: a table it needs is missing \(events\).*left untouched"):
        SqliteStore(path)
    assert {p.name: _digest(p) for p in tmp_path.iterdir()} == digests


def test_a_damaged_final_slate_leaves_its_game_listed_without_it(tmp_path, caplog):
    with SqliteStore.in_dir(tmp_path) as store:
        table = Table(store)
        _play_to_the_end(table)
        _play_to_the_end(table, ("Cy", "Di"))
        store._db.execute("UPDATE games SET final_slate = '{oops' WHERE id = 1")
        games = store.list_games()
        assert [(g["id"], g["finished"], g["slate"] is None) for g in games] == [("1", True, True), ("2", True, False)]
        assert store.final_slate("1") is None
        assert "final slate of game 1" in caplog.text and "damaged" in caplog.text


def test_a_database_that_cannot_be_written_is_refused_at_open_and_left_as_it_was(tmp_path, monkeypatch):
    with SqliteStore.in_dir(tmp_path) as store:
        _play_some(Table(store))
    path = tmp_path / "games.sqlite3"
    before = hashlib.sha256(path.read_bytes()).hexdigest()
    real = sqlite3.connect

    def read_only(database, **kwargs):  # as a read-only mount or an SD card remounted read-only gives it
        return real(f"file:{database}?mode=ro", uri=True, **kwargs)

    monkeypatch.setattr("companion.sqlite_store.sqlite3.connect", read_only)
    with pytest.raises(ReadOnlyStore, match="cannot write the game database .*read-only"):
        SqliteStore.in_dir(tmp_path)
    monkeypatch.undo()
    assert hashlib.sha256(path.read_bytes()).hexdigest() == before
    with SqliteStore.in_dir(tmp_path) as store:  # writable again: the game is all there
        assert Table(store).resume()

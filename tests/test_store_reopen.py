"""Property: whatever the table does, and wherever the service restarts, the stored game
is the game the table had (same record, same slate) as if it had never stopped."""

from __future__ import annotations

import shutil
import tempfile

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.rules import ChipCall, DiceObserved, IllegalAction
from companion.store import MemoryStore, SqliteStore
from companion.table import Table
from companion.readings import OfferedReading

ACTIONS = st.lists(
    st.one_of(
        st.tuples(st.just("press"), st.integers(0, 2), st.sampled_from(["green", "yellow", "liar"])),
        st.tuples(st.just("read"), st.sampled_from(["red", "blue", "green"])),
        st.tuples(st.just("undo")),
        st.tuples(st.just("amend"), st.integers(0, 30), st.sampled_from(["red", "blue", "green", "yellow"])),
        st.tuples(st.just("restart")),
        st.tuples(st.just("end")),
    ),
    max_size=40,
)


def _do(table: Table, action) -> None:
    kind = action[0]
    try:
        if kind == "press":
            table.press(action[1], action[2])
        elif kind == "read":
            table.offer_reading(OfferedReading([action[1]]))
        elif kind == "undo":
            table.undo()
        elif kind == "amend":
            target, value = action[1], action[2]
            replacement = DiceObserved((value,)) if value in ("red", "blue") else ChipCall(0, value)
            table.amend(target, replacement)
        elif kind == "end":
            table.end_game("host")
    except IllegalAction:
        pass  # refused: nothing changed, on either side


def _clock() -> float:
    """One fixed time for both tables: a game's start time is part of its record, and two
    real clock readings a moment apart can fall either side of a second."""
    return 1_790_000_000.0


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ACTIONS)
def test_a_game_survives_any_restarts_exactly(actions):
    folder = tempfile.mkdtemp(prefix="store-reopen-")
    store = SqliteStore.in_dir(folder)
    table, mirror = Table(store, clock=_clock), Table(MemoryStore(), clock=_clock)
    for t in (table, mirror):
        t.start_game("toy", ["Ann", "Ben", "Cara"], {"turns": 3})
    try:
        for action in actions:
            if action[0] == "restart":
                store.close()
                store = SqliteStore.in_dir(folder)
                table = Table(store, clock=_clock)
                resumed = table.resume()
                assert resumed == (not mirror.session.finished)
                if not resumed:
                    break
                continue
            if mirror.session.finished:
                break
            _do(table, action)
            _do(mirror, action)
            assert table.session.record == mirror.session.record
        stored = store.load(mirror.game_id)
        assert stored == mirror.session.record
        if table.session is not None and table.game_id == mirror.game_id:
            assert table.snapshot()["slate"] == mirror.snapshot()["slate"]
    finally:
        store.close()
        shutil.rmtree(folder, ignore_errors=True)

"""The session and the table: all-or-nothing changes, store before acknowledge,
secrets never in the public snapshot, held camera readings."""

from __future__ import annotations

import json
import threading

import pytest

from companion.rules import Amend, ChipCall, ColourCall, Declaration, DiceObserved, IllegalAction
from companion.session import Session
from companion.store import MemoryStore
from companion.table import NoGame, Table
from companion.readings import OfferedReading


def test_a_refused_event_leaves_the_session_unchanged():
    session = Session.new("toy", ["Ann", "Ben"])
    session = session.submitted(ChipCall(0, "green"))
    before = (session.record, session.state)
    with pytest.raises(IllegalAction):
        session.submitted(DiceObserved(("red",)))
    assert (session.record, session.state) == before


def test_undo_with_nothing_to_undo_is_refused():
    session = Session.new("toy", ["Ann", "Ben"])
    with pytest.raises(IllegalAction, match="nothing to undo"):
        session.undone()
    assert session.record.events == ()


def test_an_amend_that_breaks_later_events_is_refused_and_changes_nothing():
    session = Session.new("toy", ["Ann", "Ben"], {"turns": 1})
    for ev in (ChipCall(0, "green"), ChipCall(1, "green"), DiceObserved(("red",))):
        session = session.submitted(ev)
    before = session.record
    with pytest.raises(IllegalAction, match="does not fit"):
        session.amended(2, DiceObserved(("red", "blue")))
    assert session.record == before


def test_bad_players_or_options_start_nothing():
    with pytest.raises(IllegalAction, match="same name"):
        Session.new("toy", ["Ann", "ann"])
    with pytest.raises(IllegalAction, match="no option 'speed'"):
        Session.new("toy", ["Ann", "Ben"], {"speed": 3})
    with pytest.raises(IllegalAction, match="at least 1"):
        Session.new("toy", ["Ann", "Ben"], {"turns": 0})


class FailingStore(MemoryStore):
    fail = False

    def append(self, game_id, index, event):
        if self.fail:
            raise OSError("disk full")
        super().append(game_id, index, event)


def test_an_event_the_store_could_not_keep_is_not_applied_nor_announced():
    store = FailingStore()
    table = Table(store)
    table.start_game("toy", ["Ann", "Ben"])
    seq = table.seq
    store.fail = True
    with pytest.raises(OSError):
        table.press(0, "green")
    assert table.session.record.events == ()
    assert table.seq == seq
    store.fail = False
    assert table.press(0, "green")
    assert len(store.load(table.game_id).events) == 1


def test_the_public_snapshot_never_holds_a_call_colour_before_the_reveal(caplog):
    caplog.set_level("INFO")
    table = Table()
    table.start_game("toy", ["Ann", "Ben"])
    table.press(0, "green")
    table.press(1, "yellow")
    text = json.dumps(table.snapshot()) + json.dumps(table.host_view()) + json.dumps(table.public_record())
    assert "green" not in text and "yellow" not in text
    assert "green" not in caplog.text and "yellow" not in caplog.text


def test_a_reading_that_does_not_fit_is_held_for_the_host_and_confirmed_by_hand():
    table = Table()
    table.start_game("toy", ["Ann", "Ben"])
    table.press(0, "green")
    table.press(1, "green")
    assert table.offer_reading(OfferedReading(["red", "blue"]), photo=b"jpeg") == "held"
    view = table.host_view()
    assert view["held_reading"]["values"] == ["red", "blue"]
    assert "one chance cube" in view["held_reading"]["reason"]
    assert table.session.state.turns == 0
    table.confirm_reading(["red"])
    assert table.session.state.scores == (1, 1)
    assert table.host_view()["held_reading"] is None


def test_a_flagged_reading_is_held_even_when_it_would_fit():
    table = Table()
    table.start_game("toy", ["Ann", "Ben"])
    table.press(0, "green")
    table.press(1, "green")
    assert table.offer_reading(OfferedReading(["red"], flagged=True, reason="a hand over the dice")) == "held"
    assert table.session.state.turns == 0


def test_calls_close_once_the_camera_has_seen_the_dice_even_when_the_reading_waits_for_the_host():
    table = Table()
    table.start_game("tregald", ["Ann", "Ben", "Cara"])
    table.submit(Declaration(0, 3, "red"))
    assert table.press(1, "green") and table.press(2, "green")
    assert table.press(1, "yellow")  # a change of mind while the cup is on counts
    record = table.session.record
    assert table.offer_reading(OfferedReading(["red", "blue", "blue", "blue", "red"], flagged=True, reason="a hand?")) == "held"
    assert not table.press(2, "yellow")  # the dice are out: too late to change a call
    assert table.session.record == record
    table.confirm_reading(["red", "blue", "blue", "blue", "red"])
    assert table.session.record.events[-1].values == ("red", "blue", "blue", "blue", "red")
    assert [e.chip for e in table.session.record.events if isinstance(e, ChipCall)] == ["green", "green", "yellow"]


def test_calls_typed_in_by_the_host_close_too_once_the_dice_are_out_and_a_fix_stays_open():
    """Issue 66: Val-Des, the cube read and held: the host panel took a new call for Ann
    and the set scored it. Every path closes; a correction (amend) is the host's way."""
    table = Table()
    table.start_game("val-des", ["Ann", "Ben"])
    table.submit(ColourCall(0, "red"))
    table.submit(ColourCall(1, "blue"))
    assert table.offer_reading(OfferedReading(["blue"], flagged=True, reason="a hand?")) == "held"
    record = table.session.record
    with pytest.raises(IllegalAction, match="the dice are out"):
        table.submit(ColourCall(0, "blue"))  # the host panel's "Enter for the table", the API
    assert not table.press(0, "yellow")  # the seat buttons
    assert table.session.record == record
    table.amend(0, ColourCall(0, "blue"))  # the correction, kept in the record as the host's
    assert table.session.record.events[-1] == Amend(target=0, event=ColourCall(0, "blue"))
    table.confirm_reading(["blue"])
    assert isinstance(table.session.record.events[-1], DiceObserved)


def test_a_held_reading_closes_no_calls_once_the_game_stops_waiting_for_dice():
    table = Table()
    table.start_game("tregald", ["Ann", "Ben", "Cara"])
    table.submit(Declaration(0, 3, "red"))
    assert table.press(1, "green") and table.press(2, "green")
    assert table.offer_reading(OfferedReading(["red", "blue", "blue", "blue", "red"], flagged=True, reason="a hand?")) == "held"
    table.undo()  # the host takes back Cara's call instead: the game waits for it again
    assert table.press(2, "yellow")


def test_a_reading_that_found_no_dice_leaves_the_calls_open():
    table = Table()
    table.start_game("tregald", ["Ann", "Ben", "Cara"])
    table.submit(Declaration(0, 3, "red"))
    assert table.press(1, "green") and table.press(2, "green")
    assert table.offer_reading(OfferedReading([], flagged=True, reason="no dice found: is the cup still over them?")) == "held"
    assert table.press(2, "yellow")  # the cup may still be on


def test_a_reading_nobody_expects_is_ignored():
    table = Table()
    table.start_game("toy", ["Ann", "Ben"])
    assert table.offer_reading(OfferedReading(["red"])) == "ignored"
    assert table.session.record.events == ()


def test_no_game_running_is_a_clear_refusal():
    with pytest.raises(NoGame, match="start one"):
        Table().submit(ChipCall(0, "green"))


def test_one_game_at_a_time():
    table = Table()
    table.start_game("toy", ["Ann", "Ben"])
    with pytest.raises(IllegalAction, match="in progress"):
        table.start_game("toy", ["Cy", "Di"])


def test_an_unfinished_game_resumes_exactly_where_it_stopped():
    store = MemoryStore()
    table = Table(store)
    table.start_game("toy", ["Ann", "Ben"])
    table.press(0, "yellow")
    again = Table(store)
    assert again.resume()
    assert again.session.state == table.session.state
    assert again.snapshot()["slate"] == table.snapshot()["slate"]


def test_listeners_wake_on_change_from_another_thread():
    table = Table()
    table.start_game("toy", ["Ann", "Ben"])
    seq = table.seq
    got = []
    waiter = threading.Thread(target=lambda: got.append(table.wait_for_change(seq, 5)))
    waiter.start()
    table.press(0, "green")
    waiter.join(5)
    assert got and got[0][0] > seq
    assert json.loads(got[0][1])["prompt"]["waiting"] == [1]


def test_presses_from_many_threads_are_all_kept_in_order():
    table = Table()
    table.start_game("toy", ["Ann", "Ben", "Cy", "Di"], {"turns": 50})
    threads = [threading.Thread(target=lambda s=s: [table.press(s, "green") for _ in range(25)]) for s in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(table.session.record.events) == 100
    assert len(table.store.load(table.game_id).events) == 100


def test_stats_count_games_and_wins_per_player_name():
    from companion.rules import GameRecord
    from companion.stats import player_stats

    won = GameRecord("toy", ("Ann", "Ben"), {"turns": 1},
                     (ChipCall(0, "green"), ChipCall(1, "yellow"), DiceObserved(("red",))))
    unfinished = GameRecord("toy", ("Ben", "Cy"), {"turns": 1}, (ChipCall(0, "green"),))
    stats = player_stats([(won, None), (unfinished, None)])
    assert stats["Ann"]["games"] == 1 and stats["Ann"]["wins"] == 1
    assert stats["Ben"]["games"] == 2 and stats["Ben"]["wins"] == 0
    assert stats["Cy"]["wins"] == 0


def test_an_applied_camera_reading_is_announced_once_with_its_photo():
    table = Table()
    table.start_game("toy", ["Ann", "Ben"])
    table.press(0, "green")
    table.press(1, "green")
    seq = table.seq
    assert table.offer_reading(OfferedReading(["red"], boxes=[(1, 2, 30, 40)]), photo=b"jpeg") == "applied"
    assert table.seq == seq + 1
    assert table.snapshot()["photo"]["dice"][0]["box"] == [1, 2, 30, 40]


def test_a_confirmed_held_reading_is_announced_once_with_its_photo():
    table = Table()
    table.start_game("toy", ["Ann", "Ben"])
    table.press(0, "green")
    table.press(1, "green")
    table.offer_reading(OfferedReading(["red"], boxes=[(1, 2, 30, 40)], flagged=True, reason="a hand"), photo=b"jpeg")
    seq = table.seq
    table.confirm_reading(["blue"])
    assert table.seq == seq + 1
    snap = table.snapshot()
    assert snap["held"] is False and snap["photo"]["dice"][0]["value"] == "blue"


def test_a_hosts_fix_filled_before_a_new_reading_came_in_is_refused():
    table = Table()
    table.start_game("leiras-dice", ["Ann", "Ben"])  # the roll-off: Ann's two dice, then Ben's
    assert table.offer_reading(OfferedReading([3]), photo=b"jpeg") == "held"  # one die seen, two thrown
    readings = 0  # what the host's form was filled against
    assert table.offer_reading(OfferedReading([6, 2])) == "applied"  # Ann threw again and the camera read it
    assert table.expected_dice().seat == 1  # now the game waits for Ben
    with pytest.raises(IllegalAction, match="a reading came in"):
        table.confirm_reading([3, 4], readings=readings)  # the fix meant for Ann's throw
    assert [e.values for e in table.session.record.events] == [(6, 2)]  # nothing given to Ben
    table.confirm_reading([5, 1], readings=1)  # filled against the state as it is
    assert [e.values for e in table.session.record.events] == [(6, 2), (5, 1)]


def test_a_hosts_fix_of_a_photo_the_camera_has_replaced_is_refused():
    table = Table()
    table.start_game("toy", ["Ann", "Ben"])
    table.press(0, "green")
    table.press(1, "green")
    table.offer_reading(OfferedReading(["red"], flagged=True, reason="a hand"), photo=b"first")
    first = table.host_view()["held_reading"]["photo"]
    table.offer_reading(OfferedReading(["blue"], flagged=True, reason="a hand"), photo=b"second")  # thrown again
    record = table.session.record
    with pytest.raises(IllegalAction, match="read the dice again"):
        table.confirm_reading(["red"], photo=first)  # the host's taps on the first photo
    assert table.session.record == record and table.host_view()["held_reading"]["photo"] != first
    table.confirm_reading(["blue"], photo=table.host_view()["held_reading"]["photo"])
    assert table.session.record.events[-1].values == ("blue",)


class EndNotStored(MemoryStore):
    """A store whose `finish` fails (disk full) while `fail` is set."""

    fail = True

    def finish(self, game_id, slate):
        if self.fail:
            raise OSError("disk full")
        super().finish(game_id, slate)


def _last_turn(table):
    table.start_game("toy", ["Ann", "Ben"], {"turns": 1})
    table.press(0, "green")
    table.press(1, "yellow")


def test_a_game_whose_end_the_store_refuses_is_still_over_on_the_slate_with_a_warning():
    store = EndNotStored()
    table = Table(store)
    _last_turn(table)
    seq = table.seq
    assert table.offer_reading(OfferedReading(["red"])) == "applied"  # the event itself is stored: no error
    snapshot = table.snapshot()
    assert snapshot["seq"] > seq
    assert snapshot["slate"]["finished"] and snapshot["slate"]["winner"] == "Ann"
    assert snapshot["devices"]["store"]["status"] == "warning"
    assert len(store.load(table.game_id).events) == 3
    with pytest.raises(IllegalAction, match="already over"):
        table.end_game()


def test_the_end_the_store_refused_is_stored_before_the_next_game_starts():
    store = EndNotStored()
    table = Table(store)
    _last_turn(table)
    table.offer_reading(OfferedReading(["red"]))
    store.fail = False
    table.start_game("toy", ["Cy", "Di"])
    assert store.unfinished() == [("2", store.load("2"))]
    assert store.list_games()[0]["winner"] == "Ann"
    assert table.snapshot()["devices"]["store"]["status"] == "ok"


def test_an_end_the_store_keeps_refusing_is_stored_on_restart():
    store = EndNotStored()
    table = Table(store)
    _last_turn(table)
    table.offer_reading(OfferedReading(["red"]))
    table.start_game("toy", ["Cy", "Di"])  # the store still refuses; the new game starts anyway
    assert table.snapshot()["devices"]["store"]["status"] == "warning"
    store.fail = False
    again = Table(store)
    assert again.resume() and again.game_id == "2"
    assert [game_id for game_id, _ in store.unfinished()] == ["2"]


def test_a_new_game_ends_the_one_in_progress_only_when_it_would_start():
    """Issue 66: "Start another game" on the host panel ends the game in progress first; a
    start that would be refused (bad players) ends nothing."""
    table = Table()
    table.start_game("toy", ["Ann", "Ben"])
    running = table.game_id
    with pytest.raises(IllegalAction, match="in progress"):
        table.start_game("toy", ["Cy", "Dee"])
    with pytest.raises(IllegalAction):
        table.start_game("toy", ["Cy"], ending="a new game was started")  # too few players
    assert table.game_id == running and not table.session.finished
    table.start_game("toy", ["Cy", "Dee"], ending="a new game was started")
    assert table.game_id != running and table.session.record.players == ("Cy", "Dee")
    ended = table.store.load(running)
    assert ended.events[-1].kind == "end_game" and ended.events[-1].reason == "a new game was started"


def test_the_hosts_fix_of_a_chip_call_is_said_only_once_the_reveal_shows_the_call():
    table = Table()
    table.start_game("tregald", ["Ann", "Ben"], {"rounds": 2})
    table.submit(Declaration(0, 2, "red"))
    table.submit(ChipCall(1, "green"))
    table.amend(1, ChipCall(1, "yellow"))
    assert table.snapshot()["fixes"] == []  # before the reveal: nothing of the call, not even that it changed
    assert "yellow" not in json.dumps(table.snapshot())
    table.amend(0, Declaration(0, 3, "red"))
    assert table.snapshot()["fixes"] == ["Host's fix: Ann's declaration is now count 3, face red (Val)"]
    assert table.offer_reading(OfferedReading(["red"] * 5)) == "applied"
    assert table.snapshot()["fixes"] == ["Host's fix: Ann's declaration is now count 3, face red (Val)",
                                         "Host's fix: Ben's chip call is now yellow"]

"""The reveal desk's decisions, frame by frame: no thread, no sleep, the time passed in.

A scripted watcher says what each frame is ("waiting", "moving", "ready", "occluded"),
a fake reader says what it sees, and each scenario checks what the step decides.
"""

from __future__ import annotations

import numpy as np
import pytest

from companion.rules import DiceRequest
from hardware.reveal import Sight
from hardware.reveal.step import Answer, Offer, Outcome, RevealStep, TellTable, Watch, unseen
from hardware.vision.reading import UnreadableFrame


def Request(kind="pips", count=1, seat=0):
    return DiceRequest(kind, count, seat)


ONE_PIP = Request()
ONE_FOUR = Sight((4,), ((320, 200, 360, 240),), (0.99,))


class Watcher:
    """Says `says` of every frame; records the frames marked read; may keep a still picture."""

    def __init__(self, still=None):
        self.says = "waiting"
        self.marked: list[np.ndarray] = []
        self.still = still
        self.fed: list[float] = []

    def feed(self, frame, t):
        self.fed.append(t)
        if isinstance(self.says, Exception):
            raise self.says
        return self.says

    def mark_read(self, frame):
        self.marked.append(frame)

    def still_picture(self):
        return self.still


class Reader:
    def __init__(self, sight=ONE_FOUR):
        self.sight = sight
        self.seen: list[tuple[np.ndarray, str, int | None]] = []

    def read(self, frame, kind, expect=None):
        self.seen.append((frame, kind, expect))
        if isinstance(self.sight, Exception):
            raise self.sight
        return self.sight


def frame(level=90):
    return np.full((480, 640, 3), level, np.uint8)


class Desk:
    """A step with its watcher and reader, turned by hand: 0.1 s per frame."""

    def __init__(self, sight=ONE_FOUR, *, resumed=False, still=None, notice=10.0):
        self.watcher = Watcher(still)
        self.reader = Reader(sight)
        self.step = RevealStep(lambda: self.watcher, self.reader, occluded_notice=notice, resumed=resumed)
        self.now = 0.0

    def frame(self, says="waiting", request=ONE_PIP, *, picture=None, **options):
        self.watcher.says = says
        self.now += 0.1
        return self.step.step(frame() if picture is None else picture, self.now, request, **options)

    def offers(self, turn):
        return [a for a in turn.actions if isinstance(a, Offer)]


def test_a_settled_scene_is_read_once_and_offered():
    desk = Desk()
    assert desk.frame("moving").actions == ()
    turn = desk.frame("ready")
    [offer] = desk.offers(turn)
    assert offer.sight.values == (4,) and offer.photo[:2] == b"\xff\xd8"  # a JPEG
    assert turn.watch is Watch.READY
    assert len(desk.reader.seen) == 1 and desk.reader.seen[0][1:] == ("pips", 1)
    assert len(desk.watcher.marked) == 1  # the watcher is told: not "ready" again for this scene
    for _ in range(5):
        assert desk.frame("waiting").actions == ()
    assert len(desk.reader.seen) == 1


def test_nothing_is_read_while_the_dice_move_or_settle():
    desk = Desk()
    for says in ("moving", "moving", "waiting", "waiting"):
        assert desk.frame(says).actions == ()
    assert desk.reader.seen == []


def test_a_nudge_of_the_same_dice_is_not_a_new_throw():
    desk = Desk()
    assert desk.offers(desk.frame("ready"))
    desk.reader.sight = Sight((4,), ((326, 204, 366, 244),), (0.99,))  # the table bumped
    desk.frame("moving")
    assert desk.frame("ready").actions == (Answer("the same dice as the last reading"),)
    desk.reader.sight = Sight((4,), ((100, 300, 140, 340),), (0.99,))  # thrown again, the same face
    assert desk.offers(desk.frame("ready"))


def test_a_press_reads_at_once_even_the_dice_read_last():
    desk = Desk()
    [offer] = desk.offers(desk.frame("moving", pressed=True))  # pressed before the dice rest
    assert offer.sight.values == (4,)
    assert len(desk.watcher.marked) == 1  # ... so "ready" does not read them again
    [again] = desk.offers(desk.frame("waiting", pressed=True))  # a press reads whatever lies there
    assert again.sight.values == (4,) and len(desk.reader.seen) == 2


def test_a_press_while_no_dice_are_expected_reads_nothing():
    desk = Desk()
    assert desk.frame("waiting", request=None, pressed=True).actions == (Answer("no dice are expected now"),)
    assert desk.reader.seen == []


def test_a_reading_while_no_dice_are_expected_is_not_offered_but_kept_for_when_they_are():
    desk = Desk()
    assert desk.frame("ready", request=None).actions == ()  # at rest before the game asked
    assert desk.reader.seen == []
    [offer] = desk.offers(desk.frame("waiting"))  # the game asks: the scene at rest is read
    assert offer.sight.values == (4,)
    assert desk.frame("waiting").actions == ()


def test_dice_that_rested_before_the_game_asked_and_then_moved_are_not_read():
    desk = Desk()
    desk.frame("ready", request=None)
    desk.frame("moving", request=None)  # picked up again
    assert desk.frame("waiting").actions == ()
    assert desk.reader.seen == []


def test_a_still_scene_without_dice_is_not_offered_unless_someone_asked():
    desk = Desk(Sight((), (), (), True, "no dice found: is the cup still over them?"))
    assert desk.frame("ready").actions == (Answer("no dice in view"),)
    [offer] = desk.offers(desk.frame("waiting", pressed=True))
    assert offer.sight.flagged and offer.sight.reason.startswith("no dice found")


def test_a_reading_with_the_wrong_number_of_dice_is_offered_flagged_in_the_rules_words():
    desk = Desk(Sight(("red", "blue"), ((1, 1, 5, 5), (9, 9, 15, 15)), (0.99, 0.99)))
    [offer] = desk.offers(desk.frame("ready", request=Request("chance", 1)))
    assert offer.sight.flagged
    assert offer.sight.reason == "1 chance cube is in play but 2 were read: check the photo"
    assert offer.answer(Outcome.HELD) == f"held for the host: {offer.sight.reason}"


def test_a_face_the_dice_in_play_do_not_have_is_offered_flagged():
    desk = Desk(Sight((7,), ((1, 1, 5, 5),), (0.99,)))
    [offer] = desk.offers(desk.frame("ready", request=Request("spike", 1)))
    assert offer.sight.flagged and offer.sight.reason == "a spike die shows 1 to 6, not 7: check the photo"


def test_a_reading_the_reader_flagged_keeps_the_readers_reason():
    desk = Desk(Sight((3, 4), ((1, 1, 5, 5), (8, 1, 12, 5)), (0.4, 0.99), True, "a hand is over the dice"))
    [offer] = desk.offers(desk.frame("ready"))
    assert offer.sight.reason == "a hand is over the dice"


def test_a_reader_that_fails_gives_a_flagged_reading_for_the_host():
    desk = Desk(RuntimeError("the model file is missing"))
    [offer] = desk.offers(desk.frame("ready"))
    assert offer.sight.flagged and offer.sight.reason == "the reader failed: the model file is missing"


@pytest.mark.parametrize("request_, reader, answer", [
    (Request("polyhedral", 3), True, "polyhedral dice are typed in: enter the dice on the host panel"),
    (ONE_PIP, False, "there is no dice reader; enter the dice on the host panel"),
])
def test_dice_the_camera_cannot_read_are_left_to_the_host(request_, reader, answer):
    desk = Desk()
    if not reader:
        desk.step.reader = None
    assert desk.frame("waiting", request=request_, pressed=True).actions == (Answer(answer),)


def test_a_covered_table_is_told_after_the_notice_only_while_dice_are_awaited():
    desk = Desk(notice=1.0)
    for _ in range(20):  # two seconds covered, no dice awaited: nothing to say
        assert desk.frame("occluded", request=None).actions == ()
    told = [desk.frame("occluded").actions for _ in range(12)]
    assert told[:10] == [()] * 10  # covered for less than the notice
    [[covered]] = [actions for actions in told if actions]
    assert isinstance(covered, TellTable) and covered.status == "covered" and "lift the cup" in covered.message
    assert desk.frame("occluded").actions == ()  # told once
    assert desk.frame("moving").actions == (TellTable("camera", "ok", ""),)  # the notice is over
    assert desk.frame("moving").actions == ()


def test_a_table_covered_for_a_moment_is_not_told():
    desk = Desk(notice=1.0)
    for _ in range(5):
        desk.frame("occluded")
    desk.frame("waiting")  # lifted: the count starts again
    assert all(desk.frame("occluded").actions == () for _ in range(9))


def test_a_new_calibration_ends_a_covered_table_notice_and_starts_a_new_watcher():
    desk = Desk(notice=0.2)
    for _ in range(4):
        desk.frame("occluded")
    assert desk.step.reconfigure(lambda: desk.watcher) == (TellTable("camera", "ok", ""),)


def test_a_new_watcher_is_told_the_dice_already_read():
    desk = Desk()
    read = frame(200)
    desk.frame("ready", picture=read)
    desk.step.reconfigure(lambda: desk.watcher)
    desk.watcher.marked.clear()
    desk.frame("waiting")
    assert [m is read for m in desk.watcher.marked] == [True]
    desk.step.new_camera()  # the camera came back: likewise
    desk.frame("waiting")
    assert [m is read for m in desk.watcher.marked] == [True, True]


def test_after_a_restart_the_first_scene_is_taken_as_read():
    resumed, fresh = Desk(resumed=True), Desk()
    first = frame(120)
    resumed.frame("waiting", picture=first)
    fresh.frame("waiting", picture=first)
    assert [m is first for m in resumed.watcher.marked] == [True] and fresh.watcher.marked == []


def test_a_settled_scene_is_read_from_the_still_frames_averaged():
    averaged = frame(77)
    desk = Desk(still=averaged)
    desk.frame("ready")
    assert desk.reader.seen[0][0] is averaged
    turn = desk.frame("waiting", pressed=True)  # a press while still: the same
    assert desk.reader.seen[1][0] is averaged and turn.still is averaged
    moving = frame(10)
    turn = desk.frame("moving", picture=moving, pressed=True, looking=True)  # pressed while things move
    assert desk.reader.seen[2][0] is moving and turn.still is moving


def test_a_camera_page_job_gets_the_still_frames_averaged_only_when_it_looks():
    averaged = frame(77)
    desk = Desk(still=averaged)
    assert desk.frame("waiting", looking=True).still is averaged
    plain = frame(5)
    assert desk.frame("waiting", picture=plain).still is plain


def test_a_table_region_outside_the_picture_is_told_once_and_cleared_when_it_fits():
    desk = Desk()
    problem = UnreadableFrame("the table region lies outside the camera's picture: set it again")
    desk.watcher.says = problem
    desk.now += 0.1
    first = desk.step.step(frame(), desk.now, ONE_PIP)
    desk.now += 0.1
    again = desk.step.step(frame(), desk.now, ONE_PIP)
    [told] = first.actions
    assert told.status == "error" and "outside the camera's picture" in told.message and again.actions == ()
    assert desk.frame("waiting").actions == (TellTable("camera", "ok", ""),)


def test_the_watcher_is_fed_the_time_passed_in():
    desk = Desk()
    desk.step.step(frame(), 12.5, ONE_PIP)
    desk.step.step(frame(), 12.75, ONE_PIP)
    assert desk.watcher.fed == [12.5, 12.75]


def test_the_answer_to_a_press_says_what_the_table_did():
    offer = Offer(Sight((3, 5), ((0, 0, 1, 1), (2, 2, 3, 3)), (0.9, 0.9)), b"", readings=1)
    assert offer.answer(Outcome.APPLIED) == "read 2 dice"
    assert offer.answer("applied") == "read 2 dice"  # the table's own outcome kind, by value
    assert offer.answer(Outcome.HELD) == "held for the host: the reading does not fit the game"
    assert offer.answer(Outcome.STALE) == "the dice were entered while the camera read them: nothing more was applied"
    assert offer.answer(Outcome.IGNORED) == "no dice are expected now"
    assert unseen(None) == "no camera; enter the dice on the host panel"
    assert unseen(Request("polyhedral", 2)) == "polyhedral dice are typed in: enter the dice on the host panel"


def test_a_reading_carries_the_readings_in_force_when_its_frame_was_taken():
    desk = Desk()
    [offer] = desk.offers(desk.frame("ready", readings=3))
    assert offer.readings == 3

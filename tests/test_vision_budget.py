"""Issue 65: a bounded read. The harder looks stop when [vision] read_budget_ms is spent,
and the reading is then held, saying why, rather than read on for seconds."""

from __future__ import annotations

from pathlib import Path

import cv2
import pytest

from hardware.vision import read_dice
from hardware.vision.budget import LookBudget
from hardware.vision.config import VisionConfig, VisionConfigError

PHOTO = Path(__file__).resolve().parents[1] / "hardware" / "data" / "demo" / "pips-2-0009.jpg"  # two dice: 3 and 4


def test_a_budget_allows_looks_until_its_time_is_spent_and_says_it_cut_one():
    now = [0.0]
    budget = LookBudget(0.5, clock=lambda: now[0])
    assert budget.allows() and not budget.cut and budget.reason() is None
    now[0] = 0.6
    assert not budget.allows() and budget.cut
    assert "stopped looking harder after 500 ms" in budget.reason()
    assert LookBudget(None, clock=lambda: 1e9).allows()


def test_a_read_that_needs_no_harder_look_is_not_held_for_time():
    reading = read_dice(cv2.imread(str(PHOTO)), "pips", expect=2, budget_ms=0)
    assert not reading.flagged and sorted(d.value for d in reading.dice) == [3, 4]


def test_a_read_out_of_time_holds_what_it_has_and_says_why():
    frame = cv2.imread(str(PHOTO))
    patient = read_dice(frame, "pips", expect=3)  # one die short: the reader looks harder
    assert patient.flagged and "stopped looking harder" not in patient.reason
    hurried = read_dice(frame, "pips", expect=3, budget_ms=0)
    assert hurried.flagged and "stopped looking harder after 0 ms ([vision] read_budget_ms)" in hurried.reason
    assert sorted(d.value for d in hurried.dice) == [3, 4]


@pytest.mark.parametrize("value", [-1, "fast", True, 1e9])
def test_a_budget_that_is_not_milliseconds_is_refused_by_name(value):
    with pytest.raises(VisionConfigError, match="read_budget_ms"):
        VisionConfig.from_mapping({"read_budget_ms": value})


def test_the_budget_has_a_default_and_round_trips():
    assert VisionConfig().read_budget_ms > 0
    assert VisionConfig.from_mapping({"read_budget_ms": 250}).read_budget_ms == 250.0
    assert VisionConfig.from_mapping(VisionConfig().to_mapping()) == VisionConfig()


def test_in_a_harder_look_faces_are_read_surest_first_until_the_budget_is_spent():
    from types import SimpleNamespace

    from hardware.vision.budget import CHUNK, in_turn

    now = [0.0]
    budget = LookBudget(1.0, clock=lambda: now[0])
    cands = [SimpleNamespace(score=s / 1000) for s in range(3 * CHUNK)]
    calls = []

    def read(some):
        calls.append([c.score for c in some])
        now[0] += 0.6  # each chunk costs 0.6 s of the 1 s
        return ["read"] * len(some)

    assert [p for _, p in in_turn(cands, read, "unread")] == ["read"] * len(cands)  # the first look: all read
    assert len(calls) == 1
    calls.clear()
    budget.armed = True
    try:
        got = dict((id(c), p) for c, p in in_turn(cands, read, "unread"))
    finally:
        budget.close()
    assert len(calls) == 1 and calls[0] == sorted(calls[0], reverse=True)  # one chunk, the surest
    assert min(calls[0]) > max(c.score for c in cands if got[id(c)] == "unread")
    assert list(got.values()).count("read") == CHUNK and budget.cut


def test_no_budget_outlives_its_read_even_one_that_raised(monkeypatch):
    """A face read after a read (spike teaching, another read's first look) is never cut by
    an earlier read's spent budget."""
    from hardware.vision import reader
    from hardware.vision.budget import current

    frame = cv2.imread(str(PHOTO))
    real = reader._look_again

    def first_then_fail(*args, **kwargs):
        if args[6] is not reader.FIRST_LOOK:
            raise RuntimeError("a bug in a harder look")
        return real(*args, **kwargs)

    monkeypatch.setattr(reader, "_look_again", first_then_fail)
    with pytest.raises(RuntimeError):
        read_dice(frame, "pips", expect=3, budget_ms=60000)  # a harder look raises, the budget armed
    assert current() is None
    monkeypatch.setattr(reader, "_look_again", real)
    found, _, _ = reader.find_dice(frame)  # all of its candidates read, none cut
    assert len(found) == 2


def test_a_chunk_that_would_end_past_the_deadline_is_not_started():
    """The first look's faces took 0.1 s a candidate: at 0.5 s of a 1 s budget, a chunk of
    CHUNK candidates (CHUNK x 0.1 s) would end far past it, so none is read; a read that
    fast enough to fit is."""
    from types import SimpleNamespace

    from hardware.vision.budget import CHUNK, in_turn

    now = [0.0]
    budget = LookBudget(1.0, clock=lambda: now[0])
    try:
        def slow(some):
            now[0] += 0.1 * len(some)
            return ["read"] * len(some)

        assert [p for _, p in in_turn([SimpleNamespace(score=1.0)] * 5, slow, "unread")] == ["read"] * 5
        assert now[0] == 0.5 and budget.per_read == 0.1
        budget.armed = True
        cands = [SimpleNamespace(score=s / 1000) for s in range(CHUNK)]
        assert [p for _, p in in_turn(cands, slow, "unread")] == ["unread"] * CHUNK
        assert budget.cut and now[0] == 0.5
        budget.cut, budget.per_read = False, 0.001  # 48 ms for the chunk: it fits
        assert [p for _, p in in_turn(cands, slow, "unread")] == ["read"] * CHUNK
    finally:
        budget.close()

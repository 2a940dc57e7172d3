"""TableMemory: pip dice read surely at a table vouch for the ones it doubts later."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from hardware.vision import TableMemory, read_dice
from hardware.vision.detect import Candidate

FIXTURES = Path(__file__).parent / "fixtures"


def _photo(set_name: str, name: str):
    manifest = json.loads((FIXTURES / set_name / "manifest.json").read_text())
    entry = next(e for e in manifest if e["image"].endswith(name))
    frame = cv2.imread(str(FIXTURES / set_name / entry["image"]))
    dice = [Candidate((x1 + x2) / 2, (y1 + y2) / 2, max(x2 - x1, y2 - y1), 1.0) for x1, y1, x2, y2, _ in entry["boxes"]]
    return frame, dice, [int(b[4]) for b in entry["boxes"]]


def _again(frame: np.ndarray, k: int) -> np.ndarray:
    """The same table a moment later: a little brighter or darker, a pixel's shift."""
    shifted = np.roll(frame, (k % 3) - 1, axis=1 + k % 2 - 1)
    return np.clip(shifted.astype(np.float32) * (0.94 + 0.03 * k), 0, 255).astype(np.uint8)


@pytest.fixture(scope="module")
def tray():
    return _photo("byler", "IMG_20191208_111228.jpg")


@pytest.fixture(scope="module")
def remembered(tray):
    frame, dice, values = tray
    memory = TableMemory()
    for k in range(5):
        memory.learn(_again(frame, k), dice, values)
    return memory


def test_a_die_like_the_remembered_ones_is_vouched_for_showing_their_face(tray, remembered):
    frame, dice, values = tray
    raised = remembered.vouch(frame, dice, values, [0.5] * len(dice), 0.8)
    assert sum(c >= 0.8 for c in raised) >= len(dice) - 2  # a crowded tray: its dice vouch for themselves
    assert len(remembered) == 5 * len(dice)


def test_the_memory_never_vouches_for_another_face_nor_lowers_a_confidence(tray, remembered):
    frame, dice, values = tray
    other = [v % 6 + 1 for v in values]
    assert remembered.vouch(frame, dice, other, [0.5] * len(dice), 0.8) == [0.5] * len(dice)
    assert remembered.vouch(frame, dice, values, [0.3, 0.9] * 11, 0.2) == [0.3, 0.9] * 11  # not doubted: as read
    doubted = remembered.vouch(frame, dice, values, [0.9] * len(dice), 0.95)  # a vouch of 4 in 5 is 0.8: kept 0.9
    assert min(doubted) == 0.9 and 0.8 not in doubted and doubted.count(1.0) >= len(dice) // 2


def test_a_die_of_another_colour_is_not_vouched_for(tray, remembered):
    frame, dice, values = tray
    hsv = cv2.cvtColor(frame, cv2.COLOR_BGR2HSV)
    hsv[..., 0] = (hsv[..., 0].astype(int) + 60) % 180  # every colour a third of the way round
    turned = cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR)
    coloured = [i for i, d in enumerate(dice) if _chroma(frame, d) > 25]
    assert len(coloured) >= 5
    raised = remembered.vouch(turned, dice, values, [0.5] * len(dice), 0.8)
    assert [raised[i] for i in coloured] == [0.5] * len(coloured)


def _chroma(frame, die) -> float:
    r = int(die.size * 0.3)
    patch = frame[int(die.cy) - r:int(die.cy) + r, int(die.cx) - r:int(die.cx) + r]
    lab = cv2.cvtColor(patch.astype(np.float32) / 255, cv2.COLOR_BGR2Lab).reshape(-1, 3)
    return float(np.hypot(*np.median(lab, axis=0)[1:]))


def test_too_few_dice_remembered_vouch_for_nothing(tray):
    frame, dice, values = tray
    memory = TableMemory()
    memory.learn(frame, dice[:4], values[:4])
    assert memory.vouch(frame, dice[:4], values[:4], [0.5] * 4, 0.8) == [0.5] * 4


def test_bad_lessons_are_refused_and_teach_nothing(tray):
    frame, dice, values = tray
    memory = TableMemory()
    with pytest.raises(ValueError, match="3 dice but 2 values"):
        memory.learn(frame, dice[:3], values[:2])
    with pytest.raises(ValueError, match="1 to 6, not 7"):
        memory.learn(frame, dice[:2], [3, 7])
    assert len(memory) == 0
    memory.learn(frame, dice[:2], values[:2])
    memory.clear()
    assert len(memory) == 0


def test_each_face_keeps_only_its_latest_dice(tray):
    frame, dice, values = tray
    memory = TableMemory(per_face=3)
    ones = [d for d, v in zip(dice, values) if v == 1]
    memory.learn(frame, ones, [1] * len(ones))
    assert len(ones) > 3 and len(memory) == 3
    kept, _, faces = memory._bank()
    latest = TableMemory()
    latest.learn(frame, ones[-3:], [1] * 3)
    assert np.allclose(kept, latest._bank()[0]) and list(faces) == [1, 1, 1]


def test_a_reading_teaches_the_memory_only_when_it_is_not_flagged():
    frame, _, values = _photo("matteop", "train_five_13.jpg")
    memory = TableMemory()
    sure = read_dice(frame, "pips", expect=len(values), memory=memory)
    assert not sure.flagged and len(memory) == len(values)
    held = read_dice(frame, "pips", expect=len(values) + 1, memory=memory)
    assert held.flagged and len(memory) == len(values)
    read_dice(frame, "chance", expect=len(values), memory=memory)  # only pip dice are remembered
    assert len(memory) == len(values)


def test_a_die_the_memory_vouched_for_is_not_learned(monkeypatch):
    from hardware.vision import reader

    frame, _, values = _photo("matteop", "train_five_13.jpg")
    memory = TableMemory()
    for k in range(5):
        memory.learn(_again(frame, k), *_dice_of(frame, values))
    read_plain = reader.read_values

    def first_doubted(frame, kept, probs, dice, profile, min_confidence):  # the face models doubt die 0
        values, confidences = read_plain(frame, kept, probs, dice, profile, min_confidence)
        return values, [0.5] + list(confidences[1:])

    monkeypatch.setattr(reader, "read_values", first_doubted)
    # ... and still doubt it seen whole (whole.read_whole)
    monkeypatch.setattr(reader, "read_whole", lambda kept, probs, values, conf, *rest: (probs, values, conf))
    before = len(memory)
    reading = read_dice(frame, "pips", expect=len(values), memory=memory)
    assert not reading.flagged  # vouched for ...
    assert len(memory) == before + len(values) - 1  # ... but only the die read surely is learned


def _dice_of(frame, values):
    reading = read_dice(frame, "pips", expect=len(values))
    return [Candidate((d.box[0] + d.box[2]) / 2, (d.box[1] + d.box[3]) / 2, max(d.box[2] - d.box[0], d.box[3] - d.box[1]),
                      1.0) for d in reading.dice], [d.value for d in reading.dice]

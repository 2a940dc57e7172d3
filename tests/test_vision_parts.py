"""parts.bigger_die: a die read as a one or a two that views of a bigger die around it
read as one bigger face is taken for a piece of that die, and its reading is held."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from hardware.vision import parts, read_dice
from hardware.vision.detect import Candidate

FOUR = np.array([0.02, 0, 0, 0, 0.97, 0, 0, 0.01])
ONE = np.array([0.02, 0.97, 0, 0, 0, 0, 0, 0.01])
NO_DIE = np.array([1.0, 0, 0, 0, 0, 0, 0, 0])


def _drawn_die(img: np.ndarray, cx: int, cy: int, side: int, pips: int) -> None:
    """A white die with black pips, straight down."""
    h = side // 2
    cv2.rectangle(img, (cx - h, cy - h), (cx + h, cy + h), (235, 235, 235), -1, cv2.LINE_AA)
    at = {1: [(0, 0)], 4: [(-1, -1), (1, -1), (-1, 1), (1, 1)]}[pips]
    for dx, dy in at:
        cv2.circle(img, (int(cx + dx * side * 0.27), int(cy + dy * side * 0.27)), int(side * 0.09), (20, 20, 20), -1,
                   cv2.LINE_AA)


@pytest.fixture
def table() -> np.ndarray:
    """A big four (120 px) and a small one (50 px) on a brown table."""
    img = np.full((480, 640, 3), (70, 110, 140), np.uint8)
    _drawn_die(img, 200, 240, 120, 4)
    _drawn_die(img, 450, 240, 50, 1)
    return img


def test_a_corner_of_a_big_four_read_as_a_one_is_a_piece_of_it(table):
    corner = Candidate(168, 208, 45, 0.9)  # its top left pip and the face around it
    assert parts.bigger_die(table, [corner], [1], [0.95], 0.80) == (0, 4)


def test_a_real_one_is_no_piece(table):
    assert parts.bigger_die(table, [Candidate(450, 240, 50, 0.9)], [1], [0.95], 0.80) is None


def _views_read(monkeypatch, read):
    """The face models replaced: each view (cx, cy, size) read as read(cx, cy, size) says;
    returns the list of views read, in order."""
    asked, batch = [], []

    def crops(frame, views):
        batch[:] = views
        asked.extend(views)
        return [np.zeros((8, 8, 3), np.uint8) for _ in views]

    monkeypatch.setattr(parts, "_crops", crops)
    monkeypatch.setattr(parts, "probabilities", lambda blob, sure: np.array([read(*v) for v in batch], float))
    return asked


def test_one_view_alone_is_not_enough(monkeypatch):
    piece = Candidate(100, 100, 20, 0.9)
    first = []

    def read(cx, cy, size):
        first.append((cx, cy, size))
        return FOUR if len(first) == 1 else NO_DIE

    _views_read(monkeypatch, read)
    assert parts.bigger_die(np.zeros((300, 300, 3), np.uint8), [piece], [1], [0.95], 0.80) is None
    assert len(first) == len(parts.GROWN) * 8  # every grown size, moved each of eight ways


def test_the_other_sizes_are_read_only_when_the_first_sees_a_bigger_face(monkeypatch):
    asked = _views_read(monkeypatch, lambda cx, cy, size: FOUR if size > 60 else NO_DIE)
    piece = Candidate(100, 100, 20, 0.9)
    # only the 3.2-times views would read the four: the first size's views read no die
    assert parts.bigger_die(np.zeros((300, 300, 3), np.uint8), [piece], [1], [0.95], 0.80) is None
    assert {size for _, _, size in asked} == {parts.GROWN[0] * piece.size}


def test_views_agreeing_on_a_bigger_face_name_it(monkeypatch):
    _views_read(monkeypatch, lambda cx, cy, size: FOUR if cy > 100 else NO_DIE)
    piece = Candidate(100, 100, 20, 0.9)
    assert parts.bigger_die(np.zeros((300, 300, 3), np.uint8), [piece], [2], [0.95], 0.80) == (0, 4)


def test_views_reading_the_same_or_a_smaller_face_are_no_bigger_die(monkeypatch):
    _views_read(monkeypatch, lambda cx, cy, size: ONE)
    frame = np.zeros((300, 300, 3), np.uint8)
    assert parts.bigger_die(frame, [Candidate(100, 100, 20, 0.9)], [1], [0.95], 0.80) is None
    assert parts.bigger_die(frame, [Candidate(100, 100, 20, 0.9)], [2], [0.95], 0.80) is None


def test_views_read_unsurely_are_no_bigger_die(monkeypatch):
    unsure = np.array([0.05, 0, 0, 0.15, 0.8, 0, 0, 0])  # a four at 0.80: under 0.85, a pip die's level
    _views_read(monkeypatch, lambda cx, cy, size: unsure)
    assert parts.bigger_die(np.zeros((300, 300, 3), np.uint8), [Candidate(100, 100, 20, 0.9)], [1], [0.95],
                            0.80) is None


def test_only_ones_and_twos_read_surely_are_looked_at(monkeypatch):
    asked = _views_read(monkeypatch, lambda cx, cy, size: FOUR)
    frame = np.zeros((300, 300, 3), np.uint8)
    dice = [Candidate(60, 60, 20, 0.9), Candidate(200, 200, 12, 0.9)]
    assert parts.bigger_die(frame, dice, [3, 1], [0.95, 0.5], 0.80) is None
    assert asked == []
    assert parts.bigger_die(frame, dice, [3, 1], [0.95, 0.95], 0.80) == (1, 4)


def test_a_one_the_size_of_the_other_dice_is_not_looked_at(monkeypatch):
    # a piece is smaller than the dice of its throw; a crowded tray's ones and twos are
    # dice of its size, and looking at each would take most of a read's time
    asked = _views_read(monkeypatch, lambda cx, cy, size: FOUR)
    frame = np.zeros((300, 300, 3), np.uint8)
    dice = [Candidate(40, 40, 20, 0.9), Candidate(150, 150, 18, 0.9), Candidate(260, 260, 20, 0.9)]
    assert parts.bigger_die(frame, dice, [5, 1, 2], [0.95, 0.95, 0.95], 0.80) is None
    assert asked == []
    smaller = dice[:1] + [Candidate(150, 150, 15, 0.9)] + dice[2:]
    assert parts.bigger_die(frame, smaller, [5, 1, 2], [0.95, 0.95, 0.95], 0.80) == (1, 4)


def test_views_reaching_another_die_of_the_reading_are_not_taken(monkeypatch):
    # byler IMG_20191209_095414: a one (36 px) with a two 2.6 sizes off; seen 3.2 times
    # grown towards it, the two dice were read surely as a two's pips
    asked = _views_read(monkeypatch, lambda cx, cy, size: NO_DIE)
    piece, other = Candidate(100, 100, 12, 0.9), Candidate(130, 140, 20, 0.9)
    parts.bigger_die(np.zeros((300, 300, 3), np.uint8), [piece, other], [1, 5], [0.95, 0.95], 0.80)
    reach = [parts.CROP_FACTOR * size / 2 + other.size / 2 for _, _, size in asked]
    assert asked and all(max(abs(cx - other.cx), abs(cy - other.cy)) >= r for (cx, cy, _), r in zip(asked, reach))
    assert len(asked) < len(parts.GROWN) * 8


def test_a_reading_of_a_piece_is_held_with_the_bigger_face_named(monkeypatch, table):
    """In read_dice: the corner of the big four, read as the one the game waits for, is held."""
    corner = Candidate(168, 208, 45, 0.9)
    monkeypatch.setattr("hardware.vision.reader.find_candidates",
                        lambda *a, **k: [corner])
    monkeypatch.setattr("hardware.vision.reader.face_probabilities",
                        lambda frame, cands, *a, **k: np.array([ONE for _ in cands]))
    reading = read_dice(table, "pips", expect=1)
    assert [d.value for d in reading.dice] == [1]
    assert reading.flagged and "part of a bigger die showing 4" in reading.reason


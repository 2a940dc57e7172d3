"""parts.bigger_die: a die read as a one or a two that views of a bigger die around it
read as one bigger face is taken for a piece of that die, and its reading is held.
parts.piece_of_found: so is one that the finder's own box of a bigger die overlaps, when
that box reads a bigger face. parts.die_inside: a die read as a one whose pip is a die
read surely as pips is a patch holding that die, which stands in its place."""

from __future__ import annotations

import json
from pathlib import Path

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


# parts.piece_of_found: the finder's own box of the whole die names the piece
UNSURE_FOUR = np.array([0.5, 0.05, 0.02, 0.03, 0.3, 0.04, 0.04, 0.02])  # a die seen from the side, in shadow
UNSURE_ONE = np.array([0.5, 0.3, 0.02, 0.03, 0.05, 0.04, 0.04, 0.02])


def test_a_one_in_a_box_the_finder_is_surer_of_read_as_a_four_is_a_piece_of_it():
    pip, die = Candidate(100, 100, 16, 0.36), Candidate(112, 94, 56, 0.56)
    assert parts.piece_of_found([pip], [1], {pip: ONE, die: UNSURE_FOUR}, 0.40) == (0, 4)
    # found only at the die's edge (the box leans onto its side faces) still overlaps it
    edge = Candidate(100 + 34, 100, 16, 0.36)
    assert parts.piece_of_found([edge], [2], {edge: ONE, die: UNSURE_FOUR}, 0.40) == (0, 4)


def test_a_box_reading_no_more_pips_names_no_piece():
    pip, die = Candidate(100, 100, 16, 0.36), Candidate(112, 94, 56, 0.56)
    assert parts.piece_of_found([pip], [1], {pip: ONE, die: UNSURE_ONE}, 0.40) is None
    assert parts.piece_of_found([pip], [2], {pip: ONE, die: np.array([0.5, 0, 0.4, 0, 0, 0, 0, 0.1])},
                                0.40) is None


@pytest.mark.parametrize("other", [
    Candidate(104, 100, 24, 0.56),  # about the die's own size: another box of it, not its die
    Candidate(100, 100, 100, 0.56),  # a board's tile or the tray, not a die around a pip
    Candidate(200, 100, 56, 0.56),  # beside it, not over it
    Candidate(112, 94, 56, 0.30),  # the centre model less sure of it than of the piece
])
def test_only_a_box_two_to_four_and_a_half_times_as_big_over_it_and_surer_names_a_piece(other):
    pip = Candidate(100, 100, 16, 0.36)
    assert parts.piece_of_found([pip], [1], {pip: ONE, other: UNSURE_FOUR}, 0.40) is None


def test_a_box_over_another_die_of_the_reading_names_no_piece():
    # two dice lying together, boxed as one by the finder: a group, not the one's die
    one, five = Candidate(100, 100, 16, 0.45), Candidate(122, 100, 18, 0.8)
    group = Candidate(111, 100, 44, 0.6)
    assert parts.piece_of_found([one, five], [1, 5], {one: ONE, five: FOUR, group: UNSURE_FOUR}, 0.40) is None
    assert parts.piece_of_found([one], [1], {one: ONE, group: UNSURE_FOUR}, 0.40) == (0, 4)


def test_a_box_under_the_usual_cut_off_names_no_piece():
    pip, die = Candidate(100, 100, 16, 0.2), Candidate(112, 94, 56, 0.35)
    assert parts.piece_of_found([pip], [1], {pip: ONE, die: UNSURE_FOUR}, 0.40) is None


def test_a_box_the_centre_model_is_less_sure_of_than_the_piece_names_no_piece():
    pip, die = Candidate(100, 100, 16, 0.5), Candidate(112, 94, 56, 0.45)
    assert parts.piece_of_found([pip], [1], {pip: ONE, die: UNSURE_FOUR}, 0.40) is None


def test_only_ones_and_twos_are_pieces():
    three, die = Candidate(100, 100, 16, 0.36), Candidate(112, 94, 56, 0.56)
    assert parts.piece_of_found([three], [3], {three: ONE, die: UNSURE_FOUR}, 0.40) is None


@pytest.mark.parametrize("finders_own", [True, False])
def test_a_reading_of_a_pip_found_with_its_die_is_held(monkeypatch, finders_own):
    """In read_dice: a pip read surely as the one the game waits for, inside the finder's box
    of the die read unsurely (and so not kept), is held with the die's likelier face named.
    A box the finder did not give (read by the face models, but not among the pyramid's
    levels: a grown or grouped view) names no piece."""
    pip, die = Candidate(100, 100, 20, 0.45), Candidate(110, 95, 60, 0.60)

    def found(*a, levels=None, **k):
        if levels is not None and finders_own:
            levels[("drawn", 0)] = [die, pip]
        return [die, pip]

    monkeypatch.setattr("hardware.vision.reader.find_candidates", found)
    monkeypatch.setattr("hardware.vision.reader.face_probabilities",
                        lambda frame, cands, *a, **k: np.array([ONE if c == pip else UNSURE_FOUR for c in cands]))
    monkeypatch.setattr("hardware.vision.parts.bigger_die", lambda *a: None)
    reading = read_dice(np.full((240, 320, 3), 120, np.uint8), "pips", expect=1)
    assert [d.value for d in reading.dice] == [1]
    if finders_own:
        assert reading.flagged and "part of a bigger die showing 4" in reading.reason
    else:
        assert not reading.flagged, reading.reason


# parts.die_inside: a plain patch holding one die, read as a one whose pip is that die.

FIXTURES = Path(__file__).parent / "fixtures"


def test_a_one_holding_a_die_read_surely_as_pips_gives_way_to_it():
    patch = Candidate(300, 300, 200, 0.9)
    inside = Candidate(306, 296, 40, 0.8)  # at its middle, a fifth of its size
    read = {inside: FOUR, Candidate(300, 300, 60, 0.5): ONE}
    assert parts.die_inside([patch], np.array([ONE]), read, 0.8) == {0: inside}


@pytest.mark.parametrize("seen, where, size", [
    (ONE, (306, 296), 40),  # a die read as a one at a one's middle is its pip
    (np.array([0.02, 0, 0.25, 0, 0.70, 0, 0, 0.03]), (306, 296), 40),  # read unsurely
    (FOUR, (350, 300), 40),  # off the middle, where no one's pip lies (a close one's side face)
    (FOUR, (306, 296), 120),  # more than half its size: not inside it
])
def test_only_a_die_read_surely_as_pips_at_a_ones_middle_and_small_gives_way(seen, where, size):
    patch = Candidate(300, 300, 200, 0.9)
    read = {Candidate(*where, size, 0.8): seen}
    assert parts.die_inside([patch], np.array([ONE]), read, 0.8) == {}


def test_only_a_die_read_as_a_one_is_looked_into():
    big = Candidate(300, 300, 200, 0.9)
    read = {Candidate(306, 296, 40, 0.8): FOUR}
    assert parts.die_inside([big], np.array([np.array([0.02, 0, 0, 0, 0, 0, 0.97, 0.01])]), read, 0.8) == {}


def test_a_die_inside_that_lies_on_another_die_of_the_reading_does_not_stand_in():
    patch, other = Candidate(300, 300, 200, 0.9), Candidate(330, 300, 40, 0.9)
    read = {Candidate(306, 296, 40, 0.8): FOUR}
    assert parts.die_inside([patch, other], np.array([ONE, FOUR]), read, 0.8) == {}


def _patch_on_a_plain_table(die_px: float) -> tuple[np.ndarray, int]:
    """A byler fixture's die with the tray around it (three dice across), shrunk so the die
    is die_px across and laid in the middle of a plain 1280 x 960 table of the tray's colour:
    a patch holding one die, as a sheet or a tray shows one."""
    entry = next(e for e in json.loads((FIXTURES / "byler" / "manifest.json").read_text())
                 if e["image"].endswith("IMG_20191209_095414.jpg"))
    im = cv2.imread(str(FIXTURES / "byler" / entry["image"]))
    x1, y1, x2, y2, value = entry["boxes"][8]
    side, cx, cy = max(x2 - x1, y2 - y1), (x1 + x2) / 2, (y1 + y2) / 2
    r = 1.5 * side
    crop = im[int(cy - r):int(cy + r), int(cx - r):int(cx + r)]
    k = die_px / side
    small = cv2.resize(crop, None, fx=k, fy=k, interpolation=cv2.INTER_AREA)
    edge = np.concatenate([im[0], im[-1], im[:, 0], im[:, -1]])
    frame = np.empty((960, 1280, 3), np.uint8)
    frame[:] = np.median(edge, 0).astype(np.uint8)
    oy, ox = 480 - small.shape[0] // 2, 640 - small.shape[1] // 2
    frame[oy:oy + small.shape[0], ox:ox + small.shape[1]] = small
    return frame, value


def test_a_patch_holding_one_die_is_read_as_that_die_not_as_a_one(monkeypatch):
    frame, value = _patch_on_a_plain_table(38)
    reading = read_dice(frame, "pips", expect=1)
    assert value == 6 and [d.value for d in reading.dice] == [value] and not reading.flagged
    monkeypatch.setattr(parts, "INSIDE", -1.0)  # without the rule: the patch, read surely as a one
    monkeypatch.setattr(parts, "PIP_OFF", -1.0)  # (its pip boxed as a die, below, left out too)
    alone = read_dice(frame, "pips", expect=1)
    assert [d.value for d in alone.dice] == [1] and not alone.flagged


# parts.pips_as_dice: a one's pip boxed as a die, for a small die the finder missed on a patch.

def test_a_ones_pip_is_boxed_where_it_lies_at_its_own_size():
    img = np.full((960, 1280, 3), (70, 110, 140), np.uint8)
    _drawn_die(img, 640, 480, 200, 1)
    (pip,) = parts.pips_as_dice(img, Candidate(646, 474, 200, 0.9))  # the box a little off, as found
    assert abs(pip.cx - 640) <= 1 and abs(pip.cy - 480) <= 1 and 0.15 * 200 <= pip.size <= 0.2 * 200
    assert parts.pips_as_dice(img, Candidate(640, 480, 12, 0.9)) == []  # a pip too small to be a die


@pytest.mark.parametrize("side", [60, 200, 400])
def test_a_real_one_whose_pip_is_read_as_a_die_stays_a_one(side):
    img = np.full((960, 1280, 3), (70, 110, 140), np.uint8)
    _drawn_die(img, 640, 480, side, 1)
    reading = read_dice(img, "pips", expect=1)
    assert [d.value for d in reading.dice] == [1] and not reading.flagged, reading.reason


def test_a_small_die_the_finder_missed_on_a_patch_stands_in_for_the_one(monkeypatch):
    frame, value = _patch_on_a_plain_table(14)
    reading = read_dice(frame, "pips", expect=1)
    assert value == 6 and [d.value for d in reading.dice] == [value] and not reading.flagged, reading.reason
    (die,) = reading.dice
    assert die.box[2] - die.box[0] < 20  # the die's own box, not the patch's
    monkeypatch.setattr(parts, "PIP_OFF", -1.0)  # without its pip boxed: the patch, surely a one
    assert [d.value for d in read_dice(frame, "pips", expect=1).dice] == [1]


def test_a_small_blob_surely_a_die_stands_in_however_unsure_its_value_a_found_box_only_when_sure():
    patch = Candidate(300, 300, 200, 0.9)
    unsure_two = np.array([0.03, 0.02, 0.6, 0.1, 0.15, 0.05, 0.04, 0.01])
    blob, found = Candidate(330, 330, 20, 0.9), Candidate(302, 298, 20, 0.9)
    assert parts.die_inside([patch], np.array([ONE]), {found: unsure_two}, 0.8) == {}
    assert parts.die_inside([patch], np.array([ONE]), {blob: unsure_two}, 0.8, {0: [blob]}) == {0: blob}
    # ... but not when no number of pips is at even odds (a one's small pip under noise)
    no_number = np.array([0.12, 0.14, 0.09, 0.24, 0.08, 0.19, 0.14, 0.0])
    assert parts.die_inside([patch], np.array([ONE]), {blob: no_number}, 0.8, {0: [blob]}) == {}
    # a blob big enough to be the one's own pip stands in only when read surely
    pip_sized = Candidate(330, 330, 40, 0.9)
    assert parts.die_inside([patch], np.array([ONE]), {pip_sized: unsure_two}, 0.8, {0: [pip_sized]}) == {}
    assert parts.die_inside([patch], np.array([ONE]), {pip_sized: FOUR}, 0.8, {0: [pip_sized]}) == {0: pip_sized}
    # a blob further out than PIP_OFF, or one that is no die, does not
    far = Candidate(360, 300, 20, 0.9)
    assert parts.die_inside([patch], np.array([ONE]), {far: FOUR}, 0.8, {0: [far]}) == {}
    assert parts.die_inside([patch], np.array([ONE]), {blob: NO_DIE}, 0.8, {0: [blob]}) == {}

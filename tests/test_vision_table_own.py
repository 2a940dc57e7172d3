"""What the calibrated empty table still shows is the table's own: a die printed on the
cloth or a board's token found beside the throw is not one of its dice."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from hardware.vision import EmptyTable, read_dice

FIXTURES = Path(__file__).parent / "fixtures" / "matteop"
PHOTO = "train_four_36.jpg"  # four dice showing four


@pytest.fixture(scope="module")
def scene():
    """(the photo, an empty table made from it, its dice's boxes, a die-like patch and a
    place for it away from the dice)."""
    frame = cv2.imread(str(FIXTURES / "images" / PHOTO))
    entry = next(e for e in json.loads((FIXTURES / "manifest.json").read_text()) if e["image"].endswith(PHOTO))
    boxes = [tuple(int(v) for v in b[:4]) for b in entry["boxes"]]
    mask = np.zeros(frame.shape[:2], np.uint8)
    for x1, y1, x2, y2 in boxes:
        g = (x2 - x1) // 2
        mask[y1 - g:y2 + g, x1 - g:x2 + g] = 255
    empty = cv2.inpaint(frame, mask, 5, cv2.INPAINT_TELEA)  # stands in for the calibrated photo
    x1, y1, x2, y2 = boxes[0]
    g = (x2 - x1) // 2
    patch = frame[y1 - g:y2 + g, x1 - g:x2 + g].copy()  # a die showing four, as printed on a cloth
    return frame, empty, boxes, patch


def _put(picture, patch, x, y):
    out = picture.copy()
    out[y:y + patch.shape[0], x:x + patch.shape[1]] = patch
    return out


def _middle_box(patch, x, y):
    h, w = patch.shape[:2]
    return (x + w // 4, y + h // 4, x + 3 * w // 4, y + 3 * h // 4)


def test_a_print_on_the_table_is_the_tables_own_and_the_dice_are_not(scene):
    frame, empty, boxes, patch = scene
    table = EmptyTable(_put(empty, patch, 20, 20))
    shown = _put(frame, patch, 20, 20)
    assert table.on_table(shown, boxes + [_middle_box(patch, 20, 20)]) == [False] * 4 + [True]
    # the camera nudged a pixel each way and the light 15% brighter: still the table's own
    nudged = cv2.warpAffine(shown, np.float32([[1, 0, 1], [0, 1, 1]]), shown.shape[1::-1], borderMode=cv2.BORDER_REPLICATE)
    brighter = np.clip(nudged.astype(np.float32) * 1.15, 0, 255).astype(np.uint8)
    assert table.on_table(brighter, boxes + [_middle_box(patch, 20, 20)]) == [False] * 4 + [True]
    # a die thrown where the table was bare is not
    assert table.on_table(_put(shown, patch, 500, 380), [_middle_box(patch, 500, 380)]) == [False]
    assert table.on_table(cv2.resize(shown, (320, 240)), boxes) is None  # another camera mode: no judgement


def test_a_die_like_print_on_the_table_is_not_counted_with_the_throw(scene):
    frame, empty, _, patch = scene
    shown = _put(frame, patch, 20, 20)
    alone = read_dice(shown, expect=4)
    assert alone.flagged and alone.reason.startswith("5 dice found")
    reading = read_dice(shown, expect=4, empty_table=EmptyTable(_put(empty, patch, 20, 20)))
    assert reading.values == (4, 4, 4, 4) and not reading.flagged, reading.reason


def test_a_die_thrown_beyond_the_count_is_still_held_once_the_print_goes(scene):
    frame, empty, _, patch = scene
    shown = _put(_put(frame, patch, 20, 20), patch, 450, 200)  # the print, and a fifth die thrown
    reading = read_dice(shown, expect=4, empty_table=EmptyTable(_put(empty, patch, 20, 20)))
    assert reading.flagged and reading.reason.startswith("5 dice found"), reading.reason


def test_a_print_standing_in_for_a_missed_die_leaves_the_reading_short(scene):
    frame, empty, boxes, patch = scene
    x1, y1, x2, y2 = boxes[3]
    g = (x2 - x1) // 2
    three = frame.copy()
    three[y1 - g:y2 + g, x1 - g:x2 + g] = empty[y1 - g:y2 + g, x1 - g:x2 + g]  # one die taken away
    shown = _put(three, patch, 20, 20)
    assert read_dice(shown, expect=4).values == (4, 4, 4, 4)  # the print counted as the fourth die
    reading = read_dice(shown, expect=4, empty_table=EmptyTable(_put(empty, patch, 20, 20)))
    assert reading.flagged and reading.reason.startswith("3 dice found"), reading.reason


def test_a_die_on_bare_cloth_of_its_own_colour_is_no_part_of_the_table():
    cloth = np.full((240, 320, 3), 200, np.uint8)  # plain cloth, the colour of the die's body
    frame = cloth.copy()
    cv2.circle(frame, (120, 120), 3, (30, 30, 30), -1)  # a one: its pip all that changes
    assert EmptyTable(cloth).on_table(frame, [(100, 100, 140, 140)]) == [False]

"""A rendered die's marks measured in its picture (scripts/vision/legibility.py): a mark the
light or blur has taken is told from one that stands out, without Blender."""

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts" / "vision"))
import legibility  # noqa: E402


def _face(pip_bgr, body_bgr=(200, 200, 200), pips=2):
    """A 40 x 40 picture: a 20 x 20 face at (10, 10) with `pips` 4 x 4 pips, and its marks map."""
    picture = np.full((40, 40, 3), 30, np.uint8)
    picture[10:30, 10:30] = body_bgr
    marks = np.zeros((20, 20), np.int16)
    for k, (x, y) in enumerate([(3, 3), (13, 13), (3, 13)][:pips], 1):
        picture[10 + y:14 + y, 10 + x:14 + x] = pip_bgr
        marks[y:y + 4, x:x + 4] = k
    return legibility.to_lab(picture), marks


def test_dark_pips_on_a_light_face_stand_out():
    lab, marks = _face((20, 20, 20))
    out = legibility.measure(lab, (10, 10), marks, expected=2)
    assert out["marks_seen"] == 2
    assert out["mark_contrast"] > 50
    assert legibility.legible(out)


def test_a_pip_the_light_blew_out_is_not_legible():
    lab, marks = _face((20, 20, 20))
    lab[10 + 13:10 + 17, 10 + 13:10 + 17] = lab[15, 20]  # the second pip now shows the face's colour
    out = legibility.measure(lab, (10, 10), marks, expected=2)
    assert out["mark_contrast"] < 1
    assert not legibility.legible(out)


def test_a_pip_out_of_view_counts_as_unseen():
    lab, marks = _face((20, 20, 20), pips=3)
    marks[marks == 3] = -1  # another die covers it
    out = legibility.measure(lab, (10, 10), marks, expected=3)
    assert out == {"marks_seen": 2, "mark_contrast": 0.0}
    assert not legibility.legible(out)


def test_faint_marks_sit_below_the_line():
    lab, marks = _face((185, 185, 185))
    faint = legibility.measure(lab, (10, 10), marks, expected=2)
    assert 0 < faint["mark_contrast"] < legibility.MIN_MARK_CONTRAST


def test_a_face_without_marks_and_old_labels_count_as_legible():
    lab, marks = _face((20, 20, 20))
    assert legibility.measure(lab, (10, 10), np.zeros_like(marks), expected=0)["mark_contrast"] is None
    assert legibility.legible({"value": 3, "hidden": 0.0})  # measured before marks were


def test_a_window_outside_the_picture_is_refused():
    lab, marks = _face((20, 20, 20))
    with pytest.raises(ValueError, match="leaves the picture"):
        legibility.measure(lab, (30, 30), marks, expected=2)

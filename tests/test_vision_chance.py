"""Chance cubes: red or blue, and unsure when the middle of the die does not say."""

from __future__ import annotations

import numpy as np
import pytest

from hardware.vision.chance import red_or_blue
from hardware.vision.detect import Candidate

DIE = Candidate(cx=50, cy=50, size=40, score=1.0)


def face(*bgr_halves) -> np.ndarray:
    """A grey table with a 40 px die face at (50, 50), its left and right halves coloured."""
    frame = np.full((100, 100, 3), 120, np.uint8)
    left, right = bgr_halves if len(bgr_halves) == 2 else bgr_halves * 2
    frame[30:70, 30:50] = left
    frame[30:70, 50:70] = right
    return frame


@pytest.mark.parametrize("bgr, value", [
    ((40, 40, 200), "red"),      # crimson
    ((30, 90, 230), "red"),      # orange-red
    ((90, 60, 60), "blue"),      # navy, dark
    ((150, 120, 105), "blue"),   # a muted slate blue
    ((235, 190, 120), "blue"),   # sky blue
])
def test_a_clear_face_is_read_with_confidence(bgr, value):
    v, confidence = red_or_blue(face(bgr), DIE)
    assert (v, confidence >= 0.8) == (value, True), confidence


@pytest.mark.parametrize("halves", [
    ((250, 250, 250),),                    # washed out by glare
    ((20, 20, 20),),                       # in deep shadow
    ((40, 40, 200), (200, 60, 40)),        # half red, half blue: two dice, or a side face
])
def test_a_face_that_does_not_say_is_unsure(halves):
    _, confidence = red_or_blue(face(*halves), DIE)
    assert confidence < 0.5


@pytest.mark.parametrize("bgr", [
    (27, 25, 32),   # a near-black face: red only 5 grey levels above blue
    (33, 27, 28),   # ... or blue 5 above red
])
def test_a_near_black_face_is_unsure_not_read_by_its_noise(bgr):
    # by ratio alone these are clearly red / blue; the difference is a few grey levels of noise
    _, confidence = red_or_blue(face(bgr), DIE)
    assert confidence < 0.8

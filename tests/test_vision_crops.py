"""How far the face model's training crops lie off their dice (scripts/vision/synth_faces.py):
within the spreads set, and the same draws again under the same spreads."""

from __future__ import annotations

import math
import random
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts" / "vision"))
import oblique_dice  # noqa: E402
import synth_faces  # noqa: E402


def test_a_crop_lies_off_its_die_within_the_spreads_set(monkeypatch):
    rng = random.Random(3)
    default = [synth_faces.off_centre(rng) + (synth_faces.size_error(rng),) for _ in range(400)]
    assert max(max(abs(x), abs(y)) for x, y, _ in default) <= 0.12
    assert all(math.exp(-0.2) <= k <= math.exp(0.2) for _, _, k in default)
    monkeypatch.setattr(synth_faces, "OFF_CENTRE", 0.25)
    monkeypatch.setattr(synth_faces, "SIZE_SPREAD", 0.4)
    wide = [synth_faces.off_centre(rng) + (synth_faces.size_error(rng),) for _ in range(400)]
    assert 0.2 < max(max(abs(x), abs(y)) for x, y, _ in wide) <= 0.25
    assert min(k for _, _, k in wide) < math.exp(-0.3) and max(k for _, _, k in wide) > math.exp(0.3)


def test_crops_drawn_again_under_the_same_spreads_are_the_same(monkeypatch):
    def draw():
        rng = random.Random(8)
        return ([synth_faces.face_crop(rng, label) for label in (0, 3, 7)]
                + [oblique_dice.oblique_crop(rng, label, roll=15) for label in (0, 5)])

    first, again = draw(), draw()
    assert all(np.array_equal(a, b) for a, b in zip(first, again))
    rng = random.Random(8)  # the draws, in number and order, as before the spreads were settings
    for label in (0, 3, 7):
        synth_faces.face_crop(rng, label)
    for label in (0, 5):
        oblique_dice.oblique_crop(rng, label, roll=15)
    assert rng.random() == 0.1594750035104372
    monkeypatch.setattr(synth_faces, "OFF_CENTRE", 0.3)
    assert not all(np.array_equal(a, b) for a, b in zip(first, draw()))  # the spreads move the dice

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
    # The draws, in number and order, as kept pools of this DRAWING were drawn: a change that
    # draws otherwise must raise synth_faces.DRAWING (kept pools are named by it).
    rng = random.Random(8)
    for label in (0, 3, 7):
        synth_faces.face_crop(rng, label)
    for label in (0, 5):
        oblique_dice.oblique_crop(rng, label, roll=15)
    assert (synth_faces.DRAWING, rng.random()) == (2, 0.702336202339472)
    monkeypatch.setattr(synth_faces, "OFF_CENTRE", 0.3)
    assert not all(np.array_equal(a, b) for a, b in zip(first, draw()))  # the spreads move the dice


def test_a_die_without_pips_is_never_drawn_with_a_pip_like_symbol():
    """Class 7's symbols (synth_faces._glyph, also oblique_dice's) never look like pips:
    a filled polygon or ellipse alone would teach the face model that a big one has none."""
    import cv2

    import glyphs
    rng = random.Random(3)
    for _ in range(300):
        canvas = np.zeros((192, 192, 3), np.float32)
        mask = np.ones((192, 192), np.float32)
        synth_faces._glyph(rng, canvas, mask, 96, 96, 48, rng.uniform(0, math.pi / 2), np.ones(3))
        drawn = cv2.resize(canvas[48:144, 48:144, 0], (glyphs.G, glyphs.G))
        assert drawn.max() > 0.5 and not glyphs.pip_like(drawn)

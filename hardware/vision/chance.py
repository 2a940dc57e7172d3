"""Chance cubes: is the top face red or blue?

A small learned model (MODEL, trained by scripts/vision/train_chance.py on rendered chance
cubes of every shade, under lamps of every colour and cameras from straight down to 45
degrees) reads each cube from the crop the face model reads (faces.cut: square, CROP_FACTOR
x the die's size, about its box): the whole die and a little table. Its classes are blue,
red and nothing (no cube there: a tray's notch, the bare table). It was calibrated on
renders it did not train on; each cube is read as cropped and mirrored, the two
probabilities averaged, and its confidence is 2p - 1 of the likelier colour (the reader
then weighs in the face model's doubt that it is a die: values.read_values). It replaced
a hand-made read of the top face's pixels (docs/decisions.md, 2026-12-07).
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from hardware.vision import networks
from hardware.vision.detect import Candidate
from hardware.vision.faces import CROP_FACTOR, cut, standardise_crops

MODEL = "chance_colour.onnx"  # logits (blue, red, nothing) of a crop ...
CHANCE_SIDE = 32  # ... this many pixels across
COLOURS = ("blue", "red")


def cube_probabilities(frame: np.ndarray, dice: Sequence[Candidate]) -> np.ndarray:
    """(N, 3): each cube's probabilities of blue, red and nothing, its crop and the crop
    mirrored averaged."""
    if not dice:
        return np.zeros((0, 3))
    crops = [cut(frame, d.cx, d.cy, CROP_FACTOR * d.size, CHANCE_SIDE) for d in dice]
    blob = standardise_crops(crops + [c[:, ::-1] for c in crops])
    p = networks.softmax(networks.run(MODEL, blob).astype(np.float64))
    return (p[:len(dice)] + p[len(dice):]) / 2


def colours(frame: np.ndarray, dice: Sequence[Candidate]) -> list[tuple[str, float]]:
    """Each cube's ("red" | "blue", confidence 0..1): a small confidence means the model
    cannot tell (or sees no cube)."""
    return [(COLOURS[int(q[1] >= q[0])], max(0.0, float(2 * q[:2].max() - 1)))
            for q in cube_probabilities(frame, dice)]

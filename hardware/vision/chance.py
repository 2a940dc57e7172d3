"""Chance cubes: is the top face red or blue?

Light colour shifts every hue, so each die's colour is divided by an estimate of the
light: the median colour of the table around the dice, pulled halfway towards neutral
grey (a coloured table would otherwise be mistaken for a coloured light). Red against
blue is then a comparison of the normalised red and blue channels in the middle of the
die, where the top face is.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from hardware.vision.detect import Candidate


def light_estimate(frame: np.ndarray, candidates: Sequence[Candidate]) -> np.ndarray:
    h, w = frame.shape[:2]
    step = max(1, int(max(h, w) // 160))
    sample = frame[::step, ::step].reshape(-1, 3).astype(np.float32)
    keep = sample.max(1) < 250
    light = np.median(sample[keep], axis=0) if keep.sum() > 50 else sample.mean(0)
    light = np.maximum(light, 1.0)
    light = light / light.mean()
    return np.sqrt(light)  # halfway (geometrically) between the table's colour and neutral


def red_or_blue(frame: np.ndarray, die: Candidate, light: np.ndarray) -> tuple[str, float]:
    """("red" | "blue", margin 0..1) for one die; a small margin means we cannot tell."""
    r = max(2, int(die.size * 0.22))
    x, y = int(die.cx), int(die.cy)
    patch = frame[max(0, y - r):y + r, max(0, x - r):x + r].reshape(-1, 3).astype(np.float32)
    if patch.size == 0:
        return "red", 0.0
    lum = patch.sum(1)
    ok = (patch.max(1) < 250) & (lum > 20)
    patch = patch[ok] if ok.sum() >= 5 else patch
    b, g, red = (np.median(patch / light, axis=0) + 1.0)
    margin = float((red - b) / (red + b))
    return ("red" if margin > 0 else "blue"), min(1.0, abs(margin) * 3.0)

"""Chance cubes: is the top face red or blue?

Each pixel in the middle of the die (where the top face is, a square of half the die's
size) votes: red when its red channel is clearly above its blue one, blue when the
other way round, nothing when it is grey, white glare or black shadow. The value is the
side with more votes; the confidence is how much of the middle voted for it, less what
voted against, so a face washed out by glare or half hidden by a neighbour is unsure.
A dark pixel's ratio is mostly noise (red 32 against blue 27 is "clearly" red by ratio),
so a pixel's vote also needs red and blue DARK_FROM grey levels apart, whole from
DARK_FULL: a near-black face or a dark blotch on the cloth is then unsure, not read.

The camera's white balance is trusted (the Pi camera's is locked after warm-up). An
earlier version divided by the table's colour as a light estimate; on the rendered
scenes that made muted blues on green felt unsure (65 of 300 dice below 0.8 confidence,
against 6 of 300 without it), so it was dropped.
"""

from __future__ import annotations

import numpy as np

from hardware.vision.detect import Candidate

MIDDLE = 0.25  # half-width of the square looked at, in die sizes
CLEAR = 0.03  # (red - blue) / (red + blue) from which a pixel starts to vote ...
SURE = 0.13  # ... and at which its vote is whole
SCALE = 2.0  # confidence = SCALE x (share of votes for - share against), at most 1
DARK_FROM, DARK_FULL = 4.0, 14.0  # |red - blue| in grey levels from which a vote counts, and counts whole


def red_or_blue(frame: np.ndarray, die: Candidate) -> tuple[str, float]:
    """("red" | "blue", confidence 0..1) for one die; a small confidence means we cannot tell."""
    r = max(2, int(die.size * MIDDLE))
    x, y = int(die.cx), int(die.cy)
    patch = frame[max(0, y - r):y + r, max(0, x - r):x + r].reshape(-1, 3).astype(np.float32)
    if patch.size == 0:
        return "red", 0.0
    blue, red = patch[:, 0], patch[:, 2]
    d = (red - blue) / (red + blue + 2.0)
    ramp = SURE - CLEAR
    weight = np.clip((np.abs(red - blue) - DARK_FROM) / (DARK_FULL - DARK_FROM), 0, 1)
    for_red = (np.clip((d - CLEAR) / ramp, 0, 1) * weight).mean()
    for_blue = (np.clip((-d - CLEAR) / ramp, 0, 1) * weight).mean()
    margin = float(for_red - for_blue)
    return ("red" if margin > 0 else "blue"), min(1.0, abs(margin) * SCALE)

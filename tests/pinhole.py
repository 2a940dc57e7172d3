"""Dice as a camera straight above the table sees them, through a pinhole with the
reader's assumed field of view (`detect.FIELD_OF_VIEW`): a stand-in for a real camera's
geometry in the tests of what the reader makes of a die's box."""

from __future__ import annotations

import itertools
import math

from hardware.vision.detect import FIELD_OF_VIEW, Candidate

SHAPE = (960, 1280)


def focal(shape=SHAPE) -> float:
    """The focal length in pixels."""
    return max(shape) / (2 * math.tan(math.radians(FIELD_OF_VIEW) / 2))


def die(x_mm: float, y_mm: float, side_mm: float = 16.0, z_mm: float = 0.0, height_mm: float = 400.0,
        shape=SHAPE) -> tuple[Candidate, tuple[float, float]]:
    """A cube of `side_mm` lying `z_mm` above the table (on another die: one side), its
    middle (x_mm, y_mm) off the camera's axis, the camera `height_mm` above the table: its
    box as the finder gives one (square, taking in the sides seen) and its top face's
    centre in pixels."""
    h, w = shape
    f = focal(shape)
    top = z_mm + side_mm
    corners = [(f * (x_mm + dx) / (height_mm - z) + w / 2, f * (y_mm + dy) / (height_mm - z) + h / 2)
               for dx, dy, z in itertools.product((-side_mm / 2, side_mm / 2), (-side_mm / 2, side_mm / 2),
                                                  (z_mm, top))]
    xs, ys = zip(*corners)
    box = Candidate((min(xs) + max(xs)) / 2, (min(ys) + max(ys)) / 2, max(max(xs) - min(xs), max(ys) - min(ys)), 1.0)
    return box, (f * x_mm / (height_mm - top) + w / 2, f * y_mm / (height_mm - top) + h / 2)

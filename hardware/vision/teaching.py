"""Teaching the table its spike dice: what one teaching picture teaches, and a profile
taught from several (the reader's finder picks the dice out; spike.py keeps and matches
their faces)."""

from __future__ import annotations

from typing import Iterable

import numpy as np

from hardware.vision import spike
from hardware.vision.reader import find_dice
from hardware.vision.reading import UnreadableFrame, check_frame
from hardware.vision.spike import SpikeProfile


def spike_lesson(frame: np.ndarray, roi=None) -> tuple[list[np.ndarray], list[tuple[int, int, int, int]]]:
    """What one teaching picture teaches: a crop of every die seen (inside `roi`, if given),
    as the profile keeps them, and each die's box, to show the table which dice it takes."""
    frame = check_frame(frame)
    kept, _, _ = find_dice(frame, roi)
    if not kept:
        raise UnreadableFrame("no die found in a teaching picture: put the dice on a plain surface in good light")
    return [p for c in kept for p in spike.face_pictures(frame, c)], [c.box(frame.shape) for c in kept]


def teach_spike(profile: SpikeProfile, face: int, frames: Iterable[np.ndarray],
                roi=None) -> tuple[SpikeProfile, int]:
    """Add every die seen in the frames (inside `roi`, if given) as an example of `face`;
    returns the profile and the number of examples added."""
    examples = []
    for frame in frames:
        examples += spike_lesson(frame, roi)[0]
    return profile.with_examples(face, examples), len(examples)

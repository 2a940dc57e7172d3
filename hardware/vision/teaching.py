"""Teaching the table its spike dice: what one teaching picture teaches, and a profile
taught from several (the reader's finder picks the dice out; spike.py keeps and matches
their faces)."""

from __future__ import annotations

from typing import Iterable, NamedTuple

import numpy as np

from hardware.vision import spike
from hardware.vision.reader import find_dice
from hardware.vision.reading import UnreadableFrame, check_frame
from hardware.vision.spike import SpikeProfile
from hardware.vision.throw import UNLIKE_SIZE
from hardware.vision.values import sure_pips


class Lesson(NamedTuple):
    """What one teaching picture teaches: a crop of every die seen, as the profile keeps
    them; each die's box, to show the table which dice it takes; and the pips the face
    model counts on each die surely (0: none surely), which tell the profile's pip faces."""

    examples: list[np.ndarray]
    boxes: list[tuple[int, int, int, int]]
    pips: list[int]


def spike_lesson(frame: np.ndarray, roi=None) -> Lesson:
    """What one teaching picture teaches (inside `roi`, if given)."""
    frame = check_frame(frame)
    kept, probs, _ = find_dice(frame, roi)
    # One set's dice are one size: specks of a speckled cloth found beside a close-up die
    # (a tenth of its size) are none of them. (A tray found whole with the dice in it
    # goes in find_dice itself: the dice inside it stay.)
    biggest = max((c.size for c in kept), default=0.0)
    keep = [i for i, c in enumerate(kept) if c.size * UNLIKE_SIZE >= biggest]
    kept, probs = [kept[i] for i in keep], probs[keep]
    if not kept:
        raise UnreadableFrame("no die found in a teaching picture: put the dice on a plain surface in good light")
    lesson = Lesson([], [c.box(frame.shape) for c in kept], [])
    for c, p in zip(kept, probs):
        pictures = spike.face_pictures(frame, c)
        lesson.examples.extend(pictures)
        lesson.pips.extend([sure_pips(p)] * len(pictures))  # one count to each example
    return lesson


def teach_spike(profile: SpikeProfile, face: int, frames: Iterable[np.ndarray],
                roi=None) -> tuple[SpikeProfile, int]:
    """Add every die seen in the frames (inside `roi`, if given) as an example of `face`;
    returns the profile and the number of examples added."""
    examples: list[np.ndarray] = []
    pips: list[int] = []
    for frame in frames:
        lesson = spike_lesson(frame, roi)
        examples += lesson.examples
        pips += lesson.pips
    return profile.with_examples(face, examples, pips), len(examples)

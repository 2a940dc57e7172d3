"""A pip die seen at an angle and boxed by its top face alone, read again whole."""

from __future__ import annotations

from typing import Callable, Sequence

import numpy as np

from hardware.vision.detect import Candidate
from hardware.vision.values import pip_confidence, pip_value

# Where the whole die lies around a box of its top face: (the box's size times this, its
# middle this many box sizes lower). A camera at an angle sees a die's front face below
# its top face, so the whole die is bigger than that box and reaches further down.
WHOLE = ((1.3, 0.1), (1.4, 0.1))


def whole_views(die: Candidate) -> list[Candidate]:
    """The boxes the WHOLE die may have around `die`."""
    return [Candidate(die.cx, die.cy + down * die.size, die.size * k, die.score) for k, down in WHOLE]


def read_whole(kept: Sequence[Candidate], probs: np.ndarray, values: Sequence[int], confidences: Sequence[float],
               min_confidence: float, read: Callable[[list[Candidate]], np.ndarray]):
    """(probs, values, confidences) of a pip throw after each die read unsurely is read
    again whole: when every one of its `whole_views` reads the value it was read as, and
    surely, it takes their mean reading (its box stays). A view reading another value, or
    none surely, leaves the die as it was, so this makes no die read otherwise. `read`: the
    face models' probabilities for a list of candidates."""
    unsure = [i for i, q in enumerate(confidences) if q < min_confidence]
    if not unsure:
        return probs, values, confidences
    views = read([v for i in unsure for v in whole_views(kept[i])]).reshape(len(unsure), len(WHOLE), -1)
    probs, values, confidences = probs.copy(), list(values), list(confidences)
    for i, seen in zip(unsure, views):
        if all(v == values[i] and pip_confidence(p) >= min_confidence for v, p in map(pip_value, seen)):
            probs[i] = seen.mean(0)
            values[i], p = pip_value(probs[i])
            confidences[i] = pip_confidence(p)
    return probs, values, confidences

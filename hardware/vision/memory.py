"""The table's own dice: pip faces read surely at this table vouch for the ones it doubts.

A table reads the same dice all evening, through the same camera, under the same light.
Each reading read surely (nothing flagged) shows the memory how this table's dice look
showing each face: the second face model's features of each die's crop and of its
mirror image. A die read later under `min_confidence` is vouched for when, of the
NEAREST dice in the memory, at least AGREE show the face the face models lean to in the
colours of this die (the face models are taught to look past colour, so a cream board
token with a dot in its middle is near a white die showing one; the memory is of this
table's dice), and the nearest is at least NEAR alike (cosine): its confidence becomes
the share of those nearest that agree. The memory never changes a value or finds a die,
so a misreading still needs the face models to lean to it; it holds the latest PER_FACE
dice of each face, so it follows the light as an evening goes on.
"""

from __future__ import annotations

import threading
from collections import deque
from typing import Sequence

import cv2
import numpy as np

from hardware.vision import networks
from hardware.vision.detect import Candidate
from hardware.vision.faces import CROP_FACTOR, SECOND_OPINION, cut, standardise_crops

NEAREST, AGREE = 5, 4  # of the NEAREST remembered dice, at least AGREE must show the face
NEAR = 0.90  # cosine of the features: the nearest remembered die must be at least this alike
# Two dice's middles are of one colour when their CIELAB chroma (a, b) lie under SAME_HUE
# apart and their lightness under SAME_LIGHT (loose: a phone's exposure moves from photo to
# photo; it tells a black die from a white one).
SAME_HUE, SAME_LIGHT = 12.0, 40.0
MIDDLE = 0.3  # half-width of a die's middle, in die sizes (mostly its body; a pip or two)
PER_FACE = 50  # dice remembered of each face (the latest)
FACES = range(1, 7)


def _features(frame: np.ndarray, dice: Sequence[Candidate]) -> np.ndarray:
    """(N, D) unit vectors: the second face model's features of each die's crop (as the
    face models read it) plus those of its mirror image, so a die's handedness in the
    picture matters less."""
    crops = [cut(frame, d.cx, d.cy, CROP_FACTOR * d.size) for d in dice]
    blob = standardise_crops(crops + [c[:, ::-1] for c in crops])
    f = networks.features(SECOND_OPINION, blob).astype(np.float32)
    f = f[:len(dice)] + f[len(dice):]
    return f / np.maximum(np.linalg.norm(f, axis=1, keepdims=True), 1e-6)


def _colours(frame: np.ndarray, dice: Sequence[Candidate]) -> np.ndarray:
    """(N, 3) the median CIELAB colour (L, a, b in 0..100, -128..127) of each die's middle."""
    out = np.zeros((len(dice), 3), np.float32)
    for i, d in enumerate(dice):
        patch = d.middle(frame, MIDDLE)
        if patch.size:
            lab = cv2.cvtColor(patch.astype(np.float32) / 255, cv2.COLOR_BGR2Lab).reshape(-1, 3)
            out[i] = np.median(lab, axis=0)
    return out


class TableMemory:
    """Pip dice this table has read surely; see the module's notes. Threads may share it."""

    def __init__(self, per_face: int = PER_FACE):
        self._faces: dict[int, deque] = {v: deque(maxlen=per_face) for v in FACES}
        self._lock = threading.Lock()

    def __len__(self) -> int:
        with self._lock:
            return sum(len(q) for q in self._faces.values())

    def clear(self) -> None:
        """Forget every die (other dice on the table, another light)."""
        with self._lock:
            for q in self._faces.values():
                q.clear()

    def learn(self, frame: np.ndarray, dice: Sequence[Candidate], values: Sequence[int]) -> None:
        """Remember these dice (boxed in `frame`) as showing `values`: a reading read surely."""
        if len(dice) != len(values):
            raise ValueError(f"{len(dice)} dice but {len(values)} values to learn")
        for v in values:
            if v not in FACES:
                raise ValueError(f"a pip die shows 1 to 6, not {v!r}")
        if not dice:
            return
        vectors, colours = _features(frame, dice), _colours(frame, dice)
        with self._lock:
            for vector, colour, v in zip(vectors, colours, values):
                self._faces[int(v)].append((vector, colour))

    def _bank(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(vectors, colours, faces) of every die remembered."""
        with self._lock:
            kept = [(x, c, v) for v in FACES for x, c in self._faces[v]]
        if not kept:
            return np.zeros((0, 0), np.float32), np.zeros((0, 3), np.float32), np.zeros(0, int)
        vectors, colours, owners = zip(*kept)
        return np.array(vectors, np.float32), np.array(colours, np.float32), np.array(owners)

    def vouch(self, frame: np.ndarray, dice: Sequence[Candidate], values: Sequence[int],
              confidences: Sequence[float], min_confidence: float) -> list[float]:
        """The dice's confidences, raised where the memory vouches for a die read under
        `min_confidence` (never lowered; values are not changed)."""
        out = [float(c) for c in confidences]
        doubted = [i for i, c in enumerate(out) if c < min_confidence and values[i] in FACES]
        bank, colours, owners = self._bank()
        if not doubted or len(owners) < NEAREST:
            return out
        looked = [dice[i] for i in doubted]
        similar = _features(frame, looked) @ bank.T
        for row, colour, i in zip(similar, _colours(frame, looked), doubted):
            nearest = np.argsort(-row)[:NEAREST]
            apart = colours[nearest] - colour
            alike = (np.linalg.norm(apart[:, 1:], axis=1) < SAME_HUE) & (np.abs(apart[:, 0]) < SAME_LIGHT)
            agree = int(np.sum((owners[nearest] == values[i]) & alike))
            if agree >= AGREE and row[nearest[0]] >= NEAR:
                out[i] = max(out[i], agree / NEAREST)
        return out

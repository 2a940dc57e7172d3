"""Read top faces: crop each candidate and ask the face model what it shows.

The model's classes: 0 = no die centred here, 1..6 = pips, 7 = a die without pips
(chance cube, symbol die). Crops are square, CROP_FACTOR x the die size, FACE_SIDE px.
"""

from __future__ import annotations

from typing import Sequence

import cv2
import numpy as np

from hardware.vision import networks
from hardware.vision.detect import Candidate

FACE_SIDE = 48
CROP_FACTOR = 1.35
MODEL = "die_faces.onnx"
NOT_A_DIE = 0
OTHER_DIE = 7


def cut(img: np.ndarray, cx: float, cy: float, side: float, out: int = FACE_SIDE, angle: float = 0.0) -> np.ndarray:
    """Square crop centred on (cx, cy), `side` pixels wide, rotated by `angle`, resized to out x out."""
    s = out / side
    m = cv2.getRotationMatrix2D((cx, cy), angle, s)
    m[:, 2] += np.array([out / 2 - cx, out / 2 - cy])
    return cv2.warpAffine(img, m, (out, out), flags=cv2.INTER_AREA if s < 1 else cv2.INTER_LINEAR,
                          borderMode=cv2.BORDER_REPLICATE)


def _standardise(crop: np.ndarray) -> np.ndarray:
    x = crop.astype(np.float32)
    return ((x - x.mean()) / (x.std() + 8.0)).transpose(2, 0, 1)


def face_probabilities(frame: np.ndarray, candidates: Sequence[Candidate]) -> np.ndarray:
    """(N, 8) class probabilities, one row per candidate."""
    if not candidates:
        return np.zeros((0, 8), np.float32)
    blob = np.stack([_standardise(cut(frame, c.cx, c.cy, CROP_FACTOR * c.size)) for c in candidates])
    logits = networks.run(MODEL, blob).astype(np.float64)
    logits -= logits.max(1, keepdims=True)
    p = np.exp(logits)
    return (p / p.sum(1, keepdims=True)).astype(np.float32)

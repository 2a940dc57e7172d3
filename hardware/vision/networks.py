"""The two small learned models, loaded once through cv2.dnn (no torch at run time).

dice_centres.onnx finds die centres and sizes; die_faces.onnx reads a top-face crop.
Both are trained by scripts/vision/ (see docs/vision.md for provenance).
"""

from __future__ import annotations

import threading
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np

MODELS = Path(__file__).parent / "models"
_lock = threading.Lock()


# OpenCV 5 reads ONNX with a new engine by default; for these small convolutional nets its
# older one (the only one in OpenCV 4) is faster on one core (measured at 1280x960 frames:
# centre model 7.3 -> 5.7 ms, face model 3.8 -> 1.5 ms for five crops, embedding 1.6 ->
# 1.0 ms for six) and gives the same outputs to 1e-5.
ENGINE = getattr(cv2.dnn, "ENGINE_CLASSIC", None)


@lru_cache(maxsize=None)
def _net(name: str) -> cv2.dnn.Net:
    path = MODELS / name
    if not path.exists():
        raise FileNotFoundError(f"vision model {path} is missing; reinstall the package or run scripts/vision/")
    if ENGINE is None:
        return cv2.dnn.readNetFromONNX(str(path))
    return cv2.dnn.readNetFromONNX(str(path), engine=ENGINE)


def softmax(z: np.ndarray) -> np.ndarray:
    """Row-wise softmax of logits, in their own float type."""
    z = z - z.max(1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(1, keepdims=True)


def run(name: str, blob: np.ndarray) -> np.ndarray:
    """Forward one blob; cv2.dnn nets are not re-entrant, so calls are serialised."""
    with _lock:
        net = _net(name)
        net.setInput(np.ascontiguousarray(blob, dtype=np.float32))
        return net.forward()

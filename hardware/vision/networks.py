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


@lru_cache(maxsize=None)
def _net(name: str) -> cv2.dnn.Net:
    path = MODELS / name
    if not path.exists():
        raise FileNotFoundError(f"vision model {path} is missing; reinstall the package or run scripts/vision/")
    return cv2.dnn.readNetFromONNX(str(path))


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

"""Find dice: candidate centres and sizes from the centre-heatmap model.

The frame (or its ROI) is shrunk so its long side is WORK_SIDE pixels, standardised per
channel (so table colour and exposure matter less), and the model marks die centres at
stride 4. Peaks become candidates; whether each is really a die is settled later by the
face model and the scene checks in reader.py.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from hardware.vision import networks

WORK_SIDE = 384
STRIDE = 4
MODEL = "dice_centres.onnx"


@dataclass(frozen=True)
class Candidate:
    """A place that looks like a die: centre and size in full-image pixels, heatmap score."""

    cx: float
    cy: float
    size: float
    score: float

    def box(self, shape: tuple[int, ...]) -> tuple[int, int, int, int]:
        h, w = shape[:2]
        r = self.size / 2
        return (max(0, int(round(self.cx - r))), max(0, int(round(self.cy - r))),
                min(w - 1, int(round(self.cx + r))), min(h - 1, int(round(self.cy + r))))


def standardise(img: np.ndarray) -> np.ndarray:
    """Per-channel zero mean, unit spread, as CHW float32 (the centre model was trained so)."""
    mean, std = cv2.meanStdDev(img)
    x = img.astype(np.float32)
    x -= mean.reshape(1, 1, 3).astype(np.float32)
    x *= (1.0 / (std.reshape(1, 1, 3) + 8.0)).astype(np.float32)
    return x.transpose(2, 0, 1)


def find_candidates(frame: np.ndarray, roi: tuple[int, int, int, int] | None = None,
                    min_score: float = 0.2) -> list[Candidate]:
    x0, y0 = 0, 0
    if roi is not None:
        x0, y0, x1, y1 = roi
        frame = frame[y0:y1, x0:x1]
    h, w = frame.shape[:2]
    scale = WORK_SIDE / max(h, w)
    nw, nh = max(8, int(round(w * scale / 8)) * 8), max(8, int(round(h * scale / 8)) * 8)
    small = cv2.resize(frame, (nw, nh), interpolation=cv2.INTER_AREA)
    sx, sy = nw / w, nh / h
    out = networks.run(MODEL, standardise(small)[None])[0]
    heat = 1.0 / (1.0 + np.exp(-out[0]))
    peaks = (heat >= cv2.dilate(heat, np.ones((3, 3), np.uint8))) & (heat > min_score)
    found = []
    gh, gw = heat.shape
    for gy, gx in zip(*np.nonzero(peaks)):
        ya, yb, xa, xb = max(0, gy - 1), min(gh, gy + 2), max(0, gx - 1), min(gw, gx + 2)
        patch = heat[ya:yb, xa:xb]
        yy, xx = np.mgrid[ya:yb, xa:xb]
        fx = (xx * patch).sum() / patch.sum()
        fy = (yy * patch).sum() / patch.sum()
        px, py = (fx + 0.5) * STRIDE, (fy + 0.5) * STRIDE
        size = float(np.exp(out[1, gy, gx]))
        found.append(Candidate(px / sx + x0, py / sy + y0, size / ((sx + sy) / 2), float(heat[gy, gx])))
    return found

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
from hardware.vision.pictures import region_of

WORK_SIDE = 384
STRIDE = 4
ZOOM_BELOW = 20.0  # look again, enlarged, when the typical die is smaller than this many working pixels
ZOOM_TO = 28.0  # ... enlarged so a die is about this size
ZOOM_AREA = 0.5  # ... but at most this share of the first look's pixels
ZOOM_MARGIN = 2.5  # ... around the dice, in die sizes
ZOOM_SCORE = 0.4  # candidates this sure set the typical size and the part looked at again
ZOOM_NEAR = 1.5  # ... and only when two of them are closer than this many die sizes (dice touching)
ZOOM_MIN_SIZE = 0.6  # a candidate of the second look smaller than this share of the typical die is dropped
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


def standardise(img: np.ndarray, stats: tuple[np.ndarray, np.ndarray] | None = None) -> np.ndarray:
    """Per-channel zero mean, unit spread, as CHW float32 (the centre model was trained so).
    `stats` = (mean, std) to use instead of the picture's own."""
    mean, std = stats if stats is not None else cv2.meanStdDev(img)
    gain = 1.0 / (std.ravel() + 8.0)
    # one fused scale-and-shift per channel straight into float (a third of the time of a
    # blob, then a multiply)
    return np.stack([cv2.addWeighted(c, float(g), c, 0.0, -float(m * g), dtype=cv2.CV_32F)
                     for c, g, m in zip(cv2.split(img), gain, mean.ravel())])


def shrink(img: np.ndarray, nw: int, nh: int) -> np.ndarray:
    """Resize to nw x nh: halvings by pixel averaging, then a bilinear step of less than 2x.

    (A one-step area resize by a factor like 3.3 costs ~4 ms on a 1280x960 frame; this ~0.5 ms.)"""
    while img.shape[1] >= 2 * nw and img.shape[0] >= 2 * nh:
        h, w = img.shape[0] // 2 * 2, img.shape[1] // 2 * 2
        img = cv2.resize(img[:h, :w], (w // 2, h // 2), interpolation=cv2.INTER_AREA)
    return cv2.resize(img, (nw, nh), interpolation=cv2.INTER_LINEAR)


def _peaks(frame: np.ndarray, x0: float, y0: float, scale: float, min_score: float,
           stats: tuple[np.ndarray, np.ndarray] | None = None) -> tuple[list[Candidate], tuple]:
    """Run the centre model on `frame` shrunk by `scale`; candidates in the coordinates of
    the picture `frame` was cut from at (x0, y0), and the colour statistics used."""
    h, w = frame.shape[:2]
    nw, nh = max(8, int(round(w * scale / 8)) * 8), max(8, int(round(h * scale / 8)) * 8)
    small = shrink(frame, nw, nh)
    sx, sy = nw / w, nh / h
    stats = stats if stats is not None else cv2.meanStdDev(small)
    out = networks.run(MODEL, standardise(small, stats)[None])[0]
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
    return found, stats


def find_candidates(frame: np.ndarray, roi: tuple[int, int, int, int] | None = None,
                    min_score: float = 0.2) -> list[Candidate]:
    """Die candidates in full-frame pixels.

    Dice that come out small at the working size (a camera high above the table) are
    hard to tell apart when they touch, so when some do, the model looks again at just
    the part of the frame around them, enlarged (at most ZOOM_AREA of the first look's
    pixels, so the second look costs less than the first)."""
    frame, x0, y0 = region_of(frame, roi)
    h, w = frame.shape[:2]
    scale = WORK_SIDE / max(h, w)
    found, stats = _peaks(frame, x0, y0, scale, min_score)
    sure = [c for c in found if c.score >= ZOOM_SCORE]
    if not sure:
        return found
    die = float(np.median([c.size for c in sure])) * scale  # typical die, in working pixels
    close = any(np.hypot(a.cx - b.cx, a.cy - b.cy) < ZOOM_NEAR * die / scale
                for i, a in enumerate(sure) for b in sure[i + 1:])
    if die >= ZOOM_BELOW or not close:
        return found
    m = ZOOM_MARGIN * die / scale
    xs, ys = [c.cx - x0 for c in sure], [c.cy - y0 for c in sure]
    bx0, bx1 = int(max(0, min(xs) - m)), int(min(w, max(xs) + m))
    by0, by1 = int(max(0, min(ys) - m)), int(min(h, max(ys) + m))
    zoom = min(ZOOM_TO / die, np.sqrt(ZOOM_AREA * w * h / ((bx1 - bx0) * (by1 - by0))))
    if zoom < 1.25:
        return found
    # the whole view's colour statistics: a part that is mostly dice has very different ones
    near, _ = _peaks(frame[by0:by1, bx0:bx1], x0 + bx0, y0 + by0, scale * zoom, min_score, stats)
    # enlarged, a pip or a speck can look like a tiny die; the dice of one throw are all alike in size
    near = [c for c in near if c.size >= ZOOM_MIN_SIZE * die / scale]
    near = [c for c in near if not any(n.score > c.score and np.hypot(c.cx - n.cx, c.cy - n.cy) < 0.5 * n.size
                                       for n in near)]
    # keep what the first look found outside the enlarged part (below ZOOM_SCORE, anywhere)
    def inside(c: Candidate) -> bool:
        return x0 + bx0 + m / 3 <= c.cx <= x0 + bx1 - m / 3 and y0 + by0 + m / 3 <= c.cy <= y0 + by1 - m / 3

    return near + [c for c in found if not inside(c)
                   and all(np.hypot(c.cx - n.cx, c.cy - n.cy) > 0.5 * c.size for n in near)]

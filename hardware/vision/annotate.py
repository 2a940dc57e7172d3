"""The reveal picture: each die boxed with its value written large enough to read across a table."""

from __future__ import annotations

import cv2
import numpy as np

from hardware.vision.reading import Reading

FONT = cv2.FONT_HERSHEY_DUPLEX
SURE = (80, 200, 60)
UNSURE = (0, 140, 255)
CHANCE = {"red": (40, 40, 220), "blue": (220, 90, 30)}


def _label(img: np.ndarray, text: str, x: int, y: int, scale: float, colour) -> None:
    """Text with a dark outline so it reads on any table and any die."""
    thick = max(1, int(round(scale * 2)))
    cv2.putText(img, text, (x, y), FONT, scale, (0, 0, 0), thick + 3, cv2.LINE_AA)
    cv2.putText(img, text, (x, y), FONT, scale, colour, thick, cv2.LINE_AA)


def _free_row(placed, tx: int, tw: int, th: int, rows: list[int], h: int) -> int:
    """The first baseline (above the die, below it, further out) whose label hits no other label."""
    for ty in rows:
        if th + 2 <= ty <= h - 2 and not any(tx < b[2] and b[0] < tx + tw and ty - th < b[3] and b[1] < ty
                                              for b in placed):
            return ty
    return int(np.clip(rows[0], th + 2, h - 2))


def annotate(frame_bgr: np.ndarray, reading: Reading, min_confidence: float = 0.80) -> np.ndarray:
    """A copy of the frame with the reading drawn on it; the frame itself is not touched."""
    img = frame_bgr.copy()
    h, w = img.shape[:2]
    base = max(0.6, min(h, w) / 700)
    placed: list[tuple[int, int, int, int]] = []
    for die in reading.dice:
        x1, y1, x2, y2 = die.box
        colour = SURE if die.confidence >= min_confidence else UNSURE
        if isinstance(die.value, str):
            colour = CHANCE.get(die.value, colour)
        cv2.rectangle(img, (x1, y1), (x2, y2), colour, max(2, int(base * 2)))
        text = str(die.value).upper()
        scale = max(base * 0.9, (y2 - y1) / 30) if isinstance(die.value, int) else base * 0.8
        (tw, th), _ = cv2.getTextSize(text, FONT, scale, max(1, int(round(scale * 2))))
        tx = int(np.clip((x1 + x2 - tw) / 2, 2, w - tw - 2))
        ty = _free_row(placed, tx, tw, th, [y1 - 6, y2 + th + 6, y1 - th - 14, y2 + 2 * th + 14], h)
        placed.append((tx, ty - th, tx + tw, ty))
        _label(img, text, tx, ty, scale, (255, 255, 255))
        if die.confidence < min_confidence:
            _label(img, "?", min(w - 20, x2 + 4), max(th, y1 + th), scale, UNSURE)
    if reading.flagged and reading.reason:
        band = int(34 * base)
        cv2.rectangle(img, (0, 0), (w, band + 10), (0, 0, 0), -1)
        _label(img, "CHECK: " + reading.reason[:90], 8, band, base * 0.55, UNSURE)
    return img

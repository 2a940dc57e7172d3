"""What the camera saw: one reading per frame, one entry per die, and whether to trust it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

Value = int | str  # 1..6, or "red" / "blue" for chance cubes


class UnreadableFrame(Exception):
    """The picture itself cannot be read (missing file, not an image, empty array)."""


MIN_FRAME_SIDE = 16  # pixels; a smaller picture cannot show a die


def check_frame(frame: object) -> np.ndarray:
    """The frame as the reader takes it (a colour picture of bytes), or UnreadableFrame saying
    why it cannot be one."""
    if not isinstance(frame, np.ndarray) or frame.ndim != 3 or frame.shape[2] != 3:
        shape = getattr(frame, "shape", None)
        raise UnreadableFrame(f"expected a colour picture (height x width x 3), got {shape or type(frame).__name__}")
    if min(frame.shape[:2]) < MIN_FRAME_SIDE:
        h, w = frame.shape[:2]
        raise UnreadableFrame(f"the picture is {w}x{h} pixels: too small to show a die "
                              f"(at least {MIN_FRAME_SIDE} pixels each way)")
    if frame.dtype != np.uint8:
        frame = np.clip(frame, 0, 255).astype(np.uint8)
    return frame


@dataclass(frozen=True)
class DieReading:
    """One die's top face: its value, where it lies (full-image pixels) and how sure we are."""

    value: Value
    box: tuple[int, int, int, int]
    confidence: float

    def to_json(self) -> dict[str, Any]:
        return {"value": self.value, "box": list(self.box), "confidence": round(float(self.confidence), 3)}


@dataclass(frozen=True)
class Reading:
    """Every die found in one frame. `flagged` means: ask the table to check before scoring."""

    dice: tuple[DieReading, ...]
    flagged: bool = False
    reason: str | None = None
    # Boxes (full-image pixels) of things that may be dice the reader could not read: where
    # the host is shown a die may be missing.
    doubtful: tuple[tuple[int, int, int, int], ...] = ()

    @property
    def values(self) -> tuple[Value, ...]:
        return tuple(d.value for d in self.dice)

    def to_json(self) -> dict[str, Any]:
        return {"dice": [d.to_json() for d in self.dice], "flagged": self.flagged, "reason": self.reason}

    @classmethod
    def unreadable(cls, reason: str) -> "Reading":
        return cls(dice=(), flagged=True, reason=reason)

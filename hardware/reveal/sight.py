"""What the reader saw in one frame, in the table's terms, and the checks made on it.

`Sight` is one reading of one frame; `same_throw` tells a nudged die from a new throw; `encode_photo` makes
the JPEG the slate shows. `DiceReader` and `ReadySignal` are what the reveal desk is
given to read frames and to know when to; `RevealTable` is what it asks of the table.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Protocol

import cv2
import numpy as np

from companion.readings import OfferedReading

#: The reading kinds the camera can deliver; "polyhedral" dice are typed in.
CAMERA_KINDS = ("pips", "chance", "spike")
PHOTO_WIDTH = 1280


@dataclass(frozen=True)
class Sight:
    """What the reader saw in one frame, in the table's terms."""

    values: tuple[Any, ...]
    boxes: tuple[tuple[int, int, int, int], ...]
    confidences: tuple[float, ...]
    flagged: bool = False
    reason: str | None = None
    unsure: tuple[int, ...] = ()  # which dice (indices) the reader doubts: marked for the host
    # where something that may be a die was seen but not read: a missing die is shown there
    suspects: tuple[tuple[int, int, int, int], ...] = ()

    def offered(self) -> OfferedReading:
        """This sight as the table takes a reading (`Table.offer_reading`)."""
        return OfferedReading(self.values, self.boxes, self.confidences, self.flagged, self.reason,
                              frozenset(self.unsure), self.suspects)


class DiceReader(Protocol):
    """Reads a frame for one kind of dice; `expect` is how many the game waits for (the
    reader looks harder before it gives another count)."""

    def read(self, frame: np.ndarray, kind: str, expect: int | None = None) -> Sight: ...


class RevealTable(Protocol):
    """What the reveal desk asks of the table (companion.table.Table is one)."""

    def expected_dice(self) -> Any:
        """The DiceRequest the game waits for, or None: its kind, count and seat, and
        `misfit(values)`, the rules' word on whether a reading can be it."""

    def readings_in_force(self) -> int:
        """How many dice readings the game has in force."""

    def offer_reading(self, reading: OfferedReading, *, photo: bytes | None = None,
                      readings: int | None = None) -> str:
        """Apply the reading or hold it for the host: "applied", "held", "stale" or "ignored"."""

    def set_device_status(self, device: str, status: str, message: str = "") -> None: ...


class ReadySignal(Protocol):
    """hardware.vision.ReadyToRead: feed(frame, t) -> state whose .value is "ready" when to read.
    It may also have mark_read(frame): that scene was read, do not say "ready" for it."""

    def feed(self, frame: np.ndarray, t: float) -> Any: ...


def same_throw(now: Sight, before: Sight) -> bool:
    """The same dice showing the same faces, each within half a die of where it lay: a die
    nudged or the table bumped after a reading, not a new throw (no throw lands every die
    where the last one did)."""
    if not now.values or len(now.values) != len(before.values) or len(now.boxes) != len(now.values) \
            or len(before.boxes) != len(before.values):
        return False
    left = list(zip(before.values, before.boxes))
    for value, box in zip(now.values, now.boxes):
        cx, cy, side = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2, max(box[2] - box[0], box[3] - box[1], 1)
        near = [(abs((b[0] + b[2]) / 2 - cx) + abs((b[1] + b[3]) / 2 - cy), i) for i, (v, b) in enumerate(left)
                if str(v) == str(value)]
        if not near:
            return False
        distance, i = min(near)
        if distance > side / 2:
            return False
        left.pop(i)
    return True


def encode_photo(image: np.ndarray, sight: Sight | None = None, quality: int = 85) -> tuple[bytes, Sight | None]:
    """A JPEG the slate can show, and the sight with its boxes in that JPEG's pixels.

    The photo is the plain frame cropped around the dice and anything that may be one (so
    they are large on a slate read from across the table) and at most PHOTO_WIDTH wide. The slate and the host
    panel draw each die's box and value over it, so a value the host corrects is shown
    corrected.
    """
    boxes = list(sight.boxes) if sight is not None else []
    suspects = list(sight.suspects) if sight is not None else []
    height, width = image.shape[:2]
    x0 = y0 = 0
    around = boxes + suspects  # a die that may be missing stays in the photo too
    if around:
        side = max(max(b[2] - b[0], b[3] - b[1]) for b in around)
        margin = max(2 * side, min(width, height) // 10)
        x0 = max(0, min(b[0] for b in around) - margin)
        y0 = max(0, min(b[1] for b in around) - margin)
        x1 = min(width, max(b[2] for b in around) + margin)
        y1 = min(height, max(b[3] for b in around) + margin)
        image = image[y0:y1, x0:x1]
        height, width = image.shape[:2]
    scale = 1.0
    if width > PHOTO_WIDTH:
        scale = PHOTO_WIDTH / width
        image = cv2.resize(image, (PHOTO_WIDTH, round(height * scale)), interpolation=cv2.INTER_AREA)
    ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, quality])
    if not ok:
        raise ValueError("could not encode the reveal photo")
    if boxes or suspects:
        def moved(box):  # camera pixels -> the photo's own, so the marks land on the dice
            return tuple(round((v - (x0, y0)[i % 2]) * scale) for i, v in enumerate(box))

        sight = dataclasses.replace(sight, boxes=tuple(map(moved, boxes)), suspects=tuple(map(moved, suspects)))
    return data.tobytes(), sight

"""ReadyToRead: watch the stream and say when the dice are ready to be read.

Pure: frames and their times come in, states come out; no clock, no camera. The scene
is shrunk to a small grey picture; change between consecutive pictures is motion.
With an empty-table reference, a large area unlike the table is an occluder (cup, hand):
dice are small, so no set of resting dice covers `occluder_fraction` of the view.
READY fires once per settled scene and re-arms when the scene changes.
"""

from __future__ import annotations

import enum

import cv2
import numpy as np

from hardware.vision.pictures import load_picture
from hardware.vision.reading import UnreadableFrame

SMALL_SIDE = 160
PIXEL_CHANGE = 18  # grey levels a pixel must move to count as changed


class ReadyState(enum.Enum):
    WAITING = "waiting"  # nothing new to read (settling, or this scene was already read)
    MOVING = "moving"  # the picture is changing: cup, hand or rolling dice
    OCCLUDED = "occluded"  # still, but something big (cup, hand) sits over the table
    READY = "ready"  # the dice have rested long enough: read this frame


def _small(frame: np.ndarray, roi) -> np.ndarray:
    if roi is not None:
        x1, y1, x2, y2 = roi
        frame = frame[y1:y2, x1:x2]
    h, w = frame.shape[:2]
    s = SMALL_SIDE / max(h, w)
    gray = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY) if frame.ndim == 3 else frame
    small = cv2.resize(gray, (max(1, int(w * s)), max(1, int(h * s))), interpolation=cv2.INTER_AREA)
    return cv2.GaussianBlur(small, (5, 5), 0).astype(np.int16)


class ReadyToRead:
    """Feed frames with their times; READY once the scene has been still for `still_seconds`."""

    def __init__(self, still_seconds: float = 0.5, motion_threshold: float = 0.004,
                 occluder_fraction: float = 0.12, empty_table: np.ndarray | None = None,
                 roi: tuple[int, int, int, int] | None = None):
        self.still_seconds = still_seconds
        self.motion_threshold = motion_threshold
        self.occluder_fraction = occluder_fraction
        self.roi = roi
        self._reference = _small(empty_table, roi) if empty_table is not None else None
        self._previous: np.ndarray | None = None
        self._still_since: float | None = None
        self._read_scene: np.ndarray | None = None  # the scene READY last fired on
        self.state = ReadyState.WAITING

    @classmethod
    def from_config(cls, config) -> "ReadyToRead":
        """Built from a VisionConfig; its empty-table photo is loaded here (None if unset or unreadable)."""
        reference = None
        if config.empty_table:
            try:
                reference = load_picture(config.empty_table)
            except UnreadableFrame:
                pass
        return cls(still_seconds=config.still_seconds, motion_threshold=config.motion_threshold,
                   occluder_fraction=config.occluder_fraction, empty_table=reference, roi=config.roi)

    def _changed(self, a: np.ndarray, b: np.ndarray) -> float:
        if a.shape != b.shape:
            return 1.0
        return float((np.abs(a - b) > PIXEL_CHANGE).mean())

    def _occluded(self, small: np.ndarray) -> bool:
        if self._reference is None or self._reference.shape != small.shape:
            return False
        diff = (np.abs(small - self._reference) > PIXEL_CHANGE * 1.5).astype(np.uint8)
        n, _, stats, _ = cv2.connectedComponentsWithStats(diff)
        biggest = stats[1:, cv2.CC_STAT_AREA].max() if n > 1 else 0
        return biggest > self.occluder_fraction * small.size

    def feed(self, frame_bgr: np.ndarray, t_seconds: float) -> ReadyState:
        small = _small(frame_bgr, self.roi)
        previous, self._previous = self._previous, small
        if previous is None or self._changed(small, previous) > self.motion_threshold:
            self._still_since = None if previous is not None else t_seconds
            self.state = ReadyState.MOVING if previous is not None else ReadyState.WAITING
            return self.state
        if self._still_since is None:
            self._still_since = t_seconds
        if self._occluded(small):
            self.state = ReadyState.OCCLUDED
        elif t_seconds - self._still_since < self.still_seconds:
            self.state = ReadyState.WAITING
        elif self._read_scene is not None and self._changed(small, self._read_scene) <= self.motion_threshold:
            self.state = ReadyState.WAITING  # already read this scene
        else:
            self._read_scene = small
            self.state = ReadyState.READY
        return self.state

"""A plain still-picture check for when the vision's ready-to-read machine cannot load."""

from __future__ import annotations

import cv2
import numpy as np


class SettledScene:
    """A plain stand-in for the vision's ReadyToRead (used when it cannot load).

    "ready" once the picture has not changed for `still_seconds` and differs from the
    scene it last fired on; "moving" while it changes.
    """

    def __init__(self, still_seconds: float = 0.5, threshold: float = 4.0):
        self._still_seconds = still_seconds
        self._threshold = threshold
        self._previous: np.ndarray | None = None
        self._since: float | None = None
        self._fired: np.ndarray | None = None

    def mark_read(self, frame: np.ndarray) -> None:
        """That scene was read: do not say "ready" for it."""
        self._fired = self._small(frame)

    @staticmethod
    def _small(frame: np.ndarray) -> np.ndarray:
        return cv2.resize(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY), (80, 60), interpolation=cv2.INTER_AREA).astype(np.int16)

    def feed(self, frame: np.ndarray, t: float) -> str:
        small = self._small(frame)
        previous, self._previous = self._previous, small
        if previous is None or np.abs(small - previous).mean() > self._threshold:
            self._since = t
            return "moving"
        if t - self._since < self._still_seconds:
            return "waiting"
        if self._fired is not None and np.abs(small - self._fired).mean() <= self._threshold:
            return "waiting"
        self._fired = small
        return "ready"

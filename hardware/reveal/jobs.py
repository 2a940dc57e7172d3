"""What other threads ask of the camera thread: a reading now (`Ask`, answered with what
happened) or a job of the camera page (`CameraJob`), and `CameraJobFailed` when a job
cannot run."""

from __future__ import annotations

import threading
from typing import Any, Callable


class Ask:
    """A reveal request waiting for the camera thread's answer."""

    def __init__(self) -> None:
        self.done = threading.Event()
        self.result: Any = ""

    def answer(self, result: Any) -> None:
        self.result = result
        self.done.set()


class CameraJobFailed(Exception):
    """A job given to the camera thread could not run; the message says why, for the host."""


#: A job run on the camera thread with the frame taken for it (None: no camera) and the
#: dice reader (None when it cannot load). What it returns or raises goes back to the asker.
CameraJob = Callable[[Any, Any], Any]

"""Frame sources: where the dice reader's pictures come from.

Every source has `read() -> np.ndarray` (BGR, uint8, height x width x 3, what OpenCV
expects), `close()`, and is a context manager. A source that cannot give a frame raises
`CameraUnavailable` with a message for the host (camera missing, unplugged mid-game,
recording over); the service then falls back to manual dice entry on the host panel.

- `PiCamera`: the Raspberry Pi camera through picamera2, imported only when one is opened,
  so this module imports on any laptop.
- `UsbCamera`: a webcam (or any stream) through OpenCV's `VideoCapture`.
- `RecordedFrames`: a folder of images in name order, or a video file, for the demo and tests.
- `DemoCamera` (`hardware.demo_camera`): bundled photos that follow the game, for the demo.

`open_camera(section)` builds the one named by the `[camera]` config section, turned by
`Turned` when the camera is mounted on its side or upside down (`turn`): the dice reader
expects the far side of the table at the top of the picture, where a die seen at an angle
shows its top face above its sides.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import Protocol, runtime_checkable

import cv2
import numpy as np

from hardware.camera_config import CameraConfig
from hardware.faults import CameraUnavailable, RecordingEnded
from hardware.pi_camera import PiCamera
from hardware.vision.pictures import load_picture
from hardware.vision.reading import UnreadableFrame

log = logging.getLogger(__name__)

IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp", ".tif", ".tiff", ".webp")
_MANUAL_HINT = "enter the dice on the host panel"

__all__ = [
    "CameraConfig",
    "CameraUnavailable",
    "FrameSource",
    "PiCamera",
    "RecordedFrames",
    "RecordingEnded",
    "Turned",
    "UsbCamera",
    "as_bgr",
    "open_camera",
]


@runtime_checkable
class FrameSource(Protocol):
    """Anything the reader can take pictures from."""

    def read(self) -> np.ndarray: ...

    def close(self) -> None: ...

    def __enter__(self) -> FrameSource: ...

    def __exit__(self, *exc_info: object) -> None: ...


def as_bgr(frame: np.ndarray) -> np.ndarray:
    """Bring a decoded frame to 3-channel BGR uint8 (webcams may hand out grey or BGRA)."""
    if frame.dtype == np.uint16:
        frame = (frame // 257).astype(np.uint8)
    elif frame.dtype != np.uint8:
        frame = cv2.convertScaleAbs(frame)
    if frame.ndim == 2:
        return cv2.cvtColor(frame, cv2.COLOR_GRAY2BGR)
    if frame.shape[2] == 4:
        return cv2.cvtColor(frame, cv2.COLOR_BGRA2BGR)
    return frame


class UsbCamera:
    """A webcam by index (0 is /dev/video0) or by path/URL, read with cv2.VideoCapture.

    A few failed reads in a row mean the camera is gone (unplugged): CameraUnavailable.
    `capture_factory` stands in for cv2.VideoCapture in tests.
    """

    def __init__(
        self,
        device: int | str = 0,
        *,
        resolution: tuple[int, int] | None = None,
        read_attempts: int = 3,
        capture_factory: Callable[..., object] = cv2.VideoCapture,
    ) -> None:
        self._device = device
        self._read_attempts = max(1, read_attempts)
        self._capture = capture_factory(device)
        if not self._capture.isOpened():
            self._capture.release()
            raise CameraUnavailable(f"no USB camera at {device!r}: is it plugged in? Meanwhile, {_MANUAL_HINT}")
        # Keep one frame queued at most: a picture taken when the reveal button is pressed
        # must show the table now, not as it was seconds ago (honoured by V4L2 on Linux).
        self._capture.set(cv2.CAP_PROP_BUFFERSIZE, 1)
        if resolution is not None:
            self._capture.set(cv2.CAP_PROP_FRAME_WIDTH, resolution[0])
            self._capture.set(cv2.CAP_PROP_FRAME_HEIGHT, resolution[1])

    def read(self) -> np.ndarray:
        if self._capture is None:
            raise CameraUnavailable("the USB camera was closed")
        for _ in range(self._read_attempts):
            try:
                ok, frame = self._capture.read()
            except cv2.error as exc:
                log.debug("USB camera read failed: %s", exc)
                ok, frame = False, None
            if ok and frame is not None:
                return as_bgr(frame)
        raise CameraUnavailable(f"the USB camera {self._device!r} stopped sending pictures (unplugged?); {_MANUAL_HINT}")

    def close(self) -> None:
        capture, self._capture = self._capture, None
        if capture is not None:
            capture.release()

    def __enter__(self) -> UsbCamera:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


class RecordedFrames:
    """Frames from a folder of images (name order) or a video file, as if from a camera.

    `hold_frames` returns each picture that many times, so the reader's "is the table
    still?" check sees a still table, as it would from a live camera over a revealed cup.
    At the end: start again if `loop`, else RecordingEnded (a CameraUnavailable).
    """

    def __init__(self, path: str | Path, *, loop: bool = False, hold_frames: int = 1) -> None:
        if hold_frames < 1:
            raise ValueError("hold_frames must be at least 1")
        self._path = Path(path)
        self._loop = loop
        self._hold_frames = hold_frames
        self._images: list[Path] = []
        self._video: cv2.VideoCapture | None = None
        self._position = 0
        self._held: np.ndarray | None = None
        self._held_left = 0
        self._closed = False
        if self._path.is_dir():
            self._images = sorted(p for p in self._path.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
            if not self._images:
                raise CameraUnavailable(f"no images ({', '.join(IMAGE_SUFFIXES)}) in {self._path}")
        elif self._path.is_file():
            self._video = self._open_video()
        else:
            raise CameraUnavailable(f"recording not found: {self._path}")

    def __len__(self) -> int:
        """Number of pictures in a folder (a video's length is not known reliably)."""
        return len(self._images)

    def read(self) -> np.ndarray:
        if self._closed:
            raise CameraUnavailable("the recording was closed")
        if self._held_left == 0:
            self._held = self._next_picture()
            self._held_left = self._hold_frames
        self._held_left -= 1
        return self._held.copy()

    def _next_picture(self) -> np.ndarray:
        if self._video is not None:
            return self._next_video_frame()
        if self._position >= len(self._images):
            if not self._loop:
                raise RecordingEnded(f"the recording {self._path.name} has no more pictures")
            self._position = 0
        image_path = self._images[self._position]
        self._position += 1
        try:
            return load_picture(image_path)
        except UnreadableFrame as exc:
            raise CameraUnavailable(str(exc)) from None

    def _next_video_frame(self) -> np.ndarray:
        ok, frame = self._video.read()
        if not ok and self._loop and self._position > 0:
            # Reopen rather than seek: seeking back is not reliable for every codec.
            self._video.release()
            self._video = self._open_video()
            self._position = 0
            ok, frame = self._video.read()
        if not ok or frame is None:
            raise RecordingEnded(f"the video {self._path.name} has no more frames")
        self._position += 1
        return as_bgr(frame)

    def _open_video(self) -> cv2.VideoCapture:
        video = cv2.VideoCapture(str(self._path))
        if not video.isOpened():
            video.release()
            raise CameraUnavailable(f"cannot open the video {self._path} (not a video OpenCV can decode?)")
        return video

    def close(self) -> None:
        self._closed = True
        video, self._video = self._video, None
        if video is not None:
            video.release()

    def __enter__(self) -> RecordedFrames:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


_ROTATE = {90: cv2.ROTATE_90_CLOCKWISE, 180: cv2.ROTATE_180, 270: cv2.ROTATE_90_COUNTERCLOCKWISE}


class Turned:
    """Another source's frames turned `turn` degrees clockwise (90, 180 or 270)."""

    def __init__(self, source: FrameSource, turn: int) -> None:
        if turn not in _ROTATE:
            raise ValueError(f"turn must be one of {sorted(_ROTATE)} degrees, not {turn!r}")
        self.source, self.turn = source, turn

    def read(self) -> np.ndarray:
        return cv2.rotate(self.source.read(), _ROTATE[self.turn])

    def close(self) -> None:
        self.source.close()

    def __enter__(self) -> Turned:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def __getattr__(self, name: str):
        if name == "source":
            raise AttributeError(name)
        return getattr(self.source, name)  # the camera's own controls (measure_light, ...) stay reachable


def open_camera(section: CameraConfig | dict | None = None, *, base_dir: str | Path | None = None) -> FrameSource | None:
    """The frame source the `[camera]` section names; None for source = "none".

    Raises CameraConfigError for a bad section and CameraUnavailable when the named
    camera cannot be opened here.
    """
    config = section if isinstance(section, CameraConfig) else CameraConfig.from_mapping(section or {}, base_dir=base_dir)
    if config.source == "none":
        return None
    source = _open(config)
    return Turned(source, config.turn) if config.turn else source


def _open(config: CameraConfig) -> FrameSource:
    if config.source == "picamera":
        return PiCamera(
            config.resolution,
            mode=config.mode,
            warmup_seconds=config.warmup_seconds,
            lock_exposure=config.lock_exposure,
            autofocus=config.autofocus,
            mains_hz=config.mains_hz,
            camera_num=config.device if isinstance(config.device, int) else 0,
        )
    if config.source == "usb":
        return UsbCamera(config.device, resolution=config.resolution)
    return RecordedFrames(config.recording, loop=config.loop, hold_frames=config.hold_frames)

"""The `[camera]` config section: which frame source the table reads, and how.

    [camera]
    source = "picamera"        # "picamera" | "usb" | "recorded" | "none"
    resolution = [1280, 720]   # picamera and usb
    device = 0                 # usb: index or path such as "/dev/video2"; picamera: camera number
    folder = "photos/"         # recorded: a folder of images, in name order ...
    video = "reveals.avi"      # ... or a video file (give one of the two)
    loop = true                # recorded: start again after the last picture
    hold_frames = 1            # recorded: hand out each picture this many times
    warmup_seconds = 2.0       # picamera: let exposure and white balance settle ...
    lock_exposure = true       # ... then freeze them so colours match between reveals
    autofocus = true           # picamera: continuous autofocus where the module has it (Camera Module 3)
    mode = "video"             # picamera: "video" (steady frame rate) or "still" (full quality, slower)
    mains_hz = 0               # picamera: 50 or 60 to keep exposure clear of lamps flickering with the mains
    turn = 0                   # quarter turns, clockwise, that put the far side of the table at the top: 0, 90, 180, 270
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from hardware.faults import CameraConfigError

SOURCES = ("picamera", "usb", "recorded", "none")
MAINS_HZ = (0, 50, 60)  # 0: no flicker avoidance
MODES = ("video", "still")
TURNS = (0, 90, 180, 270)  # degrees clockwise


@dataclass(frozen=True)
class CameraConfig:
    source: str = "picamera"
    resolution: tuple[int, int] = (1280, 720)
    device: int | str = 0
    folder: Path | None = None
    video: Path | None = None
    loop: bool = True
    hold_frames: int = 1
    warmup_seconds: float = 2.0
    lock_exposure: bool = True
    autofocus: bool = True
    mode: str = "video"
    mains_hz: int = 0
    turn: int = 0

    @property
    def recording(self) -> Path:
        """The folder or video file of a "recorded" source."""
        return self.folder if self.folder is not None else self.video

    @classmethod
    def from_mapping(cls, mapping: Mapping[str, Any], *, base_dir: str | Path | None = None) -> CameraConfig:
        """Parse the section; relative paths are taken from `base_dir` (the config file's folder)."""
        if not isinstance(mapping, Mapping):
            raise CameraConfigError("[camera] must be a table of keys")
        known = [f.name for f in fields(cls)]
        for key in mapping:
            if key not in known:
                raise CameraConfigError(f"[camera] unknown key {key!r}; known keys: {', '.join(known)}")
        values = dict(mapping)
        source = values.get("source", "picamera")
        if source not in SOURCES:
            raise CameraConfigError(f"camera.source = {source!r}: choose one of {', '.join(SOURCES)}")
        mode = values.get("mode", "video")
        if mode not in MODES:
            raise CameraConfigError(f"camera.mode = {mode!r}: choose one of {', '.join(MODES)}")
        config = cls(
            source=source,
            resolution=_resolution(values.get("resolution", cls.resolution)),
            device=_device(values.get("device", 0)),
            folder=_path(values.get("folder"), "camera.folder", base_dir),
            video=_path(values.get("video"), "camera.video", base_dir),
            loop=_flag(values.get("loop", True), "camera.loop"),
            hold_frames=_count(values.get("hold_frames", 1), "camera.hold_frames"),
            warmup_seconds=_seconds(values.get("warmup_seconds", 2.0), "camera.warmup_seconds"),
            lock_exposure=_flag(values.get("lock_exposure", True), "camera.lock_exposure"),
            autofocus=_flag(values.get("autofocus", True), "camera.autofocus"),
            mode=mode,
            mains_hz=_mains(values.get("mains_hz", 0)),
            turn=_turn(values.get("turn", 0)),
        )
        if source == "recorded" and (config.folder is None) == (config.video is None):
            raise CameraConfigError('camera.source = "recorded" needs exactly one of camera.folder or camera.video')
        return config


def _resolution(value: Any) -> tuple[int, int]:
    if (
        isinstance(value, (list, tuple))
        and len(value) == 2
        and all(isinstance(v, int) and not isinstance(v, bool) and 16 <= v <= 8192 for v in value)
    ):
        return (value[0], value[1])
    raise CameraConfigError(f"camera.resolution = {value!r}: give [width, height] in pixels, such as [1280, 720]")


def _mains(value: Any) -> int:
    if isinstance(value, bool) or value not in MAINS_HZ:
        raise CameraConfigError(f"camera.mains_hz = {value!r}: give 50 or 60 (the mains frequency where the "
                                f"table is: 50 in Europe, most of Asia and Africa, 60 in the Americas), or 0 for none")
    return int(value)


def _turn(value: Any) -> int:
    if isinstance(value, bool) or value not in TURNS:
        raise CameraConfigError(f"camera.turn = {value!r}: give 0, 90, 180 or 270 (degrees clockwise that bring "
                                f"the far side of the table to the top of the picture)")
    return int(value)


def _device(value: Any) -> int | str:
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return value
    if isinstance(value, str) and value.strip():
        return int(value) if value.strip().isdigit() else value.strip()
    raise CameraConfigError(f"camera.device = {value!r}: give a camera number (0) or a device path (\"/dev/video0\")")


def _path(value: Any, key: str, base_dir: str | Path | None) -> Path | None:
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip():
        raise CameraConfigError(f"{key} = {value!r}: give a path")
    path = Path(value).expanduser()
    return Path(base_dir) / path if base_dir is not None and not path.is_absolute() else path


def _flag(value: Any, key: str) -> bool:
    if not isinstance(value, bool):
        raise CameraConfigError(f"{key} = {value!r}: give true or false")
    return value


def _count(value: Any, key: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 1000:
        raise CameraConfigError(f"{key} = {value!r}: give a whole number from 1 to 1000")
    return value


def _seconds(value: Any, key: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 30:
        raise CameraConfigError(f"{key} = {value!r}: give seconds between 0 and 30")
    return float(value)

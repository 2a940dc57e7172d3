"""The camera's calibration set on the host panel: the table region, the empty-table photo
and the taught spike dice.

The config file's [vision] section belongs to whoever installed the table (on the Pi it is
root's, and the service may not write /etc). What the host sets on the panel's camera page
is kept in the data directory instead: `calibration.json`, the photo
`empty-table-<when>.png` and the spike profile `spike-profile.npz` beside it. What it sets
takes precedence over the config file; "forget" goes back to the config file's region and
photo (taught spike faces are kept: "start a new spike profile" replaces them). Every file
is written whole and renamed into place, so a power cut leaves the old or the new, never half.
"""
from __future__ import annotations

import dataclasses
import json
import logging
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from hardware.files import replace_file
from hardware.vision.config import VisionConfig, VisionConfigError, four_numbers
from hardware.vision.reading import UnreadableFrame

log = logging.getLogger("companion.calibration")

CALIBRATION_FILE = "calibration.json"
EMPTY_TABLE_PREFIX = "empty-table-"
SPIKE_PROFILE_FILE = "spike-profile.npz"
#: The smallest table region, in camera pixels each way: a die must fit in it several times.
MIN_REGION = 32


class CalibrationError(ValueError):
    """The host's calibration cannot be taken; the message says why and what to do. Raised
    as itself it means "not now" (no recent camera picture, a game in progress, the demo's
    read-only page); the kinds below say the host's input itself is wrong."""


class CalibrationInputError(CalibrationError):
    """What the host sent is not a value the camera page takes (not four numbers, a
    spike face outside 1 to 6, an unknown kind of dice)."""


class RegionDoesNotFit(CalibrationError):
    """The table region is well formed but does not fit the camera's picture: it reaches
    outside it, or is too small to hold dice."""


@dataclass(frozen=True)
class Calibration:
    """What the host set: None means "as the config file says"."""

    roi: tuple[int, int, int, int] | None = None
    empty_table: str | None = None  # a file name in the data directory
    spike_profile: str | None = None  # likewise
    die_size: float | None = None  # a die's side in camera pixels, learned from a clean trial read

    def to_json(self) -> dict[str, Any]:
        return {"roi": list(self.roi) if self.roi else None, "empty_table": self.empty_table,
                "spike_profile": self.spike_profile, "die_size": self.die_size}

    @classmethod
    def from_json(cls, data: Any) -> "Calibration":
        if not isinstance(data, dict):
            raise CalibrationError("not a JSON object")
        roi = data.get("roi")
        if roi is not None:
            if not isinstance(roi, list):
                raise CalibrationError(f"roi must be four numbers x1,y1,x2,y2, not {roi!r}")
            try:
                roi = four_numbers(roi)
            except VisionConfigError as exc:
                raise CalibrationError(str(exc)) from None
        names = {}
        for key in ("empty_table", "spike_profile"):
            name = data.get(key)
            if name is not None and (not isinstance(name, str) or not name or Path(name).name != name):
                raise CalibrationError(f"{key} must be a file name in the data directory, not {name!r}")
            names[key] = name
        size = data.get("die_size")
        if size is not None and (isinstance(size, bool) or not isinstance(size, (int, float)) or not 6 <= size <= 4000):
            raise CalibrationError(f"die_size must be a die's side in camera pixels (6 to 4000), not {size!r}")
        return cls(roi, **names, die_size=None if size is None else float(size))


def check_region(roi: Any, width: int, height: int) -> tuple[int, int, int, int]:
    """The region as four whole camera pixels, inside a width x height picture and large
    enough to hold dice; CalibrationError (saying which) otherwise."""
    if not isinstance(roi, (list, tuple)):
        raise CalibrationInputError(f"the table region must be four numbers x1,y1,x2,y2, not {roi!r}")
    try:
        x1, y1, x2, y2 = four_numbers(roi, "the table region")
    except VisionConfigError as exc:
        raise CalibrationInputError(str(exc)) from None
    if x1 < 0 or y1 < 0 or x2 > width or y2 > height:
        raise RegionDoesNotFit(f"the table region {x1},{y1},{x2},{y2} reaches outside the camera's "
                               f"{width}x{height} picture")
    if x2 - x1 < MIN_REGION or y2 - y1 < MIN_REGION:
        raise RegionDoesNotFit(f"the table region {x1},{y1},{x2},{y2} is too small: at least "
                               f"{MIN_REGION} camera pixels each way")
    return x1, y1, x2, y2


class CalibrationStore:
    """calibration.json and the empty-table photo in the data directory."""

    def __init__(self, data_dir: Path):
        self.data_dir = Path(data_dir)
        self.path = self.data_dir / CALIBRATION_FILE
        self.problem: str | None = None  # why the saved calibration could not be used

    def load(self) -> Calibration:
        """The saved calibration; none saved is the empty one. A file that cannot be used is
        moved aside (never overwritten later), said in the log and kept in `problem`."""
        self.problem = None
        try:
            text = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return Calibration()
        except OSError as exc:
            self.problem = f"cannot read {self.path}: {exc.strerror or exc}"
            log.error("the camera calibration: %s; using the config file's", self.problem)
            return Calibration()
        try:
            calibration = Calibration.from_json(json.loads(text))
        except (ValueError, CalibrationError) as exc:
            aside = self.path.with_name(f"{CALIBRATION_FILE}.bad-{time.strftime('%Y%m%d-%H%M%S')}")
            try:
                self.path.rename(aside)
                where = f"moved to {aside.name}"
            except OSError:
                where = "left in place"
            self.problem = f"{self.path.name} could not be used ({exc}); {where}"
            log.error("the camera calibration: %s; using the config file's", self.problem)
            return Calibration()
        for key, what in (("empty_table", "the empty-table photo"), ("spike_profile", "the spike profile")):
            name = getattr(calibration, key)
            if name and not (self.data_dir / name).is_file():
                self.problem = f"{what} {name} is missing"
                log.warning("the camera calibration: %s", self.problem)
                calibration = dataclasses.replace(calibration, **{key: None})
        return calibration

    def save(self, calibration: Calibration) -> None:
        replace_file(self.path, (json.dumps(calibration.to_json(), indent=2) + "\n").encode())
        self.problem = None

    def save_photo(self, frame: np.ndarray) -> str:
        """Write an empty-table photo (lossless) under a new name and return the name: the
        photo in use stays until the calibration naming the new one is saved."""
        ok, data = cv2.imencode(".png", frame)
        if not ok:
            raise CalibrationError("the camera's picture could not be saved as a photo")
        name = f"{EMPTY_TABLE_PREFIX}{time.strftime('%Y%m%d-%H%M%S')}-{time.monotonic_ns() % 1000000:06d}.png"
        replace_file(self.data_dir / name, data.tobytes())
        return name

    def remove_photo(self, name: str | None) -> None:
        """Delete a photo of ours that no calibration names any more."""
        if name and name.startswith(EMPTY_TABLE_PREFIX):
            try:
                (self.data_dir / name).unlink()
            except OSError as exc:
                log.warning("could not delete the old empty-table photo %s: %s", name, exc)


def applied(vision: VisionConfig, calibration: Calibration, data_dir: Path) -> VisionConfig:
    """The [vision] settings with the host's calibration on top."""
    changes: dict[str, Any] = {}
    if calibration.roi is not None:
        changes["roi"] = calibration.roi
    if calibration.empty_table is not None:
        changes["empty_table"] = str(Path(data_dir) / calibration.empty_table)
    if calibration.spike_profile is not None:
        changes["spike_profile"] = str(Path(data_dir) / calibration.spike_profile)
    if calibration.die_size is not None:
        changes["die_size"] = calibration.die_size
    return dataclasses.replace(vision, **changes) if changes else vision


def read_or_refuse(reader, frame: np.ndarray, kind: str, so: str) -> Any:
    """The reader's sight of `frame`; a reader that raises (a bug, a model this OpenCV
    cannot run) is refused in words, not answered with "something went wrong"."""
    try:
        return reader.read(frame, kind)
    except CalibrationError:
        raise
    except UnreadableFrame as exc:  # the set-up's (a region outside this picture), not a fault
        raise CalibrationError(f"the dice could not be read in this picture ({exc}): {so}") from exc
    except Exception as exc:
        raise CalibrationError(f"the dice reader is failing ({type(exc).__name__}: {exc}): {so}; "
                               "`companion check-hardware` checks it, and a reinstall mends a broken install") from exc

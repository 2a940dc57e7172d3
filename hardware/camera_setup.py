"""The host panel's camera page: what the camera sees, the table region, the empty-table
photo, trial reads and spike faces taught from the camera.

`CameraSetup` keeps what the host sets in the data directory (`hardware.calibration`)
and has the reveal desk build its reader anew; every change runs on the camera thread,
between reads. The composition root loads the calibration, builds the reveal desk for
the settings it gives, then the setup with both. Refusals are `CalibrationError`s, whose kinds the web layer answers with
its own status codes.
"""
from __future__ import annotations

import dataclasses
import logging
import os
import threading
import time
from typing import Any, Callable, Mapping, Protocol, TypeVar

import cv2
import numpy as np

from hardware.calibration import (
    SPIKE_PROFILE_FILE,
    Calibration,
    CalibrationError,
    CalibrationInputError,
    CalibrationStore,
    applied,
    check_region,
    read_or_refuse,
)
from hardware.reveal import CAMERA_KINDS, CameraJobFailed, DiceReader, encode_photo
from hardware.vision import SpikeProfile, SpikeProfileError, UnreadableFrame, VisionConfig, annotate
from hardware.vision.teaching import spike_lesson
from hardware.vision.reading import DieReading, Reading

log = logging.getLogger("companion.calibration")

T = TypeVar("T")
KEY_SIDE = 96  # px: a taught spike face in the slate's key


def spike_key_pictures(profile: SpikeProfile) -> dict[int, bytes]:
    """Each taught face of `profile` as a PNG of the first die taught for it, upscaled."""
    key = {}
    for face in profile.taught:
        picture = cv2.resize(profile.faces[face][0], (KEY_SIDE, KEY_SIDE), interpolation=cv2.INTER_CUBIC)
        ok, data = cv2.imencode(".png", picture)
        if ok:
            key[face] = data.tobytes()
    return key


class CameraDesk(Protocol):
    """What the camera page asks of the reveal desk (hardware.reveal.RevealDesk is one)."""

    def latest_frame(self) -> np.ndarray | None:
        """The camera's latest picture, None without a recent one."""

    def on_camera_thread(self, job: Callable[[np.ndarray | None, DiceReader | None], T]) -> T:
        """`job(frame, reader)` run on the camera thread, between reads; CameraJobFailed
        when the camera cannot run it."""

    def can_measure_light(self) -> bool: ...

    def measure_light(self) -> Mapping[str, object]:
        """Measure the room's light again and lock it; what the camera locked."""


def light_summary(locked: Mapping[str, object]) -> dict[str, float]:
    """What a camera locked (picamera2's ExposureTime in microseconds, AnalogueGain) in
    plain numbers for the page: exposure in ms and gain, rounded."""
    out: dict[str, float] = {}
    try:
        if "ExposureTime" in locked:
            out["exposure_ms"] = round(float(locked["ExposureTime"]) / 1000, 1)
        if "AnalogueGain" in locked:
            out["gain"] = round(float(locked["AnalogueGain"]), 2)
    except (TypeError, ValueError):  # a camera reporting something else: shown without numbers
        return {}
    return out


class CameraSetup:
    """What the host panel's camera page does: show what the camera sees, set the table
    region, take the empty-table photo, forget both, and teach spike faces from the camera.
    """

    def __init__(self, store: CalibrationStore, base_vision: VisionConfig, calibration: Calibration,
                 desk: CameraDesk, *, rebuild: Callable[[VisionConfig], None],
                 withheld: Callable[[], str | None] = lambda: None, read_only: str | None = None,
                 taught: Callable[[], SpikeProfile] | None = None):
        """`calibration`: what `store` loaded (the desk was built for the settings it gives);
        `desk`: the reveal desk whose pictures the page shows; `rebuild(vision)`: sets the
        desk up for new settings; `withheld()`: why the camera's picture may not be shown now
        (a game in progress, whose dice under the cups are secret), or None; `read_only`: why
        nothing may be set here (the demo), shown on the page; `taught()`: the spike
        profile the reader was given in memory (the demo's bundled dice), for the slate's
        key when the settings name no profile file."""
        self._store = store
        self.read_only = read_only
        self._base = base_vision
        self._desk = desk
        self._rebuild = rebuild
        self._withheld = withheld
        self._taught = taught
        self._lock = threading.Lock()
        self._teaching = threading.Lock()  # one lesson at a time: each adds to the profile before it
        self._spike_seen: tuple[tuple[str, int | None], dict[str, Any]] | None = None
        self._key_seen: tuple[tuple[str | None, int | None], dict[int, bytes]] | None = None
        self._trial: tuple[bytes, dict[str, Any]] | None = None  # the last "try a read": picture, summary
        self._before_lesson: tuple[SpikeProfile, int] | None = None  # (the spike profile before the last lesson, its face)
        self._light: dict[str, Any] | None = None  # the last "measure the light again": when, what was locked
        self._calibration = calibration
        #: The [vision] settings in force: the config file's with the host's calibration on top.
        self.vision: VisionConfig = applied(base_vision, calibration, store.data_dir)

    @property
    def problem(self) -> str | None:
        """Why the saved calibration could not be used (None: no problem)."""
        return self._store.problem

    # --- what the page shows ------------------------------------------------------------

    def picture(self) -> tuple[bytes, int, int] | None:
        """The camera's latest picture as a JPEG no wider than a reveal photo, and the
        camera's own width and height (the region is set in those); None without a recent
        picture; CalibrationError while it is withheld."""
        self._check_shown()
        frame = self._desk.latest_frame()
        if frame is None:
            return None
        height, width = frame.shape[:2]
        try:
            return encode_photo(frame, quality=80)[0], width, height
        except ValueError:
            return None

    def describe(self) -> dict[str, Any]:
        frame = self._desk.latest_frame()
        with self._lock:
            calibration, vision = self._calibration, self.vision

        def source(key: str) -> str | None:  # who set what is in force
            return "panel" if getattr(calibration, key) else ("config" if getattr(vision, key) else None)

        return {
            "picture": None if frame is None else {"width": int(frame.shape[1]), "height": int(frame.shape[0])},
            "roi": list(vision.roi) if vision.roi else None,
            "roi_from": source("roi"),
            "empty_table": bool(vision.empty_table),
            "empty_table_from": source("empty_table"),
            "problem": self.problem,
            "read_only": self.read_only,
            "withheld": self._withheld(),
            "spike": {**self._spike_state(vision.spike_profile),
                      "from": source("spike_profile"),
                      "undo_face": self._before_lesson[1] if self._before_lesson else None},
            "trial": self._trial[1] if self._trial else None,
            "light": {"can_measure": bool(self._desk.can_measure_light()), "measured": self._light},
        }

    def trial_picture(self) -> bytes | None:
        """The last trial read's picture, each die boxed with its value (None: no trial yet)."""
        return self._trial[0] if self._trial else None

    def _spike_state(self, path: str | None) -> dict[str, Any]:
        """Which spike faces the profile in force knows, and how many dice taught each;
        read again only when the file changes."""
        if not path:
            return {"examples": {}, "untaught": list(range(1, 7)), "problem": None}
        try:
            stamp: int | None = os.stat(path).st_mtime_ns
        except OSError:
            stamp = None
        seen = self._spike_seen
        if seen is not None and seen[0] == (path, stamp):
            return seen[1]
        try:
            profile = SpikeProfile.load(path)
            state = {"examples": {str(v): len(profile.faces[v]) for v in profile.taught},
                     "untaught": list(profile.untaught), "problem": None}
        except SpikeProfileError as exc:
            state = {"examples": {}, "untaught": list(range(1, 7)), "problem": str(exc)}
        self._spike_seen = ((path, stamp), state)
        return state

    def spike_key(self) -> dict[int, bytes]:
        """The slate's key to this table's spike symbols: for each taught face, a PNG of the
        first die taught for it (as the reader saw it, upscaled); read again when the
        profile file changes. Empty without a profile."""
        path = self.vision.spike_profile
        if not path:
            if self._taught is None:
                return {}
            if self._key_seen is None:
                self._key_seen = ((None, None), spike_key_pictures(self._taught()))
            return self._key_seen[1]
        try:
            stamp: int | None = os.stat(path).st_mtime_ns
        except OSError:
            return {}
        seen = self._key_seen
        if seen is not None and seen[0] == (path, stamp):
            return seen[1]
        try:
            profile = SpikeProfile.load(path)
        except SpikeProfileError:
            return {}
        key = spike_key_pictures(profile)
        self._key_seen = ((path, stamp), key)
        return key

    # --- what the host does -------------------------------------------------------------

    def set_region(self, roi: object) -> str:
        """Look only at `roi` (camera pixels), checked against the camera's picture now."""
        self._check_writable()
        frame = self._desk.latest_frame()
        if frame is None:
            raise CalibrationError("the camera has sent no picture lately: check it is connected, then try again")
        height, width = frame.shape[:2]
        region = check_region(roi, width, height)
        with self._lock:
            self._change(dataclasses.replace(self._calibration, roi=region))
        return "table region set to {},{},{},{}".format(*region)

    def take_empty_table(self) -> str:
        """Take the next picture as the empty-table photo, unless the camera sees dice in it."""
        self._check_writable()

        def job(frame, reader):
            if reader is not None:
                seen = len(read_or_refuse(reader, frame, "pips", "the photo was not taken").values)
                if seen:
                    raise CalibrationError(f"the camera sees {seen} {'die' if seen == 1 else 'dice'} on the table: "
                                           "clear the tray of dice, cups and hands, then take the photo")
            return frame.copy()

        frame = self._on_camera(job, "take")
        with self._lock:
            try:
                name = self._store.save_photo(frame)
            except OSError as exc:
                raise CalibrationError(f"the photo could not be saved: {exc.strerror or exc}") from None
            old = self._calibration.empty_table
            try:
                self._change(dataclasses.replace(self._calibration, empty_table=name))
            except CalibrationError:
                self._store.remove_photo(name)
                raise
            self._store.remove_photo(old)
        height, width = frame.shape[:2]
        return f"empty-table photo taken ({width}x{height})"

    def forget(self) -> str:
        """Back to the config file's region, photo and die size (the taught spike faces stay)."""
        self._check_writable()
        with self._lock:
            old = self._calibration.empty_table
            self._change(Calibration(spike_profile=self._calibration.spike_profile))
            self._store.remove_photo(old)
        return "the region, photo and die size set here are forgotten: the config file's apply"

    def measure_light(self) -> str:
        """Let the camera measure the room's light again and lock what it finds: for when
        the lights changed since the service started (dusk, a lamp switched on). The dice
        under the cups show nothing new, so this is allowed during a game."""
        self._check_writable()
        try:
            locked = self._desk.measure_light()
        except CameraJobFailed as exc:
            raise CalibrationError(str(exc)) from None
        with self._lock:
            self._light = {"at": time.time(), **light_summary(locked)}
            photo = bool(self.vision.empty_table)
        said = "the light was measured again and locked"
        if self._light.get("exposure_ms") is not None:
            said += f" (exposure {self._light['exposure_ms']} ms, gain {self._light.get('gain', '?')})"
        if photo:
            said += "; if the clear table then shows as covered, take the empty-table photo again"
        return said

    def try_read(self, kind: object) -> str:
        """Read the dice in view now, as a reveal would, without offering them to any game:
        to check the light, the region and the taught faces before play."""
        self._check_shown()
        if kind not in CAMERA_KINDS:
            raise CalibrationInputError(f"the dice to read are one of {', '.join(CAMERA_KINDS)}, not {kind!r}")

        def job(frame, reader):
            if reader is None:
                raise CalibrationError("the dice reader is not available (see the camera status on the host panel)")
            return frame.copy(), read_or_refuse(reader, frame, kind, "nothing was read")

        frame, sight = self._on_camera(job, "read")
        count = len(sight.values)
        said = f"read {count} {'die' if count == 1 else 'dice'}"
        if count:
            said += ": " + ", ".join(str(v) for v in sight.values)
        if sight.flagged:
            said += f"; it would be held for the host: {sight.reason}"
        elif count and self.read_only is None:
            said += self._learn_die_size(sight.boxes)
        self._show(frame, list(zip(sight.values, sight.boxes, sight.confidences)), said, kind=kind, what="read",
                   flagged=sight.flagged, reason=sight.reason)
        return said

    def _learn_die_size(self, boxes: tuple[tuple[int, int, int, int], ...]) -> str:
        """The camera is fixed, so a clean trial read tells the die's size in its pixels: the
        reader then looks at that scale first (a reveal whose count is off still searches
        every scale). Forgotten with the region."""
        size = float(np.median([max(x2 - x1, y2 - y1) for x1, y1, x2, y2 in boxes]))
        if size < 6:
            return ""
        with self._lock:
            try:
                self._change(dataclasses.replace(self._calibration, die_size=round(size, 1)))
            except CalibrationError as exc:
                return f" (the die size could not be kept: {exc})"
        return f"; dice are {size:.0f} px across here, so the reader looks at that size first"

    def _show(self, frame: np.ndarray, dice: list[tuple[object, tuple[int, ...], float]], said: str, *, kind: str,
              what: str, flagged: bool = False, reason: str | None = None) -> None:
        """Keep the picture of the last trial read or spike lesson (`what`: "read" or
        "lesson"), each die boxed with its value, for the page to show."""
        reading = Reading(tuple(DieReading(v, tuple(b), c) for v, b, c in dice), flagged, reason)
        try:
            data = encode_photo(annotate(frame, reading, self.vision.min_confidence))[0]
        except ValueError:
            return
        self._trial = (data, {"what": what, "kind": kind, "values": [v for v, _, _ in dice], "flagged": flagged,
                              "reason": reason, "said": said, "at": time.time()})

    def teach_spike(self, face: object) -> str:
        """Every die the camera sees now (inside the table region) becomes an example of
        spike face `face`, added to the profile in force; the result is the panel's profile."""
        self._check_writable()
        self._check_shown()
        if isinstance(face, bool) or str(face).strip() not in {str(v) for v in range(1, 7)}:
            raise CalibrationInputError(f"a spike face is 1 to 6, not {face!r}")
        face = int(str(face).strip())
        with self._teaching:
            with self._lock:
                current, roi = self.vision.spike_profile, self.vision.roi
            try:
                profile = SpikeProfile.load_or_empty(current) if current else SpikeProfile()
            except SpikeProfileError as exc:
                raise CalibrationError(f"{exc}; start a new spike profile to teach the faces again") from None

            def job(frame, reader):
                try:
                    return frame.copy(), spike_lesson(frame, roi)
                except UnreadableFrame as exc:
                    raise CalibrationError(f"{exc}; nothing was taught") from None

            frame, lesson = self._on_camera(job, "teach from")
            taught = profile.with_examples(face, lesson.examples, lesson.pips)
            boxes = lesson.boxes
            with self._lock:
                self._save_profile(taught)
                self._before_lesson = (profile, face)
        said = f"taught face {face} from {len(boxes)} {'die' if len(boxes) == 1 else 'dice'}"
        said += f"; still to teach: {', '.join(map(str, taught.untaught))}" if taught.untaught else \
            "; all six faces are taught"
        if face in taught.pip_faces:
            said += f" (face {face} shows {face} pips: the pips are counted too)"
        self._show(frame, [(face, box, 1.0) for box in boxes], said, kind="spike", what="lesson")  # the dice taken
        return said

    def undo_lesson(self) -> str:
        """Take back the last lesson (a die missed, or something not a die taken): the
        profile is as it was before it."""
        self._check_writable()
        with self._teaching, self._lock:
            if self._before_lesson is None:
                raise CalibrationError("there is no lesson to take back")
            profile, face = self._before_lesson
            self._save_profile(profile)
            self._before_lesson = None
            if self._trial and self._trial[1].get("what") == "lesson":
                self._trial = None
        return f"the last lesson (face {face}) is taken back"

    def new_spike_profile(self) -> str:
        """Start the taught spike faces afresh (another set of dice). The panel's profile
        before it is kept, renamed, not deleted."""
        self._check_writable()
        with self._teaching, self._lock:
            path = self._store.data_dir / SPIKE_PROFILE_FILE
            kept = ""
            if path.exists():
                aside = path.with_name(f"spike-profile-replaced-{time.strftime('%Y%m%d-%H%M%S')}.npz")
                try:
                    path.rename(aside)
                except OSError as exc:
                    raise CalibrationError(f"the old spike profile could not be kept aside: {exc.strerror or exc}") from None
                kept = f" (the old one is kept as {aside.name})"
            self._save_profile(SpikeProfile())
            self._before_lesson = None
        return f"a new spike profile, no faces taught yet{kept}"

    def _save_profile(self, profile: SpikeProfile) -> None:
        """Write the panel's spike profile and use it (the lock is held)."""
        try:
            profile.save(self._store.data_dir / SPIKE_PROFILE_FILE)
        except OSError as exc:
            raise CalibrationError(f"the spike profile could not be saved: {exc.strerror or exc}") from None
        self._change(dataclasses.replace(self._calibration, spike_profile=SPIKE_PROFILE_FILE))

    def _on_camera(self, job: Callable[[np.ndarray, DiceReader | None], T], doing: str) -> T:
        """`job(frame, reader)` run on the camera thread with a picture taken now; the
        camera's absence or silence comes back as a CalibrationError saying what could not
        be done (`doing`: "take", "read", "teach from")."""
        def with_picture(frame, reader):
            if frame is None:
                raise CalibrationError(f"there is no camera picture to {doing}: check the camera is connected")
            return job(frame, reader)

        try:
            return self._desk.on_camera_thread(with_picture)
        except CameraJobFailed as exc:
            raise CalibrationError(str(exc)) from None

    def _check_shown(self) -> None:
        reason = self._withheld()
        if reason:
            raise CalibrationError(reason)

    def _check_writable(self) -> None:
        if self.read_only:
            raise CalibrationError(self.read_only)

    def _change(self, calibration: Calibration) -> None:
        """Save, then use (the lock is held). Nothing changes when the save fails."""
        try:
            self._store.save(calibration)
        except OSError as exc:
            raise CalibrationError(f"the calibration could not be saved: {exc.strerror or exc}") from None
        self._calibration = calibration
        self.vision = applied(self._base, calibration, self._store.data_dir)
        log.info("camera calibration changed: region %s, empty-table photo %s, die size %s",
                 self.vision.roi, "set" if self.vision.empty_table else "none", self.vision.die_size)
        self._rebuild(self.vision)

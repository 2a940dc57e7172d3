"""The Raspberry Pi camera through picamera2, in the few calls its examples use.

picamera2 exists only on Raspberry Pi OS (python3-picamera2), so it is imported when a
`PiCamera` is opened, never when this module is: everything else imports on a laptop.

Colour: picamera2's "RGB888" format lays pixels out as B, G, R in memory, which is the
order OpenCV wants, so frames go to the reader without conversion.

Stable colours between reveals: after a warm-up with automatic exposure and white
balance, we read back the values they settled on and set them as fixed controls
(ExposureTime, AnalogueGain, ColourGains, with automatic control off). A die's red then
looks the same at the tenth reveal as at the first, whatever the players' shadows do.
When the room's light changes over an evening, `measure_light()` lets automatic control
settle again and locks what it finds (the host panel's camera page has a button for it).

Automatic control is switched with the controls the camera advertises: AeEnable and
AwbEnable, and, from libcamera 0.5, ExposureTimeMode and AnalogueGainMode (0 automatic,
1 manual), which replaced AeEnable (picamera2 issue #1269: AeEnable is then ignored, and
picamera2 refuses a control the camera does not advertise). Both are sent where both
exist; only the advertised ones are ever sent.

A stalled camera (a loose ribbon, a frontend time-out that never surfaces) must not hang
the camera loop: frames are asked for without waiting (`capture_array(wait=False)`) and
collected with picamera2's `wait(job, timeout=...)`, so a frame later than
`read_timeout` seconds is a `CameraUnavailable`: the desk closes the camera, says so on
the host panel, and opens it again.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

import numpy as np

from hardware.faults import CameraUnavailable

log = logging.getLogger(__name__)

_MANUAL_HINT = "enter the dice on the host panel"
_LOCKED_CONTROLS = ("ExposureTime", "AnalogueGain", "ColourGains")
# (control, value when automatic, value when fixed): AeEnable before libcamera 0.5, the
# two modes from it (libcamera's ExposureTimeModeAuto/Manual and AnalogueGainModeAuto/Manual).
_AUTOMATIC_CONTROLS = (("AeEnable", True, False), ("AwbEnable", True, False),
                       ("ExposureTimeMode", 0, 1), ("AnalogueGainMode", 0, 1))
_AF_CONTINUOUS = 2  # libcamera's AfModeEnum.Continuous, used when libcamera's enum cannot be imported
#: Seconds a frame may take before the camera counts as stalled (a frame takes 33 ms at 30 fps,
#: a still-mode frame well under a second).
READ_TIMEOUT = 5.0


class PiCamera:
    """Frames from a Raspberry Pi camera module (BGR uint8 arrays of `resolution`)."""

    def __init__(
        self,
        resolution: tuple[int, int] = (1280, 720),
        *,
        mode: str = "video",
        warmup_seconds: float = 2.0,
        lock_exposure: bool = True,
        autofocus: bool = True,
        mains_hz: int = 0,
        camera_num: int = 0,
        sleep: Callable[[float], None] | None = None,
        read_timeout: float = READ_TIMEOUT,
    ) -> None:
        self._sleep = sleep or time.sleep
        self._read_timeout = read_timeout
        self._warmup_seconds = warmup_seconds
        try:
            from picamera2 import Picamera2
        except ImportError as exc:
            raise CameraUnavailable(
                "the Raspberry Pi camera library is not installed (python3-picamera2 on Raspberry Pi OS); "
                f"{_MANUAL_HINT}"
            ) from exc
        try:
            self._camera = Picamera2(camera_num)
        except Exception as exc:  # IndexError or RuntimeError when no camera is connected
            raise CameraUnavailable(
                f"no Raspberry Pi camera found ({exc}); check the ribbon cable and its orientation. "
                f"Meanwhile, {_MANUAL_HINT}"
            ) from exc
        try:
            self._start(tuple(resolution), mode, autofocus, mains_hz)
            self._sleep(warmup_seconds)
            if lock_exposure:
                self.lock_exposure()
        except Exception as exc:
            self.close()
            raise CameraUnavailable(f"the Raspberry Pi camera did not start ({exc}); {_MANUAL_HINT}") from exc

    def _start(self, resolution: tuple[int, int], mode: str, autofocus: bool, mains_hz: int = 0) -> None:
        camera = self._camera
        make = camera.create_still_configuration if mode == "still" else camera.create_video_configuration
        camera.configure(make(main={"size": resolution, "format": "RGB888"}))
        camera.start()
        if autofocus and "AfMode" in camera.camera_controls:
            camera.set_controls({"AfMode": _af_continuous()})
        if mains_hz:
            # Lamps on the mains flicker at twice its frequency; automatic exposure then keeps to
            # whole flicker periods (10 ms at 50 Hz), which the rolling shutter shows without
            # bands, and the lock keeps what it chose. AeFlickerMode 1 is libcamera's FlickerManual.
            flicker = {"AeFlickerMode": 1, "AeFlickerPeriod": 1_000_000 // (2 * mains_hz)}
            if self._advertised(flicker) == flicker:
                camera.set_controls(flicker)
            else:
                log.warning("this camera has no flicker control (libcamera before 2023?): camera.mains_hz is ignored")

    def lock_exposure(self) -> dict[str, object]:
        """Freeze exposure and white balance at what automatic control settled on; return the values."""
        metadata = self._camera.capture_metadata()
        locked = {name: metadata[name] for name in _LOCKED_CONTROLS if name in metadata}
        self._camera.set_controls(self._advertised({**self._automatic(False), **locked}))
        log.info("camera exposure and white balance locked: %s", locked)
        return locked

    def measure_light(self, settle_seconds: float | None = None) -> dict[str, object]:
        """Let automatic exposure and white balance settle on the light as it is now (for
        `settle_seconds`, the warm-up's by default), then lock them again; return the values.
        For when the room's light has changed since the camera started."""
        if self._camera is None:
            raise CameraUnavailable("the Raspberry Pi camera was closed")
        try:
            self._camera.set_controls(self._advertised(self._automatic(True)))
            self._sleep(self._warmup_seconds if settle_seconds is None else settle_seconds)
            return self.lock_exposure()
        except Exception as exc:
            raise CameraUnavailable(f"the Raspberry Pi camera could not measure the light ({exc}); "
                                    f"{_MANUAL_HINT}") from exc

    @staticmethod
    def _automatic(on: bool) -> dict[str, object]:
        return {name: auto if on else fixed for name, auto, fixed in _AUTOMATIC_CONTROLS}

    def _advertised(self, controls: dict[str, object]) -> dict[str, object]:
        """Only the controls this camera advertises (picamera2 refuses any other)."""
        known = self._camera.camera_controls
        return {name: value for name, value in controls.items() if name in known}

    def read(self) -> np.ndarray:
        if self._camera is None:
            raise CameraUnavailable("the Raspberry Pi camera was closed")
        try:
            job = self._camera.capture_array("main", wait=False)
            return self._camera.wait(job, timeout=self._read_timeout)
        except TimeoutError as exc:
            raise CameraUnavailable(f"the Raspberry Pi camera gave no frame for {self._read_timeout:g} s "
                                    f"(stalled); it is being restarted. Meanwhile, {_MANUAL_HINT}") from exc
        except Exception as exc:
            raise CameraUnavailable(f"the Raspberry Pi camera stopped answering ({exc}); {_MANUAL_HINT}") from exc

    def close(self) -> None:
        camera, self._camera = getattr(self, "_camera", None), None
        if camera is None:
            return
        for step in (camera.stop, camera.close):
            try:
                step()
            except Exception:  # a camera that vanished cannot be stopped cleanly; nothing to do
                log.debug("picamera2 %s failed", step.__name__, exc_info=True)

    def __enter__(self) -> PiCamera:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


def _af_continuous() -> object:
    try:
        from libcamera import controls
    except ImportError:
        return _AF_CONTINUOUS
    return controls.AfModeEnum.Continuous

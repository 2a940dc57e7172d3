"""PiCamera against a stand-in for picamera2 that records the documented calls it receives."""

from __future__ import annotations

import sys
import types

import numpy as np
import pytest

from hardware.camera import CameraUnavailable, FrameSource, open_camera
from hardware.faults import CameraConfigError
from hardware.pi_camera import PiCamera


class FakePicamera2:
    """Just the picamera2.Picamera2 surface PiCamera uses; `calls` is what it was asked, in order."""

    instances: list[FakePicamera2] = []
    # before libcamera 0.5: AeEnable switches automatic exposure and gain
    advertised = {"AeEnable": (False, True, True), "AwbEnable": (False, True, True),
                  "ExposureTime": (100, 1000000, 20000), "AnalogueGain": (1.0, 16.0, 1.0),
                  "ColourGains": (0.0, 32.0, None)}
    has_autofocus = True
    unplug_after = None

    def __init__(self, camera_num=0):
        self.camera_num = camera_num
        self.calls: list[tuple] = []
        self.camera_controls = dict(self.advertised)
        if self.has_autofocus:
            self.camera_controls["AfMode"] = (0, 2, 0)
        self.reads = 0
        FakePicamera2.instances.append(self)

    def create_video_configuration(self, main=None, **kwargs):
        self.calls.append(("create_video_configuration", main))
        return {"kind": "video", "main": main}

    def create_still_configuration(self, main=None, **kwargs):
        self.calls.append(("create_still_configuration", main))
        return {"kind": "still", "main": main}

    def configure(self, config):
        self.calls.append(("configure", config["kind"]))
        self.main = config["main"]

    def start(self):
        self.calls.append(("start",))

    def set_controls(self, controls):
        self.calls.append(("set_controls", dict(controls)))

    def capture_metadata(self):
        self.calls.append(("capture_metadata",))
        return {"ExposureTime": 12345, "AnalogueGain": 2.5, "ColourGains": (1.8, 1.4), "Lux": 300.0}

    stall_after = None

    def capture_array(self, name="main", wait=None):
        """As picamera2: with wait=False, a job that `wait(job, timeout)` collects."""
        assert wait is False, "a capture that waits for ever can hang the camera loop"
        if self.unplug_after is not None and self.reads >= self.unplug_after:
            raise RuntimeError("Camera frontend has timed out!")
        if self.stall_after is not None and self.reads >= self.stall_after:
            return "stalled job"
        self.reads += 1
        width, height = self.main["size"]
        return np.zeros((height, width, 3), np.uint8)

    def wait(self, job, timeout=None):
        self.calls.append(("wait", timeout))
        if isinstance(job, str):  # picamera2's Job.get_result: the future's TimeoutError
            raise TimeoutError()
        return job

    def stop(self):
        self.calls.append(("stop",))

    def close(self):
        self.calls.append(("close",))


@pytest.fixture
def picamera2(monkeypatch):
    module = types.ModuleType("picamera2")
    module.Picamera2 = FakePicamera2
    monkeypatch.setitem(sys.modules, "picamera2", module)
    monkeypatch.setitem(sys.modules, "libcamera", None)  # no libcamera enum: the plain value 2 is used
    FakePicamera2.instances = []
    monkeypatch.setattr(FakePicamera2, "has_autofocus", True)
    monkeypatch.setattr(FakePicamera2, "unplug_after", None)
    monkeypatch.setattr(FakePicamera2, "stall_after", None)
    monkeypatch.setattr(FakePicamera2, "advertised", dict(FakePicamera2.advertised))
    return FakePicamera2


def no_sleep(seconds):
    no_sleep.slept = seconds


def test_rgb888_main_stream_then_autofocus_then_warm_up_then_locked_exposure(picamera2):
    with PiCamera((1536, 864), sleep=no_sleep) as camera:
        assert isinstance(camera, FrameSource)
        frame = camera.read()
        calls = picamera2.instances[0].calls
    assert frame.shape == (864, 1536, 3) and frame.dtype == np.uint8
    assert calls[:4] == [
        ("create_video_configuration", {"size": (1536, 864), "format": "RGB888"}),
        ("configure", "video"),
        ("start",),
        ("set_controls", {"AfMode": 2}),
    ]
    assert no_sleep.slept == 2.0
    assert calls[4:6] == [
        ("capture_metadata",),
        ("set_controls", {"AeEnable": False, "AwbEnable": False, "ExposureTime": 12345, "AnalogueGain": 2.5, "ColourGains": (1.8, 1.4)}),
    ]
    assert calls[-2:] == [("stop",), ("close",)]


def test_no_autofocus_control_means_no_af_mode_and_still_mode_uses_still_configuration(picamera2):
    picamera2.has_autofocus = False
    with PiCamera((640, 480), mode="still", lock_exposure=False, sleep=no_sleep):
        calls = picamera2.instances[0].calls
    assert calls[0][0] == "create_still_configuration"
    assert not any(call[0] == "set_controls" for call in calls)


def test_open_camera_passes_the_section_to_the_pi_camera(picamera2, monkeypatch):
    monkeypatch.setattr("hardware.pi_camera.time", types.SimpleNamespace(sleep=no_sleep))
    with open_camera({"source": "picamera", "resolution": [800, 600], "warmup_seconds": 0.5, "autofocus": False}) as camera:
        assert camera.read().shape == (600, 800, 3)
    assert no_sleep.slept == 0.5
    assert ("set_controls", {"AfMode": 2}) not in picamera2.instances[0].calls


def test_a_pi_camera_unplugged_mid_game_raises_camera_unavailable(picamera2):
    picamera2.unplug_after = 1
    camera = PiCamera(sleep=no_sleep)
    camera.read()
    with pytest.raises(CameraUnavailable, match="stopped answering.*host panel"):
        camera.read()
    camera.close()


def test_no_camera_on_the_ribbon_is_camera_unavailable(picamera2, monkeypatch):
    def no_camera(camera_num=0):
        raise IndexError("list index out of range")

    monkeypatch.setattr(sys.modules["picamera2"], "Picamera2", no_camera)
    with pytest.raises(CameraUnavailable, match="no Raspberry Pi camera found.*ribbon"):
        PiCamera(sleep=no_sleep)


def test_a_camera_failing_to_start_is_closed_and_unavailable(picamera2, monkeypatch):
    def broken_start(self):
        raise RuntimeError("Failed to start camera")

    monkeypatch.setattr(picamera2, "start", broken_start)
    with pytest.raises(CameraUnavailable, match="did not start"):
        PiCamera(sleep=no_sleep)
    assert picamera2.instances[0].calls[-1] == ("close",)


# libcamera 0.5 and later: ExposureTimeMode and AnalogueGainMode (0 auto, 1 manual) replace AeEnable
LIBCAMERA_05 = {"ExposureTimeMode": (0, 1, 0), "AnalogueGainMode": (0, 1, 0), "AwbEnable": (False, True, True),
                "ExposureTime": (100, 1000000, 20000), "AnalogueGain": (1.0, 16.0, 1.0), "ColourGains": (0.0, 32.0, None)}


def test_on_libcamera_0_5_the_lock_uses_the_mode_controls_and_never_sends_aeenable(picamera2):
    picamera2.advertised = LIBCAMERA_05
    with PiCamera(sleep=no_sleep):
        calls = picamera2.instances[0].calls
    locks = [c[1] for c in calls if c[0] == "set_controls" and "ExposureTime" in c[1]]
    assert locks == [{"AwbEnable": False, "ExposureTimeMode": 1, "AnalogueGainMode": 1,
                      "ExposureTime": 12345, "AnalogueGain": 2.5, "ColourGains": (1.8, 1.4)}]


def test_only_advertised_controls_are_sent(picamera2):
    """picamera2 refuses a control the camera does not advertise: a camera with no colour
    gains (a monochrome sensor, say) is locked on what it has."""
    picamera2.advertised = {"AeEnable": (False, True, True), "ExposureTime": (100, 1000000, 20000)}
    with PiCamera(sleep=no_sleep):
        calls = picamera2.instances[0].calls
    assert [c for c in calls if c[0] == "set_controls"][-1] == ("set_controls", {"AeEnable": False, "ExposureTime": 12345})


@pytest.mark.parametrize("advertised, automatic", [
    (FakePicamera2.advertised, {"AeEnable": True, "AwbEnable": True}),
    (LIBCAMERA_05, {"AwbEnable": True, "ExposureTimeMode": 0, "AnalogueGainMode": 0}),
])
def test_measuring_the_light_again_lets_automatic_control_settle_then_locks_it(picamera2, advertised, automatic):
    picamera2.advertised = advertised
    slept = []
    with PiCamera(warmup_seconds=1.5, sleep=slept.append) as camera:
        before = len(picamera2.instances[0].calls)
        locked = camera.measure_light()
        calls = picamera2.instances[0].calls[before:]
        assert camera.measure_light(0.25) == locked
    assert locked == {"ExposureTime": 12345, "AnalogueGain": 2.5, "ColourGains": (1.8, 1.4)}
    assert calls[0] == ("set_controls", automatic)
    assert calls[1] == ("capture_metadata",) and calls[2][0] == "set_controls"
    assert {k: v for k, v in calls[2][1].items() if k in automatic} == {k: not v if isinstance(v, bool) else 1
                                                                        for k, v in automatic.items()}
    assert slept == [1.5, 1.5, 0.25]  # the warm-up, then each settling


def test_a_camera_failing_to_measure_the_light_is_unavailable(picamera2, monkeypatch):
    camera = PiCamera(sleep=no_sleep)

    def broken(self):
        raise RuntimeError("Camera frontend has timed out!")

    monkeypatch.setattr(picamera2, "capture_metadata", broken)
    with pytest.raises(CameraUnavailable, match="could not measure the light.*host panel"):
        camera.measure_light()
    camera.close()
    with pytest.raises(CameraUnavailable, match="closed"):
        camera.measure_light()


@pytest.mark.parametrize("hz, period", [(50, 10000), (60, 8333)])
def test_mains_flicker_avoidance_is_set_before_the_warm_up(picamera2, hz, period):
    picamera2.advertised = {**LIBCAMERA_05, "AeFlickerMode": (0, 2, 0), "AeFlickerPeriod": (100, 1000000, 0)}
    with PiCamera(mains_hz=hz, sleep=no_sleep):
        calls = picamera2.instances[0].calls
    flicker = calls.index(("set_controls", {"AeFlickerMode": 1, "AeFlickerPeriod": period}))
    assert flicker < calls.index(("capture_metadata",))  # automatic exposure settles with it


def test_a_camera_without_flicker_control_ignores_mains_hz_and_says_so(picamera2, caplog):
    with PiCamera(mains_hz=50, sleep=no_sleep):
        calls = picamera2.instances[0].calls
    assert not any("AeFlickerMode" in c[1] for c in calls if c[0] == "set_controls")
    assert "camera.mains_hz is ignored" in caplog.text


def test_open_camera_passes_mains_hz_and_refuses_other_frequencies(picamera2):
    picamera2.advertised = {**LIBCAMERA_05, "AeFlickerMode": (0, 2, 0), "AeFlickerPeriod": (100, 1000000, 0)}
    with open_camera({"source": "picamera", "mains_hz": 60, "warmup_seconds": 0}):
        pass
    assert ("set_controls", {"AeFlickerMode": 1, "AeFlickerPeriod": 8333}) in picamera2.instances[0].calls
    for bad in (55, "50", True):
        with pytest.raises(CameraConfigError, match="mains_hz.*50 or 60"):
            open_camera({"source": "picamera", "mains_hz": bad})


def test_a_stalled_frame_times_out_as_camera_unavailable(picamera2):
    """Issue 24: capture_array used to wait for ever; now a frame has `read_timeout` seconds."""
    picamera2.stall_after = 1
    camera = PiCamera(sleep=no_sleep, read_timeout=3.0)
    assert camera.read().shape == (720, 1280, 3)
    with pytest.raises(CameraUnavailable, match="no frame for 3 s"):
        camera.read()
    assert ("wait", 3.0) in picamera2.instances[0].calls


class StatusTable:
    """The reveal desk's view of a table with no game running: device statuses only."""

    def __init__(self):
        self.status: list[tuple[str, str]] = []

    def expected_dice(self):
        return None

    def readings_in_force(self):
        return 0

    def offer_reading(self, *args, **kwargs):
        raise AssertionError("no reading is expected")

    def set_device_status(self, device, status, message=""):
        self.status.append((device, status))


def test_the_reveal_desk_reopens_a_pi_camera_that_stalls(picamera2):
    from hardware.reveal import RevealDesk

    picamera2.stall_after = 2
    table = StatusTable()
    now = [0.0]
    desk = RevealDesk(table, lambda: PiCamera(sleep=no_sleep, read_timeout=0.5), lambda: None,
                      clock=lambda: now[0], retry_seconds=2.0)
    for _ in range(4):  # open, two frames, the stall
        desk.turn()
        now[0] += 0.1
    first = picamera2.instances[0]
    assert ("close",) in first.calls
    assert table.status[-1] == ("camera", "unavailable")
    now[0] += 2.0
    picamera2.stall_after = None
    desk.turn()
    assert len(picamera2.instances) == 2 and table.status[-1] == ("camera", "ok")
    desk.stop()

"""Frame sources: recorded folders and videos, webcams going away, the config section."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from hardware.camera import (
    CameraConfig,
    CameraUnavailable,
    FrameSource,
    RecordedFrames,
    RecordingEnded,
    Turned,
    UsbCamera,
    as_bgr,
    open_camera,
)
from hardware.faults import CameraConfigError

REPO = Path(__file__).resolve().parent.parent


def picture(shade: int, size=(12, 16)) -> np.ndarray:
    """A tiny BGR picture whose blue channel says which one it is."""
    frame = np.zeros((*size, 3), np.uint8)
    frame[..., 0] = shade
    frame[..., 2] = 255 - shade
    return frame


@pytest.fixture
def photo_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "reveals"
    folder.mkdir()
    for index, shade in enumerate((10, 120, 240)):
        cv2.imwrite(str(folder / f"reveal-{index:02d}.png"), picture(shade))
    (folder / "notes.txt").write_text("not a picture")
    return folder


@pytest.fixture
def video_file(tmp_path: Path) -> Path:
    path = tmp_path / "reveals.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 5, (32, 24))
    assert writer.isOpened()
    for shade in (0, 80, 160, 240):
        writer.write(np.full((24, 32, 3), shade, np.uint8))
    writer.release()
    return path


def blue(frame: np.ndarray) -> int:
    return int(round(float(frame[..., 0].mean())))


def test_a_folder_plays_its_pictures_in_name_order_as_bgr(photo_folder):
    with RecordedFrames(photo_folder) as frames:
        assert isinstance(frames, FrameSource)
        shown = [frames.read() for _ in range(3)]
    assert [blue(f) for f in shown] == [10, 120, 240]
    assert all(f.dtype == np.uint8 and f.shape == (12, 16, 3) for f in shown)
    assert int(shown[0][0, 0, 2]) == 245  # red stays in the third channel: BGR, as OpenCV wants


def test_a_folder_without_loop_ends_with_recording_ended(photo_folder):
    frames = RecordedFrames(photo_folder, loop=False)
    for _ in range(3):
        frames.read()
    with pytest.raises(RecordingEnded, match="no more pictures"):
        frames.read()
    with pytest.raises(CameraUnavailable):  # the service only needs to know this one
        frames.read()


def test_a_looping_folder_starts_again(photo_folder):
    with RecordedFrames(photo_folder, loop=True) as frames:
        assert [blue(frames.read()) for _ in range(7)] == [10, 120, 240, 10, 120, 240, 10]


def test_hold_frames_shows_each_picture_several_times_like_a_still_table(photo_folder):
    with RecordedFrames(photo_folder, hold_frames=3) as frames:
        assert [blue(frames.read()) for _ in range(7)] == [10, 10, 10, 120, 120, 120, 240]


def test_a_caller_scribbling_on_a_frame_does_not_change_the_next_one(photo_folder):
    with RecordedFrames(photo_folder, hold_frames=2) as frames:
        first = frames.read()
        first[:] = 0
        assert blue(frames.read()) == 10


def test_a_video_file_plays_its_frames_and_loops(video_file):
    with RecordedFrames(video_file, loop=True) as frames:
        shades = [int(round(float(frames.read().mean()))) for _ in range(6)]
    assert shades[4:] == shades[:2]
    assert all(abs(got - want) <= 6 for got, want in zip(shades[:4], (0, 80, 160, 240)))  # MJPG is lossy


def test_a_video_file_without_loop_ends(video_file):
    with RecordedFrames(video_file) as frames:
        for _ in range(4):
            assert frames.read().shape == (24, 32, 3)
        with pytest.raises(RecordingEnded):
            frames.read()


@pytest.mark.parametrize("make", [lambda tmp: tmp / "missing", lambda tmp: tmp])
def test_a_missing_or_empty_recording_is_camera_unavailable(tmp_path, make):
    with pytest.raises(CameraUnavailable, match="not found|no images"):
        RecordedFrames(make(tmp_path))


def test_a_file_that_is_no_video_is_camera_unavailable(tmp_path):
    bogus = tmp_path / "reveals.avi"
    bogus.write_bytes(b"this is not a video")
    with pytest.raises(CameraUnavailable, match="cannot open the video"):
        RecordedFrames(bogus)


def test_a_webcam_that_stops_sending_pictures_is_unplugged(video_file):
    """OpenCV reads a file like a webcam; its end is what an unplugged webcam looks like."""
    with UsbCamera(str(video_file), read_attempts=2) as camera:
        for _ in range(4):
            assert camera.read().shape == (24, 32, 3)
        with pytest.raises(CameraUnavailable, match="stopped sending pictures"):
            camera.read()


class UnpluggedCapture:
    """A cv2.VideoCapture whose camera is pulled out after `frames` pictures."""

    def __init__(self, device, frames=2):
        self.device, self.frames, self.released = device, frames, False
        self.settings = {}

    def isOpened(self):
        return True

    def set(self, prop, value):
        self.settings[prop] = value
        return True

    def read(self):
        if self.frames == 0:
            return False, None
        self.frames -= 1
        return True, np.zeros((4, 4), np.uint8)  # a grey webcam

    def release(self):
        self.released = True


def test_a_webcam_pulled_out_mid_game_raises_camera_unavailable_and_grey_frames_come_out_bgr():
    captures = []

    def factory(device):
        captures.append(UnpluggedCapture(device))
        return captures[-1]

    camera = UsbCamera(1, resolution=(640, 480), capture_factory=factory)
    assert camera.read().shape == (4, 4, 3)
    assert camera.read().shape == (4, 4, 3)
    with pytest.raises(CameraUnavailable, match="USB camera 1 stopped"):
        camera.read()
    camera.close()
    assert captures[0].released
    assert captures[0].settings == {cv2.CAP_PROP_BUFFERSIZE: 1, cv2.CAP_PROP_FRAME_WIDTH: 640, cv2.CAP_PROP_FRAME_HEIGHT: 480}


def test_no_webcam_there_is_camera_unavailable():
    class Absent(UnpluggedCapture):
        def isOpened(self):
            return False

    with pytest.raises(CameraUnavailable, match="no USB camera at 3"):
        UsbCamera(3, capture_factory=Absent)


def test_open_camera_builds_the_recorded_source_from_the_config_section(photo_folder):
    config = {"source": "recorded", "folder": photo_folder.name, "loop": False, "hold_frames": 2}
    with open_camera(config, base_dir=photo_folder.parent) as frames:
        assert isinstance(frames, RecordedFrames)
        assert [blue(frames.read()) for _ in range(3)] == [10, 10, 120]


def test_a_camera_mounted_on_its_side_is_turned_so_the_far_side_of_the_table_is_on_top(photo_folder):
    frame = picture(10)
    frame[0, :4] = 255  # a mark in the picture's top-left corner
    cv2.imwrite(str(photo_folder / "reveal-00.png"), frame)
    config = {"source": "recorded", "folder": photo_folder.name, "turn": 90}
    with open_camera(config, base_dir=photo_folder.parent) as frames:
        turned = frames.read()
        assert turned.shape == (16, 12, 3)  # 12 x 16 on its side
        assert (turned[:4, -1] == 255).all()  # a quarter turn clockwise: the top-left corner goes top-right
    with open_camera({**config, "turn": 180}, base_dir=photo_folder.parent) as frames:
        assert (frames.read()[-1, -4:] == 255).all()


def test_a_turned_camera_keeps_its_own_controls():
    class Metered:
        closed = False

        def read(self):
            return picture(10)

        def measure_light(self):
            return {"ExposureTime": 1000}

        def close(self):
            self.closed = True

    camera = Metered()
    with Turned(camera, 270) as turned:
        assert turned.read().shape == (16, 12, 3)
        assert turned.measure_light() == {"ExposureTime": 1000}  # the host panel's "measure the light again"
    assert camera.closed
    with pytest.raises(ValueError, match="turn must be one of"):
        Turned(camera, 45)


def test_open_camera_with_source_none_is_no_camera():
    assert open_camera({"source": "none"}) is None


def test_the_default_camera_is_the_pi_camera_and_without_picamera2_it_is_unavailable(monkeypatch):
    assert CameraConfig.from_mapping({}).source == "picamera"
    monkeypatch.setitem(sys.modules, "picamera2", None)  # import picamera2 now fails, as on a laptop
    with pytest.raises(CameraUnavailable, match="python3-picamera2"):
        open_camera({})


@pytest.mark.parametrize(
    ("section", "message"),
    [
        ({"sauce": "usb"}, r"unknown key 'sauce'"),
        ({"source": "webcam"}, r"camera.source = 'webcam'"),
        ({"source": "recorded"}, r"exactly one of camera.folder or camera.video"),
        ({"source": "recorded", "folder": "a", "video": "b.avi"}, r"exactly one of"),
        ({"resolution": [1280]}, r"camera.resolution"),
        ({"resolution": "1280x720"}, r"camera.resolution"),
        ({"device": -1}, r"camera.device"),
        ({"loop": "yes"}, r"camera.loop = 'yes': give true or false"),
        ({"hold_frames": 0}, r"camera.hold_frames"),
        ({"warmup_seconds": 120}, r"camera.warmup_seconds"),
        ({"mode": "photo"}, r"camera.mode"),
        ({"turn": 45}, r"camera.turn = 45: give 0, 90, 180 or 270"),
        ({"turn": True}, r"camera.turn"),
    ],
)
def test_camera_section_mistakes_are_refused_naming_the_key(section, message):
    with pytest.raises(CameraConfigError, match=message):
        CameraConfig.from_mapping(section)


def test_camera_section_values_are_read():
    config = CameraConfig.from_mapping({"source": "usb", "device": "2", "resolution": [640, 480]})
    assert (config.source, config.device, config.resolution) == ("usb", 2, (640, 480))
    assert CameraConfig.from_mapping({"source": "usb", "device": "/dev/video4"}).device == "/dev/video4"


def test_hardware_modules_import_without_picamera2_and_do_not_load_it():
    """On a laptop `import picamera2` fails; nothing may need it before a Pi camera is opened."""
    code = (
        "import sys; sys.modules['picamera2'] = None\n"
        "import hardware.camera, hardware.gpio, hardware.pi_camera, companion.appliance.cli.check_hardware\n"
        "sys.modules.pop('picamera2')\n"
        "assert 'picamera2' not in sys.modules and 'libcamera' not in sys.modules\n"
        "print('ok')\n"
    )
    result = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ok"


def test_grey_bgra_and_16_bit_frames_come_out_as_8_bit_bgr():
    grey = np.full((2, 3), 7, np.uint8)
    bgra = np.dstack([np.full((2, 3), v, np.uint8) for v in (1, 2, 3, 4)])
    deep = np.full((2, 3, 3), 65535, np.uint16)
    assert as_bgr(grey).shape == (2, 3, 3) and as_bgr(grey)[0, 0].tolist() == [7, 7, 7]
    assert as_bgr(bgra)[0, 0].tolist() == [1, 2, 3]
    assert as_bgr(deep).dtype == np.uint8 and as_bgr(deep)[0, 0].tolist() == [255, 255, 255]

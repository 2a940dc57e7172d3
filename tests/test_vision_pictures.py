"""Pictures from files: a photo cut short is refused with a reason, never read with dice missing."""

from __future__ import annotations

import json
import struct
from pathlib import Path
from types import SimpleNamespace

import cv2
import numpy as np
import pytest

from companion.appliance.cli import calibrate as calibrate_cli
from companion.appliance.cli import read as read_cli
from companion.appliance.cli import teach as teach_cli
from hardware.camera import RecordedFrames
from hardware.faults import CameraUnavailable
from hardware.vision import SpikeProfile, UnreadableFrame, load_picture, read_dice
from hardware.vision.pictures import cut_short

FIXTURES = Path(__file__).parent / "fixtures"
PHOTO = FIXTURES / "byler" / "images" / "IMG_20191208_111228.jpg"


def jpeg_bytes(params: tuple[int, ...] = ()) -> bytes:
    ok, data = cv2.imencode(".jpg", cv2.imread(str(PHOTO)), list(params))
    assert ok
    return data.tobytes()


def png_bytes() -> bytes:
    ok, data = cv2.imencode(".png", cv2.imread(str(PHOTO)))
    assert ok
    return data.tobytes()


def half(data: bytes) -> bytes:
    return data[:len(data) // 2]


def write(tmp_path: Path, name: str, data: bytes) -> Path:
    path = tmp_path / name
    path.write_bytes(data)
    return path


def test_a_whole_photo_loads_as_the_decoder_gives_it():
    frame = load_picture(PHOTO)
    assert frame.dtype == np.uint8 and frame.ndim == 3 and frame.shape[2] == 3
    assert np.array_equal(frame, cv2.imread(str(PHOTO)))


@pytest.mark.parametrize("fraction", [0.05, 0.3, 0.6, 0.95])
@pytest.mark.parametrize("kind", ["baseline", "progressive", "png"])
def test_a_file_cut_short_anywhere_is_refused_saying_so(tmp_path, kind, fraction):
    data = {"baseline": lambda: jpeg_bytes(),
            "progressive": lambda: jpeg_bytes((cv2.IMWRITE_JPEG_PROGRESSIVE, 1, cv2.IMWRITE_JPEG_RST_INTERVAL, 4)),
            "png": png_bytes}[kind]()
    assert cut_short(data) is None
    path = write(tmp_path, "cut.png" if kind == "png" else "cut.jpg", data[:int(len(data) * fraction)])
    with pytest.raises(UnreadableFrame, match="cut short"):
        load_picture(path)


def test_the_last_two_bytes_missing_is_still_cut_short():
    data = jpeg_bytes()
    assert cut_short(data[:-2]) and cut_short(data[:-1]) and cut_short(data) is None


def test_data_after_the_picture_like_a_motion_photo_is_not_damage(tmp_path):
    video = b"\x00\x00\x00\x18ftypmp42" + bytes(range(256)) * 400  # 0xFF 0xD8 and friends inside
    frame = load_picture(write(tmp_path, "motion.jpg", jpeg_bytes() + video))
    assert frame.shape == cv2.imread(str(PHOTO)).shape


@pytest.mark.parametrize("make, message", [
    (lambda tmp: tmp / "missing.jpg", "no such file"),
    (lambda tmp: tmp, "a folder"),
    (lambda tmp: write(tmp, "empty.jpg", b""), "not a picture"),
    (lambda tmp: write(tmp, "notes.jpg", b"dice: 3 4 5\n"), "not a picture"),
])
def test_what_is_not_a_picture_says_what_it_is(tmp_path, make, message):
    with pytest.raises(UnreadableFrame, match=message):
        load_picture(make(tmp_path))


def test_grey_transparent_and_16_bit_pictures_come_out_as_8_bit_bgr(tmp_path):
    photo = cv2.imread(str(PHOTO))[:120, :160]
    cv2.imwrite(str(tmp_path / "grey.png"), cv2.cvtColor(photo, cv2.COLOR_BGR2GRAY))
    cv2.imwrite(str(tmp_path / "clear.png"), cv2.cvtColor(photo, cv2.COLOR_BGR2BGRA))
    cv2.imwrite(str(tmp_path / "deep.png"), photo.astype(np.uint16) * 257)
    for name in ("grey.png", "clear.png", "deep.png"):
        frame = load_picture(tmp_path / name)
        assert frame.dtype == np.uint8 and frame.shape == (120, 160, 3), name


def test_read_cli_flags_a_cut_photo_and_still_reads_the_others(tmp_path, capsys):
    cut = write(tmp_path, "cut.jpg", half(jpeg_bytes()))
    assert read_dice(cv2.imread(str(cut))).dice  # what a plain decode would have scored
    args = SimpleNamespace(images=[str(cut), str(PHOTO)], dice="pips", profile=None, annotate=None,
                           roi=None, config=None)
    code = read_cli.run(args)
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert code == 1
    assert lines[0]["flagged"] and "cut short" in lines[0]["reason"] and lines[0]["dice"] == []
    assert lines[1]["image"] == str(PHOTO) and lines[1]["dice"]


def test_teaching_from_a_cut_photo_leaves_the_profile_as_it_was(tmp_path, capsys):
    profile_path = tmp_path / "spike.profile"
    cut = write(tmp_path, "cut.jpg", half(jpeg_bytes()))
    args = SimpleNamespace(kind="spike", images=[str(PHOTO), str(cut)], face=3, profile=str(profile_path))
    assert teach_cli.run(args) == 1
    assert "cut short" in capsys.readouterr().err and not profile_path.exists()
    assert SpikeProfile.load_or_empty(profile_path).taught == ()


def test_a_recorded_camera_reaching_a_cut_picture_is_unavailable_with_the_reason(tmp_path):
    folder = tmp_path / "reveals"
    folder.mkdir()
    write(folder, "reveal-00.jpg", jpeg_bytes())
    write(folder, "reveal-01.jpg", half(jpeg_bytes()))
    frames = RecordedFrames(folder, loop=False)
    assert frames.read().shape[2] == 3
    with pytest.raises(CameraUnavailable, match="cut short"):
        frames.read()


def test_calibrating_with_a_cut_empty_table_photo_leaves_the_config_alone(tmp_path, capsys):
    config = write(tmp_path, "companion.toml", b'[vision]\ndice = "chance"\n')
    cut = write(tmp_path, "empty.jpg", half(jpeg_bytes()))
    assert calibrate_cli.run(SimpleNamespace(config=str(config), roi=None, empty_table=str(cut))) == 1
    assert "cut short" in capsys.readouterr().err
    assert config.read_bytes() == b'[vision]\ndice = "chance"\n'


def test_a_phone_photo_is_turned_upright_by_its_exif_orientation(tmp_path):
    picture = np.zeros((40, 80, 3), np.uint8)
    picture[:, :20] = 255  # a white band down the left side
    ok, data = cv2.imencode(".jpg", picture)
    entry = struct.pack(">HHIHH", 0x0112, 3, 1, 6, 0)  # Orientation = 6: turn 90 degrees clockwise
    tiff = b"MM\x00\x2a\x00\x00\x00\x08" + struct.pack(">H", 1) + entry + struct.pack(">I", 0)
    app1 = b"Exif\x00\x00" + tiff
    data = data.tobytes()
    path = write(tmp_path, "upright.jpg", data[:2] + b"\xff\xe1" + struct.pack(">H", len(app1) + 2) + app1 + data[2:])
    frame = load_picture(path)
    assert frame.shape == (80, 40, 3)
    assert frame[:20, :, :].mean() > 200 and frame[-20:, :, :].mean() < 50  # the band is now along the top


def test_a_table_region_is_cut_to_the_picture_and_one_outside_it_is_refused():
    from hardware.vision.pictures import region_of

    frame = np.zeros((480, 640, 3), np.uint8)
    assert region_of(frame, None)[0] is frame
    part, left, top = region_of(frame, (600, 400, 1280, 960))  # a region set for a 1280x960 camera
    assert part.shape == (80, 40, 3) and (left, top) == (600, 400)
    for roi in ((700, 500, 1200, 900), (630, 0, 1280, 960)):  # none of it, or a 10 px sliver
        with pytest.raises(UnreadableFrame, match=r"lies outside the camera's 640x480 picture: set it again"):
            region_of(frame, roi)

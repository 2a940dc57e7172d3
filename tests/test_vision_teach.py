"""Teaching spike faces from photos, saving the profile, and reading taught dice back."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import cv2
import numpy as np
import pytest

from companion.cli import teach as teach_cli
from hardware.vision import SpikeProfile, SpikeProfileError, read_dice

FIXTURES = Path(__file__).parent / "fixtures" / "rendered"


def entries(role):
    return [e for e in json.loads((FIXTURES / "manifest.json").read_text()) if e.get("fixture_role") == role]


def teach_all(profile_path: Path) -> None:
    for e in entries("enrol"):
        args = SimpleNamespace(kind="spike", images=[str(FIXTURES / e["image"])], face=int(e["dice"][0]),
                               profile=str(profile_path))
        assert teach_cli.run(args) == 0


def test_each_teach_run_adds_a_face_to_the_profile_file(tmp_path):
    path = tmp_path / "spike.profile"
    teach_all(path)
    profile = SpikeProfile.load(path)
    assert profile.taught == (1, 2, 3, 4, 5, 6)
    counts = {face: len(pictures) for face, pictures in profile.faces.items()}
    assert counts == {int(e["dice"][0]): len(e["dice"]) for e in entries("enrol")}


def test_taught_spike_dice_are_read_back(tmp_path):
    path = tmp_path / "spike.profile"
    teach_all(path)
    profile = SpikeProfile.load(path)
    scene = entries("spike-read")[0]
    reading = read_dice(cv2.imread(str(FIXTURES / scene["image"])), "spike", profile=profile)
    assert len(reading.dice) == len(scene["dice"])
    # every die the reader is sure of is right; the scene as a whole is right or flagged
    truth = {tuple(b[:4]): b[4] for b in scene["boxes"]}
    for die in reading.dice:
        cx, cy = (die.box[0] + die.box[2]) / 2, (die.box[1] + die.box[3]) / 2
        label = next(v for (x1, y1, x2, y2), v in truth.items() if x1 <= cx <= x2 and y1 <= cy <= y2)
        if die.confidence >= 0.8:
            assert die.value == label
    assert reading.flagged or sorted(reading.values) == sorted(scene["dice"])


def test_a_missing_teaching_photo_leaves_the_profile_unchanged(tmp_path, capsys):
    path = tmp_path / "spike.profile"
    teach_all(path)
    before = path.read_bytes()
    args = SimpleNamespace(kind="spike", images=[str(tmp_path / "gone.jpg")], face=2, profile=str(path))
    assert teach_cli.run(args) == 1
    assert path.read_bytes() == before and "gone.jpg" in capsys.readouterr().err


def test_a_photo_without_dice_teaches_nothing(tmp_path):
    blank = tmp_path / "blank.png"
    cv2.imwrite(str(blank), np.full((300, 400, 3), 100, np.uint8))
    path = tmp_path / "spike.profile"
    assert teach_cli.run(SimpleNamespace(kind="spike", images=[str(blank)], face=1, profile=str(path))) == 1
    assert not path.exists()


def test_reading_spike_dice_needs_a_taught_profile():
    with pytest.raises(SpikeProfileError):
        read_dice(np.full((100, 100, 3), 90, np.uint8), "spike", profile=SpikeProfile())


def test_a_damaged_profile_file_is_refused_with_its_name(tmp_path):
    bad = tmp_path / "bad.profile"
    bad.write_bytes(b"not a profile")
    with pytest.raises(SpikeProfileError, match="bad.profile"):
        SpikeProfile.load(bad)

"""[vision] config parsing and `companion calibrate` writing it without disturbing the rest."""

from __future__ import annotations

import tomllib
from pathlib import Path
from types import SimpleNamespace

import cv2
import numpy as np
import pytest

from companion.appliance.cli import calibrate
from hardware.vision import VisionConfig, VisionConfigError


def test_defaults_need_no_section():
    config = VisionConfig.from_mapping({})
    assert config.dice == "pips" and config.roi is None and config.still_seconds == 0.5


def test_section_values_are_parsed():
    config = VisionConfig.from_mapping({"dice": "chance", "roi": [10, 20, 300, 240], "min_confidence": 0.9})
    assert config.dice == "chance" and config.roi == (10, 20, 300, 240) and config.min_confidence == 0.9


@pytest.mark.parametrize("section, word", [
    ({"colour": "red"}, "colour"),
    ({"dice": "d20"}, "dice"),
    ({"roi": [5, 5, 2, 9]}, "roi"),
    ({"roi": [0, 0, float("inf"), 9]}, "roi"),  # TOML has inf: it once escaped as an OverflowError
    ({"roi": [0, 0, True, 9]}, "roi"),
    ({"min_confidence": "high"}, "min_confidence"),
    ({"still_frames": 0}, "still_frames"),
    ({"still_frames": 17}, "still_frames"),
    ({"still_frames": 2.5}, "still_frames"),
    ({"still_frames": True}, "still_frames"),
    ({"still_frames": "4"}, "still_frames"),
    ({"remember_dice": "yes"}, "remember_dice"),
    ({"remember_dice": 1}, "remember_dice"),
])
def test_bad_settings_are_refused_naming_the_setting(section, word):
    with pytest.raises(VisionConfigError, match=word):
        VisionConfig.from_mapping(section)


def test_still_frames_defaults_to_four_and_is_passed_to_the_watcher():
    from hardware.reveal import VisionReader

    assert VisionConfig.from_mapping({}).still_frames == 4
    config = VisionConfig.from_mapping({"still_frames": 1})
    watcher = VisionReader.ready_factory(config)()
    frame = np.full((120, 160, 3), 90, np.uint8)
    second = frame.copy()
    watcher.feed(frame, 0.0)
    watcher.feed(second, 0.1)
    assert watcher.still_picture() is second  # one frame kept: the newest, as it came (four: their mean)


def test_the_service_reader_remembers_pip_dice_unless_told_not_to():
    from hardware.reveal import VisionReader

    frame = cv2.imread(str(Path(__file__).parent / "fixtures" / "matteop" / "images" / "train_five_13.jpg"))
    reader = VisionReader(VisionConfig.from_mapping({}))
    assert not reader.read(frame, "pips", expect=2).flagged
    assert len(reader._memory) == 2
    assert VisionReader(VisionConfig.from_mapping({"remember_dice": False}))._memory is None
    assert VisionConfig.from_mapping({"remember_dice": False}).to_mapping()["remember_dice"] is False


def test_calibrate_writes_roi_and_keeps_other_sections(tmp_path):
    path = tmp_path / "companion.toml"
    path.write_text('[host]\npin = "482100"\n\n[vision]\ndice = "chance"\nroi = [0, 0, 10, 10]\n\n[web]\nport = 8080\n')
    args = SimpleNamespace(config=str(path), roi="12,34,600,400", empty_table=None)
    assert calibrate.run(args) == 0
    data = tomllib.loads(path.read_text())
    assert data["host"] == {"pin": "482100"} and data["web"] == {"port": 8080}
    assert data["vision"] == {"dice": "chance", "roi": [12, 34, 600, 400]}
    assert VisionConfig.from_mapping(data["vision"]).roi == (12, 34, 600, 400)


def test_calibrate_records_the_empty_table_and_creates_the_file(tmp_path):
    photo = tmp_path / "empty.png"
    cv2.imwrite(str(photo), np.full((120, 160, 3), 128, np.uint8))
    path = tmp_path / "new.toml"
    assert calibrate.run(SimpleNamespace(config=str(path), roi=None, empty_table=str(photo))) == 0
    vision = tomllib.loads(path.read_text())["vision"]
    assert vision["roi"] == [0, 0, 160, 120] and vision["empty_table"] == str(photo.resolve())


def test_calibrate_refuses_a_bad_roi_and_leaves_the_file_alone(tmp_path, capsys):
    path = tmp_path / "companion.toml"
    before = '[host]\npin = "1"\n'
    path.write_text(before)
    assert calibrate.run(SimpleNamespace(config=str(path), roi="50,50,10,10", empty_table=None)) == 1
    assert path.read_text() == before
    assert "roi" in capsys.readouterr().err


def test_calibrate_says_when_the_host_panel_has_set_what_it_wrote(tmp_path, capsys):
    (tmp_path / "calibration.json").write_text('{"roi": [0, 0, 50, 50], "empty_table": null, "spike_profile": null}')
    path = tmp_path / "companion.toml"
    args = SimpleNamespace(config=str(path), roi="12,34,600,400", empty_table=None, data_dir=tmp_path)
    assert calibrate.run(args) == 0
    err = capsys.readouterr().err
    assert "host panel's camera page has set roi" in err and "empty_table" not in err and "Forget" in err
    assert tomllib.loads(path.read_text())["vision"]["roi"] == [12, 34, 600, 400]  # written all the same
    (tmp_path / "calibration.json").write_text('{"roi": null, "empty_table": null, "spike_profile": null}')
    assert calibrate.run(args) == 0 and capsys.readouterr().err == ""  # nothing set there: nothing to say

"""A hand or the cup over the table in a single read, told from the calibrated empty-table photo."""

from __future__ import annotations

import json
import os
from pathlib import Path
from types import SimpleNamespace

import cv2
import numpy as np
import pytest

from companion.appliance.cli import read as read_cli
from hardware.reveal import VisionReader
from hardware.vision import EmptyTable, ReadyToRead, VisionConfig, read_dice

FIXTURES = Path(__file__).parent / "fixtures" / "byler"
PHOTO = "IMG_20191208_111228.jpg"
COVERED = "over the table"


@pytest.fixture(scope="module")
def table():
    frame = cv2.imread(str(FIXTURES / "images" / PHOTO))
    entry = next(e for e in json.loads((FIXTURES / "manifest.json").read_text()) if e["image"].endswith(PHOTO))
    mask = np.zeros(frame.shape[:2], np.uint8)
    for x1, y1, x2, y2, _ in entry["boxes"]:
        cv2.rectangle(mask, (int(x1) - 5, int(y1) - 5), (int(x2) + 5, int(y2) + 5), 255, -1)  # the outline and shadow too
    empty = cv2.inpaint(frame, mask, 5, cv2.INPAINT_TELEA)  # stands in for the calibrated photo
    return frame, empty, entry["boxes"]


def with_hand(frame, boxes):
    """A hand reaching in over some of the dice: a big skin-coloured blob from the edge."""
    out = frame.copy()
    x1, y1, x2, y2, _ = boxes[0]
    h, w = frame.shape[:2]
    cv2.ellipse(out, (int(x2), h), (w // 4, h // 2), 0, 0, 360, (120, 150, 205), -1)
    return out


def test_the_empty_table_sees_a_hand_but_not_the_dice(table):
    frame, empty, boxes = table
    photo = EmptyTable(empty)
    assert photo.covered(frame) < 0.05  # the dice alone are small
    assert photo.covered(with_hand(frame, boxes)) > 0.12
    assert photo.covered(cv2.resize(frame, (320, 240))) is None  # another camera mode: no judgement


def test_a_light_or_white_balance_changed_since_the_photo_is_not_a_thing_over_the_table(table):
    frame, empty, boxes = table
    photo = EmptyTable(empty)

    def lit(picture, gains):  # the camera's exposure and white balance, moved since the photo
        return np.clip(picture * np.array(gains, np.float32), 0, 255).astype(np.uint8)

    for gains in ((0.6, 0.6, 0.6), (0.8, 0.8, 0.8), (1.2, 1.2, 1.2), (0.8, 1.0, 1.15)):
        assert photo.covered(lit(frame, gains)) < 0.05, gains
        assert photo.covered(lit(with_hand(frame, boxes), gains)) > 0.12, gains  # a hand still is
    arm = frame.copy()
    arm[:, :512] = (120, 150, 205)  # something over four fifths of the view: the light is not taken from it
    assert photo.covered(arm) > 0.12


def test_a_read_with_a_hand_over_the_table_is_flagged_and_its_dice_still_read(table):
    frame, empty, boxes = table
    photo = EmptyTable(empty)
    plain = read_dice(frame, "pips")
    assert read_dice(frame, "pips", empty_table=photo) == plain  # a clear table reads as without the photo
    hand = read_dice(with_hand(frame, boxes), "pips", empty_table=photo)
    assert hand.flagged and COVERED in hand.reason
    assert hand.dice  # the dice it could see are still offered
    assert not (read_dice(with_hand(frame, boxes), "pips").reason or "").count(COVERED)  # without the photo it cannot tell
    big = read_dice(with_hand(frame, boxes), "pips", empty_table=photo, occluder_fraction=0.9)
    assert COVERED not in (big.reason or "")


def test_cli_and_the_camera_loop_use_the_configs_empty_table_photo(table, tmp_path, capsys):
    frame, empty, boxes = table
    cv2.imwrite(str(tmp_path / "empty.png"), empty)
    cv2.imwrite(str(tmp_path / "hand.png"), with_hand(frame, boxes))
    config = tmp_path / "companion.toml"
    config.write_text(f'[vision]\nempty_table = "{tmp_path / "empty.png"}"\n')
    args = SimpleNamespace(images=[str(tmp_path / "hand.png"), str(FIXTURES / "images" / PHOTO)], dice="pips",
                           profile=None, annotate=None, roi=None, config=str(config))
    assert read_cli.run(args) == 0
    hand, clear = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert hand["flagged"] and COVERED in hand["reason"]
    assert COVERED not in (clear["reason"] or "")

    sight = VisionReader(VisionConfig(empty_table=str(tmp_path / "empty.png"))).read(with_hand(frame, boxes), "pips")
    assert sight.flagged and COVERED in sight.reason


def test_an_unreadable_empty_table_photo_is_reported_and_the_photos_still_read(tmp_path, capsys):
    config = tmp_path / "companion.toml"
    config.write_text(f'[vision]\nempty_table = "{tmp_path / "gone.png"}"\n')
    args = SimpleNamespace(images=[str(FIXTURES / "images" / PHOTO)], dice="pips", profile=None, annotate=None,
                           roi=None, config=str(config))
    assert read_cli.run(args) == 0
    out = capsys.readouterr()
    assert "empty-table photo" in out.err and "gone.png" in out.err
    assert json.loads(out.out)["dice"]


def test_the_reader_and_the_ready_watcher_share_one_empty_table(table, tmp_path, caplog):
    frame, empty, boxes = table
    photo = tmp_path / "empty.png"
    cv2.imwrite(str(photo), empty)
    config = VisionConfig(empty_table=str(photo), roi=(0, 0, frame.shape[1], frame.shape[0]))
    reader = VisionReader(config)
    watcher = VisionReader.ready_factory(config)()
    assert reader._empty_table is not None and watcher._reference is reader._empty_table  # loaded once
    before = photo.stat().st_mtime_ns
    cv2.imwrite(str(photo), cv2.flip(empty, 1))  # the photo taken again (a second later) is loaded again
    os.utime(photo, ns=(before + 10**9, before + 10**9))
    assert VisionReader(config)._empty_table is not reader._empty_table

    with pytest.raises(ValueError, match="table region"):
        ReadyToRead(empty_table=reader._empty_table, roi=(0, 0, 10, 10))

    gone = VisionConfig(empty_table=str(tmp_path / "gone.png"))
    with caplog.at_level("WARNING", logger="companion.reveal"):
        assert VisionReader(gone)._empty_table is None
        VisionReader.ready_factory(gone)()
    assert sum("gone.png" in r.getMessage() for r in caplog.records) == 1  # said once, not per user

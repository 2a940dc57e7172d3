"""benchmarks/vision.py's speed summary: issue 65's three time bars, each with its interval."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def bench():
    sys.path.insert(0, str(ROOT / "scripts" / "vision"))
    spec = importlib.util.spec_from_file_location("bench_vision", ROOT / "benchmarks" / "vision.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_each_bar_is_judged_on_its_own_figure(bench):
    times = [50.0] * 90 + [900.0] * 10  # a fast median, a slow tail
    rows = {what: (value, lo, hi, limit, met) for what, value, lo, hi, limit, met in bench.speed_summary(times)}
    assert rows["median"][0] == 50.0 and rows["median"][4]
    assert rows["p95"][0] == 900.0 and not rows["p95"][4]  # 400 ms bar
    assert rows["slowest"][0] == 900.0 and rows["slowest"][4]  # 1.5 s bar
    for value, lo, hi, _, _ in rows.values():
        assert lo <= value <= hi


def test_a_slowest_read_past_its_bar_is_not_met(bench):
    rows = {what: met for what, _, _, _, _, met in bench.speed_summary([20.0] * 99 + [1600.0])}
    assert rows == {"median": True, "p95": True, "slowest": False}


def test_timed_frames_keep_their_shape(bench):
    import numpy as np

    square = np.zeros((640, 640, 3), np.uint8)
    big, boxes = bench.at_speed_size(square, [[100, 200, 150, 250, 4]])
    assert big.shape == (1280, 1280, 3)  # not stretched to 1280x960: a die stays square
    assert boxes == [[200.0, 400.0, 300.0, 500.0, 4]]
    wide, _ = bench.at_speed_size(np.zeros((240, 320, 3), np.uint8), [])
    assert wide.shape == (960, 1280, 3)


def _scene(seed, split, dice):
    return {"image": f"images/{split}_{seed:06d}.jpg", "seed": seed, "split": split, "kind": "pip",
            "dice_detail": [{"value": v, "box": [0, 0, 20, 20], "cocked": cocked, "hidden": 0.0, **marks}
                            for v, cocked, marks in dice]}


def test_rendered_scenes_keep_flat_throws_and_mark_those_no_camera_shows(bench, tmp_path):
    import json

    scenes = [_scene(1, "heldout", [(3, False, {"mark_contrast": 40.0})]),
              _scene(2, "heldout", [(5, False, {"mark_contrast": 40.0}), (2, False, {"mark_contrast": 3.0})]),
              _scene(3, "heldout", [(4, True, {})]),  # a cocked die: thrown again, not read
              _scene(4, "heldout", [(6, False, {})])]  # measured before marks were: legible
    (tmp_path / "manifest.jsonl").write_text("".join(json.dumps(e) + "\n" for e in scenes))
    out = {e["image"]: e for e in bench.rendered_scenes(tmp_path)}
    assert sorted(out) == ["images/heldout_000001.jpg", "images/heldout_000002.jpg", "images/heldout_000004.jpg"]
    assert [out[k]["unreadable"] for k in sorted(out)] == [False, True, False]
    assert out["images/heldout_000002.jpg"]["boxes"] == [[0, 0, 20, 20, 5], [0, 0, 20, 20, 2]]


def test_training_renders_are_refused_as_a_judge(bench, tmp_path):
    import json

    (tmp_path / "manifest.jsonl").write_text(json.dumps(_scene(1, "train", [(3, False, {})])) + "\n")
    with pytest.raises(SystemExit, match="training renders"):
        bench.rendered_scenes(tmp_path)


def test_a_rendered_scene_names_its_empty_table_photo_when_the_cache_has_one(bench, tmp_path):
    import json

    scenes = [_scene(1, "heldout", [(3, False, {})]), _scene(2, "heldout", [(4, False, {})])]
    (tmp_path / "manifest.jsonl").write_text("".join(json.dumps(e) + "\n" for e in scenes))
    (tmp_path / "empty.jsonl").write_text(json.dumps(
        {"seed": 2, "image": "images/heldout_000002.jpg", "empty": "images/heldout_000002_empty.jpg"}) + "\n")
    out = {e["image"]: e["empty"] for e in bench.rendered_scenes(tmp_path)}
    assert out == {"images/heldout_000001.jpg": None, "images/heldout_000002.jpg": "images/heldout_000002_empty.jpg"}


def test_the_set_up_photo_takes_the_light_of_the_shift_but_its_own_noise(bench):
    import numpy as np

    photo = np.full((60, 80, 3), 120, np.uint8)
    assert np.array_equal(bench.set_up_photo(photo, ""), photo)
    assert np.array_equal(bench.set_up_photo(photo, "pool"), bench.SHIFTS["pool"](photo))  # the lamp was there
    grain = bench.set_up_photo(photo, "grainy")
    assert grain.shape == photo.shape and not np.array_equal(grain, bench.SHIFTS["grainy"](photo))  # other noise
    assert bench.set_up_photo(photo, "close").shape == bench.SHIFTS["close"](photo).shape


def test_with_still_frames_the_set_up_photo_is_their_still_picture(bench):
    import numpy as np

    photo = np.full((120, 160, 3), 120, np.uint8)
    one, four = bench.set_up_photo(photo, "grainy", 1), bench.set_up_photo(photo, "grainy", 4, "t_empty.jpg")
    assert np.array_equal(one, bench.set_up_photo(photo, "grainy"))
    error = lambda im: float(np.abs(im.astype(np.float32) - 120).mean())  # noqa: E731
    assert error(four) < 0.6 * error(one)  # four frames' noise, averaged as the camera page does
    assert np.array_equal(bench.set_up_photo(photo, "pool", 4), bench.SHIFTS["pool"](photo))  # the same each frame


def test_frames_that_never_look_still_are_held_not_read(bench):
    import numpy as np

    frame = np.full((240, 320, 3), 90, np.uint8)
    frame[:, :80] = 230  # a bright band that each new frame moves: motion to the watcher

    def moved(im, rng):
        out = np.full_like(im, 90)
        x = int(rng.integers(100, 240))
        out[:, x:x + 80] = 230
        return out

    bench.AGAIN["moving"] = moved
    try:
        assert bench.still_frames(frame, frame, "moving", 4, "x.jpg") is None
        assert bench.still_frames(frame, frame, "moving", 1, "x.jpg") is frame  # one frame: read as it is
    finally:
        del bench.AGAIN["moving"]

"""The dice renderer's cache and framing (scripts/vision/render_dice.py), without Blender:
a picture wide enough for its dice, and a cache that holds one renderer version."""

from __future__ import annotations

import json
import math
import random
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts" / "vision"))
import render_dice  # noqa: E402


def _die_px(width: int, distance: float, size_cm: float, lens_mm: float) -> float:
    """A die's side in pixels, seen straight down (the pinhole the renderer's camera is)."""
    return size_cm * (width * lens_mm / 36) / distance


def test_a_near_camera_keeps_the_base_width():
    width = render_dice.picture_width(384, 20.0, 1.6, 35.0)
    assert width == 384
    assert _die_px(width, 20.0, 1.6, 35.0) > render_dice.MIN_DIE_PX


@pytest.mark.parametrize("distance", [50.0, 70.0, 90.0])
def test_a_far_camera_widens_the_picture_until_a_die_has_its_pixels(distance):
    width = render_dice.picture_width(384, distance, 1.6, 35.0)
    assert width > 384 and width % 8 == 0
    assert _die_px(width, distance, 1.6, 35.0) >= render_dice.MIN_DIE_PX
    assert _die_px(width - 8, distance, 1.6, 35.0) < render_dice.MIN_DIE_PX  # no wider than it needs


def test_the_width_stops_at_a_frame_s_width():
    assert render_dice.picture_width(384, 1000.0, 1.2, 24.0) == render_dice.MAX_SIDE


def test_a_cache_of_another_renderer_version_is_refused(tmp_path, capsys):
    (tmp_path / "manifest.jsonl").write_text(json.dumps({"image": "images/train_000000.jpg", "seed": 0}) + "\n")
    scenes = render_dice.cached_scenes(tmp_path / "manifest.jsonl")
    assert render_dice.cache_versions(scenes) == {1}  # written before versions were
    assert render_dice.main(["--out", str(tmp_path), "--count", "1"]) == 2
    assert "renderer version 1" in capsys.readouterr().err
    assert (tmp_path / "manifest.jsonl").read_text().count("\n") == 1  # nothing added


def test_versions_and_seeds_are_read_past_a_line_cut_short(tmp_path):
    manifest = tmp_path / "manifest.jsonl"
    manifest.write_text(json.dumps({"seed": 3, "renderer": render_dice.RENDERER}) + "\n" + '{"seed": 4, "rend')
    scenes = render_dice.cached_scenes(manifest)
    assert render_dice.cache_versions(scenes) == {render_dice.RENDERER}
    assert render_dice.done_seeds(scenes) == {3}


def test_a_die_s_marks_stand_out_from_its_body_colour():
    for seed in range(300):
        kind, styles = render_dice.draw_styles(random.Random(seed), "train", 4)
        for style in styles:
            if kind == "chance":  # no marks
                continue
            body, mark = render_dice.lightness(style.rgb), render_dice.lightness(render_dice.MARKS[style.mark])
            assert abs(body - mark) >= render_dice.MARK_CONTRAST, (seed, style)


def test_the_camera_s_white_balance_takes_out_the_share_of_the_cast_it_is_given():
    warm = render_dice.kelvin_rgb(2700)
    assert render_dice.balanced(warm, warm, 1.0) == pytest.approx((1.0, 1.0, 1.0))
    assert render_dice.balanced(warm, warm, 0.0) == pytest.approx(warm)
    half = render_dice.balanced(warm, warm, 0.5)
    assert warm[2] < half[2] < 1.0  # blue comes back part of the way
    assert max(half) == pytest.approx(1.0)


def test_a_line_appended_while_the_manifest_is_replaced_lands_in_the_new_file(tmp_path):
    import fcntl
    import threading

    manifest = tmp_path / "manifest.jsonl"
    render_dice.append_line(manifest, json.dumps({"seed": 1, "renderer": render_dice.RENDERER}))
    with manifest.open("a") as held:  # a tool mending the cache holds the lock and replaces the file
        fcntl.flock(held, fcntl.LOCK_EX)
        writer = threading.Thread(target=render_dice.append_line,
                                  args=(manifest, json.dumps({"seed": 2, "renderer": render_dice.RENDERER})))
        writer.start()
        writer.join(0.3)
        assert writer.is_alive()  # waiting for the lock, not writing to the file about to go
        replacement = tmp_path / "manifest.jsonl.tmp"
        replacement.write_text(manifest.read_text().replace('"seed": 1', '"seed": 1, "mended": true'))
        replacement.replace(manifest)
    writer.join(5)
    scenes = render_dice.cached_scenes(manifest)
    assert [e["seed"] for e in scenes] == [1, 2]
    assert scenes[0].get("mended") is True


def test_a_tilted_camera_keeps_the_far_side_up():
    rng = random.Random(5)
    tilted = [math.degrees(render_dice.camera_turn(rng, 30.0)) for _ in range(500)]
    assert max(abs(t) for t in tilted) <= render_dice.UPRIGHT_TURN
    overhead = [math.degrees(render_dice.camera_turn(rng, 0.0)) for _ in range(500)]
    assert max(overhead) > 150 and min(overhead) < -150  # straight down: any turn


def test_renders_without_an_up_are_turned_any_way_in_training(tmp_path):
    import dataset

    lines = []
    for seed, (renderer, tilt) in enumerate([(5, 30.0), (5, 2.0), (4, 30.0)]):
        lines.append(json.dumps({"image": f"images/train_{seed:06d}.jpg", "seed": seed, "renderer": renderer,
                                 "split": "train", "kind": "pip", "scene": {"tilt_deg": tilt},
                                 "dice_detail": [{"value": 3, "box": [0, 0, 20, 20], "cocked": False, "hidden": 0.0}]}))
    (tmp_path / "manifest.jsonl").write_text("\n".join(lines) + "\n")
    assert [it.any_turn for it in dataset.load_renders(tmp_path)] == [False, True, True]


def test_the_chance_split_draws_only_chance_cubes_of_training_styles():
    for seed in range(200):
        kind, styles = render_dice.draw_styles(random.Random(seed), "chance", 5)
        assert kind == "chance"
        assert not {s.body for s in styles} & set(render_dice.HELD_OUT["body"])


@pytest.mark.parametrize("split, held", [("low", False), ("heldout-low", True)])
def test_the_low_splits_draw_pip_dice_seen_from_low_and_are_read_as_their_styles(tmp_path, split, held):
    import dataset

    assert render_dice.held_out(split) is held
    for seed in range(200):
        kind, styles = render_dice.draw_styles(random.Random(seed), split, 5)
        assert kind == "pip"
        bodies = {s.body for s in styles}
        if held:
            assert bodies <= set(render_dice.HELD_OUT["body"]) | {"translucent", "marbled"}
        else:
            assert not bodies & set(render_dice.HELD_OUT["body"])
    tilts = [render_dice.camera_tilt(random.Random(seed), split) for seed in range(200)]
    assert render_dice.LOW_TILT[0] <= min(tilts) and max(tilts) <= render_dice.LOW_TILT[1]
    (tmp_path / "manifest.jsonl").write_text(json.dumps({
        "image": f"images/{split}_000001.jpg", "seed": 1, "renderer": 5, "split": split, "kind": "pip",
        "scene": {"tilt_deg": 50.0},
        "dice_detail": [{"value": 3, "box": [0, 0, 20, 20], "cocked": False, "hidden": 0.0}]}) + "\n")
    assert [it.held_out for it in dataset.load_renders(tmp_path)] == [held]


def test_the_other_splits_tilt_their_cameras_as_renderer_5_did():
    def old(rng):  # renderer 5's draw, as it was written before camera_tilt
        return math.radians(rng.choice([0, rng.uniform(0, 20), rng.uniform(20, 45)]))

    a, b = random.Random(4), random.Random(4)
    for split in ("train", "heldout", "chance"):
        assert [math.radians(render_dice.camera_tilt(a, split)) for _ in range(50)] == [old(b) for _ in range(50)]


def test_a_chance_cube_s_shades_are_drawn_as_renderer_5_drew_them():
    def old(rng):  # renderer 5's draw, as it was written before chance_shades
        red = render_dice._hsv(rng.uniform(-0.04, 0.03), rng.uniform(0.6, 1.0), rng.uniform(0.45, 1.0))
        blue = render_dice._hsv(rng.uniform(0.55, 0.7), rng.uniform(0.5, 1.0), rng.uniform(0.3, 0.95))
        return red, blue

    a, b = random.Random(3), random.Random(3)  # the same draws: its caches are made again alike
    assert [render_dice.chance_shades(a) for _ in range(50)] == [old(b) for _ in range(50)]


def _cached(kind: str, boxes: list[list[float]]) -> dict:
    return {"kind": kind, "dice_detail": [{"box": b} for b in boxes]}


def test_a_new_scene_is_made_with_its_empty_table_only_when_asked():
    step = render_dice.plan("heldout", 7, {}, set(), empty=False)
    assert step == render_dice.Step(render_dice.SPLIT_SEED["heldout"] + 7, "images/heldout_000007.jpg", None, again=False)
    step = render_dice.plan("heldout", 7, {}, set(), empty=True, empty_kind="pip")  # a new scene's kind is not known yet
    assert step.empty == "images/heldout_000007_empty.jpg" and not step.again


def test_a_cached_scene_is_made_again_only_for_an_empty_table_of_the_kind_asked():
    seed = render_dice.SPLIT_SEED["train"] + 3
    cached = {seed: _cached("chance", [[1.0, 2.0, 30.0, 31.0]])}
    assert render_dice.plan("train", 3, cached, set(), empty=False) is None  # made: nothing to do
    again = render_dice.plan("train", 3, cached, set(), empty=True)
    assert again == render_dice.Step(seed, "images/train_000003.jpg", "images/train_000003_empty.jpg", again=True)
    assert render_dice.plan("train", 3, cached, set(), empty=True, empty_kind="chance") == again
    assert render_dice.plan("train", 3, cached, set(), empty=True, empty_kind="pip") is None
    assert render_dice.plan("train", 3, cached, {seed}, empty=True) is None  # its empty table is made


def test_a_scene_made_again_is_the_cached_one_only_with_the_same_boxes_in_order():
    entry = _cached("pip", [[1.0, 2.0, 30.0, 31.0], [40.0, 2.0, 70.0, 31.0]])
    assert render_dice.same_scene(_cached("pip", [[1.0, 2.0, 30.0, 31.0], [40.0, 2.0, 70.0, 31.0]]), entry)
    assert not render_dice.same_scene(_cached("pip", [[1.0, 2.0, 30.0, 31.1], [40.0, 2.0, 70.0, 31.0]]), entry)
    assert not render_dice.same_scene(_cached("pip", [[40.0, 2.0, 70.0, 31.0], [1.0, 2.0, 30.0, 31.0]]), entry)
    assert not render_dice.same_scene(_cached("pip", [[1.0, 2.0, 30.0, 31.0]]), entry)


def _drawn(shapes) -> "np.ndarray":
    import numpy as np

    import glyphs
    mask = np.zeros((glyphs.G, glyphs.G), np.uint8)
    for shape in shapes:
        shape(mask)
    return mask.astype(np.float32)


def test_a_glyph_that_could_pass_for_pips_is_told_from_symbols():
    import cv2
    import numpy as np

    import glyphs
    c = glyphs.G // 2
    five = [lambda m, x=x, y=y: cv2.circle(m, (c + 20 * x, c + 20 * y), 7, 1, -1) for x, y in glyphs.PIPS[5]]
    assert glyphs.pip_like(_drawn(five))
    assert glyphs.pip_like(_drawn([lambda m: cv2.circle(m, (c, c), 16, 1, -1)]))  # a one's pip, drawn large
    assert glyphs.pip_like(_drawn([lambda m: cv2.circle(m, (c, c), 40, 1, -1)]))  # a disc filling the face: a big one
    assert glyphs.pip_like(_drawn([lambda m: cv2.rectangle(m, (c - 12, c - 12), (c + 12, c + 12), 1, -1)]))  # square
    assert not glyphs.pip_like(_drawn([lambda m: cv2.ellipse(m, (c, c), (36, 12), 0, 0, 360, 1, -1)]))  # a bar
    assert not glyphs.pip_like(_drawn([lambda m: cv2.fillPoly(m, [np.array([[c, 10], [86, 80], [10, 80]])], 1)]))  # triangle
    assert not glyphs.pip_like(_drawn([lambda m: cv2.circle(m, (c, c), 20, 1, 4)]))  # a ring
    assert not glyphs.pip_like(_drawn([lambda m: cv2.line(m, (20, c), (76, c), 1, 8),
                                       lambda m: cv2.line(m, (c, 20), (c, 76), 1, 8)]))  # a cross
    assert not glyphs.pip_like(_drawn([]))


def test_a_symbol_set_is_what_the_renderer_draws_from_its_seed():
    import numpy as np

    import glyphs
    rng = random.Random(11)
    drawn = [glyphs.random_glyph(rng) for _ in range(6)]
    assert all(np.array_equal(a, b) for a, b in zip(glyphs.glyph_set(11).values(), drawn))
    assert list(glyphs.glyph_set(11)) == [1, 2, 3, 4, 5, 6]


def test_a_rendered_symbol_die_showing_pips_teaches_no_face(tmp_path):
    import dataset
    import glyphs

    seed = next(s for s in range(100) if any(glyphs.pip_like(g) for g in glyphs.glyph_set(s).values()))
    like = [v for v, g in glyphs.glyph_set(seed).items() if glyphs.pip_like(g)]
    unlike = [v for v in range(1, 7) if v not in like]

    def die(value, symbols):
        return {"value": value, "box": [0, 0, 20, 20], "cocked": False, "hidden": 0.0,
                "style": {"kind": "symbol" if symbols is not None else "pip", "symbols": symbols}}

    lines = [json.dumps({"image": "images/train_000000.jpg", "seed": 0, "renderer": 5, "split": "train",
                         "kind": "symbol", "scene": {"tilt_deg": 30.0},
                         "dice_detail": [die(like[0], seed), die(unlike[0], seed)]}),
             json.dumps({"image": "images/train_000001.jpg", "seed": 1, "renderer": 5, "split": "train",
                         "kind": "pip", "scene": {"tilt_deg": 30.0}, "dice_detail": [die(like[0], None)]})]
    (tmp_path / "manifest.jsonl").write_text("\n".join(lines) + "\n")
    symbol, pip = dataset.load_renders(tmp_path)
    assert [b[4] for b in symbol.boxes] == [None, unlike[0]]  # both still dice to find
    assert [b[4] for b in pip.boxes] == [like[0]]

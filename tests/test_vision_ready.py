"""ReadyToRead on frame sequences built from a real photo: cup over the dice, lift, blur, rest."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from hardware.vision import ReadyState, ReadyToRead

FIXTURES = Path(__file__).parent / "fixtures"


def _bench_lights():
    """The benchmark's lights (benchmarks/ready.py), so the test and the benchmark see one
    flicker and one lamp: `flickering` (mains bands through a rolling shutter, times a lamp's
    gain, then clipped as a sensor clips) and `lamp_pool`."""
    spec = importlib.util.spec_from_file_location("bench_ready", FIXTURES.parents[1] / "benchmarks" / "ready.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.flickering, module.lamp_pool


flickering, lamp_pool = _bench_lights()
FPS = 20.0


@pytest.fixture(scope="module")
def table():
    frame = cv2.imread(str(FIXTURES / "byler" / "images" / "IMG_20191208_111228.jpg"))
    assert frame is not None
    return frame


def with_cup(frame, x):
    """The cup: a big dark disc over part of the table (as a lifted cup is, held still)."""
    out = frame.copy()
    cv2.circle(out, (int(x), frame.shape[0] // 2), frame.shape[0] // 4, (40, 30, 120), -1)
    return out


def blurred(frame, shift):
    """Dice still rolling: the frame smeared sideways and shifted a little."""
    m = np.float32([[1, 0, shift], [0, 1, 0]])
    moved = cv2.warpAffine(frame, m, (frame.shape[1], frame.shape[0]), borderMode=cv2.BORDER_REPLICATE)
    return cv2.blur(moved, (9, 1))


def noisy(frame, seed):
    """A still frame as a camera gives it: a little sensor noise each time."""
    rng = np.random.default_rng(seed)
    return np.clip(frame.astype(np.int16) + rng.normal(0, 2, frame.shape).astype(np.int16), 0, 255).astype(np.uint8)


def empty_table_for(frame):
    """Inpaint the labelled dice away, standing in for the calibrated empty-table photo."""
    entry = next(e for e in json.loads((FIXTURES / "byler" / "manifest.json").read_text())
                 if e["image"].endswith("IMG_20191208_111228.jpg"))
    mask = np.zeros(frame.shape[:2], np.uint8)
    for x1, y1, x2, y2, _ in entry["boxes"]:
        cv2.rectangle(mask, (int(x1) - 3, int(y1) - 3), (int(x2) + 3, int(y2) + 3), 255, -1)
    return cv2.inpaint(frame, mask, 5, cv2.INPAINT_TELEA)


def play(machine, frames, t0=0.0):
    return [(t0 + i / FPS, machine.feed(f, t0 + i / FPS)) for i, f in enumerate(frames)]


def test_ready_fires_only_after_half_a_second_of_stillness_once_the_cup_is_gone(table):
    machine = ReadyToRead(still_seconds=0.5)
    cup_moving = [with_cup(table, 150 + 25 * i) for i in range(8)]
    rolling = [blurred(table, s) for s in (12, -9, 7, -5, 4, -3)]
    still = [noisy(table, i) for i in range(20)]
    states = play(machine, cup_moving + rolling + still)
    assert all(s in (ReadyState.MOVING, ReadyState.WAITING) for _, s in states[: len(cup_moving) + len(rolling)])
    ready = [t for t, s in states if s is ReadyState.READY]
    assert len(ready) == 1, states
    first_still = (len(cup_moving) + len(rolling)) / FPS
    assert 0.5 <= ready[0] - first_still <= 0.5 + 2 / FPS


def test_ready_fires_once_per_settled_scene_and_rearms_after_a_change(table):
    machine = ReadyToRead(still_seconds=0.5)
    first = play(machine, [noisy(table, i) for i in range(30)])
    assert [s for _, s in first].count(ReadyState.READY) == 1
    shuffle = play(machine, [blurred(table, s) for s in (10, -10, 8)], t0=2.0)
    assert ReadyState.MOVING in [s for _, s in shuffle]
    moved = np.roll(table, 40, axis=1)
    second = play(machine, [noisy(moved, i) for i in range(30)], t0=3.0)
    assert [s for _, s in second].count(ReadyState.READY) == 1


def test_a_still_cup_over_the_table_is_occluded_not_ready(table):
    machine = ReadyToRead(still_seconds=0.5, empty_table=empty_table_for(table))
    states = play(machine, [noisy(with_cup(table, 300), i) for i in range(30)])
    assert ReadyState.READY not in [s for _, s in states]
    assert states[-1][1] is ReadyState.OCCLUDED
    after = play(machine, [noisy(table, i) for i in range(30)], t0=2.0)
    assert [s for _, s in after].count(ReadyState.READY) == 1


def test_built_from_config_uses_its_stillness_and_empty_table(table, tmp_path):
    from hardware.vision import VisionConfig

    photo = tmp_path / "empty.png"
    cv2.imwrite(str(photo), empty_table_for(table))
    machine = ReadyToRead.from_config(VisionConfig.from_mapping({"still_seconds": 1.0, "empty_table": str(photo)}))
    states = play(machine, [noisy(with_cup(table, 300), i) for i in range(10)] + [noisy(table, i) for i in range(30)])
    ready = [t for t, s in states if s is ReadyState.READY]
    assert ReadyState.OCCLUDED in [s for _, s in states] and len(ready) == 1
    assert ready[0] >= 10 / FPS + 1.0


def test_built_from_config_takes_the_empty_table_it_is_given(table, tmp_path):
    from hardware.vision import EmptyTable, VisionConfig

    config = VisionConfig.from_mapping({"still_seconds": 1.0, "empty_table": str(tmp_path / "gone.png")})
    machine = ReadyToRead.from_config(config, empty_table=EmptyTable(empty_table_for(table)))  # not loaded again
    states = play(machine, [noisy(with_cup(table, 300), i) for i in range(10)] + [noisy(table, i) for i in range(30)])
    assert ReadyState.OCCLUDED in [s for _, s in states]
    assert [s for _, s in states].count(ReadyState.READY) == 1
    without = play(ReadyToRead.from_config(config, empty_table=None), [noisy(with_cup(table, 300), i) for i in range(10)])
    assert ReadyState.OCCLUDED not in [s for _, s in without]


def test_built_from_config_with_an_unreadable_photo_says_so(tmp_path):
    from hardware.vision import UnreadableFrame, VisionConfig

    with pytest.raises(UnreadableFrame, match="gone.png"):
        ReadyToRead.from_config(VisionConfig(empty_table=str(tmp_path / "gone.png")))


def test_a_scene_marked_as_read_is_not_ready_again_but_the_next_one_is(table):
    machine = ReadyToRead(still_seconds=0.5)
    machine.mark_read(table)  # read by a reveal press before the dice settled
    assert ReadyState.READY not in [s for _, s in play(machine, [noisy(table, i) for i in range(20)])]
    moved = with_cup(table, 300)  # something else comes to rest: that is new
    assert ReadyState.READY in [s for _, s in play(machine, [noisy(moved, i) for i in range(20)], t0=5.0)]


def test_flicker_bands_rolling_over_still_dice_are_not_movement(table):
    rng = np.random.default_rng(7)
    for amplitude in (0.05, 0.1, 0.2):
        machine = ReadyToRead(still_seconds=0.5)
        states = [s for _, s in play(machine, [flickering(noisy(table, i), amplitude, rng.uniform())
                                               for i in range(30)])]
        assert states.count(ReadyState.READY) == 1, (amplitude, states)  # once: the scene, whatever its bands
        assert ReadyState.MOVING not in states, amplitude
    machine = ReadyToRead(still_seconds=0.5)  # and a lamp switched on is not movement either
    states = [s for _, s in play(machine, [noisy(table, i) for i in range(15)] +
                                 [noisy(np.clip(table * 1.3, 0, 255).astype(np.uint8), i) for i in range(15)])]
    assert states.count(ReadyState.READY) == 1 and ReadyState.MOVING not in states


@pytest.mark.parametrize("amplitude", [0.0, 0.1])
def test_a_yellow_die_rolling_on_the_grey_tray_is_movement_flicker_or_not(table, amplitude):
    """One die (the yellow 5 at 243,350 in the photo, 151 grey levels on a tray of 162: the
    same in grey) rolls 12 px a frame across the empty table."""
    empty = empty_table_for(table)
    die = table[350:394, 243:287].copy()
    rng = np.random.default_rng(3)

    def with_die_at(x):
        out = empty.copy()
        out[450:494, x:x + 44] = die
        return out

    rolling = [flickering(with_die_at(100 + 12 * i), amplitude, rng.uniform()) for i in range(8)]
    resting = [flickering(noisy(with_die_at(100 + 12 * 8), i), amplitude, rng.uniform()) for i in range(20)]
    machine = ReadyToRead(still_seconds=0.5)
    states = play(machine, rolling + resting)
    assert [s for _, s in states[1:len(rolling)]] == [ReadyState.MOVING] * (len(rolling) - 1)
    ready = [t for t, s in states if s is ReadyState.READY]
    assert len(ready) == 1 and ready[0] >= len(rolling) / FPS + 0.5


@pytest.mark.parametrize("strength,amplitude", [(0.6, 0.2), (1.0, 0.1), (1.0, 0.2), (1.5, 0.3), (2.5, 0.2)])
@pytest.mark.parametrize("order", ["bands in the light", "bands over the clipped picture"])
def test_flicker_bands_over_a_clipped_glare_are_not_movement(table, strength, amplitude, order):
    # A camera clips the light, bands and all: where the glare clips, the bands are not seen
    # ("bands in the light"). benchmarks/vision.py's shift lays them over a picture already
    # clipped. Either way a clipped pixel's change under a band is not the light's, and in
    # the blurred small picture it spreads to its neighbours. Before, such a table never
    # settled (at strength 1, +-20%: 19 of 30 frames MOVING, either way).
    pool = lamp_pool(table, strength)
    assert (flickering(table, 0.0, 0.0, light=pool) == 255).any(2).mean() > 0.05  # the lamp does clip part of the view
    rng = np.random.default_rng(7)
    if order == "bands in the light":
        frames = [flickering(noisy(table, i), amplitude, rng.uniform(), light=pool) for i in range(30)]
    else:
        frames = [flickering(noisy(flickering(table, 0.0, 0.0, light=pool), i), amplitude, rng.uniform())
                  for i in range(30)]
    machine = ReadyToRead(still_seconds=0.5)
    states = [s for _, s in play(machine, frames)]
    assert ReadyState.MOVING not in states and states.count(ReadyState.READY) == 1


@pytest.mark.parametrize("amplitude,step", [(0.0, 12), (0.1, 12), (0.2, 24)])
def test_a_die_rolling_through_the_glare_is_movement(table, amplitude, step):
    """A dark die (a 44 px square) rolls `step` px a frame across the middle of a lamp's
    clipped pool: the clipping hides only so much change, not a die darker than the glare.
    (At 12 px a frame the die changes 0.48% of the view without flicker, against the 0.4%
    that is motion; under +-20% bands, where the glare may hide what a band changed, 0.35
    to 0.48%: so there it rolls 24 px a frame, 0.63 to 0.78%.)"""
    empty = empty_table_for(table)
    pool = lamp_pool(table, 1.0)
    rng = np.random.default_rng(4)

    def with_die_at(x, seed=None):
        out = empty.copy() if seed is None else noisy(empty, seed)
        out[360:404, x:x + 44] = (40, 60, 150)
        return flickering(out, amplitude, rng.uniform(), light=pool)

    assert (flickering(empty, 0.0, 0.0, light=pool)[360:404, 100:100 + 8 * step] == 255).any(2).mean() > 0.5  # rolled through the glare
    rolling = [with_die_at(100 + step * i) for i in range(8)]
    resting = [with_die_at(100 + step * 8, i) for i in range(20)]
    machine = ReadyToRead(still_seconds=0.5)
    states = play(machine, rolling + resting)
    assert [s for _, s in states[1:len(rolling)]] == [ReadyState.MOVING] * (len(rolling) - 1)
    assert [s for _, s in states].count(ReadyState.READY) == 1


def test_a_rows_light_is_the_median_of_its_channels_that_are_not_clipped():
    from hardware.vision.ready import row_gain
    rng = np.random.default_rng(0)
    picture = rng.integers(100, 180, (7, 40, 3)).astype(np.int16)
    ratios = np.full((7, 40, 3), 1.0, np.float32)
    ratios[:, 0::2] = 1.2  # half the row's pixels one light, half another: the median tells
    ratios[:, 1::4] = 1.4
    like = np.rint(picture * ratios).astype(np.int16)
    unknown = np.zeros(like.shape, bool)
    unknown[0, :37] = True  # row 0: 3 kept, 37 left out (both odd): kept ratios 1.0, 1.2, 1.4
    unknown[1], unknown[1, 1] = True, False  # row 1: 1 kept (a 1.4), 39 left out
    like[0, :37], like[1, 0], like[1, 2:] = 255, 255, 255  # (white: their ratios are not the light's)
    unknown[2, :, 2] = True  # row 2's third channel all left out: it takes the other two's light
    unknown[4] = True  # row 4 all left out: its neighbours' light
    gain = row_gain(picture, like, unknown)
    assert np.allclose(gain[0], 1.2, atol=0.02)  # the middle of 1.0, 1.2, 1.4
    assert np.allclose(gain[1], 1.4, atol=0.02)
    assert np.isclose(gain[2, 2], gain[2, :2].mean(), atol=1e-6) and np.allclose(gain[2], 1.2, atol=0.02)
    assert np.allclose(gain[4], (gain[3].mean() + gain[5].mean()) / 2, atol=1e-6)
    assert np.allclose(gain[5], 1.2, atol=0.02)  # (40 kept: the upper of the two middle ones)
    assert np.all(np.abs(row_gain(picture, like)[0] - 1.2) > 0.3)  # all counted, the white ones say otherwise


def small_die_table(x, seed):
    """A 1280x960 view of a green felt table with one pale green 34 px die at x (a camera far
    up: the die is 4 of the watcher's 160 small pixels across), with sensor noise."""
    frame = np.full((960, 1280, 3), (70, 110, 60), np.uint8)
    frame[460:494, x:x + 34] = (150, 170, 140)
    cv2.circle(frame, (x + 17, 477), 4, (20, 20, 20), -1)
    return noisy(frame, seed)


def test_with_the_die_size_known_a_small_die_rolling_is_movement():
    rolling = [small_die_table(300 + 70 * i, i) for i in range(8)]  # two widths a frame
    resting = [small_die_table(300 + 70 * 8, 100 + i) for i in range(20)]
    # Without the die's size, a die this small changes 0.28% of the view, under the 0.4% that
    # is motion: it rolls unseen, and READY comes while it rolls.
    blind = play(ReadyToRead(still_seconds=0.3), rolling + resting)
    assert ReadyState.MOVING not in [s for _, s in blind]
    assert any(s is ReadyState.READY for _, s in blind[:len(rolling)])
    machine = ReadyToRead(still_seconds=0.3, die_px=34)
    states = play(machine, rolling + resting)
    assert [s for _, s in states[1:len(rolling)]] == [ReadyState.MOVING] * (len(rolling) - 1)
    ready = [t for t, s in states if s is ReadyState.READY]
    assert len(ready) == 1 and ready[0] >= len(rolling) / FPS + 0.3  # once, after it came to rest


def test_the_die_size_lowers_the_motion_threshold_only_for_small_dice(table):
    # byler's view is 640 px: half a 60 px die's face is 0.55% of it, over the 0.4%, so the
    # threshold stays; half a 44 px die's is 0.24%, and that is the threshold. Either way
    # sensor noise is never motion.
    from hardware.vision.ready import _motion

    view = _motion(table, None)
    for die_px, threshold in ((None, 0.004), (60, 0.004), (44, 0.5 * (44 / 640) ** 2), (2, 9 / 160 ** 2)):
        machine = ReadyToRead(die_px=die_px)
        most = threshold * view.small.shape[0] * view.small.shape[1]  # pixels that may change, still
        for n in (int(0.98 * most), int(most) + 1):  # that many pixels changed, 20 a row
            moved = view.small.copy()
            moved[60:60 + n // 20, 70:90] += 60
            moved[60 + n // 20, 70:70 + n % 20] += 60
            assert machine._moved(view._replace(small=moved), view) == (n > most), (die_px, n)
        states = [s for _, s in play(ReadyToRead(still_seconds=0.5, die_px=die_px), [noisy(table, i) for i in range(20)])]
        assert ReadyState.MOVING not in states and states.count(ReadyState.READY) == 1, die_px


@pytest.mark.parametrize("bad", [0, -3, True, "34", float("inf"), float("nan")])
def test_the_die_size_must_be_a_size(bad):
    with pytest.raises(ValueError, match="die_px"):
        ReadyToRead(die_px=bad)
    assert ReadyToRead(die_px=np.float32(34.5)).die_px == 34.5  # a size as numpy gives it


def test_built_from_config_knows_the_calibrated_die_size():
    from hardware.vision import VisionConfig

    assert ReadyToRead.from_config(VisionConfig.from_mapping({"die_size": 34})).die_px == 34.0
    assert ReadyToRead.from_config(VisionConfig()).die_px is None


def test_a_settled_scene_is_read_from_its_still_frames_averaged(table):
    # A dim room's sensor noise: the mean of the four newest still frames, rounded, and
    # nearer the scene than any one frame.
    rng = np.random.default_rng(5)
    frames = [np.clip(table + rng.normal(0, 8, table.shape), 0, 255).astype(np.uint8) for _ in range(14)]
    machine = ReadyToRead(still_seconds=0.5, still_frames=4)
    states = [state for _, state in play(machine, frames)]
    assert ReadyState.READY in states and ReadyState.MOVING not in states
    picture = machine.still_picture()
    expected = (np.sum(frames[-4:], axis=0, dtype=np.uint16) + 2) // 4
    assert picture.dtype == np.uint8 and np.array_equal(picture, expected)

    def error(f):
        return float(np.abs(f.astype(np.float32) - table).mean())

    assert error(picture) < 0.6 * error(frames[-1])


def test_a_frame_that_has_changed_since_is_not_averaged_in(table):
    # A die creeping 4 px a frame: each step too small to be motion, two steps not. Of the
    # four newest frames only the last two are averaged (no die is doubled across 12 px).
    def creeping(x):
        f = table.copy()
        cv2.rectangle(f, (x, 300), (x + 60, 360), (20, 20, 20), -1)
        return f

    frames = [creeping(100 + 4 * k) for k in range(14)]
    machine = ReadyToRead(still_seconds=0.5, still_frames=4)
    assert ReadyState.MOVING not in [state for _, state in play(machine, frames)]
    expected = (frames[-2].astype(np.uint16) + frames[-1] + 1) // 2
    assert np.array_equal(machine.still_picture(), expected)


def test_movement_starts_the_still_frames_afresh(table):
    machine = ReadyToRead(still_seconds=0.5, still_frames=4)
    play(machine, [table] * 6)
    assert np.array_equal(machine.still_picture(), table)
    moved = blurred(table, 12)
    assert machine.feed(moved, 1.0) is ReadyState.MOVING
    assert machine.still_picture() is None  # the frame that moved is not a still one
    machine.feed(moved, 1.05)
    assert np.array_equal(machine.still_picture(), moved)


def test_one_still_frame_reads_the_newest_as_it_came(table):
    frames = [noisy(table, seed) for seed in range(8)]
    machine = ReadyToRead(still_seconds=0.5, still_frames=1)
    play(machine, frames)
    assert machine.still_picture() is frames[-1]


@pytest.mark.parametrize("bad", [0, -1, 2.5, True, "4"])
def test_still_frames_must_be_a_whole_number_of_frames(bad):
    with pytest.raises(ValueError, match="still_frames"):
        ReadyToRead(still_frames=bad)

"""ReadyToRead on frame sequences built from a real photo: cup over the dice, lift, blur, rest."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from hardware.vision import ReadyState, ReadyToRead

FIXTURES = Path(__file__).parent / "fixtures"
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


def flickering(frame, amplitude, phase, bands=3.0):
    """The frame under lamps that flicker with the mains, through a rolling shutter: dark and
    light bands across the rows, in a new place each frame (phase 0..1)."""
    rows = np.arange(frame.shape[0], dtype=np.float32)[:, None, None] / frame.shape[0]
    gain = 1 + amplitude * np.sin(2 * np.pi * (bands * rows + phase))
    return np.clip(frame * gain, 0, 255).astype(np.uint8)


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


def under_a_lamp(frame, strength=1.0):
    """The frame under a lamp's pool of light (up to 1 + strength brighter at its middle), so
    the light tray clips to white over a fifth of the picture at strength 1."""
    h, w = frame.shape[:2]
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    pool = 1 + strength * np.exp(-(((xx - 0.3 * w) ** 2 + (yy - 0.4 * h) ** 2) / (0.3 * max(h, w)) ** 2))
    return np.clip(frame * pool[:, :, None], 0, 255).astype(np.uint8)


@pytest.mark.parametrize("strength,amplitude", [(0.6, 0.2), (1.0, 0.2), (1.5, 0.1), (1.5, 0.3)])
def test_flicker_bands_over_a_clipped_glare_are_not_movement(table, strength, amplitude):
    # Where the glare clips, the bands cannot be seen; in the blurred small picture a clipped
    # pixel also darkens its neighbours' change. Both counted as motion before: the table
    # never settled (26 of 30 frames MOVING at strength 1, +-20%).
    lit = under_a_lamp(table, strength)
    assert (lit == 255).any(2).mean() > 0.05  # the lamp does clip part of the view
    rng = np.random.default_rng(7)
    machine = ReadyToRead(still_seconds=0.5)
    states = [s for _, s in play(machine, [flickering(noisy(lit, i), amplitude, rng.uniform()) for i in range(30)])]
    assert ReadyState.MOVING not in states and states.count(ReadyState.READY) == 1


@pytest.mark.parametrize("amplitude", [0.0, 0.2])
def test_a_die_rolling_through_the_glare_is_movement(table, amplitude):
    """A dark die (a 44 px square) rolls 12 px a frame across the middle of a lamp's clipped
    pool: the clipping hides only changes toward the dark, not a die darker than the glare."""
    lit = under_a_lamp(empty_table_for(table), 1.0)
    rng = np.random.default_rng(4)

    def with_die_at(x):
        out = lit.copy()
        out[360:404, x:x + 44] = (40, 60, 150)
        return out

    assert (lit[360:404, 100:300] == 255).any(2).mean() > 0.5  # rolled through the glare
    rolling = [flickering(with_die_at(100 + 12 * i), amplitude, rng.uniform()) for i in range(8)]
    resting = [flickering(noisy(with_die_at(100 + 12 * 8), i), amplitude, rng.uniform()) for i in range(20)]
    machine = ReadyToRead(still_seconds=0.5)
    states = play(machine, rolling + resting)
    assert [s for _, s in states[1:len(rolling)]] == [ReadyState.MOVING] * (len(rolling) - 1)
    assert [s for _, s in states].count(ReadyState.READY) == 1


def test_relit_takes_a_rows_light_from_its_channels_that_are_not_clipped():
    from hardware.vision.ready import relit
    rng = np.random.default_rng(0)
    gain = np.array([1.3, 0.8, 1.0, 1.2, 0.9, 1.1], np.float32)  # each row's light, like over picture
    picture = rng.integers(100, 180, (6, 40, 3)).astype(np.int16)
    like = np.rint(picture * gain[:, None, None]).astype(np.int16)
    unknown = np.zeros(like.shape, bool)
    unknown[0, :30] = True  # three quarters of row 0 white in one picture or the other,
    like[0, :30] = 255  # whose ratios would say the light hardly changed
    unknown[1, :, 2] = True  # row 1's third channel all white: it takes the other two's light
    unknown[3] = True  # row 3 all white: its neighbours' light
    taken = gain.copy()
    taken[3] = (gain[2] + gain[4]) / 2
    out = relit(picture, like, unknown)
    assert np.abs(out - picture * taken[:, None, None]).max() <= 3
    assert np.abs(relit(picture, like)[0] - picture[0] * 1.3).max() > 20  # all counted: row 0 comes out wrong


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

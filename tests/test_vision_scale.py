"""The reader at any scale (a pyramid of the frame), and the count in play as an input.

Fixture photos are from the benchmark's held-out split: the models never trained on them.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import cv2
import numpy as np
import pytest

from hardware.vision import read_dice
from hardware.vision.config import VisionConfig, VisionConfigError
from hardware.vision.detect import (LEVEL_BAND, LEVEL_STEP, LEVEL_TARGET, WORK_SIDE, Candidate, distinct, has_halfway,
                                    level_scales, whole_of_groups)
from hardware.vision.teaching import spike_lesson

FIXTURES = Path(__file__).parent / "fixtures"


def fixture(set_name: str, role: str = "read"):
    entry = next(e for e in json.loads((FIXTURES / set_name / "manifest.json").read_text())
                 if e.get("fixture_role", "read") == role and e.get("kind", "pip") == "pip")
    return cv2.imread(str(FIXTURES / set_name / entry["image"])), entry["boxes"]


def test_without_a_die_size_the_levels_span_a_quarter_to_the_whole_working_size():
    scales = level_scales(1280)
    base = WORK_SIDE / 1280
    assert scales == pytest.approx((base, base / 2, base / 4))
    assert level_scales(1280, finest=True)[0] == 1.0  # the frame's own pixels, for dice of a dozen pixels


def test_a_halfway_look_stops_short_of_the_frames_own_pixels():
    every = level_scales(1280, finest=True)
    halfway = level_scales(1280, finest=True, halfway=True)
    assert 1.0 in every and 1.0 not in halfway  # the costliest level is left for the next look
    assert set(halfway) < set(every) and len(halfway) > len(level_scales(1280))
    assert has_halfway(np.zeros((960, 1280, 3), np.uint8))
    # up to three times the working size there is no level between: the look is not made
    assert level_scales(640, finest=True, halfway=True) == level_scales(640)
    assert not has_halfway(np.zeros((640, 640, 3), np.uint8))
    assert not has_halfway(np.zeros((960, 1280, 3), np.uint8), roi=(0, 0, 600, 500))


def test_a_level_never_enlarges_a_frame_beyond_the_working_size():
    assert max(level_scales(320)) == pytest.approx(WORK_SIDE / 320)  # a small webcam frame: read at 384
    assert max(level_scales(640, finest=True)) == 1.0


@pytest.mark.parametrize("long_side", [640, 1280, 1638, 3072, 4056])
def test_a_harder_look_leaves_no_die_size_between_its_levels(long_side):
    """From a dozen pixels to half the frame, every die size lies inside some level's band
    (the finest level's pixels up to the coarsest's): a 1638-px frame's own pixels and its
    working size, 4.3 times apart, once left dice of 44-51 px to no level."""
    scales = level_scales(long_side, finest=True)
    assert scales[0] == 1.0
    assert all(a / b <= LEVEL_STEP + 1e-9 for a, b in zip(scales, scales[1:]))
    for size in np.geomspace(LEVEL_BAND[0], long_side / 2, 60):
        assert any(LEVEL_BAND[0] <= size * s <= LEVEL_BAND[1] for s in scales) or size * scales[-1] > LEVEL_BAND[1]


def test_a_calibrated_die_size_gives_one_level_at_the_target_size():
    (scale,) = level_scales(1280, die_px=88.0)
    assert scale * 88.0 == pytest.approx(LEVEL_TARGET)


def test_candidates_lying_together_are_boxed_as_one_die_and_lone_ones_are_not():
    """Parts of one big die (chained: each near the next) give one box around them all,
    scored as the surest part; a candidate far from every other gives none."""
    parts = [Candidate(100, 100, 20, 0.5), Candidate(125, 100, 20, 0.7), Candidate(150, 110, 30, 0.4)]
    lone = Candidate(300, 300, 20, 0.9)
    (whole,) = whole_of_groups(parts + [lone])
    assert (whole.cx, whole.cy, whole.size, whole.score) == (127.5, 107.5, 75.0, 0.7)  # x 90..165, y 90..125
    assert whole_of_groups([lone, Candidate(30, 30, 20, 0.9)]) == []


def test_of_two_candidates_for_one_die_the_surer_stays_in_its_place():
    """Two candidates of about one size at about one place are one die: the one ranked
    surer stays, where it stood in the list; a candidate elsewhere stays too."""
    a, b, other = Candidate(100, 100, 40, 0.5), Candidate(104, 98, 44, 0.9), Candidate(200, 100, 40, 0.5)
    sureness = {a: 0.95, b: 0.6, other: 0.3}
    assert distinct([other, b, a], sureness.get) == [other, a]


def test_the_same_dice_read_alike_at_half_and_at_twice_the_size():
    """The matteop photo, its dice about 80 px, shown as a camera twice as high (the photo
    shrunk into a frame twice its size) and as one close above (enlarged 2x)."""
    photo, boxes = fixture("matteop")
    truth = Counter(b[4] for b in boxes)
    h, w = photo.shape[:2]
    far = cv2.copyMakeBorder(cv2.resize(photo, (w // 2, h // 2), interpolation=cv2.INTER_AREA),
                             h // 4, h - h // 2 - h // 4, w // 4, w - w // 2 - w // 4, cv2.BORDER_REFLECT)
    near = cv2.resize(photo, (2 * w, 2 * h), interpolation=cv2.INTER_LINEAR)
    for frame in (photo, far, near):
        reading = read_dice(frame, "pips", expect=len(boxes))
        assert not reading.flagged, reading.reason
        assert Counter(reading.values) == truth


def test_another_count_than_the_game_waits_for_flags_the_read_with_both_counts():
    photo, boxes = fixture("matteop")
    n = len(boxes)
    reading = read_dice(photo, "pips", expect=n + 1)
    assert reading.flagged
    assert f"{n} {'die' if n == 1 else 'dice'} found, the game waits for {n + 1}" in reading.reason
    assert len(reading.dice) == n  # what was seen is still returned, for the host to fix


def test_the_count_and_die_size_must_be_sensible():
    photo, _ = fixture("matteop")
    for bad in (-1, True, 2.5, "3"):
        with pytest.raises(ValueError, match="expect"):
            read_dice(photo, "pips", expect=bad)
    for bad in (0, -3.0):
        with pytest.raises(ValueError, match="die_px"):
            read_dice(photo, "pips", die_px=bad)


def test_a_calibrated_die_size_reads_the_photo_as_the_pyramid_does():
    photo, boxes = fixture("matteop")
    size = float(np.median([max(b[2] - b[0], b[3] - b[1]) for b in boxes])) * 1.2  # boxes cover the pips
    reading = read_dice(photo, "pips", expect=len(boxes), die_px=size)
    assert not reading.flagged, reading.reason
    assert Counter(reading.values) == Counter(b[4] for b in boxes)


def test_a_close_up_of_one_die_is_found_as_a_phone_teaches_it():
    """One die filling half the picture's height, as a phone held over it shows it (a die of
    the byler tray photo, whose boxes cover the whole die, enlarged about ten times)."""
    photo, boxes = fixture("byler")

    def room(b):  # how far the die is from its nearest neighbour and from the photo's edge
        others = [np.hypot((b[0] + b[2] - o[0] - o[2]) / 2, (b[1] + b[3] - o[1] - o[3]) / 2) for o in boxes if o is not b]
        return min(others + [b[0], b[1], photo.shape[1] - b[2], photo.shape[0] - b[3]])

    x1, y1, x2, y2, value = max(boxes, key=room)
    side = 1.25 * max(x2 - x1, y2 - y1)
    cx, cy = (x1 + x2) / 2, (y1 + y2) / 2
    m = np.float32([[960 / (2 * side), 0, 0], [0, 960 / (2 * side), 0]])
    m[:, 2] = np.float32([640, 480]) - m[:, :2] @ np.float32([cx, cy])
    close = cv2.warpAffine(photo, m, (1280, 960), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)
    lesson = spike_lesson(close)
    found = lesson.boxes
    assert len(found) == 1 and lesson.pips == [value]  # its pips counted surely: a pip face, if taught so
    bx1, by1, bx2, by2 = found[0]
    assert bx1 < 640 < bx2 and by1 < 480 < by2 and bx2 - bx1 > 300
    assert read_dice(close, "pips", expect=1).values == (value,)


def test_the_die_size_setting_is_checked():
    assert VisionConfig.from_mapping({"die_size": 42}).die_size == 42.0
    for bad in (0, 5, 5000, True, "42"):
        with pytest.raises(VisionConfigError, match="die_size"):
            VisionConfig.from_mapping({"die_size": bad})


def test_a_count_one_over_the_dice_is_not_made_up_from_a_die_s_pips():
    """matteop's four fours enlarged 2x (dice of about 90 px; their pips, 24-33 px, are
    found at the frame's own pixels by the harder looks), the game waiting for five. Were
    two of a four's pips read surely as ones and the four dropped for them, they would make
    the count: a silent misread (a reader that left the smaller pips unread did this). The
    reading says what was seen."""
    photo = cv2.imread(str(FIXTURES / "matteop" / "images" / "train_four_36.jpg"))
    frame = cv2.resize(photo, None, fx=2, fy=2, interpolation=cv2.INTER_LINEAR)
    reading = read_dice(frame, "pips", expect=5)
    assert reading.flagged and reading.reason.startswith("4 dice found, the game waits for 5")
    assert Counter(reading.values) == Counter({4: 4})


def test_a_harder_look_keeps_a_close_die_the_level_above_sees_by_its_top_face(monkeypatch):
    """A die close to the camera, seen from the side: the level above finds its top face (a
    smaller box), the coarsest level, framed in a plain border, finds the whole die. Its
    size is inside the band of both levels: a look that must try harder keeps the coarsest
    level's candidate too; the first look leaves it to the level above."""
    from hardware.vision import detect

    frame = np.full((640, 640, 3), 120, np.uint8)
    scales = level_scales(640)
    whole, top = Candidate(320, 330, 100, 0.5), Candidate(320, 300, 40, 0.6)

    def peaks(small, shape, x0, y0, min_score, stats, pad=0):
        scale = max(small.shape[:2]) / 640
        return [whole] if abs(scale - scales[-1]) < 0.01 else [top] if abs(scale - scales[1]) < 0.01 else []

    monkeypatch.setattr(detect, "_peaks", peaks)
    assert LEVEL_BAND[0] <= whole.size * scales[1] <= LEVEL_BAND[1]  # the level above could have found it
    harder = detect.find_candidates(frame, min_score=0.3, finest=True)
    assert whole in harder and top in harder
    assert detect.find_candidates(frame, min_score=0.3) == [top]

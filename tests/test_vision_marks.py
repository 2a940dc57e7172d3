"""The mark matcher (hardware/vision/marks.py) and how the spike reader asks it for a second opinion."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from hardware.vision import SpikeProfile, marks, spike, teach_spike
from hardware.vision.reader import find_dice

FIXTURES = Path(__file__).parent / "fixtures" / "rendered"


def die(mark: str, body=(40, 200, 230), ink=(30, 30, 30), turn: int = 0, shift=(0, 0)) -> np.ndarray:
    """A 32 x 32 crop of a die face carrying a drawn mark: 'ring', 'cross' or 'bar'."""
    crop = np.full((32, 32, 3), body, np.uint8)
    cx, cy = 16 + shift[0], 16 + shift[1]
    if mark == "ring":
        cv2.circle(crop, (cx, cy), 8, ink, 2)
    elif mark == "cross":
        cv2.line(crop, (cx - 8, cy - 8), (cx + 8, cy + 8), ink, 2)
        cv2.line(crop, (cx - 8, cy + 8), (cx + 8, cy - 8), ink, 2)
    else:  # a bar off the middle: it shows which way the die is turned
        cv2.rectangle(crop, (cx - 8, cy - 8), (cx + 8, cy - 4), ink, -1)
    return np.rot90(crop, turn).copy()


def test_a_dark_mark_on_a_light_die_maps_like_a_light_mark_on_a_dark_die():
    light = marks.mark_map(die("cross", body=(220, 230, 235), ink=(40, 30, 30)))
    dark = marks.mark_map(die("cross", body=(40, 35, 35), ink=(210, 220, 220)))
    red = marks.mark_map(die("cross", body=(40, 40, 200), ink=(230, 230, 230)))
    other = marks.mark_map(die("ring", body=(220, 230, 235), ink=(40, 30, 30)))
    corr = lambda a, b: float(np.corrcoef(a.ravel(), b.ravel())[0, 1])  # noqa: E731
    assert corr(light, dark) > 0.9 and corr(light, red) > 0.9
    assert corr(light, other) < 0.6
    assert light.shape == (marks.MAP_SIDE, marks.MAP_SIDE) and 0 <= light.min() and light.max() <= 1


def test_a_mark_map_comes_at_the_side_asked_for_and_shrinks_like_the_default():
    crop = die("cross", body=(40, 40, 200), ink=(230, 230, 230))
    full = marks.mark_map(crop, crop.shape[0])
    assert crop.shape[0] != marks.MAP_SIDE  # else the two maps below are one
    assert full.shape == crop.shape[:2] and 0 <= full.min() and full.max() <= 1
    shrunk = cv2.resize(full, (marks.MAP_SIDE, marks.MAP_SIDE), interpolation=cv2.INTER_AREA)
    assert np.array_equal(marks.mark_map(crop), shrunk)


def test_a_mark_is_matched_whatever_its_turn_colour_and_a_small_shift():
    taught = [die("ring"), die("cross"), die("bar")]
    bank, owners = marks.templates(taught), np.array([1, 2, 3])
    assert bank.shape == (3, 4, marks.CORE * marks.CORE)
    for turn in range(4):
        seen = die("bar", body=(200, 60, 40), ink=(240, 240, 240), turn=turn, shift=(2, -2))
        scores = marks.face_scores([seen], bank, owners, (1, 2, 3))
        assert scores.argmax() == 2 and scores[2] - np.delete(scores, 2).max() > 0.2
    scores = marks.face_scores([die("ring", shift=(-2, 1))], bank, owners, (3, 2, 1))  # faces in another order
    assert scores.argmax() == 2 and scores[2] - np.delete(scores, 2).max() > 0.2


@pytest.fixture(scope="module")
def taught_scene():
    manifest = json.loads((FIXTURES / "manifest.json").read_text())
    profile = SpikeProfile()
    for e in manifest:
        if e.get("fixture_role") == "enrol":
            profile, _ = teach_spike(profile, int(e["dice"][0]), [cv2.imread(str(FIXTURES / e["image"]))])
    scene = next(e for e in manifest if e.get("fixture_role") == "spike-read")
    frame = cv2.imread(str(FIXTURES / scene["image"]))
    return profile, frame, find_dice(frame)[0]


def test_only_unsure_dice_are_judged_again_with_their_marks(taught_scene, monkeypatch):
    profile, frame, dice = taught_scene
    below = spike.SECOND_OPINION_BELOW
    monkeypatch.setattr(spike, "SECOND_OPINION_BELOW", 0.0)  # no die is shown to the marks
    alone = spike.match_all(frame, dice, profile)
    monkeypatch.setattr(spike, "SECOND_OPINION_BELOW", below)
    crops = [spike.face_pictures(frame, d, spike.READ_SCALES) for d in dice]
    taught = list(profile.taught)
    asked: list[int] = []

    def marks_say(favour_head: bool):
        def face_scores(seen, bank, owners, faces):
            assert list(faces) == taught
            i = next(k for k, c in enumerate(crops) if np.array_equal(c[0], seen[0]))
            asked.append(i)
            head = alone[i][0]
            liked = head if favour_head else next(v for v in taught if v != head)
            return np.array([0.9 if v == liked else 0.1 for v in faces], np.float32)
        return face_scores

    monkeypatch.setattr(marks, "face_scores", marks_say(favour_head=True))
    backed = spike.match_all(frame, dice, profile)
    assert asked, "the fixture scene should hold a die the head is unsure of"
    assert len(asked) < len(dice)  # dice the head is sure of are never shown to the marks
    for i, ((face, conf), (face0, conf0)) in enumerate(zip(backed, alone)):
        assert face == face0
        if i in asked:
            assert conf0 < below and conf > conf0  # marks that back the head make it surer
        else:
            assert conf == pytest.approx(conf0)

    asked.clear()
    monkeypatch.setattr(marks, "face_scores", marks_say(favour_head=False))
    doubted = spike.match_all(frame, dice, profile)
    for i, ((face, conf), (face0, conf0)) in enumerate(zip(doubted, alone)):
        if i in asked:  # marks for another face make the head's face less likely, or win
            assert face != face0 or conf < conf0
        else:
            assert (face, conf) == (face0, pytest.approx(conf0))


def test_a_blank_crop_scores_nothing_rather_than_failing():
    blank = np.full((32, 32, 3), 128, np.uint8)
    bank, owners = marks.templates([die("ring"), blank]), np.array([1, 2])
    assert np.isfinite(bank).all()
    scores = marks.face_scores([blank, blank], bank, owners, (1, 2))
    assert np.isfinite(scores).all() and np.abs(scores).max() < 1e-3

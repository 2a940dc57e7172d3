"""Chance cubes: red or blue, and unsure when the middle of the die does not say."""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

import pinhole
from hardware.vision.chance import light_gains, red_or_blue, throw_colours
from hardware.vision.detect import Candidate, top_face

DIE = Candidate(cx=50, cy=50, size=40, score=1.0)


def face(*bgr_halves) -> np.ndarray:
    """A grey table with a 40 px die face at (50, 50), its left and right halves coloured."""
    frame = np.full((100, 100, 3), 120, np.uint8)
    left, right = bgr_halves if len(bgr_halves) == 2 else bgr_halves * 2
    frame[30:70, 30:50] = left
    frame[30:70, 50:70] = right
    return frame


@pytest.mark.parametrize("bgr, value", [
    ((40, 40, 200), "red"),      # crimson
    ((30, 90, 230), "red"),      # orange-red
    ((90, 60, 60), "blue"),      # navy, dark
    ((150, 120, 105), "blue"),   # a muted slate blue
    ((235, 190, 120), "blue"),   # sky blue
])
def test_a_clear_face_is_read_with_confidence(bgr, value):
    v, confidence = red_or_blue(face(bgr), DIE)
    assert (v, confidence >= 0.8) == (value, True), confidence


@pytest.mark.parametrize("halves", [
    ((250, 250, 250),),                    # washed out by glare
    ((20, 20, 20),),                       # in deep shadow
    ((40, 40, 200), (200, 60, 40)),        # half red, half blue: two dice, or a side face
])
def test_a_face_that_does_not_say_is_unsure(halves):
    _, confidence = red_or_blue(face(*halves), DIE)
    assert confidence < 0.5


@pytest.mark.parametrize("bgr", [
    (27, 25, 32),   # a near-black face: red only 5 grey levels above blue
    (33, 27, 28),   # ... or blue 5 above red
])
def test_a_near_black_face_is_unsure_not_read_by_its_noise(bgr):
    # by ratio alone these are clearly red / blue; the difference is a few grey levels of noise
    _, confidence = red_or_blue(face(bgr), DIE)
    assert confidence < 0.8


def throw(*bgrs) -> tuple[np.ndarray, list[Candidate]]:
    """A grey table with one 40 px die face of each colour, in a row."""
    frame = np.full((100, 60 * len(bgrs) + 20, 3), 120, np.uint8)
    dice = []
    for i, bgr in enumerate(bgrs):
        x = 30 + 60 * i
        frame[30:70, x:x + 40] = bgr
        dice.append(Candidate(cx=x + 20, cy=50, size=40, score=1.0))
    return frame, dice


RED_WARM = (45, 66, 250)  # red under a tungsten cast: redder still
BLUE_WARM = (140, 110, 128)  # blue under the same cast: nearly grey
RED = (60, 60, 200)
BLUE = (170, 110, 90)


def test_blue_greyed_by_a_warm_cast_is_read_blue_among_red_dice():
    frame, dice = throw(RED_WARM, BLUE_WARM, RED_WARM, BLUE_WARM)
    assert red_or_blue(frame, dice[1])[1] < 0.8  # alone, it cannot be told
    read = throw_colours(frame, dice)
    assert [v for v, _ in read] == ["red", "blue", "red", "blue"]
    assert min(c for _, c in read) >= 0.8


def test_a_die_halfway_between_the_colours_is_unsure_though_read_surely_alone():
    between = (95, 90, 128)  # (red - blue) / (red + blue) about 0.15: "red" alone
    frame, dice = throw(RED, BLUE, between, RED, BLUE)
    assert red_or_blue(frame, dice[2])[1] >= 0.8
    assert throw_colours(frame, dice)[2][1] < 0.8


def test_a_die_read_surely_against_the_group_it_lies_in_is_unsure():
    # the others split into reds at about 0.7 and near-grey blues at about -0.1; this die
    # (0.13) lies with the blues, yet read alone it is surely red
    frame, dice = throw((30, 50, 170), (110, 100, 90), (100, 90, 130), (30, 50, 170), (110, 100, 90))
    assert red_or_blue(frame, dice[2]) == ("red", 1.0)
    assert throw_colours(frame, dice)[2] == ("red", 0.0)


def test_a_die_read_unsurely_as_red_that_lies_with_the_blues_is_blue():
    frame, dice = throw(RED_WARM, BLUE_WARM, RED_WARM, (118, 107, 130))
    v, confidence = red_or_blue(frame, dice[3])
    assert v == "red" and confidence < 0.8
    assert throw_colours(frame, dice)[3] == ("blue", 1.0)


def test_a_split_far_from_grey_is_no_cast_and_each_die_is_read_alone():
    # reds at 0.9 and dice at 0.06: two groups, but the cut between them (0.48) would need
    # a cast that by itself makes a red die of a blue one
    frame, dice = throw((10, 40, 200), (110, 100, 124), (10, 40, 200), (110, 100, 124))
    assert throw_colours(frame, dice) == [red_or_blue(frame, d) for d in dice]


def test_groups_with_a_surely_red_die_in_the_bluer_one_are_not_the_two_colours():
    # reds at 0.5; two dice at 0.06 and one surely red at 0.15 below them: the lower
    # group is not blue, so the dice at 0.06 are read alone (unsurely red), not made blue
    frame, dice = throw((50, 60, 150), (50, 60, 150), (110, 100, 124), (110, 100, 124), (100, 90, 136))
    read = throw_colours(frame, dice)
    assert read[2] == red_or_blue(frame, dice[2]) and read[2][0] == "red"
    assert read[4] == ("red", 0.0)  # and the sure one, lying with the others' bluer group, is unsure


@pytest.mark.parametrize("bgrs", [
    (BLUE, (150, 120, 105), BLUE_WARM),  # one colour: nothing to set a die against
    (RED, BLUE_WARM),  # two dice: one die is no group
    (BLUE_WARM,),
])
def test_a_throw_that_does_not_split_is_read_die_by_die(bgrs):
    frame, dice = throw(*bgrs)
    assert throw_colours(frame, dice) == [red_or_blue(frame, d) for d in dice]


# --- the light taken out (light_gains) when a throw leaves dice unsure ---

WARM_CAST = np.array([0.75, 0.95, 1.15], np.float32)  # (B, G, R): a tungsten lamp the camera did not correct


def grain_table(colour=(1.0, 1.0, 1.0), height=240, width=320, seed=3) -> np.ndarray:
    """A table with a grain of its own (wood, cloth): grey blotches of many sizes, in `colour`."""
    rng = np.random.default_rng(seed)
    grain = sum(cv2.resize(rng.normal(0, 1, (height // k, width // k)).astype(np.float32), (width, height))
                for k in (2, 4, 8))
    grey = 120 + 25 * grain / grain.std()
    return np.clip(grey[..., None] * np.array(colour, np.float32), 0, 255).astype(np.float32)


def cast_throw(table: np.ndarray, faces_bgr, cast=WARM_CAST) -> tuple[np.ndarray, list[Candidate]]:
    """Dice faces (40 px) in a row on `table`, the whole picture under `cast`."""
    frame = table.copy()
    dice = []
    for i, bgr in enumerate(faces_bgr):
        x = 40 + 60 * i
        frame[100:140, x:x + 40] = bgr
        dice.append(Candidate(cx=x + 20, cy=120, size=40, score=1.0))
    return np.clip(frame * cast, 0, 255).astype(np.uint8), dice


BLUE_FACE = (150, 105, 95)  # a muted blue die under white light


def test_light_gains_undo_a_warm_cast_on_a_grained_table():
    frame, dice = cast_throw(grain_table(), [BLUE_FACE, BLUE_FACE])
    gains = light_gains(frame, dice)
    assert gains is not None
    relit = gains / gains[1]
    assert relit[0] == pytest.approx(0.95 / 0.75, rel=0.08)
    assert relit[2] == pytest.approx(0.95 / 1.15, rel=0.08)


@pytest.mark.parametrize("table", [
    np.full((240, 320, 3), 120, np.float32),  # a plain cloth: no edges to tell the light by
    grain_table(colour=(0.45, 1.0, 0.35)),  # green felt: its edges are green, not the light's colour
])
def test_light_gains_give_no_estimate_they_cannot_back(table):
    frame, dice = cast_throw(table, [BLUE_FACE])
    assert light_gains(frame, dice) is None


def test_blue_dice_greyed_by_a_warm_cast_are_read_blue_with_the_light_taken_out():
    frame, dice = cast_throw(grain_table(), [BLUE_FACE, BLUE_FACE, BLUE_FACE])
    assert all(red_or_blue(frame, d)[1] < 0.8 for d in dice)  # alone, and set against each other: unsure
    assert throw_colours(frame, dice) == [("blue", 1.0)] * 3


def test_on_a_plain_cloth_the_light_is_not_guessed_from_the_dice():
    frame, dice = cast_throw(np.full((240, 320, 3), 120, np.float32), [BLUE_FACE, BLUE_FACE])
    assert throw_colours(frame, dice) == [red_or_blue(frame, d) for d in dice]


def test_the_dice_are_left_out_of_the_light_they_are_read_by():
    # bluish dice on a grained grey table under white light: their own outlines, counted,
    # would make the light look blue and every die redder
    frame, dice = cast_throw(grain_table(), [(180, 130, 110)] * 5, cast=np.ones(3, np.float32))
    assert light_gains(frame, ())[0] < 0.95  # the whole picture's edges, dice and all
    assert light_gains(frame, dice) == pytest.approx([1.0, 1.0, 1.0], abs=0.02)


def test_dice_that_fill_the_picture_leave_no_table_to_tell_the_light_by():
    frame, _ = cast_throw(grain_table(), [])
    close_up = [Candidate(cx=80, cy=120, size=150, score=1.0), Candidate(cx=240, cy=120, size=150, score=1.0)]
    assert light_gains(frame, close_up) is None
    assert light_gains(frame, close_up[:1]) is not None  # one leaves half the table


def test_the_light_taken_out_never_gives_a_sure_die_the_other_colour():
    # the third die (0.1 from grey, redder) reads red surely at first; relit it is blue,
    # as its greyed neighbours are: they are settled, it keeps red, unsurely
    frame, dice = cast_throw(grain_table(), [BLUE_FACE, BLUE_FACE, (140, 100, 115)])
    assert red_or_blue(frame, dice[2]) == ("red", 1.0)
    read = throw_colours(frame, dice)
    assert read[:2] == [("blue", 1.0)] * 2
    assert read[2][0] == "red" and read[2][1] < 0.8


def test_a_sure_die_the_light_taken_out_leaves_unsure_holds_the_throw():
    # the third die's box leans onto its red side face: its middle is 60% red side and 40%
    # greyed blue top. Under the cast it reads surely red; relit, the top votes blue too
    # (red at about 0.4). Its neighbours are greyed blue dice only the relit reading settles.
    frame, dice = cast_throw(grain_table(), [BLUE_FACE, BLUE_FACE, BLUE_FACE])
    frame[100:140, 178:200] = np.clip(np.array((70, 70, 190)) * WARM_CAST, 0, 255)  # its middle: x 170-190
    first = [red_or_blue(frame, d) for d in dice]
    assert first[2][0] == "red" and first[2][1] >= 0.8
    read = throw_colours(frame, dice)
    assert read[0] == read[1] == ("blue", 1.0)
    assert read[2][0] == "red" and read[2][1] < 0.8


@pytest.mark.parametrize("x_mm, y_mm", [(190, 140), (-190, 60), (100, -150), (60, 20), (0, 0)])
def test_the_middle_is_taken_about_the_top_face_not_the_box(x_mm, y_mm):
    # a die near the picture's corner shows two sides: its box's centre lies 13 px (a fifth
    # of it) nearer the middle than its top face's; near the middle, 3 px
    box, (tx, ty) = pinhole.die(x_mm, y_mm)
    top = top_face(box, (960, 1280, 3))
    assert math.hypot(top.cx - tx, top.cy - ty) < 1.0
    assert abs(top.size - pinhole.focal() * 16 / (400 - 16)) < 1.0  # the top face's own size


def test_a_blue_top_with_red_sides_far_out_is_read_blue():
    # the die at the corner, its sides toward the middle red and its box 0.07 of it
    # nearer the middle still on each axis (the finder's box errs so): at the box's centre the middle
    # is a third red side, about the top face it is the blue top
    box, (tx, ty) = pinhole.die(190, 140)
    frame = np.full((960, 1280, 3), 120, np.uint8)
    frame[int(box.cy - box.size / 2):int(ty + 23), int(box.cx - box.size / 2):int(tx + 23)] = RED
    frame[int(ty - 23):int(ty + 23), int(tx - 23):int(tx + 23)] = BLUE
    off = Candidate(box.cx - 0.07 * box.size, box.cy - 0.07 * box.size, box.size, 1.0)
    assert red_or_blue(frame, off) == ("blue", 1.0)


# chance_0023 as the reader saw it, simplified: three cubes of about 50 px found, and two
# touching cubes boxed together at the working level (74 px); at the frame's own pixels,
# beyond the sizes that level keeps, the finder found the two apart
CUBES = [Candidate(100, 300, 50, 0.8), Candidate(200, 300, 52, 0.8), Candidate(300, 300, 50, 0.7)]
TOGETHER = Candidate(303, 177, 74, 0.67)
APART = [Candidate(290, 185, 49, 0.49), Candidate(330, 160, 52, 0.56)]
NO_PIPS = np.array([0.01, 0, 0, 0, 0, 0, 0, 0.99])


def _boxed_apart(found, read=lambda pair: np.array([NO_PIPS] * len(pair)), expect=5):
    from hardware.vision.throw import boxed_apart

    kept = CUBES + [TOGETHER]
    probs = np.array([NO_PIPS] * len(kept))
    out, out_p = boxed_apart(kept, probs, found, expect, 1.3, 0.4, read)
    assert len(out) == len(out_p)
    return out


def test_two_cubes_boxed_together_and_found_apart_stand_for_the_box():
    assert _boxed_apart(APART) == CUBES + APART


def test_cubes_found_apart_stay_together_unless_the_face_model_is_sure_of_both():
    half = np.array([0.05, 0.2, 0.1, 0, 0, 0, 0, 0.65])  # a die, unsure it has no pips
    assert _boxed_apart(APART, read=lambda pair: np.array([NO_PIPS, half])) == CUBES + [TOGETHER]


@pytest.mark.parametrize("found", [
    APART[:1],  # one found inside: no pair
    APART + [Candidate(310, 200, 50, 0.6)],  # three: which two?
    [APART[0], Candidate(318, 185, 50, 0.6)],  # 28 px apart: closer than dice lie side by side
    [APART[0], Candidate(330, 160, 52, 0.3)],  # the centre model unsure of one
    [APART[0], Candidate(330, 160, 90, 0.6)],  # not the throw's size
])
def test_only_two_dice_of_the_throw_s_size_side_by_side_stand_for_the_box(found):
    assert _boxed_apart(found) == CUBES + [TOGETHER]


def test_cubes_found_apart_are_taken_only_when_they_make_the_count():
    assert _boxed_apart(APART, expect=6) == CUBES + [TOGETHER]


def _missed(found, read=lambda cands: np.array([NO_PIPS] * len(cands)), expect=4):
    from hardware.vision.throw import missed_cubes

    probs = np.array([NO_PIPS] * len(CUBES))
    out, out_p = missed_cubes(list(CUBES), probs, found, expect, 1.3, 0.4, read)
    assert len(out) == len(out_p)
    return out


MISSED = Candidate(300, 150, 49, 0.5)  # found at the frame's own pixels, just over the sizes that level keeps


def test_a_cube_another_level_found_joins_the_throw_it_was_missing_from():
    assert _missed([MISSED, CUBES[0]]) == CUBES + [MISSED]  # a die found again is no missed one


@pytest.mark.parametrize("found, read", [
    ([MISSED], lambda cands: np.array([[0.05, 0.3, 0.2, 0, 0, 0, 0, 0.45]])),  # a cloth's square
    ([Candidate(300, 330, 50, 0.6)], None),  # beside a die found, closer than dice lie: a part of it
    ([Candidate(300, 150, 90, 0.6)], None),  # not the throw's size
    ([Candidate(300, 150, 50, 0.3)], None),  # the centre model unsure of it
    ([MISSED, Candidate(100, 150, 50, 0.6)], None),  # two, for one missing
])
def test_only_a_sure_cube_of_the_throw_s_size_apart_from_the_dice_joins(found, read):
    assert _missed(found, **({"read": read} if read else {})) == CUBES


def test_a_lone_die_read_surely_that_is_surely_the_other_colour_relit_is_held():
    # a slate-blue face under a strong warm lamp reads red surely alone, and one die
    # gives no throw to set it against; relit (the grained table's edges tell the light)
    # it is surely blue: neither reading is trusted, the die is held
    strong_warm = np.array([0.65, 0.95, 1.35], np.float32)
    frame, dice = cast_throw(grain_table(), [(150, 115, 100)], cast=strong_warm)
    assert red_or_blue(frame, dice[0]) == ("red", 1.0)
    (value, confidence), = throw_colours(frame, dice)
    assert value == "red" and confidence <= 0.5


def test_a_sure_throw_the_light_taken_out_agrees_with_stays_sure():
    frame, dice = cast_throw(grain_table(), [(40, 40, 200), (200, 90, 60)], cast=np.ones(3, np.float32))
    assert throw_colours(frame, dice) == [("red", 1.0), ("blue", 1.0)]

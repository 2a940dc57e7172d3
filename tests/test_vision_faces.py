"""The face model's second look: only unsure dice are looked at again, and the views' beliefs are averaged."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np

from hardware.vision import faces, networks
from hardware.vision.detect import Candidate, find_candidates

FIXTURES = Path(__file__).parent / "fixtures"


def byler_photo():
    entry = next(e for e in json.loads((FIXTURES / "byler" / "manifest.json").read_text()) if e["fixture_role"] == "read")
    return cv2.imread(str(FIXTURES / "byler" / entry["image"]))


def counting_runs(monkeypatch):
    """Each net run from now on, as (model, batch size)."""
    runs = []
    real = networks.run

    def run(name, blob):
        runs.append((name, len(blob)))
        return real(name, blob)

    monkeypatch.setattr(networks, "run", run)
    return runs


def first_model(runs):
    return [n for name, n in runs if name == faces.MODEL]


def test_sure_dice_are_looked_at_once(monkeypatch):
    frame = byler_photo()
    candidates = find_candidates(frame, min_score=0.4)
    runs = counting_runs(monkeypatch)
    p = faces.face_probabilities(frame, candidates, second_look=0.0)
    assert first_model(runs) == [len(candidates)]
    assert np.allclose(p.sum(1), 1.0, atol=1e-4)


def test_unsure_dice_get_every_extra_view_and_stay_a_distribution(monkeypatch):
    frame = byler_photo()
    candidates = find_candidates(frame, min_score=0.4)
    first = faces.face_probabilities(frame, candidates, second_look=0.0)
    runs = counting_runs(monkeypatch)
    again = faces.face_probabilities(frame, candidates, second_look=1.01)  # nobody is that sure
    leaning_dice = int((first.argmax(1) != faces.NOT_A_DIE).sum())
    assert first_model(runs) == [len(candidates), 3 * leaning_dice, len(candidates) * len(faces.LOOKS)]
    assert np.allclose(again.sum(1), 1.0, atol=1e-4)
    assert not np.allclose(again, first)  # the other views changed the beliefs
    # a die read with near certainty in one view is still read the same after averaging
    sure = first.max(1) > 0.99
    assert sure.any()
    assert (again[sure].argmax(1) == first[sure].argmax(1)).all()


def test_a_pip_table_sets_aside_the_no_pips_share_of_a_clear_one():
    from hardware.vision.values import pip_value
    # a clear one-pip face the model half takes for a chance cube's central mark
    one = np.array([0.0, 0.62, 0.0, 0.01, 0.0, 0.01, 0.01, 0.35])
    value, confidence = pip_value(one)
    assert value == 1 and confidence > 0.95
    # the doubt that it is a die at all is kept
    doubtful = np.array([0.3, 0.45, 0.0, 0.0, 0.0, 0.0, 0.0, 0.25])
    assert pip_value(doubtful)[1] < 0.8
    # a washed-out face ("no pips" most likely) stays unsure
    blank = np.array([0.0, 0.06, 0.0, 0.01, 0.0, 0.0, 0.01, 0.92])
    assert pip_value(blank) == (1, 0.06)


def drawn_die(turn: float) -> np.ndarray:
    """A light die on a dark table, turned `turn` degrees, with a diamond mark square to
    nothing (at 45 degrees to its sides, as some symbols are)."""
    frame = np.full((240, 240, 3), 40, np.uint8)
    side = cv2.boxPoints(((120, 120), (80, 80), turn)).astype(np.int32)
    cv2.fillConvexPoly(frame, side, (220, 220, 215), cv2.LINE_AA)
    mark = cv2.boxPoints(((120, 120), (34, 34), turn + 45)).astype(np.int32)
    cv2.fillConvexPoly(frame, mark, (30, 30, 150), cv2.LINE_AA)
    return frame


def quarter_off(a: float, b: float) -> float:
    """How far two turns are apart, counting whole quarter turns as none."""
    d = (a - b) % 90
    return min(d, 90 - d)


def test_edge_angle_finds_the_die_sides_not_the_turn_of_its_mark():
    for turn in (0, 12, 30, -20, 44, 71):
        found = faces.edge_angle(drawn_die(turn), 120, 120, 80)
        assert -45 <= found <= 45
        assert quarter_off(found, turn) < 3, (turn, found)


def test_a_crop_cut_at_the_edge_angle_is_square_to_the_die():
    frame = drawn_die(27)
    crop = faces.cut(frame, 120, 120, 100, 50, faces.edge_angle(frame, 120, 120, 80))
    upright = faces.cut(drawn_die(0), 120, 120, 100, 50)
    assert np.abs(crop.astype(int) - upright.astype(int)).mean() < 12
    turned_by_hand = faces.cut(frame, 120, 120, 100, 50)
    assert np.abs(turned_by_hand.astype(int) - upright.astype(int)).mean() > 25


def test_a_crop_from_a_picture_of_many_pixels_averages_them_rather_than_picking_some():
    # a big die of a sharp, many-pixel camera, with that sensor's noise in every pixel
    rng = np.random.default_rng(4)
    frame = np.clip(128 + rng.normal(0, 20, (800, 800, 3)), 0, 255).astype(np.uint8)
    crop = faces.cut(frame, 400, 400, 400, 48, 17.0)  # shrunk more than eight times
    # averaged over about 70 pixels each, the noise all but goes (picking would keep half of it)
    assert crop.astype(float).std() < 5
    assert abs(crop.astype(float).mean() - 128) < 2


def test_a_crop_shrunk_first_shows_the_same_die_in_the_same_place():
    small = drawn_die(27)
    big = cv2.resize(small, None, fx=4, fy=4, interpolation=cv2.INTER_CUBIC)
    for angle in (0.0, 27.0, -10.0):
        # the same square of the table, from a picture four times larger (its pixel centres scale about -0.5)
        near = faces.cut(small, 120, 110, 100, 48, angle)
        far = faces.cut(big, 4 * 120 + 1.5, 4 * 110 + 1.5, 400, 48, angle)
        assert np.abs(near.astype(int) - far.astype(int)).mean() < 6, angle
        off = faces.cut(big, 4 * 120 + 1.5 + 40, 4 * 110 + 1.5, 400, 48, angle)  # 10 small pixels off
        assert np.abs(near.astype(int) - off.astype(int)).mean() > 15, angle


def test_a_crop_at_the_edge_of_the_picture_is_filled_from_its_edge():
    frame = np.zeros((200, 300, 3), np.uint8)
    frame[:, 150:] = 200
    crop = faces.cut(frame, 250, 100, 240, 24)  # shrunk tenfold: x 130..370, past the right edge from 300
    assert crop.shape == (24, 24, 3)
    assert crop[:, -8:].min() == 200  # the edge's own colour, not black
    assert crop[:, 0].max() < 60 and crop[:, 3:].min() > 150


def test_a_second_opinion_settles_only_a_die_the_first_is_unsure_of_and_only_when_they_agree():
    unsure_five = np.array([[0.05, 0.0, 0.0, 0.0, 0.1, 0.6, 0.25, 0.0]])
    sure_five = np.array([[0.0, 0.0, 0.0, 0.0, 0.02, 0.95, 0.03, 0.0]])
    sure_six = np.array([[0.0, 0.0, 0.0, 0.0, 0.02, 0.03, 0.95, 0.0]])
    # unsure, and the second model names the same face: its reading stands
    assert np.array_equal(faces.settle(unsure_five, sure_five), sure_five)
    # unsure, and the second model names another face: the first's doubt stays
    assert np.array_equal(faces.settle(unsure_five, sure_six), unsure_five)
    # sure: the second model's reading is not taken, even where it disagrees
    assert np.array_equal(faces.settle(sure_five, sure_six), sure_five)
    # the second model not sure enough, or the first hardly leaning its way: no change
    fairly_five = np.array([[0.0, 0.0, 0.0, 0.0, 0.05, 0.85, 0.1, 0.0]])
    assert np.array_equal(faces.settle(unsure_five, fairly_five), unsure_five)
    lost = np.array([[0.2, 0.15, 0.1, 0.1, 0.1, 0.25, 0.1, 0.0]])
    assert np.array_equal(faces.settle(lost, sure_five), lost)
    # row by row
    both = faces.settle(np.vstack([unsure_five, unsure_five]), np.vstack([sure_five, sure_six]))
    assert np.array_equal(both, np.vstack([sure_five, unsure_five]))


def test_the_first_reading_is_the_mean_of_the_face_model_and_its_twin_where_it_doubts_pips(monkeypatch):
    logits = {faces.MODEL: np.array([[0.0, 0, 0, 0, 0, 4.0, 3.0, 0],  # a five, or a six
                                     [0.0, 0, 0, 0, 0, 9.0, 0.0, 0],  # surely a five
                                     [4.0, 0, 0, 0, 0, 3.0, 0.0, 0],  # no die, or a five
                                     [0.0, 0, 0, 0, 0, 3.0, 0.0, 4.0]]),  # no pips, or a five
              faces.TWIN: np.array([[0.0, 0, 0, 0, 0, 4.0, 1.0, 0]])}  # surer of the five
    asked = []

    def run(name, blob):
        asked.append((name, len(blob)))
        return logits[name][:len(blob)]

    monkeypatch.setattr(networks, "run", run)
    p = faces.first_reading(np.zeros((4, 3, faces.FACE_SIDE, faces.FACE_SIDE), np.float32))
    assert asked == [(faces.MODEL, 4), (faces.TWIN, 1)]  # the doubted pips alone
    one, two = networks.softmax(logits[faces.MODEL]), networks.softmax(logits[faces.TWIN])
    assert np.allclose(p[0], (one[0] + two[0]) / 2)
    assert one[0].max() < p[0].max() < two[0].max()  # the less sure model is made surer by the other
    assert p[0].argmax() == 5
    assert np.allclose(p[1:], one[1:])  # sure, or no pips read: the face model's reading stands


def crops(frame, candidates):
    return faces.standardise_crops([faces.cut(frame, c.cx, c.cy, faces.CROP_FACTOR * c.size) for c in candidates])


def test_the_twin_reads_real_dice_as_the_face_model_does():
    frame = byler_photo()
    blob = crops(frame, find_candidates(frame, min_score=0.4))
    one, two = (networks.softmax(networks.run(m, blob)) for m in (faces.MODEL, faces.TWIN))
    sure = (one.max(1) > 0.95) & (two.max(1) > 0.95)
    assert sure.sum() >= 5
    assert (one[sure].argmax(1) == two[sure].argmax(1)).all()


def test_the_second_model_reads_only_the_crops_the_first_doubts(monkeypatch):
    frame = byler_photo()
    candidates = find_candidates(frame, min_score=0.4)
    first = faces.face_probabilities(frame, candidates, second_look=0.0)
    own = networks.softmax(networks.run(faces.MODEL, crops(frame, candidates)))
    pips_doubted = int(((own.max(1) < faces.TWIN_BELOW) & np.isin(own.argmax(1), range(1, 7))).sum())
    assert 0 < pips_doubted < len(candidates)
    twin = [(faces.TWIN, pips_doubted)]
    seen = counting_runs(monkeypatch)
    faces.face_probabilities(frame, candidates, second_look=0.0)  # nothing is doubted
    assert seen == [(faces.MODEL, len(candidates))] + twin
    seen.clear()
    faces.face_probabilities(frame, candidates, second_look=1.01)  # everything leaning is
    leaning = int((first.max(1) >= faces.LEANING).sum())
    assert 0 < leaning
    assert seen[:3] == [(faces.MODEL, len(candidates))] + twin + [(faces.SECOND_OPINION, leaning)]


def test_the_second_look_goes_to_the_likeliest_dice_only(monkeypatch):
    n = faces.SECOND_LOOKS + 10
    no_die = 0.39 - 0.01 * np.arange(n)  # the last candidates are the likeliest dice
    rows = np.zeros((n, 8))
    rows[:, faces.NOT_A_DIE], rows[:, 1], rows[:, 2] = no_die, (1 - no_die) / 2, (1 - no_die) / 2
    batches = []

    def probabilities(blob, sure):  # the first batch: the rows above; then the views, as no die
        batches.append(len(blob))
        if len(batches) == 1:
            return rows.copy()
        if len(batches) == 2:  # the agreeing views of those leaning to a die: they disagree
            return np.tile(np.eye(8)[3], (len(blob), 1))
        out = np.zeros((len(blob), 8))
        out[:, faces.NOT_A_DIE] = 1.0
        return out

    monkeypatch.setattr(faces, "probabilities", probabilities)
    candidates = [Candidate(20 + 10 * i, 200, 30, 0.9) for i in range(n)]
    p = faces.face_probabilities(np.zeros((400, 800, 3), np.uint8), candidates)
    leaning = int((rows.argmax(1) != faces.NOT_A_DIE).sum())
    assert batches == [n, 3 * leaning, faces.SECOND_LOOKS * len(faces.LOOKS)]
    looked = np.flatnonzero(~np.isclose(p[:, faces.NOT_A_DIE], no_die))
    assert list(looked) == list(range(n - faces.SECOND_LOOKS, n))


def test_an_unsure_die_is_settled_by_its_views_only_when_all_name_its_face_and_two_are_sure(monkeypatch):
    def row(best, p):
        r = np.full(8, (1 - p) / 7)
        r[best] = p
        return r

    p = np.array([row(5, 0.6), row(5, 0.6), row(5, 0.6), row(5, 0.97), row(faces.NOT_A_DIE, 0.6)])
    blob = np.random.default_rng(1).normal(size=(5, 3, 8, 8)).astype(np.float32)
    views = {  # what each view of the three unsure dice reads: (negated, mirrored, both)
        0: (row(5, 0.7), row(5, 0.95), row(5, 0.9)),  # all fives, two sure: the 0.9 stands
        1: (row(5, 0.99), row(6, 0.9), row(5, 0.9)),  # the mirror reads a six: doubt kept
        2: (row(5, 0.99), row(5, 0.7), row(5, 0.8)),  # one sure view alone: doubt kept
    }
    seen = []

    def probabilities(b, sure):
        seen.append(b)
        return np.array([views[i][k] for k in range(3) for i in (0, 1, 2)])

    monkeypatch.setattr(faces, "probabilities", probabilities)
    out = faces.agreeing_views(blob, p, 0.85)
    assert np.array_equal(out[0], row(5, 0.9))
    assert np.array_equal(out[1:], p[1:])  # disagreeing, one sure view, sure, leaning to no die: as they were
    [b] = seen  # one batch: the three unsure dice's views, negated, mirrored, both
    assert np.array_equal(b, np.concatenate([-blob[:3], blob[:3, ..., ::-1], -blob[:3, ..., ::-1]]))
    assert np.array_equal(p[0], row(5, 0.6))  # the reading given is not changed in place


def test_a_standardised_crop_inverted_is_the_crop_negated():
    crop = np.random.default_rng(2).integers(0, 256, (48, 48, 3), np.uint8)
    assert np.allclose(faces.standardise_crop(255 - crop), -faces.standardise_crop(crop), atol=1e-5)

"""throw.surest_throw: when the looks' reading is not the count read surely, the surest
throw among everything they read, or None where that could be the wrong dice."""

from __future__ import annotations

import numpy as np
import pytest

from hardware.vision.detect import Candidate
from hardware.vision.reader import KEEP_SCORE
from hardware.vision.throw import away_from, surest_throw

FACES = ("none", "one", "two", "three", "four", "five", "six", "blank")


def _p(face: str, sure: float) -> np.ndarray:
    """Face-model probabilities: `face` at `sure`, the rest "no die here"."""
    p = np.zeros(8)
    p[FACES.index(face)] = sure
    p[0] += 1 - sure
    return p


def _throw(read: dict, found: dict, expect: int, least: float = 0.85):
    """surest_throw with `sure` as the reader makes it: a pip read at `least` or more
    (confidence: the probability itself, enough for these tests), the centre model's
    cut-off the reader's."""
    sure = {c: float(p.max()) for c, p in read.items() if p.argmax() not in (0, 7) and p.max() >= least}
    return surest_throw(read, sure, found, expect, KEEP_SCORE)


# epanemu dice_244, as the reader saw it: two Catan dice on the board (26 and 29 px, read
# surely as a six and a three), a tile whose number token reads as a one (82 px) and another
# tile read as nothing in particular (66 px)
SIX, THREE = Candidate(374, 374, 26, 0.6), Candidate(363, 466, 29, 0.72)
TOKEN, TILE = Candidate(181, 298, 82, 0.63), Candidate(396, 402, 66, 0.62)
BOARD = {SIX: _p("six", 0.99), THREE: _p("three", 0.97), TOKEN: _p("one", 0.9), TILE: _p("three", 0.23)}


def test_dice_on_a_board_are_the_throw_when_its_tiles_are_of_another_size():
    assert _throw(BOARD, {TOKEN: BOARD[TOKEN], TILE: BOARD[TILE]}, 2) == [SIX, THREE]


def test_the_throw_must_be_surer_than_what_it_leaves_out():
    read = {**BOARD, TOKEN: _p("one", 0.995)}
    assert _throw(read, {TOKEN: read[TOKEN], TILE: read[TILE]}, 2) is None


@pytest.mark.parametrize("size", [40, 55])
def test_a_sure_thing_of_the_throw_s_size_left_out_means_no_throw(size):
    """A third thing read surely, within twice the dice's size: one of the three is no
    die of the throw, and which one the face model cannot say."""
    read = {**BOARD, TOKEN: _p("one", 0.9)}
    read[Candidate(181, 298, size, 0.63)] = read.pop(TOKEN)
    assert _throw(read, {}, 2) is None


def test_the_count_s_worth_must_be_one_size():
    read = {SIX: _p("six", 0.99), Candidate(100, 100, 70, 0.6): _p("four", 0.98)}
    assert _throw(read, {}, 2) is None


def test_too_few_read_surely_is_no_throw():
    assert _throw({SIX: _p("six", 0.99), THREE: _p("three", 0.6)}, {}, 2) is None
    assert _throw({}, {}, 1) is None


@pytest.mark.parametrize("p_die, beside, throw", [(0.5, False, True), (0.9, False, False), (0.5, True, False)])
def test_a_die_found_of_the_throw_s_size_and_left_out_must_be_a_doubted_stray(p_die, beside, throw):
    """What the looks found of the dice's size and the throw leaves out: a speck the face
    model doubts, far from the dice, may go; one it nearly believes may be a die; one
    beside a die of the throw may be that die (the throw's one its side face)."""
    other = Candidate(SIX.cx + 30 if beside else 100, SIX.cy if beside else 100, 28, 0.5)
    found = {other: _p("two", p_die)}
    assert _throw(BOARD, found, 2) == ([SIX, THREE] if throw else None)


def test_one_die_read_as_two_faces_is_no_throw():
    """A die read surely as a four by one look and as a five by another (at its place,
    about its size); or read surely by one and otherwise, unsurely, by the looks' reading."""
    four, five = Candidate(100, 100, 40, 0.8), Candidate(102, 100, 44, 0.8)
    assert _throw({four: _p("four", 0.97), five: _p("five", 0.97)}, {}, 1) is None
    assert _throw({four: _p("four", 0.97)}, {five: _p("five", 0.6)}, 1) is None
    assert _throw({four: _p("four", 0.97)}, {five: _p("four", 0.6)}, 1) == [four]


@pytest.mark.parametrize("face, found, throw", [
    ("one", {}, False),  # a one, found nowhere by the looks: a speck or a pip
    ("two", {}, False),
    ("three", {}, True),  # a speck or a pip does not show three
    ("one", {Candidate(101, 99, 50, 0.7): _p("one", 0.6)}, True),  # the looks' die, read again surely
    ("one", {Candidate(101, 99, 100, 0.7): _p("one", 0.6)}, False),  # a pip of the looks' die
])
def test_a_one_or_two_must_be_a_die_the_looks_found(face, found, throw):
    die = Candidate(100, 100, 40, 0.6)
    assert _throw({die: _p(face, 0.97)}, found, 1) == ([die] if throw else None)


def test_a_one_inside_something_it_leaves_out_is_no_throw():
    """A one read again at the looks' die, but inside a bigger sure thing (read less
    surely): it may be that thing's pip."""
    die, big = Candidate(100, 100, 40, 0.6), Candidate(110, 100, 120, 0.6)
    assert _throw({die: _p("one", 0.97), big: _p("five", 0.9)}, {die: _p("one", 0.6)}, 1) is None
    assert _throw({die: _p("three", 0.97), big: _p("five", 0.9)}, {}, 1) == [die]


@pytest.mark.parametrize("size, throw", [(12, False), (20, True)])
def test_a_die_no_look_found_must_have_pixels_enough_for_its_pips(size, throw):
    """Three specks of a speckled table in a row, 12 px across, read surely as a three
    (epanemu dice_147 brightened), in place of the die the looks found and read unsurely:
    at that size pips are a pixel or two, and specks look alike."""
    speck = Candidate(142, 522, size, 0.46)
    found = {Candidate(353, 297, 41, 0.72): _p("one", 0.5)}
    assert _throw({speck: _p("three", 0.99)}, found, 1) == ([speck] if throw else None)


def test_a_die_read_at_several_sizes_showing_one_face_is_one_die():
    """A five read surely at 87, 44 and 42 px at one place (the die with its sides, its top
    face), beside a six: two dice, not three (epanemu dice_215). Read as a five and a
    three there instead, it is one die read as two faces: no throw."""
    five, top, face, six = (Candidate(471, 288, 87, 0.6), Candidate(472, 288, 44, 0.6), Candidate(477, 290, 42, 0.6),
                            Candidate(236, 257, 53, 0.6))
    read = {five: _p("five", 0.99), six: _p("six", 0.95), top: _p("five", 0.87), face: _p("five", 0.86)}
    assert _throw(read, {}, 2) == [five, six]
    read[top] = _p("three", 0.87)
    assert _throw(read, {}, 2) is None


def test_a_die_the_finder_boxed_at_twice_its_size_is_read_again_at_the_throws():
    """missed_at_size: a doubtful candidate of another size than the sure dice is read again
    at theirs, and taken only when that brings exactly the count."""
    from hardware.vision.throw import missed_at_size

    dice = [Candidate(100 + 60 * i, 100, 40, 0.7) for i in range(3)]
    probs = np.array([_p("blank", 0.99)] * 3)
    sure = [0.95] * 3
    big = Candidate(400, 100, 80, 0.35)  # the missed die with its shadow, twice its size
    read_at = []

    def read(boxes):
        read_at.extend(b.size for b in boxes)
        return np.array([_p("blank", 0.97)] * len(boxes))

    found = missed_at_size(dice, probs, sure, [big], 0.8, 4, 1.3, read, lambda p: p[0] < 0.5)
    assert [(c, g.cx, g.cy, g.size) for c, g, _ in found] == [(big, 400, 100, 40)] and read_at == [40]
    assert missed_at_size(dice, probs, sure, [big], 0.8, 5, 1.3, read, lambda p: p[0] < 0.5) == []  # still short
    assert missed_at_size(dice, probs, sure, [big], 0.8, 4, 1.3, read, lambda p: False) == []  # no die at that size
    read_at.clear()
    on_a_die = Candidate(190, 100, 80, 0.35)  # at the throw's size it would show a die already found
    like = Candidate(400, 100, 44, 0.35)  # the throw's size: read as it was, nothing to read again
    assert missed_at_size(dice, probs, sure, [on_a_die, like], 0.8, 4, 1.3, read, lambda p: True) == []
    assert read_at == []
    two_boxes = missed_at_size(dice, probs, sure, [big, Candidate(402, 104, 90, 0.3)], 0.8, 4, 1.3, read,
                               lambda p: True)
    assert [c for c, _, _ in two_boxes] == [big]  # two boxes of the one missed die: one die
    assert missed_at_size(dice, probs, [0.5] * 3, [big], 0.8, 4, 1.3, read, lambda p: True) == []  # no size known


def test_on_a_spike_table_things_unlike_every_taught_face_go_when_the_count_is_read_surely():
    """without_strangers: one die in play, read surely and much like a taught face (0.97);
    two blobs of a patterned cloth found beside it, unlike every taught view (0.61, 0.69):
    they go. Not when one of them is as alike as a taught view is (`like`) or as the sure
    die, nor when the sure dice are not the count."""
    from hardware.vision.throw import without_strangers

    die, blob, other = Candidate(100, 100, 40, 0.7), Candidate(200, 100, 40, 0.5), Candidate(300, 100, 40, 0.5)
    kept, probs = [die, blob, other], np.array([_p("blank", 0.99), _p("blank", 0.95), _p("blank", 0.95)])
    values, confidences = [1, 1, 2], [0.91, 0.1, 0.3]
    asked = []

    def alike(*likeness):
        return lambda: asked.append(likeness) or list(likeness)

    assert without_strangers(kept, probs, values, confidences, 1, 0.8, alike(0.97, 0.61, 0.69), 0.85)[0] == [die]
    assert without_strangers(kept, probs, values, confidences, 1, 0.8, alike(0.97, 0.61, 0.88), 0.85)[0] == kept
    assert without_strangers(kept, probs, values, confidences, 1, 0.8, alike(0.80, 0.61, 0.82), 0.85)[0] == kept
    assert len(asked) == 3
    assert without_strangers(kept, probs, values, [0.91, 0.1, 0.85], 1, 0.8, alike(0.97, 0.61, 0.69), 0.85)[0] == kept
    assert len(asked) == 3  # two sure dice for one in play: nothing goes, and the likeness is not asked


def test_a_die_found_under_a_lowered_cut_off_is_of_the_throw_with_a_sure_one():
    """A die on a busy tile peaks under the centre model's cut-off: with a die found at the
    usual one (half the throw), it is of the throw; two such dice alone are not."""
    weak_six = Candidate(SIX.cx, SIX.cy, SIX.size, 0.37)
    read = {**BOARD, weak_six: BOARD[SIX]}
    del read[SIX]
    found = {TOKEN: BOARD[TOKEN], TILE: BOARD[TILE]}
    assert _throw(read, found, 2) == [weak_six, THREE]
    weak_three = Candidate(THREE.cx, THREE.cy, THREE.size, 0.35)
    read[weak_three] = read.pop(THREE)
    assert _throw(read, found, 2) is None


def test_three_found_under_a_lowered_cut_off_and_one_at_the_usual_one_are_no_throw():
    read = {Candidate(100 + 60 * i, 100, 26, 0.6 if i == 0 else 0.35): _p("four", 0.95) for i in range(4)}
    assert _throw(read, {}, 4) is None
    read = {Candidate(100 + 60 * i, 100, 26, 0.6 if i < 2 else 0.35): _p("four", 0.95) for i in range(4)}
    assert set(_throw(read, {}, 4) or ()) == set(read)


def test_the_sure_candidates_are_weighed_before_the_weak_ones():
    """A weak candidate read surely, of the dice's size, would leave a throw of the sure
    candidates ambiguous (something of its size left out); weighed after them, it does not."""
    read = {**BOARD, Candidate(100, 100, 27, 0.35): _p("two", 0.9)}
    assert _throw(read, {TOKEN: BOARD[TOKEN], TILE: BOARD[TILE]}, 2) == [SIX, THREE]


def test_away_from_leaves_out_doubts_at_a_die_or_holding_one():
    die = Candidate(100, 100, 40, 0.9)
    on_it = (Candidate(110, 100, 10, 0.3), 0.5)  # within half the die of its centre
    holding_it = (Candidate(130, 100, 100, 0.3), 0.4)  # the die lies at its place, not it at the die's
    apart = (Candidate(200, 100, 40, 0.3), 0.6)
    assert away_from([on_it, holding_it, apart], [die]) == [apart]
    assert away_from([on_it, apart], []) == [on_it, apart]

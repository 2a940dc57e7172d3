"""A pip die read unsurely, boxed by its top face alone, is read again whole
(hardware/vision/whole.py); the face models are stood in for."""

import numpy as np
import pytest

from hardware.vision.detect import Candidate
from hardware.vision.whole import WHOLE, read_whole, whole_views

NAMES = ("none", "one", "two", "three", "four", "five", "six", "blank")


def _p(**classes) -> np.ndarray:
    return np.array([classes.get(n, 0.0) for n in NAMES])


SURE_FOUR = _p(none=0.02, four=0.96, two=0.02)
UNSURE_FOUR = _p(none=0.1, four=0.6, one=0.3)


def _throw():
    """A sure three and a four read unsurely at its top face's box."""
    kept = [Candidate(100, 100, 40, 0.9), Candidate(300, 100, 40, 0.9)]
    return kept, np.array([_p(none=0.01, three=0.98, five=0.01), UNSURE_FOUR]), [3, 4], [0.97, 0.4]


def test_the_whole_views_are_bigger_and_lower_than_the_top_face():
    views = whole_views(Candidate(100, 100, 40, 0.7))
    assert len(views) == len(WHOLE) >= 2
    for v in views:
        assert v.cx == 100 and v.cy > 100 and v.size > 40 and v.score == 0.7
        assert v.cy - v.size / 2 <= 100 - 20  # the whole die still takes in the top face's box


def test_a_die_every_whole_view_reads_surely_as_its_value_is_read_surely():
    kept, probs, values, confidences = _throw()
    asked = []

    def read(views):
        asked.extend(views)
        return np.array([SURE_FOUR for _ in views])

    probs2, values2, confidences2 = read_whole(kept, probs, values, confidences, 0.8, read)
    assert asked == whole_views(kept[1])  # the sure three is not read again
    assert values2 == [3, 4]
    assert confidences2[0] == 0.97 and confidences2[1] >= 0.8
    assert np.allclose(probs2[1], SURE_FOUR) and np.allclose(probs2[0], probs[0])
    assert confidences == [0.97, 0.4] and np.allclose(probs[1], UNSURE_FOUR)  # what it was given is not changed


@pytest.mark.parametrize("second", [
    _p(none=0.02, five=0.96, two=0.02),  # a view reading another value surely
    _p(none=0.2, four=0.7, one=0.1),  # a view not sure
])
def test_a_die_stays_unsure_unless_every_whole_view_reads_its_value_surely(second):
    kept, probs, values, confidences = _throw()
    probs2, values2, confidences2 = read_whole(kept, probs, values, confidences, 0.8,
                                               lambda views: np.array([SURE_FOUR, second]))
    assert values2 == [3, 4] and confidences2 == [0.97, 0.4]
    assert np.allclose(probs2, probs)


def test_a_throw_read_surely_is_not_read_again():
    kept, probs, values, _ = _throw()

    def read(views):
        raise AssertionError("nothing to read again")

    assert read_whole(kept, probs, values, [0.97, 0.9], 0.8, read)[2] == [0.97, 0.9]

"""The printed boards the finder's pasted scenes may be thrown onto (scripts/vision/boards.py):
drawn the same from the same seed, and off by default without moving any other draw."""

from __future__ import annotations

import random
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts" / "vision"))
import boards  # noqa: E402
import paste_scenes  # noqa: E402


def _sprites():
    picture = np.full((32, 32, 3), 230, np.float32)
    picture[14:18, 14:18] = 20  # a one
    alpha = np.zeros((32, 32), np.float32)
    alpha[6:26, 6:26] = 1
    return [paste_scenes.Sprite(picture, alpha, 20.0, 1)]


def test_a_board_is_drawn_the_same_from_the_same_seed_and_is_busy():
    a, b = (boards.board(random.Random(4), 128, 20.0) for _ in range(2))
    c = boards.board(random.Random(5), 128, 20.0)
    assert a.shape == (128, 128, 3) and a.dtype == np.float32
    assert np.array_equal(a, b) and not np.array_equal(a, c)
    assert a.std() > 10  # tiles, outlines and discs, not a plain cloth


def test_without_boards_a_paster_draws_the_scenes_it_drew_before():
    pool = [np.zeros((64, 64, 3), np.uint8)]
    plain = paste_scenes.Paster(_sprites(), [])
    offered = paste_scenes.Paster(_sprites(), [], boards=0.0, board_pool=pool)
    for seed in range(3):
        (p, dp), (q, dq) = plain.scene(random.Random(seed), 96), offered.scene(random.Random(seed), 96)
        assert np.array_equal(p, q) and dp == dq


def test_with_boards_every_scene_is_thrown_onto_one_of_the_pool():
    marked = np.zeros((64, 64, 3), np.uint8)
    marked[:, :, 2] = 255  # a red board: no procedural table is all red
    paster = paste_scenes.Paster(_sprites(), [], boards=1.0, board_pool=[marked])
    table = paster._table(random.Random(1), 96, 20.0)
    assert table.shape == (96, 96, 3) and np.all(table[..., 2] == 255) and np.all(table[..., :2] == 0)

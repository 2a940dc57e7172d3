"""Printed game boards for the finder's pasted scenes: dice are thrown onto them at a table.

A board here is a grid of hexagonal tiles, each printed with a busy picture of its own
(woods of small round crowns, striped fields, bricks, rocky peaks, speckled sand, any
colours), outlined, framed by a textured sea, with round number discs (a number and a row
of dots under it, which look like pips) and small pieces on it. The photo sets have no
dice on such a board; the test-only phone photos have dice lying on one, which the finder
missed (docs/decisions.md, 2026-11-27). Look at some: python scripts/vision/boards.py /tmp/boards.png
"""

from __future__ import annotations

import math
import random

import cv2
import numpy as np

import synth_faces as faces


def _tint(rng: random.Random, colour: np.ndarray, spread: float = 40) -> tuple[float, ...]:
    return tuple(float(np.clip(c + rng.uniform(-spread, spread), 0, 255)) for c in colour)


def _printed(rng: random.Random, side: int, unit: float) -> np.ndarray:
    """One tile's picture, `side` pixels square; `unit` (about a die's size) sets the scale
    of what is drawn on it."""
    base = faces._colour(rng) * rng.uniform(0.5, 1.0)
    img = np.ones((side, side, 3), np.float32) * base.astype(np.float32)
    img += faces._noise(rng, side, rng.uniform(0.3, 2.0) * unit)[..., None] * rng.uniform(5, 35)
    kind = rng.randrange(5)
    ink = base * rng.uniform(0.4, 0.7) if rng.random() < 0.6 else faces._colour(rng)
    count = int(side * side / (unit * unit) * rng.uniform(1, 6))
    if kind == 0:  # woods: small round crowns, overlapping
        for _ in range(count):
            r = max(1, int(unit * rng.uniform(0.08, 0.35)))
            cv2.circle(img, (rng.randrange(side), rng.randrange(side)), r, _tint(rng, ink), -1, cv2.LINE_AA)
    elif kind == 1:  # fields: stripes at an angle
        a, step = rng.uniform(0, math.pi), unit * rng.uniform(0.15, 0.6)
        for k in range(-side, 2 * side, max(2, int(step))):
            x0, y0 = k * math.cos(a + math.pi / 2), k * math.sin(a + math.pi / 2)
            p0 = (int(x0 - 2 * side * math.cos(a)), int(y0 - 2 * side * math.sin(a)))
            p1 = (int(x0 + 2 * side * math.cos(a)), int(y0 + 2 * side * math.sin(a)))
            cv2.line(img, p0, p1, _tint(rng, ink, 20), max(1, int(step * rng.uniform(0.2, 0.5))), cv2.LINE_AA)
    elif kind == 2:  # bricks or rocks: small boxes
        for _ in range(count // 2):
            w, h = unit * rng.uniform(0.1, 0.5), unit * rng.uniform(0.08, 0.3)
            box = cv2.boxPoints(((rng.randrange(side), rng.randrange(side)), (w, h), rng.uniform(0, 180)))
            cv2.fillPoly(img, [box.astype(np.int32)], _tint(rng, ink), cv2.LINE_AA)
    elif kind == 3:  # peaks: triangles with a light side
        for _ in range(count // 3):
            x, y, s = rng.randrange(side), rng.randrange(side), unit * rng.uniform(0.3, 1.2)
            pts = np.array([[x - s, y + s * 0.6], [x, y - s * 0.6], [x + s, y + s * 0.6]], np.int32)
            cv2.fillPoly(img, [pts], _tint(rng, ink), cv2.LINE_AA)
            cv2.fillPoly(img, [np.array([pts[0], pts[1], [x, int(y + s * 0.6)]], np.int32)], _tint(rng, base * 1.2, 20),
                         cv2.LINE_AA)
    else:  # sand, grass: fine specks
        for _ in range(count * 2):
            cv2.circle(img, (rng.randrange(side), rng.randrange(side)), max(1, int(unit * rng.uniform(0.03, 0.1))),
                       _tint(rng, ink), -1, cv2.LINE_AA)
    return img


def _hexagon(cx: float, cy: float, r: float, turn: float) -> np.ndarray:
    return np.array([[cx + r * math.cos(turn + k * math.pi / 3), cy + r * math.sin(turn + k * math.pi / 3)]
                     for k in range(6)], np.int32)


def _disc(rng: random.Random, img: np.ndarray, x: float, y: float, r: float) -> None:
    """A number disc: a round token with a number on it and dots under the number."""
    paper = faces._colour(rng) if rng.random() < 0.3 else np.array([rng.uniform(170, 240)] * 3) * [
        rng.uniform(0.8, 1.0), rng.uniform(0.9, 1.0), 1.0]
    ink = (rng.uniform(0, 60),) * 3 if rng.random() < 0.7 else _tint(rng, np.array([30.0, 30.0, 170.0]), 30)
    cv2.circle(img, (int(x), int(y)), int(r), tuple(float(c) for c in paper), -1, cv2.LINE_AA)
    if rng.random() < 0.5:
        cv2.circle(img, (int(x), int(y)), int(r), tuple(float(c) * 0.6 for c in paper), max(1, int(r / 10)),
                   cv2.LINE_AA)
    faces.printed_number(img, str(rng.choice([2, 3, 4, 5, 6, 8, 9, 10, 11, 12])), x, y, r, ink, max(1, int(r / 8)),
                         1 / 3)
    dots = rng.randint(1, 5)
    for k in range(dots):
        cv2.circle(img, (int(x + (k - (dots - 1) / 2) * r * 0.22), int(y + r * 0.6)), max(1, int(r * 0.07)), ink,
                   -1, cv2.LINE_AA)


def _piece(rng: random.Random, img: np.ndarray, x: float, y: float, s: float) -> None:
    """A small piece on the board: a ship, a house, a marker."""
    colour = faces._colour(rng)
    pts = np.array([[x + s * rng.uniform(0.3, 1) * math.cos(a), y + s * rng.uniform(0.3, 1) * math.sin(a)]
                    for a in sorted(rng.uniform(0, 2 * math.pi) for _ in range(rng.randint(3, 7)))], np.int32)
    cv2.fillPoly(img, [pts], tuple(float(c) for c in colour), cv2.LINE_AA)


def board(rng: random.Random, side: int, die: float) -> np.ndarray:
    """A printed board over a plain table, `side` pixels square, float32 BGR; its tiles are
    2-6 die sizes across (`die`: the scene's die size in pixels)."""
    img = faces._table(rng, side, die)
    r = die * rng.uniform(1.5, 4.0)  # a tile's radius
    turn = rng.choice([0.0, math.pi / 6]) + rng.uniform(-0.3, 0.3)
    cx, cy = rng.uniform(0.2, 0.8) * side, rng.uniform(0.2, 0.8) * side
    reach = r * rng.uniform(3, 6)  # the board's own radius
    sea = faces._colour(rng) * rng.uniform(0.6, 1.0)
    frame = _hexagon(cx, cy, reach + r * rng.uniform(0.8, 1.6), turn + math.pi / 6)
    cv2.fillPoly(img, [frame], tuple(float(c) for c in sea), cv2.LINE_AA)
    waves = faces._noise(rng, side, rng.uniform(0.2, 1.0) * die)[..., None] * rng.uniform(5, 30)
    mask = np.zeros((side, side), np.uint8)
    cv2.fillPoly(mask, [frame], 255)
    img += waves * (mask[..., None] / 255.0)
    border = faces._colour(rng) if rng.random() < 0.4 else np.array([rng.uniform(120, 220)] * 3) * [0.7, 0.85, 1.0]
    pictures = [_printed(rng, int(2 * r) + 2, die) for _ in range(rng.randint(3, 6))]
    # hex centres of a grid turned by `turn`
    ax = np.array([math.cos(turn), math.sin(turn)]) * r * math.sqrt(3)
    ay = np.array([math.cos(turn + math.pi / 3), math.sin(turn + math.pi / 3)]) * r * math.sqrt(3)
    n = int(reach / (r * math.sqrt(3))) + 1
    for i in range(-n, n + 1):
        for j in range(-n, n + 1):
            x, y = np.array([cx, cy]) + i * ax + j * ay
            if math.hypot(x - cx, y - cy) > reach or not (-r < x < side + r and -r < y < side + r):
                continue
            tile = _hexagon(x, y, r * 0.98, turn + math.pi / 6)
            mask[:] = 0
            cv2.fillPoly(mask, [tile], 255)
            x0, y0 = int(x - r), int(y - r)
            pic = rng.choice(pictures)
            h, w = pic.shape[:2]
            sx0, sy0, sx1, sy1 = max(0, x0), max(0, y0), min(side, x0 + w), min(side, y0 + h)
            if sx1 <= sx0 or sy1 <= sy0:
                continue
            a = (mask[sy0:sy1, sx0:sx1] / 255.0)[..., None]
            img[sy0:sy1, sx0:sx1] = img[sy0:sy1, sx0:sx1] * (1 - a) + pic[sy0 - y0:sy1 - y0, sx0 - x0:sx1 - x0] * a
            cv2.polylines(img, [tile], True, _tint(rng, border, 15), max(1, int(r * rng.uniform(0.04, 0.12))),
                          cv2.LINE_AA)
            if rng.random() < 0.8:
                _disc(rng, img, x, y, die * rng.uniform(0.4, 1.0))
    for _ in range(rng.randint(0, 8)):
        a = rng.uniform(0, 2 * math.pi)
        d = reach * rng.uniform(0.3, 1.15)
        _piece(rng, img, cx + d * math.cos(a), cy + d * math.sin(a), die * rng.uniform(0.3, 1.0))
    return img


def pool(n: int, seed: int, side: int, die_range: tuple[float, float] = (9.0, 48.0)) -> list[np.ndarray]:
    """n boards drawn once before training (a board takes ~150 ms), side x side uint8, each
    for a die size drawn log-uniform from `die_range`."""
    rng = random.Random(seed)
    lo, hi = math.log(die_range[0]), math.log(die_range[1])
    return [np.clip(board(rng, side, math.exp(rng.uniform(lo, hi))), 0, 255).astype(np.uint8) for _ in range(n)]


if __name__ == "__main__":
    import sys

    rng = random.Random(1)
    tiles = [np.clip(board(rng, 256, rng.uniform(9, 48)), 0, 255).astype(np.uint8) for _ in range(12)]
    cv2.imwrite(sys.argv[1] if len(sys.argv) > 1 else "/tmp/boards.png",
                np.vstack([np.hstack(tiles[k:k + 4]) for k in range(0, 12, 4)]))

"""Procedural table scenes for training the centre model: throws no photo set has.

`scene(rng, side)` draws a side x side picture of a table (felt, wood, cloth, polka
dots, tartan) with a throw of dice, often in touching clusters, sometimes with a
hand-sized blob or a cup rim (not dice), and returns it with each die's centre and
size. The dice are drawn by synth_faces (pips, plain faces and random symbols, solid,
marbled or see-through bodies, tilted so side faces show). Nothing here is loaded at run
time. Look at some: python scripts/vision/synth_scenes.py /tmp/scenes.png
"""

from __future__ import annotations

import math
import random

import cv2
import numpy as np

import synth_faces as faces

SS = 2  # supersampling


def _die_at(rng, canvas, cx, cy, half, angle, label, tilt):
    """Draw one die on a square window of the canvas around it (textures are per window)."""
    w = int(math.ceil(2.6 * half))
    x0, y0 = int(cx) - w, int(cy) - w
    window = canvas[y0:y0 + 2 * w, x0:x0 + 2 * w]
    faces._die(rng, window, cx - x0, cy - y0, half, angle, label, tilt)


def scene(rng: random.Random, side: int = 256) -> tuple[np.ndarray, list[tuple[float, float, float]]]:
    big = side * SS
    die = rng.uniform(9, 50) * SS  # die side in supersampled pixels
    pad = int(1.5 * die) + 4
    canvas = faces._table(rng, big + 2 * pad, die)
    dice: list[tuple[float, float, float]] = []
    tilt_all = rng.uniform(0, 0.25) if rng.random() < 0.4 else 0.0
    ta = rng.uniform(0, 2 * math.pi)
    n_groups = rng.choice([1, 1, 2, 3])
    for _ in range(n_groups):
        gx, gy = rng.uniform(0.1, 0.9) * big + pad, rng.uniform(0.1, 0.9) * big + pad
        for _ in range(rng.choice([1, 2, 3, 4, 5, 6, 8])):
            size = die * rng.uniform(0.92, 1.08)
            for _ in range(15):  # touching is fine, overlapping is not (that is stacking)
                if dice and rng.random() < 0.7:
                    ox, oy, os = dice[rng.randrange(len(dice))]
                    a = rng.uniform(0, 2 * math.pi)
                    d = rng.uniform(1.0, 1.6) * (os + size) / 2
                    x, y = ox + d * math.cos(a), oy + d * math.sin(a)
                else:
                    x, y = gx + rng.uniform(-2, 2) * die, gy + rng.uniform(-2, 2) * die
                if not (pad <= x < big + pad and pad <= y < big + pad):
                    continue
                if all(math.hypot(x - ox, y - oy) > 0.98 * (os + size) / 2 * 1.0 for ox, oy, os in dice):
                    break
            else:
                continue
            t = tilt_all * size / 2
            _die_at(rng, canvas, x, y, size / 2, rng.uniform(0, math.pi / 2), rng.randint(1, 7),
                    (t * math.cos(ta), t * math.sin(ta)))
            dice.append((x, y, size))
    if rng.random() < 0.15:  # something big that is not a die: a hand's blob or a cup's rim
        cx, cy = rng.uniform(0, big) + pad, rng.uniform(0, big) + pad
        colour = faces._colour(rng).astype(np.float32)
        layer = np.zeros(canvas.shape[:2], np.uint8)
        if rng.random() < 0.5:
            cv2.ellipse(layer, (int(cx), int(cy)), (int(die * rng.uniform(2, 5)), int(die * rng.uniform(1.5, 3))),
                        rng.uniform(0, 180), 0, 360, 255, -1, cv2.LINE_AA)
        else:
            cv2.circle(layer, (int(cx), int(cy)), int(die * rng.uniform(2.5, 5)), 255, int(die * rng.uniform(0.3, 0.8)), cv2.LINE_AA)
        a = (layer.astype(np.float32) / 255)[..., None]
        canvas = canvas * (1 - a) + colour * a
        # a die under it is hidden: it is no longer in the labels
        dice = [d for d in dice if layer[int(d[1]), int(d[0])] == 0]
    canvas = canvas[pad:pad + big, pad:pad + big]
    yy, xx = np.mgrid[0:big, 0:big].astype(np.float32) / big
    canvas *= (1 + rng.uniform(-0.3, 0.3) * (xx - 0.5) + rng.uniform(-0.3, 0.3) * (yy - 0.5))[..., None]
    canvas *= np.array([rng.uniform(0.8, 1.2) for _ in range(3)], np.float32)
    img = cv2.GaussianBlur(np.clip(canvas, 0, 255), (0, 0), rng.uniform(0.4, 1.2) * SS)
    img = cv2.resize(img, (side, side), interpolation=cv2.INTER_AREA)
    img += np.random.default_rng(rng.randrange(1 << 30)).normal(0, rng.uniform(0, 6), img.shape).astype(np.float32)
    ok, enc = cv2.imencode(".jpg", np.clip(img, 0, 255).astype(np.uint8), [cv2.IMWRITE_JPEG_QUALITY, rng.randint(50, 95)])
    return cv2.imdecode(enc, cv2.IMREAD_COLOR), [((x - pad) / SS, (y - pad) / SS, s / SS) for x, y, s in dice]


if __name__ == "__main__":
    import sys
    import time

    r = random.Random(3)
    t0 = time.time()
    tiles = []
    for _ in range(8):
        img, dice = scene(r)
        for x, y, _size in dice:
            cv2.circle(img, (int(x), int(y)), 2, (0, 0, 255), -1)
        tiles.append(img)
    print(f"{(time.time() - t0) / 8 * 1000:.0f} ms a scene")
    cv2.imwrite(sys.argv[1] if len(sys.argv) > 1 else "/tmp/scenes.png", np.vstack([np.hstack(tiles[:4]), np.hstack(tiles[4:])]))

"""Dice seen at an angle: a cube drawn in 3-D, for training the face model.

A phone held at the table sees each die from 20-60 degrees above the cloth: the top face
squashed into a parallelogram and one or two side faces, with pips of their own, below it.
No photo set we may train on looks like that (they look straight down), so the face model
is unsure of such dice, or counts a side face. `oblique_crop(rng, label)` draws a crop as
`faces.cut` would take it around the die's box: a cube with rounded faces (opposite faces
summing to 7), lit from one side, its shadow on a table, seen by an orthographic camera at
a random elevation, azimuth and roll, neighbours seen by the same camera, then the camera
effects of `synth_faces.photograph`. The label is the top face, as the photo sets label it.

Look at them: python scripts/vision/oblique_dice.py /tmp/oblique.png
Nothing here is loaded at run time.
"""

from __future__ import annotations

import math
import random

import cv2
import numpy as np

from synth_faces import PIP_LAYOUT, SS, _body, _glyph, _pip_colour, _square, _table, photograph

TEX = 96  # texture side of one face, in pixels

# Each face: its outward normal and the axes its texture's x and y run along (unit cube,
# centred over the origin, standing on the table z = 0).
FACES = (
    ((0, 0, 1), (1, 0, 0), (0, 1, 0)),     # top
    ((0, 0, -1), (1, 0, 0), (0, -1, 0)),   # bottom
    ((1, 0, 0), (0, 1, 0), (0, 0, -1)),
    ((-1, 0, 0), (0, -1, 0), (0, 0, -1)),
    ((0, 1, 0), (-1, 0, 0), (0, 0, -1)),
    ((0, -1, 0), (1, 0, 0), (0, 0, -1)),
)


def _values(rng: random.Random, top: int) -> list[int]:
    """Face values in FACES' order: opposite faces sum to 7."""
    rest = [v for v in (1, 2, 3, 4, 5, 6) if v not in (top, 7 - top)]
    a = rng.choice(rest)
    b = rng.choice([v for v in rest if v not in (a, 7 - a)])
    return [top, 7 - top, a, 7 - a, b, 7 - b]


def _face_texture(rng: random.Random, body: np.ndarray, pip: np.ndarray | None, value: int,
                  corner: float, pip_size: float, spread: float) -> tuple[np.ndarray, np.ndarray]:
    """One face: (colour, alpha), TEX x TEX; rounded corners; pips (or a symbol: pip None)."""
    colour = body.copy()
    alpha = np.zeros((TEX, TEX), np.float32)
    cv2.fillPoly(alpha, [_square(TEX / 2, TEX / 2, TEX / 2 - 1, 0.0, corner).astype(np.int32)], 1.0, cv2.LINE_AA)
    if pip is None:
        if rng.random() < 0.7:
            _glyph(rng, colour, alpha, TEX / 2, TEX / 2, TEX / 2, rng.uniform(0, math.pi),
                   _pip_colour(rng, body.reshape(-1, 3).mean(0)))
        return colour, alpha
    layer = np.zeros((TEX, TEX), np.uint8)
    turn = rng.randrange(2)  # 2, 3 and 6 lie either way round
    for px, py in PIP_LAYOUT[value]:
        if turn:
            px, py = -py, px
        cv2.circle(layer, (int(TEX / 2 + px * spread * TEX / 2), int(TEX / 2 + py * spread * TEX / 2)),
                   int(pip_size * TEX / 2), 255, -1, cv2.LINE_AA)
    a = (layer.astype(np.float32) / 255)[..., None]
    colour = colour * (1 - a) + pip * a
    return colour, alpha


class Camera:
    """An orthographic camera `elevation` above the table, looking from `azimuth`."""

    def __init__(self, elevation: float, azimuth: float):
        self.w = np.array([math.cos(elevation) * math.cos(azimuth), math.cos(elevation) * math.sin(azimuth),
                           math.sin(elevation)])  # towards the camera
        up = np.array([0.0, 0.0, 1.0]) - math.sin(elevation) * self.w
        up /= np.linalg.norm(up)
        self.down = -up
        self.right = np.cross(up, self.w)

    def project(self, points: np.ndarray, scale: float, cx: float, cy: float) -> np.ndarray:
        return np.stack([points @ self.right * scale + cx, points @ self.down * scale + cy], axis=-1)


def draw_die(rng: random.Random, canvas: np.ndarray, camera: Camera, cx: float, cy: float, scale: float,
             label: int, light: np.ndarray, shadow: bool = True) -> tuple[float, float, float]:
    """Draw a die showing `label` on top (7: faces without pips) with its box centre near
    (cx, cy), the cube's edge `scale` pixels, and its shadow unless `shadow` is False;
    returns its box (centre x, centre y, side)."""
    yaw = rng.uniform(0, 2 * math.pi)
    rot = np.array([[math.cos(yaw), -math.sin(yaw), 0], [math.sin(yaw), math.cos(yaw), 0], [0, 0, 1]])
    corners = np.array([(x, y, z) for x in (-0.5, 0.5) for y in (-0.5, 0.5) for z in (0.0, 1.0)]) @ rot.T
    flat = camera.project(corners, scale, 0, 0)
    box_c = (flat.min(0) + flat.max(0)) / 2
    ox, oy = cx - box_c[0], cy - box_c[1]  # the box, not the cube's foot, lands at (cx, cy)
    # shadow: the cube pushed along the light onto the table
    shadow_pts = corners - corners[:, 2:3] / light[2] * light
    dark = np.zeros(canvas.shape[:2], np.float32)
    cv2.fillPoly(dark, [cv2.convexHull(camera.project(np.vstack([corners[::2], shadow_pts]), scale, ox, oy)
                                       .astype(np.int32))], 1.0, cv2.LINE_AA)
    dark = cv2.GaussianBlur(dark, (0, 0), scale * rng.uniform(0.05, 0.2) + 1)
    depth = rng.uniform(0.2, 0.6)
    if shadow:
        canvas *= (1 - dark * depth)[..., None]
    tex, body, _ = _body(rng, TEX)
    pips = label in PIP_LAYOUT
    pip = _pip_colour(rng, body).astype(np.float32) if pips else None
    corner, pip_size, spread = rng.uniform(0.1, 0.35), rng.uniform(0.13, 0.2), rng.uniform(0.45, 0.6)
    values = _values(rng, label) if pips else [0] * 6
    ambient = rng.uniform(0.35, 0.65)
    # the body first (it shows at the rounded edges), in the shade of its darkest side
    hull = cv2.convexHull(camera.project(corners, scale, ox, oy).astype(np.float32))
    body_mask = np.zeros(canvas.shape[:2], np.float32)
    cv2.fillPoly(body_mask, [hull.astype(np.int32)], 1.0, cv2.LINE_AA)
    m = body_mask[..., None]
    canvas[:] = canvas * (1 - m) + body.astype(np.float32) * ambient * m
    for (normal, u, v), value in zip(FACES, values):
        n, u, v = rot @ np.array(normal, float), rot @ np.array(u, float), rot @ np.array(v, float)
        if n @ camera.w <= 1e-3:
            continue  # facing away: hidden behind the others (a cube is convex)
        centre = np.array([0, 0, 0.5]) + 0.5 * n
        quad = np.array([centre - 0.5 * u - 0.5 * v, centre + 0.5 * u - 0.5 * v, centre - 0.5 * u + 0.5 * v])
        dst = camera.project(quad, scale, ox, oy).astype(np.float32)
        src = np.float32([[0, 0], [TEX, 0], [0, TEX]])
        colour, alpha = _face_texture(rng, tex, pip, value, corner, pip_size, spread)
        shade = ambient + (1 - ambient) * max(0.0, float(n @ light))
        size = (canvas.shape[1], canvas.shape[0])
        warp = cv2.getAffineTransform(src, dst)
        a = cv2.warpAffine(alpha, warp, size, flags=cv2.INTER_LINEAR)[..., None]
        c = cv2.warpAffine(colour * shade, warp, size, flags=cv2.INTER_LINEAR)
        canvas[:] = canvas * (1 - a) + c * a
    x0, y0 = hull.reshape(-1, 2).min(0)
    x1, y1 = hull.reshape(-1, 2).max(0)
    return (x0 + x1) / 2, (y0 + y1) / 2, max(x1 - x0, y1 - y0)


def _light(rng: random.Random) -> np.ndarray:
    elevation, azimuth = rng.uniform(math.radians(30), math.radians(85)), rng.uniform(0, 2 * math.pi)
    return np.array([math.cos(elevation) * math.cos(azimuth), math.cos(elevation) * math.sin(azimuth),
                     math.sin(elevation)])


def oblique_crop(rng: random.Random, label: int, out: int = 48, crop_factor: float = 1.35,
                 roll: float | None = None) -> np.ndarray:
    """One BGR uint8 crop, out x out, centred on the box of a die seen at an angle showing
    `label` on top (0 = no die centred, 7 = a die without pips), side crop_factor x its box.
    `roll`: the camera's turn about its axis is drawn within this many degrees of upright
    (the far side of the table at the top of the picture, as a phone is held and a camera
    is mounted); None: any turn."""
    side = out * SS
    camera = Camera(math.radians(rng.uniform(20, 70)), rng.uniform(0, 2 * math.pi))
    light = _light(rng)
    box = side / crop_factor * math.exp(rng.uniform(-0.2, 0.2))
    # the cube's edge that makes a box about `box` wide at this angle (the box is 1.2-1.7 edges)
    scale = box / rng.uniform(1.35, 1.6)
    canvas = _table(rng, side, scale)
    jitter = 0.12 * box
    cx, cy = side / 2 + rng.uniform(-jitter, jitter), side / 2 + rng.uniform(-jitter, jitter)
    if label == 0:  # the centre is between dice: the die lies away from it, or there is none
        d, a = rng.uniform(1.0, 1.8) * box, rng.uniform(0, 2 * math.pi)
        cx, cy = side / 2 + d * math.cos(a), side / 2 + d * math.sin(a)
    for _ in range(rng.choice([0, 0, 1, 2])):  # neighbours, seen by the same camera
        d, a = box * rng.uniform(1.0, 1.5), rng.uniform(0, 2 * math.pi)
        draw_die(rng, canvas, camera, cx + d * math.cos(a), cy + d * math.sin(a), scale * rng.uniform(0.85, 1.15),
                 rng.randint(1, 7), light)
    if label != 0 or rng.random() < 0.5:
        draw_die(rng, canvas, camera, cx, cy, scale, label if label else rng.randint(1, 7), light)
    turn = rng.uniform(-180, 180) if roll is None else rng.uniform(-roll, roll)
    m = cv2.getRotationMatrix2D((side / 2, side / 2), turn, 1.0)  # the phone's roll
    canvas = cv2.warpAffine(canvas, m, (side, side), borderMode=cv2.BORDER_REFLECT)
    crop = photograph(rng, canvas, out)
    if rng.random() < 0.5:  # a die far from the phone: a few pixels across, enlarged to the crop
        small = rng.randint(16, 40)
        crop = cv2.resize(cv2.resize(crop, (small, small), interpolation=cv2.INTER_AREA), (out, out),
                          interpolation=cv2.INTER_LINEAR)
    return crop


def oblique_sprite(rng: random.Random, side: int = 96) -> tuple[np.ndarray, np.ndarray, float, int | None]:
    """One die seen at an angle, alone, for pasting (paste_scenes.py): (BGR float32 picture,
    alpha 0..1, its box side, its top face or None for a die without pips), the box
    centred in a `side` square. Drawn twice with the same draws, on black and on white: the
    difference is where the die is."""
    seed = rng.randrange(1 << 30)
    label = rng.choice([1, 2, 3, 4, 5, 6, 7])
    camera = Camera(math.radians(rng.uniform(20, 70)), rng.uniform(0, 2 * math.pi))
    light = _light(rng)
    scale = side / 1.6 / rng.uniform(1.35, 1.6)
    on = []
    for ground in (0.0, 255.0):
        canvas = np.full((side, side, 3), ground, np.float32)
        box = draw_die(random.Random(seed), canvas, camera, side / 2, side / 2, scale, label, light, shadow=False)
        on.append(canvas)
    alpha = np.clip(1 - (on[1] - on[0]).mean(axis=2) / 255, 0, 1)
    picture = np.clip(on[0] / np.maximum(alpha, 1e-3)[..., None], 0, 255)
    return picture, alpha, float(box[2]), (None if label == 7 else label)


if __name__ == "__main__":
    import sys

    r = random.Random(1)
    rows = [np.hstack([cv2.resize(oblique_crop(r, lab), (96, 96), interpolation=cv2.INTER_NEAREST) for lab in range(8)])
            for _ in range(6)]
    cv2.imwrite(sys.argv[1] if len(sys.argv) > 1 else "/tmp/oblique.png", np.vstack(rows))

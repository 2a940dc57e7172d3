"""Dice seen at an angle: a cube drawn in 3-D, for training the face model.

A phone held at the table sees each die from 20-60 degrees above the cloth: the top face
squashed into a parallelogram and one or two side faces, with pips of their own, below it.
No photo set we may train on looks like that (they look straight down), so the face model
is unsure of such dice, or counts a side face. `oblique_crop(rng, label)` draws a crop as
`faces.cut` would take it around the die's box: a cube with rounded faces (opposite faces
summing to 7), lit from one side, its shadow on a table, seen by an orthographic camera at
a random elevation, azimuth and roll, neighbours seen by the same camera, then the camera
effects of `synth_faces.photograph`. The label is the top face, as the photo sets label it.

Look at them: python scripts/vision/oblique_dice.py /tmp/oblique.png [common share, e.g. 1]
Nothing here is loaded at run time.
"""

from __future__ import annotations

import math
import random

import cv2
import numpy as np

import synth_faces
import table_dice
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
                  corner: float, pip_size: float, spread: float,
                  lit: tuple[float, float, float] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """One face: (colour, alpha), TEX x TEX; rounded corners; pips (or a symbol: pip None).
    `lit` (a table die's: the lamp's direction along the face's x and y, and the gloss it
    shows there): drilled pips shaded on their rims, and the lamp's highlight."""
    colour = body.copy()
    alpha = np.zeros((TEX, TEX), np.float32)
    cv2.fillPoly(alpha, [_square(TEX / 2, TEX / 2, TEX / 2 - 1, 0.0, corner).astype(np.int32)], 1.0, cv2.LINE_AA)
    if pip is None:
        if rng.random() < 0.7:
            _glyph(rng, colour, alpha, TEX / 2, TEX / 2, TEX / 2, rng.uniform(0, math.pi),
                   _pip_colour(rng, body.reshape(-1, 3).mean(0)))
        return colour, alpha
    if value == 1:
        grow, pip = synth_faces.maker_mark(rng, colour, alpha, TEX / 2, TEX / 2, TEX / 2, 0.0, pip)
        pip_size *= grow
    layer = np.zeros((TEX, TEX), np.uint8)
    turn = rng.randrange(2)  # 2, 3 and 6 lie either way round
    for px, py in PIP_LAYOUT[value]:
        if turn:
            px, py = -py, px
        cv2.circle(layer, (int(TEX / 2 + px * spread * TEX / 2), int(TEX / 2 + py * spread * TEX / 2)),
                   int(pip_size * TEX / 2), 255, -1, cv2.LINE_AA)
    a = (layer.astype(np.float32) / 255)[..., None]
    colour = colour * (1 - a) + pip * a
    if lit is not None:
        rim = table_dice.pip_shading(rng, layer, lit[:2], pip_size * TEX / 2)
        colour = colour * (1 - 0.35 * np.clip(rim, 0, 1)[..., None]) + 60 * np.clip(-rim, 0, 1)[..., None] * 0.5
        if lit[2] > 0:
            hx, hy = rng.uniform(0.2, 0.8) * TEX, rng.uniform(0.2, 0.8) * TEX
            yy, xx = np.mgrid[0:TEX, 0:TEX].astype(np.float32)
            spot = np.exp(-((xx - hx) ** 2 + (yy - hy) ** 2) / (2 * (TEX * rng.uniform(0.06, 0.2)) ** 2))
            colour = colour + (spot * lit[2] * 160)[..., None]
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


def face_textures(sprites) -> dict[int, list[np.ndarray]]:
    """Top faces cut from photographed dice (paste_scenes.Sprite: training photos and
    tomitomi3's crops), set square and TEX x TEX, by label (7: a die without pips)."""
    out: dict[int, list[np.ndarray]] = {}
    for sp in sprites:
        c = (sp.picture.shape[1] - 1) / 2
        m = cv2.getRotationMatrix2D((c, c), sp.turn, TEX / sp.die)  # the die square to the crop, its face TEX wide
        m[:, 2] += TEX / 2 - c
        face = cv2.warpAffine(sp.picture.astype(np.float32), m, (TEX, TEX), flags=cv2.INTER_AREA,
                              borderMode=cv2.BORDER_REPLICATE)
        out.setdefault(7 if sp.value is None else int(sp.value), []).append(face)
    return out


def _symbol_faces(rng: random.Random, glyphs: list[np.ndarray], body: np.ndarray, ink: np.ndarray,
                  corner: float) -> list[tuple[np.ndarray, np.ndarray]]:
    """(colour, alpha) of each face in FACES' order: the first glyph on top, the rest on the
    bottom and sides, each at one size on the face and a random quarter turn."""
    alpha = np.zeros((TEX, TEX), np.float32)
    cv2.fillPoly(alpha, [_square(TEX / 2, TEX / 2, TEX / 2 - 1, 0.0, corner).astype(np.int32)], 1.0, cv2.LINE_AA)
    inner = int(TEX * rng.uniform(0.6, 0.9))
    at = (TEX - inner) // 2
    out = []
    for g in glyphs:
        mask = np.zeros((TEX, TEX), np.float32)
        mask[at:at + inner, at:at + inner] = cv2.resize(np.rot90(g, rng.randrange(4)), (inner, inner),
                                                        interpolation=cv2.INTER_AREA)
        out.append((body * (1 - mask[..., None]) + ink * mask[..., None], alpha))
    return out


def _real_face(rng: random.Random, faces: list[np.ndarray], corner: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(colour, alpha, body colour) of a photographed top face, a quarter turned or mirrored
    at random (which way a face lies on its die is chance)."""
    face = np.rot90(faces[rng.randrange(len(faces))], rng.randrange(4))
    face = np.ascontiguousarray(face[:, ::-1] if rng.random() < 0.5 else face)
    alpha = np.zeros((TEX, TEX), np.float32)
    cv2.fillPoly(alpha, [_square(TEX / 2, TEX / 2, TEX / 2 - 1, 0.0, corner).astype(np.int32)], 1.0, cv2.LINE_AA)
    ring = np.concatenate([face[3:8].reshape(-1, 3), face[-8:-3].reshape(-1, 3),
                           face[:, 3:8].reshape(-1, 3), face[:, -8:-3].reshape(-1, 3)])
    return face, alpha, np.median(ring, axis=0)


def draw_die(rng: random.Random, canvas: np.ndarray, camera: Camera, cx: float, cy: float, scale: float,
             label: int, light: np.ndarray, shadow: bool = True,
             real: list[np.ndarray] | None = None,
             look: table_dice.Look | None = None,
             symbols: tuple[list[np.ndarray], np.ndarray, np.ndarray] | None = None) -> tuple[float, float, float]:
    """Draw a die showing `label` on top (7: faces without pips) with its box centre near
    (cx, cy), the cube's edge `scale` pixels, and its shadow unless `shadow` is False;
    returns its box (centre x, centre y, side). `real`: photographed top faces showing
    `label` (face_textures) to take the top from, the body and sides coloured like it.
    `look`: a table die's kind (table_dice.look): its colours, drilled pips, lit edges.
    `symbols`: (six glyph masks, as glyphs.py draws them, the body's and the ink's colour):
    a symbol die whose top shows the first glyph and whose sides show the others."""
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
    if look is None:
        tex, body, _ = _body(rng, TEX)
    else:
        tex, body = table_dice.texture(rng, look, TEX), np.array(look.body)
    corner, pip_size, spread = rng.uniform(0.1, 0.35), rng.uniform(0.13, 0.2), rng.uniform(0.45, 0.6)
    top = _real_face(rng, real, corner) if real else None
    if top is not None:
        body = top[2]
        tex = np.ones((TEX, TEX, 3), np.float32) * body.astype(np.float32)
    if symbols is not None:
        body = symbols[1]
        tex = np.ones((TEX, TEX, 3), np.float32) * body.astype(np.float32)
        faces = _symbol_faces(rng, *symbols, corner)
    pips = label in PIP_LAYOUT
    if look is not None and pips:
        pip = np.array(look.pip, np.float32)
    else:
        pip = _pip_colour(rng, body).astype(np.float32) if pips else None
    values = _values(rng, label) if pips else [0] * 6
    ambient = rng.uniform(0.35, 0.65) if look is None else rng.uniform(0.45, 0.75)
    # the body first (it shows at the rounded edges), in the shade of its darkest side
    hull = cv2.convexHull(camera.project(corners, scale, ox, oy).astype(np.float32))
    body_mask = np.zeros(canvas.shape[:2], np.float32)
    cv2.fillPoly(body_mask, [hull.astype(np.int32)], 1.0, cv2.LINE_AA)
    m = body_mask[..., None]
    canvas[:] = canvas * (1 - m) + body.astype(np.float32) * ambient * m
    for i, ((normal, u, v), value) in enumerate(zip(FACES, values)):
        n, u, v = rot @ np.array(normal, float), rot @ np.array(u, float), rot @ np.array(v, float)
        if n @ camera.w <= 1e-3:
            continue  # facing away: hidden behind the others (a cube is convex)
        centre = np.array([0, 0, 0.5]) + 0.5 * n
        quad = np.array([centre - 0.5 * u - 0.5 * v, centre + 0.5 * u - 0.5 * v, centre - 0.5 * u + 0.5 * v])
        dst = camera.project(quad, scale, ox, oy).astype(np.float32)
        src = np.float32([[0, 0], [TEX, 0], [0, TEX]])
        shade = ambient + (1 - ambient) * max(0.0, float(n @ light))
        if symbols is not None:
            colour, alpha = faces[i]
        elif top is not None and normal == (0, 0, 1):
            colour, alpha = top[0], top[1]
        elif look is not None:
            half = light + camera.w  # where the lamp shows on a glossy face
            gloss = look.gloss * max(0.0, float(n @ half / np.linalg.norm(half))) ** 8
            colour, alpha = _face_texture(rng, tex, pip, value, corner, pip_size, spread,
                                          (float(light @ u), float(light @ v), gloss / max(shade, 0.3)))
        else:
            colour, alpha = _face_texture(rng, tex, pip, value, corner, pip_size, spread)
        size = (canvas.shape[1], canvas.shape[0])
        warp = cv2.getAffineTransform(src, dst)
        a = cv2.warpAffine(alpha, warp, size, flags=cv2.INTER_LINEAR)[..., None]
        c = cv2.warpAffine(colour * shade, warp, size, flags=cv2.INTER_LINEAR)
        canvas[:] = canvas * (1 - a) + c * a
    if look is not None:  # rounded edges catch the light along the top face's rim
        rim = camera.project(np.array([(x, y, 1.0) for x, y in ((-0.5, -0.5), (0.5, -0.5), (0.5, 0.5), (-0.5, 0.5))])
                             @ rot.T, scale, ox, oy)
        layer = np.zeros(canvas.shape[:2], np.float32)
        cv2.polylines(layer, [rim.astype(np.int32)], True, 1.0, max(1, int(scale * rng.uniform(0.02, 0.06))),
                      cv2.LINE_AA)
        layer = cv2.GaussianBlur(layer, (0, 0), max(0.5, scale * 0.015)) * body_mask * rng.uniform(0.2, 0.6)
        lit = np.minimum(body.astype(np.float32) * 1.1 + 20, 255)
        canvas[:] = canvas * (1 - layer[..., None]) + lit * layer[..., None]
    x0, y0 = hull.reshape(-1, 2).min(0)
    x1, y1 = hull.reshape(-1, 2).max(0)
    return (x0 + x1) / 2, (y0 + y1) / 2, max(x1 - x0, y1 - y0)


def _light(rng: random.Random) -> np.ndarray:
    elevation, azimuth = rng.uniform(math.radians(30), math.radians(85)), rng.uniform(0, 2 * math.pi)
    return np.array([math.cos(elevation) * math.cos(azimuth), math.cos(elevation) * math.sin(azimuth),
                     math.sin(elevation)])


def board_piece(rng: random.Random, canvas: np.ndarray, cx: float, cy: float, size: float, squash: float) -> None:
    """A board game's piece centred at (cx, cy), about `size` pixels across, its height
    squashed by `squash` as the camera sees the table: a hexagonal or square tile with a
    round number token in its middle (a die showing one, to a careless eye), a token
    alone, or a printed disc. Not a die: for the face model's "no die here"."""
    ink = tuple(float(c) for c in _pip_colour(rng, np.array([225.0, 225.0, 215.0])))
    def poly(n, r, a0):
        return np.array([[cx + r * math.cos(a0 + 2 * math.pi * i / n), cy + squash * r * math.sin(a0 + 2 * math.pi * i / n)]
                         for i in range(n)], np.int32)
    kind = rng.random()
    if kind < 0.6:  # a tile, with a token on it most of the time
        r = size * rng.uniform(0.6, 1.4)
        colour = tuple(float(c) for c in _body(rng, 4)[1])
        cv2.fillPoly(canvas, [poly(rng.choice([6, 6, 4]), r, rng.uniform(0, math.pi))], colour, cv2.LINE_AA)
        if rng.random() < 0.5:  # printed landscape on the tile
            for _ in range(rng.randint(2, 8)):
                px, py = cx + rng.uniform(-r, r) * 0.7, cy + squash * rng.uniform(-r, r) * 0.7
                cv2.circle(canvas, (int(px), int(py)), max(1, int(r * rng.uniform(0.05, 0.2))),
                           tuple(float(c) for c in _body(rng, 4)[1]), -1, cv2.LINE_AA)
        token = rng.random() < 0.8
        tr = r * rng.uniform(0.2, 0.4)
    else:
        token, tr = True, size * rng.uniform(0.25, 0.6)
    if token:
        face = (rng.uniform(190, 245), rng.uniform(200, 245), rng.uniform(205, 250))
        cv2.ellipse(canvas, (int(cx), int(cy)), (int(tr), max(1, int(tr * squash))), 0, 0, 360, face, -1, cv2.LINE_AA)
        mark = rng.random()
        if mark < 0.6:  # a number
            synth_faces.printed_number(canvas, str(rng.choice([2, 3, 4, 5, 6, 8, 9, 10, 11, 12])), cx, cy, tr, ink,
                                       max(1, int(tr / 10)), 1 / 2)
        elif mark < 0.8:  # a dot or two, as some tokens print their odds
            cv2.circle(canvas, (int(cx), int(cy + tr * 0.5 * squash)), max(1, int(tr * 0.12)), ink, -1, cv2.LINE_AA)
        if rng.random() < 0.5:
            cv2.ellipse(canvas, (int(cx), int(cy)), (int(tr), max(1, int(tr * squash))), 0, 0, 360,
                        tuple(c * 0.6 for c in face), max(1, int(tr / 12)), cv2.LINE_AA)


def oblique_crop(rng: random.Random, label: int, out: int = 48, crop_factor: float = 1.35,
                 roll: float | None = None, real: dict[int, list[np.ndarray]] | None = None,
                 real_share: float = 0.0, boards: float = 0.0, common: float = 0.0) -> np.ndarray:
    """One BGR uint8 crop, out x out, centred on the box of a die seen at an angle showing
    `label` on top (0 = no die centred, 7 = a die without pips), side crop_factor x its box.
    `roll`: the camera's turn about its axis is drawn within this many degrees of upright
    (the far side of the table at the top of the picture, as a phone is held and a camera
    is mounted); None: any turn. `real` (face_textures): the top face is a photographed one
    for `real_share` of the dice centred (their sides drawn in its body's colour). `boards`:
    the share of crops with no die centred that show a board's tile or token there instead.
    `common`: the share drawn as the dice and tables most people play with (table_dice.py),
    photographed by a phone or webcam, from 25 degrees above the table to straight down."""
    side = out * SS
    looks = common > 0 and rng.random() < common  # no draw when off: the default crops stay as they were
    camera_elevation = math.radians(rng.uniform(20, 70) if not looks else
                                    rng.uniform(25, 75) if rng.random() < 0.8 else rng.uniform(75, 89))
    camera = Camera(camera_elevation, rng.uniform(0, 2 * math.pi))
    light = _light(rng)
    box = side / crop_factor * synth_faces.size_error(rng)
    # the cube's edge that makes a box about `box` wide at this angle (the box is 1.2-1.7 edges)
    scale = box / rng.uniform(1.35, 1.6)
    canvas = table_dice.surface(rng, side, scale) if looks else _table(rng, side, scale)
    own = table_dice.look(rng) if looks else None
    dx, dy = synth_faces.off_centre(rng)
    cx, cy = side / 2 + dx * box, side / 2 + dy * box
    if label == 0:  # the centre is between dice: the die lies away from it, or there is none
        if boards and rng.random() < boards:  # a board's tile or token in the middle instead
            board_piece(rng, canvas, side / 2, side / 2, box * rng.uniform(0.6, 1.6), math.sin(camera_elevation))
        d, a = rng.uniform(1.0, 1.8) * box, rng.uniform(0, 2 * math.pi)
        cx, cy = side / 2 + d * math.cos(a), side / 2 + d * math.sin(a)
    for _ in range(rng.choice([0, 0, 1, 2])):  # neighbours, seen by the same camera
        d, a = box * rng.uniform(1.0, 1.5), rng.uniform(0, 2 * math.pi)
        other = (own if rng.random() < 0.5 else table_dice.look(rng)) if looks else None  # a set, or mixed dice
        draw_die(rng, canvas, camera, cx + d * math.cos(a), cy + d * math.sin(a), scale * rng.uniform(0.85, 1.15),
                 rng.randint(1, 6) if looks else rng.randint(1, 7), light, look=other)
    if label != 0 or rng.random() < 0.5:
        lab = label if label else rng.randint(1, 7)
        photo = real.get(lab) if real and label and rng.random() < real_share else None
        draw_die(rng, canvas, camera, cx, cy, scale, lab, light, real=photo, look=own if lab != 7 else None)
    turn = rng.uniform(-180, 180) if roll is None else rng.uniform(-roll, roll)
    m = cv2.getRotationMatrix2D((side / 2, side / 2), turn, 1.0)  # the phone's roll
    canvas = cv2.warpAffine(canvas, m, (side, side), borderMode=cv2.BORDER_REFLECT)
    crop = table_dice.camera(rng, canvas, out) if looks else photograph(rng, canvas, out)
    if rng.random() < (0.2 if looks else 0.5):  # a die far from the camera: a few pixels across, enlarged to the crop
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
    share = float(sys.argv[2]) if len(sys.argv) > 2 else 0.0  # the `common` share: 1 shows table dice only
    rows = [np.hstack([cv2.resize(oblique_crop(r, lab, common=share), (96, 96), interpolation=cv2.INTER_NEAREST)
                       for lab in range(8)]) for _ in range(6)]
    cv2.imwrite(sys.argv[1] if len(sys.argv) > 1 else "/tmp/oblique.png", np.vstack(rows))

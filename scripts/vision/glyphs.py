"""Procedural die-face symbols and photos of them, for training the spike face embedding.

Nothing here is a picture of a real die: a *glyph* is a random symbol (strokes, polygons,
circles, rings, crosses, stars, rays, arcs, dots, mirrored outlines, and combinations
of them, some cut out of others), and `face_crop` draws it on a random die lying on a
random table, then spoils the picture the way a Pi camera does: rotation, tilt with
side faces showing, bevel shading, glare, shadow, neighbouring dice, colour casts,
blur, noise and JPEG. The crop is cut around the die's silhouette the way the reader
cuts around a found die (hardware/vision/spike.py), with the same small errors in
centre and size. Pip layouts are glyphs too, so ordinary dice are part of the family.

No symbol set the reader is tested on (rendered-dev spike-A) is drawn or copied here.
"""

from __future__ import annotations

import math
import random
import sys
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from hardware.vision.faces import cut  # noqa: E402  (the reader's own crop)

G = 96  # glyph canvas side; the symbol lies within the centred disc of radius G/2
PIPS = {1: [(0, 0)], 2: [(-1, -1), (1, 1)], 3: [(-1, -1), (0, 0), (1, 1)],
        4: [(-1, -1), (1, -1), (-1, 1), (1, 1)], 5: [(-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)],
        6: [(-1, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (1, 1)]}


def _pts(xy, r, cx=G / 2, cy=G / 2):
    return np.array([[cx + x * r, cy + y * r] for x, y in xy], np.int32)


def _thick(rng: random.Random, r: float) -> int:
    return max(2, int(r * rng.uniform(0.08, 0.22)))


def _poly_points(rng, n, star=False):
    a0 = rng.uniform(0, 2 * math.pi)
    inner = rng.uniform(0.3, 0.65)
    k = 2 * n if star else n
    return [((inner if star and i % 2 else 1.0) * math.cos(a0 + 2 * math.pi * i / k),
             (inner if star and i % 2 else 1.0) * math.sin(a0 + 2 * math.pi * i / k)) for i in range(k)]


def _mirrored_outline(rng):
    """A random outline mirrored about the vertical axis (goblets, crowns, bells, arrows...)."""
    n = rng.randint(3, 7)
    ys = sorted(rng.uniform(-1, 1) for _ in range(n))
    half = [(rng.uniform(0.1, 1.0), y) for y in ys]
    if rng.random() < 0.5:  # zigzag tops and steps
        half = [(x if i % 2 else x * rng.uniform(0.2, 0.6), y) for i, (x, y) in enumerate(half)]
    return [(x, y) for x, y in half] + [(-x, y) for x, y in reversed(half)]


def _shape(rng: random.Random, mask: np.ndarray, r: float, value: float, cx=G / 2, cy=G / 2) -> None:
    """Draw one random primitive of radius about r into mask with the given value."""
    kind = rng.choice(["ring", "disc", "ellipse", "almond", "polygon", "star", "rays", "cross", "stroke",
                       "arc", "dots", "mirrored", "blob", "bar", "pips"])
    fill = rng.random() < 0.5
    t = -1 if fill else _thick(rng, r)
    aa = cv2.LINE_AA
    c = (int(cx), int(cy))
    if kind == "ring":
        cv2.circle(mask, c, int(r), value, _thick(rng, r), aa)
    elif kind == "disc":
        cv2.circle(mask, c, int(r * rng.uniform(0.3, 1.0)), value, -1, aa)
    elif kind == "ellipse":
        cv2.ellipse(mask, c, (int(r), int(r * rng.uniform(0.25, 0.8))), rng.uniform(0, 180), 0, 360, value, t, aa)
    elif kind == "almond":
        h = rng.uniform(0.3, 0.7)
        top = [(math.cos(a), -h * math.sin(a)) for a in np.linspace(0, math.pi, 12)]
        pts = _pts(top + [(x, -y) for x, y in reversed(top)], r, cx, cy)
        _draw_poly(mask, pts, value, t)
    elif kind in ("polygon", "star"):
        pts = _pts(_poly_points(rng, rng.randint(3, 8), kind == "star"), r, cx, cy)
        _draw_poly(mask, pts, value, t)
    elif kind == "rays":
        n, a0 = rng.randint(3, 12), rng.uniform(0, math.pi)
        r0 = rng.uniform(0.0, 0.6)
        for i in range(n):
            a = a0 + 2 * math.pi * i / n
            p = (int(cx + r0 * r * math.cos(a)), int(cy + r0 * r * math.sin(a)))
            q = (int(cx + r * math.cos(a)), int(cy + r * math.sin(a)))
            cv2.line(mask, p, q, value, _thick(rng, r), aa)
    elif kind in ("cross", "bar"):
        a0, w = rng.uniform(0, math.pi), _thick(rng, r)
        for a in ([a0] if kind == "bar" else [a0, a0 + rng.choice([math.pi / 2, rng.uniform(0.4, 1.2)])]):
            cv2.line(mask, (int(cx - r * math.cos(a)), int(cy - r * math.sin(a))),
                     (int(cx + r * math.cos(a)), int(cy + r * math.sin(a))), value, w, aa)
    elif kind == "stroke":
        pts = _pts([(rng.uniform(-1, 1), rng.uniform(-1, 1)) for _ in range(rng.randint(2, 5))], r, cx, cy)
        cv2.polylines(mask, [pts], rng.random() < 0.3, value, _thick(rng, r), aa)
    elif kind == "arc":
        a0 = rng.uniform(0, 360)
        cv2.ellipse(mask, c, (int(r), int(r * rng.uniform(0.5, 1.0))), 0, a0, a0 + rng.uniform(90, 300),
                    value, _thick(rng, r), aa)
    elif kind == "dots":
        n = rng.randint(2, 8)
        rr = r * rng.uniform(0.1, 0.22)
        for _ in range(n):
            a, d = rng.uniform(0, 2 * math.pi), rng.uniform(0.2, 1.0) * r
            cv2.circle(mask, (int(cx + d * math.cos(a)), int(cy + d * math.sin(a))), max(2, int(rr)), value, -1, aa)
    elif kind == "mirrored":
        _draw_poly(mask, _pts(_mirrored_outline(rng), r, cx, cy), value, t)
    elif kind == "blob":
        n = rng.randint(5, 10)
        pts = [(rng.uniform(0.4, 1.0) * math.cos(2 * math.pi * i / n), rng.uniform(0.4, 1.0) * math.sin(2 * math.pi * i / n))
               for i in range(n)]
        _draw_poly(mask, _pts(pts, r, cx, cy), value, t)
    else:  # pips: a die layout, or a random one
        pips = PIPS[rng.randint(1, 6)] if rng.random() < 0.7 else [(rng.uniform(-1, 1), rng.uniform(-1, 1))
                                                                   for _ in range(rng.randint(1, 7))]
        rr = r * rng.uniform(0.14, 0.24)
        for x, y in pips:
            cv2.circle(mask, (int(cx + 0.65 * r * x), int(cy + 0.65 * r * y)), max(2, int(rr)), value, -1, aa)


def _draw_poly(mask, pts, value, t):
    if t < 0:
        cv2.fillPoly(mask, [pts], value, cv2.LINE_AA)
    else:
        cv2.polylines(mask, [pts], True, value, t, cv2.LINE_AA)


def random_glyph(rng: random.Random) -> np.ndarray:
    """A float32 G x G mask (1 = symbol ink) of a random symbol: one to three primitives,
    later ones drawn inside, over, or cut out of the first."""
    while True:
        mask = np.zeros((G, G), np.float32)
        r = G / 2 * rng.uniform(0.7, 0.95)
        _shape(rng, mask, r, 1.0)
        for _ in range(rng.choice([0, 1, 1, 2])):
            how = rng.random()
            scale = rng.uniform(0.25, 0.6) if how < 0.6 else rng.uniform(0.6, 1.0)
            off = r * (1 - scale) * 0.6
            cx, cy = G / 2 + rng.uniform(-off, off), G / 2 + rng.uniform(-off, off)
            _shape(rng, mask, r * scale, 0.0 if how > 0.8 else 1.0, cx, cy)
        ink = mask.mean()
        if 0.04 < ink < 0.6:
            return mask


def glyph_set(seed: int) -> dict[int, np.ndarray]:
    """The symbol set of a seed, face value -> glyph, as render_dice.py draws a symbol die's faces."""
    rng = random.Random(seed)
    return {value: random_glyph(rng) for value in sorted(PIPS)}


#: A blob is pip-like if it is round or square enough: its narrow side at least PIP_ASPECT of
#: its wide side, its area at least PIP_FILL of the disc around it. Its size is not bounded:
#: a big one's pip (render_dice.py: radius 0.16-0.22 of the face's side) is a glyph disc of
#: 0.46-0.63 of the glyph's side, and the shipped face model reads bigger solid discs,
#: ellipses and heptagons on a die as ones too (docs/decisions.md, 2026-12-07).
PIP_ASPECT = 0.6
PIP_FILL = 0.6


def pip_like(glyph: np.ndarray) -> bool:
    """Whether a glyph could pass for a pip face: one to nine filled blobs, each round or
    square enough (PIP_ASPECT, PIP_FILL), of any size. random_glyph draws pip layouts, dots,
    discs and solid polygons among its symbols (the spike embedding learns pip dice as part
    of the family); a face model taught such a face as "a die without pips" learns to miss
    ones, big ones most."""
    ink = (glyph > 0.5).astype(np.uint8)
    n, _, stats, _ = cv2.connectedComponentsWithStats(ink, connectivity=8)
    if not 1 <= n - 1 <= 9:
        return False
    for area, w, h in stats[1:, [cv2.CC_STAT_AREA, cv2.CC_STAT_WIDTH, cv2.CC_STAT_HEIGHT]]:
        r = max(w, h) / 2
        if min(w, h) < PIP_ASPECT * max(w, h) or area < PIP_FILL * math.pi * r * r:
            return False
    return True


def variant(glyph: np.ndarray, rng: random.Random) -> np.ndarray:
    """A near miss: the same glyph with one part added or cut away (a hard negative)."""
    while True:
        mask = glyph.copy()
        r = G / 2 * rng.uniform(0.2, 0.5)
        cx, cy = G / 2 + rng.uniform(-20, 20), G / 2 + rng.uniform(-20, 20)
        _shape(rng, mask, r, 0.0 if rng.random() < 0.3 else 1.0, cx, cy)
        if np.abs(mask - glyph).mean() > 0.03 and 0.03 < mask.mean() < 0.7:
            return mask


def _colour(rng: random.Random) -> np.ndarray:
    h, s, v = rng.uniform(0, 180), rng.choice([rng.uniform(0, 40), rng.uniform(40, 255)]), rng.uniform(20, 250)
    return cv2.cvtColor(np.uint8([[[h, s, v]]]), cv2.COLOR_HSV2BGR)[0, 0].astype(np.float32)


def _contrasting(rng: random.Random, body: np.ndarray) -> np.ndarray:
    for _ in range(30):
        ink = _colour(rng)
        if abs(float(ink.mean() - body.mean())) > rng.uniform(25, 70) or np.abs(ink - body).max() > 110:
            return ink
    return 255 - body


def _table(rng: random.Random, side: int) -> np.ndarray:
    base = _colour(rng)
    img = np.empty((side, side, 3), np.float32)
    img[:] = base
    grain = rng.choice([1, 2, 4, 8, 16])
    noise = cv2.resize(np.float32(np.random.default_rng(rng.randrange(1 << 30)).normal(0, 1, (side // grain + 1,) * 2)),
                       (side, side), interpolation=cv2.INTER_CUBIC)
    img += noise[..., None] * rng.uniform(0, 25)
    if rng.random() < 0.3:  # stripes (wood, cloth weave) or a printed pattern
        yy, xx = np.mgrid[0:side, 0:side].astype(np.float32)
        a, f = rng.uniform(0, math.pi), rng.uniform(0.05, 0.5)
        wave = np.sin((xx * math.cos(a) + yy * math.sin(a)) * f)
        img += (wave[..., None] * (_colour(rng) - base) * rng.uniform(0.1, 0.5)).astype(np.float32)
    return img


def _square(cx, cy, side, angle, squash=(1.0, 1.0)):
    c, s = math.cos(angle), math.sin(angle)
    pts = []
    for x, y in [(-1, -1), (1, -1), (1, 1), (-1, 1)]:
        x, y = x * side / 2 * squash[0], y * side / 2 * squash[1]
        pts.append((cx + x * c - y * s, cy + x * s + y * c))
    return np.float32(pts)


def _die(rng, img, glyph, cx, cy, face, angle, body, ink, lift, light):
    """Draw a die at (cx, cy) whose top face is `face` px wide; returns its silhouette mask."""
    side = img.shape[0]
    top = _square(cx, cy, face, angle, (rng.uniform(0.85, 1.0), rng.uniform(0.85, 1.0)))
    top += np.float32([rng.uniform(-0.04, 0.04) * face for _ in range(8)]).reshape(4, 2)  # perspective
    bottom = top + np.float32(lift)
    hull = cv2.convexHull(np.concatenate([top, bottom]).astype(np.int32))
    sil = np.zeros((side, side), np.uint8)
    cv2.fillConvexPoly(sil, hull, 255, cv2.LINE_AA)
    shadow = cv2.GaussianBlur(np.roll(sil, (rng.randint(-4, 4), rng.randint(-4, 4)), (0, 1)).astype(np.float32), (0, 0), 2.5) / 255
    img *= 1 - shadow[..., None] * rng.uniform(0.1, 0.6)
    sides = sil.astype(np.float32) / 255
    img[:] = img * (1 - sides[..., None]) + sides[..., None] * body * rng.uniform(0.35, 0.85)
    topm = np.zeros((side, side), np.uint8)
    cv2.fillConvexPoly(topm, top.astype(np.int32), 255, cv2.LINE_AA)
    # bevel: the face is darker (or lighter) towards its rounded edges
    dist = cv2.distanceTransform((topm > 127).astype(np.uint8), cv2.DIST_L2, 3)
    bevel = np.clip(dist / max(1.0, face * rng.uniform(0.05, 0.15)), 0, 1)
    shade = rng.uniform(0.55, 1.0) + (1 - rng.uniform(0.55, 1.0)) * bevel
    facecol = np.empty_like(img)
    facecol[:] = body
    # the symbol, mapped onto the top face (scaled about its centre, turned with it)
    g = rng.uniform(0.6, 0.9)
    src = np.float32([[0, 0], [G, 0], [G, G], [0, G]])
    centre = top.mean(0)
    dst = centre + (top - centre) * g
    turn = rng.randrange(4)
    dst = np.roll(dst, turn, axis=0)
    mask = cv2.warpPerspective(glyph, cv2.getPerspectiveTransform(src, dst), (side, side), flags=cv2.INTER_LINEAR)
    facecol = facecol * (1 - mask[..., None]) + ink * mask[..., None]
    facecol *= shade[..., None]
    facecol *= light
    tm = topm.astype(np.float32)[..., None] / 255
    img[:] = img * (1 - tm) + facecol * tm
    if lift[0] ** 2 + lift[1] ** 2 > 4 and rng.random() < 0.5:  # marks of another symbol on a side face
        side_only = (sil > 127) & (topm < 128)
        marks = np.zeros((side, side), np.float32)
        _shape(rng, marks, face * 0.3, 1.0, *(centre + np.float32(lift) * 1.6))
        img[side_only] = img[side_only] * (1 - marks[side_only, None]) + ink * 0.6 * marks[side_only, None]
    return sil


def face_crop(glyph: np.ndarray, rng: random.Random, out: int, crop: float, neighbour=None) -> np.ndarray:
    """A BGR uint8 out x out photo crop of a die showing `glyph`, cut like the reader cuts:
    centred on the silhouette's box, `crop` x its size, with the detector's small errors."""
    side = 112
    img = _table(rng, side)
    face = rng.uniform(34, 46)
    angle = rng.uniform(0, 2 * math.pi)
    body = _colour(rng)
    ink = _contrasting(rng, body)
    light = np.float32([rng.uniform(0.75, 1.25) for _ in range(3)])
    yy, xx = np.mgrid[0:side, 0:side].astype(np.float32) / side - 0.5
    a = rng.uniform(0, 2 * math.pi)
    ramp = 1 + (xx * math.cos(a) + yy * math.sin(a)) * rng.uniform(0, 0.8)
    tilt = rng.choice([0, rng.uniform(0, 0.15), rng.uniform(0.1, 0.4)])
    b = rng.uniform(0, 2 * math.pi)
    lift = (tilt * face * math.cos(b), tilt * face * math.sin(b))
    cx, cy = side / 2 + rng.uniform(-4, 4), side / 2 + rng.uniform(-4, 4)
    if neighbour is not None and rng.random() < 0.5:  # a touching die beside this one
        d = rng.uniform(0, 2 * math.pi)
        gap = face * rng.uniform(1.0, 1.4)
        nb = _colour(rng) if rng.random() < 0.5 else body
        _die(rng, img, neighbour, cx + gap * math.cos(d), cy + gap * math.sin(d), face * rng.uniform(0.9, 1.1),
             rng.uniform(0, 2 * math.pi), nb, _contrasting(rng, nb), lift, light)
    sil = _die(rng, img, glyph, cx, cy, face, angle, body, ink, lift, light)
    img *= ramp[..., None]
    if rng.random() < 0.25:  # glare
        gx, gy = rng.uniform(0.3, 0.7) * side, rng.uniform(0.3, 0.7) * side
        spot = np.exp(-((xx * side + side / 2 - gx) ** 2 + (yy * side + side / 2 - gy) ** 2) / (2 * (face * rng.uniform(0.1, 0.5)) ** 2))
        img += spot[..., None] * rng.uniform(30, 200)
    x, y, w, h = cv2.boundingRect((sil > 127).astype(np.uint8))
    return _photographed(img, rng, x + w / 2, y + h / 2, max(w, h), crop, out)


def as_found(x: float, y: float, box: float, rng: random.Random) -> tuple[float, float, float]:
    """(centre x, centre y, size) of a die boxed at (x, y), `box` wide, as the centre model
    finds it: a little smaller than its silhouette (0.7..1.2 x), its centre off by ~6%."""
    size = box * 0.85 * math.exp(rng.gauss(0, 0.15))
    return x + rng.gauss(0, 0.055) * size, y + rng.gauss(0, 0.055) * size, size


def _photographed(img: np.ndarray, rng: random.Random, x: float, y: float, box: float, crop: float,
                  out: int) -> np.ndarray:
    """The die boxed at (x, y), `box` wide, in the drawn scene `img`, photographed and cut as
    the reader cuts it: white balance, the finder's errors, a camera's size, blur, noise and
    JPEG; out x out BGR uint8."""
    img = img * np.float32([rng.uniform(0.8, 1.2) for _ in range(3)])  # white balance
    ccx, ccy, size = as_found(x, y, box, rng)
    shot = rng.randint(22, 64)  # the die's size in camera pixels
    small = cut(np.clip(img, 0, 255), ccx, ccy, size * crop, max(12, int(shot * crop)), rng.uniform(0, 360))
    if rng.random() < 0.5:
        small = cv2.GaussianBlur(small, (0, 0), rng.uniform(0.3, 1.2))
    small += np.random.default_rng(rng.randrange(1 << 30)).normal(0, rng.uniform(0, 8), small.shape).astype(np.float32)
    small = np.clip(small, 0, 255).astype(np.uint8)
    if rng.random() < 0.6:
        ok, buf = cv2.imencode(".jpg", small, [cv2.IMWRITE_JPEG_QUALITY, rng.randint(40, 95)])
        small = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    return cv2.resize(small, (out, out), interpolation=cv2.INTER_AREA if small.shape[0] > out else cv2.INTER_LINEAR)


def cube_crop(faces: list[np.ndarray], rng: random.Random, out: int, crop: float, neighbour=None) -> np.ndarray:
    """As face_crop, but the die is a cube drawn in 3-D (oblique_dice.py) seen from 35 to 90
    degrees above the table, its top showing faces[0] and its sides the die's other glyphs,
    as a table's dice show their other symbols beside the top one."""
    import oblique_dice  # here, not at the top: oblique_dice's own imports are only needed for this

    side = 160
    img = _table(rng, side)
    camera = oblique_dice.Camera(math.radians(rng.uniform(35, 89)), rng.uniform(0, 2 * math.pi))
    light = oblique_dice._light(rng)
    body = _colour(rng)
    ink = _contrasting(rng, body)
    scale = rng.uniform(34, 46)
    cx, cy = side / 2 + rng.uniform(-4, 4), side / 2 + rng.uniform(-4, 4)
    if neighbour is not None and rng.random() < 0.5:  # a touching die beside this one
        d, gap = rng.uniform(0, 2 * math.pi), scale * rng.uniform(1.3, 1.7)
        nb = _colour(rng) if rng.random() < 0.5 else body
        oblique_dice.draw_die(rng, img, camera, cx + gap * math.cos(d), cy + gap * math.sin(d), scale, 7, light,
                              symbols=([neighbour] + rng.sample(faces, 5), nb, _contrasting(rng, nb)))
    x, y, box = oblique_dice.draw_die(rng, img, camera, cx, cy, scale, 7, light, symbols=(faces, body, ink))
    return _photographed(img, rng, x, y, box, crop, out)


def family(rng: random.Random) -> list[np.ndarray]:
    """Six glyphs that differ only in small ways, as the faces of one die do: the six pip
    layouts with one pip size, or one base symbol with six different small additions."""
    if rng.random() < 0.5:
        r, spread = G / 2 * rng.uniform(0.16, 0.28), rng.uniform(0.55, 0.8)
        out = []
        for n in range(1, 7):
            mask = np.zeros((G, G), np.float32)
            for x, y in PIPS[n]:
                cv2.circle(mask, (int(G / 2 + spread * G / 2 * x), int(G / 2 + spread * G / 2 * y)), int(r), 1.0, -1, cv2.LINE_AA)
            out.append(mask)
        return out
    base = random_glyph(rng)
    return [base] + [variant(base, rng) for _ in range(5)]

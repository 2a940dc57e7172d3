"""Procedural die-face crops for training the face model: dice no photo set has.

The photo sets hold a few dozen dice designs; a table will bring others (smoky
translucent bodies, marbled swirls, gold pips on black, pips barely darker than the
body). `face_crop(rng, label)` draws one crop the way `faces.cut` would see it:
a die near the centre (jittered as a detector's centre is), possibly tilted so side
faces show, neighbours touching it, a table texture, light gradient, glare, shadow,
blur, noise and JPEG. Labels as the face model's: 0 = no die centred, 1..6 pips,
7 = a die face without pips (plain colour or a random symbol).

Drawn at 3x and shrunk, so pips are anti-aliased like a real photo's.
Nothing here is loaded at run time.
"""

from __future__ import annotations

import math
import random

import cv2
import numpy as np

from glyphs import pip_like

SS = 3  # supersampling
#: Kept pools of drawn crops (train_faces.py --pools) are named by this: raise it whenever
#: the same seed draws other crops. 2: class 7's symbols are never pip-like (2026-12-07).
DRAWING = 2
MARKS = 0.0  # share of one faces drawn with a maker's mark (maker_mark; train_faces --marks)

PIP_LAYOUT = {
    1: [(0, 0)],
    2: [(-1, -1), (1, 1)],
    3: [(-1, -1), (0, 0), (1, 1)],
    4: [(-1, -1), (1, -1), (-1, 1), (1, 1)],
    5: [(-1, -1), (1, -1), (-1, 1), (1, 1), (0, 0)],
    6: [(-1, -1), (-1, 0), (-1, 1), (1, -1), (1, 0), (1, 1)],
}


def _colour(rng: random.Random) -> np.ndarray:
    kind = rng.random()
    if kind < 0.25:  # white / ivory / grey / black
        v = rng.choice([rng.uniform(200, 250), rng.uniform(20, 70), rng.uniform(90, 170)])
        tint = np.array([rng.uniform(-15, 15) for _ in range(3)])
        return np.clip(v + tint, 0, 255)
    hsv = np.uint8([[[rng.randrange(180), rng.randrange(60, 256), rng.randrange(50, 256)]]])
    return cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR)[0, 0].astype(np.float64)


def _noise(rng: random.Random, side: int, scale: float) -> np.ndarray:
    """Smooth noise in -1..1 at roughly `scale` pixels per feature."""
    n = max(2, int(side / scale))
    g = np.random.default_rng(rng.randrange(1 << 30)).uniform(-1, 1, (n, n)).astype(np.float32)
    return cv2.resize(g, (side, side), interpolation=cv2.INTER_CUBIC)


def _table(rng: random.Random, side: int, die: float | None = None) -> np.ndarray:
    """A table surface; `die` (a die's side in pixels) sets the scale of printed patterns."""
    die = die or side / 1.35
    base = _colour(rng) * rng.uniform(0.4, 1.0)
    img = np.ones((side, side, 3), np.float32) * base.astype(np.float32)
    img += _noise(rng, side, rng.uniform(8, 60))[..., None] * rng.uniform(0, 25)
    pattern = rng.random()
    if pattern < 0.12:  # polka dots, about pip to die size: the patterned cloths that fool a die finder
        dot = _colour(rng).astype(np.float32)
        r = die * rng.uniform(0.08, 0.5)
        step = r * rng.uniform(2.5, 5)
        off = rng.uniform(0, step)
        layer = np.zeros((side, side), np.uint8)
        for y in np.arange(-step + off, side + step, step):
            for x in np.arange(-step + off + (step / 2 if rng.random() < 0.5 else 0), side + step, step):
                cv2.circle(layer, (int(x), int(y)), int(r), 255, -1, cv2.LINE_AA)
        a = (layer.astype(np.float32) / 255)[..., None]
        img = img * (1 - a) + dot * a
    elif pattern < 0.22:  # tartan / checks: crossing bands
        for axis in (0, 1):
            band = _colour(rng).astype(np.float32)
            width, step = die * rng.uniform(0.1, 0.6), die * rng.uniform(0.8, 3)
            t = np.arange(side, dtype=np.float32)
            on = (((t + rng.uniform(0, step)) % step) < width).astype(np.float32) * rng.uniform(0.3, 0.7)
            a = (on[None, :] if axis else on[:, None])[..., None]
            img = img * (1 - a) + band * a
    if rng.random() < 0.3:  # wood grain / cloth weave
        ang = rng.uniform(0, math.pi)
        yy, xx = np.mgrid[0:side, 0:side].astype(np.float32)
        t = xx * math.cos(ang) + yy * math.sin(ang)
        img += (np.sin(t / rng.uniform(2, 12) + _noise(rng, side, 40) * 3) * rng.uniform(3, 18))[..., None]
    img += np.random.default_rng(rng.randrange(1 << 30)).normal(0, rng.uniform(0, 10), img.shape).astype(np.float32)
    return img


def _body(rng: random.Random, side: int) -> tuple[np.ndarray, np.ndarray, bool]:
    """(texture of the die body, its mean colour, whether it is see-through)."""
    c = _colour(rng)
    tex = np.ones((side, side, 3), np.float32) * c.astype(np.float32)
    style = rng.random()
    if style < 0.3:  # marbled: a second colour in swirls
        c2 = _colour(rng)
        m = np.clip(0.5 + 1.5 * np.sin(_noise(rng, side, rng.uniform(10, 40)) * rng.uniform(3, 8)), 0, 1) * rng.uniform(0.2, 0.6)
        tex = tex * (1 - m[..., None]) + c2.astype(np.float32) * m[..., None]
    elif style < 0.5:  # translucent / smoky: uneven depth
        tex *= (1 + 0.35 * _noise(rng, side, rng.uniform(15, 50)))[..., None]
        return tex, c, True
    return tex, c, False


def _pip_colour(rng: random.Random, body: np.ndarray) -> np.ndarray:
    lum = body.mean()
    r = rng.random()
    if r < 0.2:  # low contrast: a coloured pip on a body of similar brightness (red on smoke)
        c = _colour(rng)
        return c * (lum / max(c.mean(), 1)) * rng.uniform(0.8, 1.4)
    if lum > 130:
        return _colour(rng) * rng.uniform(0.1, 0.6) if r < 0.6 else np.array([rng.uniform(10, 60)] * 3)
    return np.clip(_colour(rng) * rng.uniform(1.2, 2.0) + 40, 0, 255) if r < 0.6 else np.array([rng.uniform(200, 250)] * 3)


def _square(cx, cy, half, angle, corner):
    """Rounded square as a polygon (supersampled pixel coords)."""
    pts = []
    r = corner * half
    for qx, qy in ((1, 1), (-1, 1), (-1, -1), (1, -1)):
        ox, oy = qx * (half - r), qy * (half - r)
        start = math.atan2(qy, qx) - math.pi / 4
        for k in range(6):
            a = start + k * (math.pi / 2) / 5
            pts.append((ox + r * math.cos(a), oy + r * math.sin(a)))
    ca, sa = math.cos(angle), math.sin(angle)
    return np.array([(cx + x * ca - y * sa, cy + x * sa + y * ca) for x, y in pts], np.float32)


def _rays(rng: random.Random, layer: np.ndarray, cx, cy, angle, n, reach, inner, outer, th) -> None:
    """n rays round (cx, cy), each from `inner` to `outer` (ranges, in `reach`es) out."""
    for k in range(n):
        a = angle + 2 * math.pi * k / n
        r0, r1 = reach * rng.uniform(*inner), reach * rng.uniform(*outer)
        cv2.line(layer, (int(cx + r0 * math.cos(a)), int(cy + r0 * math.sin(a))),
                 (int(cx + r1 * math.cos(a)), int(cy + r1 * math.sin(a))), 255, th, cv2.LINE_AA)


def _glyph(rng: random.Random, canvas: np.ndarray, mask: np.ndarray, cx, cy, half, angle, colour) -> None:
    """A random symbol (strokes, polygons, rings) for class 7: drawn again while it could
    pass for pips (glyphs.pip_like: a filled polygon or ellipse alone is a big one's look)."""
    for _ in range(20):
        ink = _symbol(rng, canvas.shape[:2], cx, cy, half, angle).astype(np.float32) / 255.0
        if not pip_like(ink):
            break
    a = (ink * mask)[..., None]
    canvas[:] = canvas * (1 - a) + colour.astype(np.float32) * a


def _symbol(rng: random.Random, shape, cx, cy, half, angle) -> np.ndarray:
    layer = np.zeros(shape, np.uint8)
    th = max(1, int(half * rng.uniform(0.06, 0.14)))
    for _ in range(rng.randint(1, 3)):
        kind = rng.randrange(5)
        pts = [(cx + half * rng.uniform(-0.6, 0.6), cy + half * rng.uniform(-0.6, 0.6)) for _ in range(rng.randint(3, 7))]
        p = np.array(pts, np.int32)
        if kind == 0:
            cv2.polylines(layer, [p], rng.random() < 0.5, 255, th, cv2.LINE_AA)
        elif kind == 1:
            cv2.fillPoly(layer, [cv2.convexHull(p)], 255, cv2.LINE_AA)
        elif kind == 2:
            cv2.circle(layer, (int(cx), int(cy)), int(half * rng.uniform(0.25, 0.6)), 255, th, cv2.LINE_AA)
        elif kind == 3:
            _rays(rng, layer, cx, cy, angle, rng.randint(4, 10), half, (0.1, 0.3), (0.45, 0.65), th)
        else:
            cv2.ellipse(layer, (int(cx), int(cy)), (int(half * rng.uniform(0.3, 0.6)), int(half * rng.uniform(0.1, 0.35))),
                        math.degrees(angle) + rng.uniform(0, 180), 0, 360, 255, th if rng.random() < 0.5 else -1, cv2.LINE_AA)
    return layer


FONTS = (cv2.FONT_HERSHEY_SIMPLEX, cv2.FONT_HERSHEY_DUPLEX, cv2.FONT_HERSHEY_COMPLEX, cv2.FONT_HERSHEY_TRIPLEX,
         cv2.FONT_HERSHEY_SCRIPT_SIMPLEX, cv2.FONT_HERSHEY_COMPLEX_SMALL)
INKS = ((40, 40, 200), (150, 60, 25), (25, 25, 25), (40, 165, 215), (60, 120, 40))  # BGR: red, blue, black, gold, green


def _letters(rng: random.Random, layer: np.ndarray, cx, cy, radius, centre_angle, span, height, upright) -> None:
    """A made-up word along an arc of `radius` round (cx, cy), each letter turned to the arc
    (`upright`: read from outside, as a word over the pip is; else from inside, as under it)."""
    font, italic = rng.choice(FONTS), cv2.FONT_ITALIC if rng.random() < 0.2 else 0
    word = "".join(rng.choice("ABCDEGHIKLMNOPRSTVWY") for _ in range(rng.randint(3, 8)))
    thick = max(1, int(height * rng.uniform(0.12, 0.28)))
    scale = height / cv2.getTextSize("H", font | italic, 1.0, thick)[0][1]
    for k, ch in enumerate(word):
        t = centre_angle + span * ((k + 0.5) / len(word) - 0.5) * (1 if upright else -1)
        (w, h), _ = cv2.getTextSize(ch, font | italic, scale, thick)
        side = int(2 * max(w, h) + 4)
        patch = np.zeros((side, side), np.uint8)
        cv2.putText(patch, ch, (side // 2 - w // 2, side // 2 + h // 2), font | italic, scale, 255, thick, cv2.LINE_AA)
        turn = -math.degrees(t) - 90 if upright else -math.degrees(t) + 90
        m = cv2.getRotationMatrix2D((side / 2, side / 2), turn, 1.0)
        x, y = cx + radius * math.cos(t), cy + radius * math.sin(t)
        m[:, 2] += (x - side / 2, y - side / 2)
        np.maximum(layer, cv2.warpAffine(patch, m, layer.shape[::-1]), out=layer)


def printed_number(canvas: np.ndarray, text: str, cx: float, cy: float, radius: float, ink, thick: int,
                   drop: float) -> None:
    """`text` printed in `ink` on a float picture, centred across at cx, as big as a round
    token of `radius` holds, its baseline `drop` times its height below cy (putText draws
    on 8-bit pictures only: it draws a byte layer, blended in as the ink's share)."""
    scale = radius / 22
    (tw, th), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, scale, thick)
    layer = np.zeros(canvas.shape[:2], np.uint8)
    cv2.putText(layer, text, (int(cx - tw / 2), int(cy + th * drop)), cv2.FONT_HERSHEY_SIMPLEX, scale, 255, thick,
                cv2.LINE_AA)
    a = (layer.astype(np.float32) / 255)[..., None]
    canvas[:] = canvas * (1 - a) + np.array(ink, np.float32) * a


def maker_mark(rng: random.Random, canvas: np.ndarray, mask: np.ndarray, cx, cy, half, angle,
               pip: np.ndarray) -> tuple[float, np.ndarray]:
    """Many dice carry their maker's mark on the one face: a word arched over or round the
    pip (a playing-card maker's die), an emblem ring, or the pip itself big and red.
    A MARKS share of one faces get one: drawn (not the pip) where `mask` is the face.
    Returns the one pip's radius factor and colour (1 and `pip` on an unmarked face)."""
    if not MARKS or rng.random() >= MARKS:  # MARKS 0 draws nothing at random: the crops stay as they were
        return 1.0, pip
    ink = np.array(rng.choice((pip, *INKS)), np.float64) * rng.uniform(0.8, 1.2)
    kind = rng.random()
    if kind < 0.35:  # the pip itself: big, often red, sometimes ringed
        colour = np.array(INKS[0], np.float64) * rng.uniform(0.7, 1.2) if rng.random() < 0.6 else pip
        if rng.random() < 0.3:
            layer = np.zeros(canvas.shape[:2], np.uint8)
            cv2.circle(layer, (int(cx), int(cy)), int(half * rng.uniform(0.45, 0.7)), 255,
                       max(1, int(half * rng.uniform(0.02, 0.06))), cv2.LINE_AA)
            a = (layer.astype(np.float32) / 255 * mask)[..., None]
            canvas[:] = canvas * (1 - a) + ink.astype(np.float32) * a
        return rng.uniform(1.4, 2.6), colour.astype(np.float32)
    layer = np.zeros(canvas.shape[:2], np.uint8)
    up = angle - math.pi / 2 + rng.choice((0, math.pi / 2, math.pi, -math.pi / 2))
    height = half * rng.uniform(0.16, 0.34)
    radius = half * rng.uniform(0.42, 0.68)
    if kind < 0.8:  # a word over the pip, maybe another under it
        _letters(rng, layer, cx, cy, radius, up, rng.uniform(1.2, 2.4), height, True)
        if rng.random() < 0.4:
            _letters(rng, layer, cx, cy, radius, up + math.pi, rng.uniform(0.8, 1.8), height * 0.8, False)
    else:  # an emblem: rings, rays or leaves round the pip
        th = max(1, int(half * rng.uniform(0.02, 0.07)))
        cv2.circle(layer, (int(cx), int(cy)), int(radius), 255, th, cv2.LINE_AA)
        _rays(rng, layer, cx, cy, angle, rng.randint(5, 14), radius, (0.45, 0.7), (1.0, 1.25), th)
    a = (layer.astype(np.float32) / 255 * mask * rng.uniform(0.6, 1.0))[..., None]
    canvas[:] = canvas * (1 - a) + ink.astype(np.float32) * a
    return rng.uniform(0.8, 1.3), pip.astype(np.float32)


def _die(rng: random.Random, canvas: np.ndarray, cx, cy, half, angle, label, tilt) -> None:
    """Draw one die (top face + visible sides) onto the canvas in place."""
    side = canvas.shape[0]
    tex, body, clear = _body(rng, side)
    corner = rng.uniform(0.1, 0.35)
    # shadow on the table
    sh = np.zeros((side, side), np.float32)
    dx, dy = rng.uniform(-0.3, 0.3) * half, rng.uniform(-0.3, 0.3) * half
    cv2.fillPoly(sh, [_square(cx + dx, cy + dy, half * 1.05, angle, corner).astype(np.int32)], 1.0)
    sh = cv2.GaussianBlur(sh, (0, 0), half * 0.15 + 1)
    canvas *= (1 - sh * rng.uniform(0.1, 0.5))[..., None]
    # side faces: the body swept from below the top face, darker
    tx, ty = tilt
    base = np.zeros((side, side), np.uint8)
    poly_top = _square(cx, cy, half, angle, corner)
    poly_low = _square(cx + tx, cy + ty, half, angle, corner)
    cv2.fillPoly(base, [cv2.convexHull(np.vstack([poly_top, poly_low]).astype(np.int32))], 255, cv2.LINE_AA)
    m = (base.astype(np.float32) / 255.0)[..., None]
    canvas[:] = canvas * (1 - m) + tex * rng.uniform(0.45, 0.8) * m
    top = np.zeros((side, side), np.uint8)
    cv2.fillPoly(top, [poly_top.astype(np.int32)], 255, cv2.LINE_AA)
    mt = top.astype(np.float32) / 255.0
    shade = 1 + 0.25 * _noise(rng, side, side / 2) * rng.random()
    canvas[:] = canvas * (1 - mt[..., None]) + (tex * shade[..., None]) * mt[..., None]
    if label in PIP_LAYOUT:
        pip = _pip_colour(rng, body).astype(np.float32)
        spread = half * rng.uniform(0.45, 0.6)
        pr = half * rng.uniform(0.13, 0.22)
        ca, sa = math.cos(angle), math.sin(angle)
        if clear and rng.random() < 0.7:  # see-through body: the pips of the bottom face show, faintly
            ghost = np.zeros((side, side), np.uint8)
            gx, gy = cx - tx * rng.uniform(0.5, 1.5), cy - ty * rng.uniform(0.5, 1.5)
            for px, py in PIP_LAYOUT[7 - label]:
                x, y = px * spread, py * spread
                cv2.circle(ghost, (int(gx + x * ca - y * sa), int(gy + x * sa + y * ca)), int(pr * 0.9), 255, -1, cv2.LINE_AA)
            ghost = cv2.GaussianBlur(ghost, (0, 0), pr * 0.3 + 0.5).astype(np.float32) / 255 * mt * rng.uniform(0.1, 0.35)
            canvas[:] = canvas * (1 - ghost[..., None]) + pip * ghost[..., None]
        if label == 1:
            grow, pip = maker_mark(rng, canvas, mt, cx, cy, half, angle, pip)
            pr *= grow
        layer = np.zeros((side, side), np.uint8)
        for px, py in PIP_LAYOUT[label]:
            x, y = px * spread, py * spread
            cv2.circle(layer, (int(cx + x * ca - y * sa), int(cy + x * sa + y * ca)), int(pr), 255, -1, cv2.LINE_AA)
        a = layer.astype(np.float32) / 255.0 * mt
        if rng.random() < 0.5:  # drilled pips: a dark rim
            rim = cv2.dilate(layer, np.ones((3, 3), np.uint8), iterations=max(1, int(pr * 0.15))).astype(np.float32) / 255 * mt
            canvas *= (1 - 0.4 * rim)[..., None]
        canvas[:] = canvas * (1 - a[..., None]) + pip * a[..., None]
    elif label == 7 and rng.random() < 0.6:
        _glyph(rng, canvas, mt, cx, cy, half, angle, _pip_colour(rng, body))


# How far a training crop's die lies from where the crop is centred and sized: off its
# centre by up to OFF_CENTRE die sizes each way, its size times up to exp(+-SIZE_SPREAD).
# The reader cuts around the finder's box, which can sit off a die seen at an angle
# (on its top face) by more than a crop centred on a labelled box shows; train_faces.py
# --off-centre and --size-spread widen both (photos, procedural and oblique crops).
OFF_CENTRE = 0.12
SIZE_SPREAD = 0.2


def size_error(rng: random.Random) -> float:
    """A crop's size against the die it is centred on, as a factor."""
    return math.exp(rng.uniform(-SIZE_SPREAD, SIZE_SPREAD))


def off_centre(rng: random.Random) -> tuple[float, float]:
    """How far a crop's centre lies off its die's, in die sizes (x, y)."""
    return rng.uniform(-OFF_CENTRE, OFF_CENTRE), rng.uniform(-OFF_CENTRE, OFF_CENTRE)


def face_crop(rng: random.Random, label: int, out: int = 48, crop_factor: float = 1.35) -> np.ndarray:
    """One BGR uint8 crop, out x out, of a die showing `label` (0 = no die centred)."""
    side = out * SS
    half = side / crop_factor / 2 * size_error(rng)
    canvas = _table(rng, side, 2 * half)
    dx, dy = off_centre(rng)
    cx, cy = side / 2 + dx * 2 * half, side / 2 + dy * 2 * half
    if label == 0:  # the centre is between dice: move the die away, or draw none
        d = rng.uniform(1.0, 1.8) * half * 2
        a = rng.uniform(0, 2 * math.pi)
        cx, cy = side / 2 + d * math.cos(a), side / 2 + d * math.sin(a)
    # neighbours touching or near the die
    for _ in range(rng.choice([0, 0, 1, 2, 3])):
        a = rng.uniform(0, 2 * math.pi)
        d = 2 * half * rng.uniform(1.0, 1.5)
        _die(rng, canvas, cx + d * math.cos(a), cy + d * math.sin(a), half * rng.uniform(0.85, 1.15),
             rng.uniform(0, math.pi), rng.randint(1, 7), (0, 0))
    if label != 0 or rng.random() < 0.5:
        t = rng.uniform(0, 0.3) * half if rng.random() < 0.5 else 0.0
        ta = rng.uniform(0, 2 * math.pi)
        _die(rng, canvas, cx, cy, half, rng.uniform(0, math.pi / 2), label if label else rng.randint(1, 7),
             (t * math.cos(ta), t * math.sin(ta)))
    return photograph(rng, canvas, out)


def photograph(rng: random.Random, canvas: np.ndarray, out: int) -> np.ndarray:
    """The supersampled scene as a camera gives it, out x out: light gradient and glare,
    white balance, a slight perspective, blur, shrinking, noise and JPEG."""
    side = canvas.shape[0]
    yy, xx = np.mgrid[0:side, 0:side].astype(np.float32) / side
    g = 1 + rng.uniform(-0.3, 0.3) * (xx - 0.5) + rng.uniform(-0.3, 0.3) * (yy - 0.5)
    canvas *= g[..., None]
    if rng.random() < 0.25:
        gx, gy = rng.uniform(0.2, 0.8) * side, rng.uniform(0.2, 0.8) * side
        spot = np.exp(-((xx * side - gx) ** 2 + (yy * side - gy) ** 2) / (2 * (side * rng.uniform(0.03, 0.1)) ** 2))
        canvas += (spot * rng.uniform(80, 255))[..., None]
    canvas *= np.array([rng.uniform(0.8, 1.2) for _ in range(3)], np.float32)  # white balance
    img = np.clip(canvas, 0, 255)
    # camera: slight perspective, blur, shrink, noise, JPEG
    if rng.random() < 0.5:
        j = side * 0.04
        src = np.float32([[0, 0], [side, 0], [side, side], [0, side]])
        dst = src + np.float32([[rng.uniform(-j, j), rng.uniform(-j, j)] for _ in range(4)])
        img = cv2.warpPerspective(img, cv2.getPerspectiveTransform(src, dst), (side, side), borderMode=cv2.BORDER_REFLECT)
    img = cv2.GaussianBlur(img, (0, 0), rng.uniform(0.3, 1.0) * SS * rng.uniform(0.5, 1.5))
    small = cv2.resize(img, (out, out), interpolation=cv2.INTER_AREA)
    small += np.random.default_rng(rng.randrange(1 << 30)).normal(0, rng.uniform(0, 6), small.shape).astype(np.float32)
    small = np.clip(small, 0, 255).astype(np.uint8)
    ok, enc = cv2.imencode(".jpg", small, [cv2.IMWRITE_JPEG_QUALITY, rng.randint(40, 95)])
    return cv2.imdecode(enc, cv2.IMREAD_COLOR)


if __name__ == "__main__":  # a contact sheet to look at: python scripts/vision/synth_faces.py /tmp/sheet.png [marks]
    import sys

    r = random.Random(1)
    MARKS = float(sys.argv[2]) if len(sys.argv) > 2 else 0.0  # 1: every one face marked
    rows = [np.hstack([cv2.resize(face_crop(r, lab), (96, 96), interpolation=cv2.INTER_NEAREST) for lab in range(8)])
            for _ in range(6)]
    cv2.imwrite(sys.argv[1] if len(sys.argv) > 1 else "/tmp/synth_faces.png", np.vstack(rows))

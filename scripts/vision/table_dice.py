"""The dice and tables people actually play on, for oblique_dice.py's `common` share.

oblique_dice draws any body colour on any table colour, blurred and often shrunk: good for
dice no set has, but far from what most tables hold. Most dice are ivory or white with
black pips; then solid red, black, green, blue and yellow ones, see-through ("casino",
"gem") ones, marbled and pearl ones, bone and wood. Their pips are drilled and painted, so
each pip is a hollow with a shaded rim; their edges are rounded and catch the light; a
glossy die shows the lamp as a highlight. Tables: plain laminate (often flecked), wood,
felt in the usual tray colours, cloth, carpet, a dark tray. The camera is a phone or a
webcam: mostly sharp, with its noise and JPEG.

`look(rng)` draws one die's kind, `surface(rng, side, die)` a table, `camera(rng, canvas,
out)` the photograph. Nothing here is loaded at run time.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

import cv2
import numpy as np

from synth_faces import SS, _noise


@dataclass(frozen=True)
class Look:
    body: tuple[float, float, float]  # BGR
    pip: tuple[float, float, float]
    gloss: float  # strength of the lamp's highlight, 0..1
    see_through: bool
    marbled: tuple[float, float, float] | None  # a second colour in swirls


def _bgr(h: float, s: float, v: float) -> tuple[float, float, float]:
    """Hue in degrees, saturation and value 0..1, as BGR 0..255."""
    hsv = np.uint8([[[int(h / 2) % 180, int(s * 255), int(v * 255)]]])
    b, g, r = cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR)[0, 0]
    return float(b), float(g), float(r)


# (weight, body as (hue, saturation, value) ranges, pip colours to pick from, see-through)
KINDS = (
    (30, ((30, 50), (0.0, 0.18), (0.82, 0.98)), ("black", "black", "black", "red", "blue"), False),  # ivory, white
    (8, ((0, 360), (0.0, 0.1), (0.08, 0.25)), ("white", "white", "gold", "red"), False),  # black
    (8, ((350, 370), (0.7, 0.95), (0.5, 0.85)), ("white", "white", "black", "yellow"), False),  # red
    (5, ((45, 58), (0.7, 1.0), (0.8, 1.0)), ("black", "red", "red"), False),  # yellow
    (5, ((95, 140), (0.5, 0.9), (0.35, 0.75)), ("white", "white", "black"), False),  # green
    (5, ((205, 235), (0.6, 0.95), (0.35, 0.8)), ("white", "white", "gold"), False),  # blue
    (3, ((15, 30), (0.7, 1.0), (0.8, 1.0)), ("black", "white"), False),  # orange
    (3, ((270, 300), (0.4, 0.8), (0.35, 0.7)), ("white", "gold"), False),  # purple
    (4, ((60, 170), (0.8, 1.0), (0.85, 1.0)), ("black", "white"), False),  # neon
    (10, ((0, 360), (0.5, 0.95), (0.35, 0.9)), ("white", "white", "black", "gold"), True),  # casino, gem
    (3, ((0, 360), (0.0, 0.15), (0.2, 0.5)), ("white", "red"), True),  # smoke
    (6, ((0, 360), (0.2, 0.8), (0.3, 0.9)), ("white", "black", "gold"), False),  # marbled, pearl (second colour)
    (4, ((25, 40), (0.2, 0.6), (0.45, 0.9)), ("black", "black", "red"), False),  # bone, wood
)
PIPS = {"black": (15, 35), "white": (225, 250), "red": None, "blue": None, "gold": None, "yellow": None}


def _pip(rng: random.Random, name: str) -> tuple[float, float, float]:
    if name in ("black", "white"):
        v = rng.uniform(*PIPS[name])
        return (v, v, v)
    hsv = {"red": (rng.uniform(350, 365), rng.uniform(0.7, 1), rng.uniform(0.5, 0.85)),
           "blue": (rng.uniform(210, 235), rng.uniform(0.7, 1), rng.uniform(0.4, 0.8)),
           "gold": (rng.uniform(38, 50), rng.uniform(0.5, 0.85), rng.uniform(0.6, 0.9)),
           "yellow": (rng.uniform(50, 58), rng.uniform(0.7, 1), rng.uniform(0.85, 1))}[name]
    return _bgr(*hsv)


def look(rng: random.Random) -> Look:
    """One die's kind, drawn as often as tables hold it (KINDS' weights)."""
    kind = rng.choices(KINDS, weights=[k[0] for k in KINDS])[0]
    _, (h, s, v), pips, see = kind
    body = _bgr(rng.uniform(*h), rng.uniform(*s), rng.uniform(*v))
    second = None
    if kind is KINDS[11]:
        second = _bgr(rng.uniform(0, 360), rng.uniform(0, 0.5), rng.uniform(0.5, 1.0))
    return Look(body, _pip(rng, rng.choice(pips)), rng.uniform(0.0, 0.9), see, second)


def texture(rng: random.Random, lk: Look, side: int) -> np.ndarray:
    """The body's colour over a face, side x side (swirls for marbled dice, depth for see-through)."""
    tex = np.ones((side, side, 3), np.float32) * np.array(lk.body, np.float32)
    if lk.marbled is not None:
        m = np.clip(0.5 + 1.5 * np.sin(_noise(rng, side, rng.uniform(10, 40)) * rng.uniform(3, 8)), 0, 1)
        m *= rng.uniform(0.2, 0.7)
        tex = tex * (1 - m[..., None]) + np.array(lk.marbled, np.float32) * m[..., None]
    elif lk.see_through:
        tex *= (1 + 0.25 * _noise(rng, side, rng.uniform(15, 50)))[..., None]
    return tex


def pip_shading(rng: random.Random, layer: np.ndarray, light_xy: tuple[float, float], radius: float) -> np.ndarray:
    """How a drilled pip is lit: -1..1 over the face (0 elsewhere), darker on the rim towards
    the lamp (the hollow's wall there is in its own shadow) and lighter on the far rim."""
    a = layer.astype(np.float32) / 255
    shift = max(1, int(radius * rng.uniform(0.2, 0.45)))
    dx, dy = int(round(light_xy[0] * shift)), int(round(light_xy[1] * shift))
    moved = np.roll(np.roll(a, dy, axis=0), dx, axis=1)
    return np.clip(a - moved, -1, 1)  # + where the pip is and its lit copy is not, - the other side


def surface(rng: random.Random, side: int, die: float) -> np.ndarray:
    """A table, side x side, float32 BGR; `die` (a die's side in pixels) sets its patterns' scale."""
    kind = rng.random()
    if kind < 0.3:  # laminate or painted: pale, often flecked
        base = np.array(_bgr(rng.uniform(0, 60), rng.uniform(0, 0.15), rng.uniform(0.6, 0.95)), np.float32)
    elif kind < 0.5:  # wood
        base = np.array(_bgr(rng.uniform(18, 38), rng.uniform(0.35, 0.75), rng.uniform(0.3, 0.8)), np.float32)
    elif kind < 0.75:  # felt: a dice tray, a card table
        hue = rng.choice([120, 130, 210, 230, 0, 350, 280, 30, 0])
        base = np.array(_bgr(hue, rng.uniform(0.3, 0.8), rng.uniform(0.12, 0.55)), np.float32)
    elif kind < 0.9:  # cloth, carpet
        base = np.array(_bgr(rng.uniform(0, 360), rng.uniform(0.05, 0.5), rng.uniform(0.2, 0.8)), np.float32)
    else:  # a dark tray or a black mat
        base = np.array(_bgr(rng.uniform(0, 360), rng.uniform(0, 0.3), rng.uniform(0.04, 0.18)), np.float32)
    img = np.ones((side, side, 3), np.float32) * base
    img *= (1 + _noise(rng, side, rng.uniform(20, 80)) * rng.uniform(0, 0.12))[..., None]
    n = np.random.default_rng(rng.randrange(1 << 30))
    if kind < 0.3 and rng.random() < 0.6:  # flecks
        fleck = (n.random((side, side)) < rng.uniform(0.002, 0.02)).astype(np.float32)
        fleck = cv2.GaussianBlur(fleck, (0, 0), SS * 0.4) * rng.uniform(-300, 300)
        img += fleck[..., None]
    elif 0.3 <= kind < 0.5:  # grain
        ang = rng.uniform(0, math.pi)
        yy, xx = np.mgrid[0:side, 0:side].astype(np.float32)
        t = xx * math.cos(ang) + yy * math.sin(ang)
        img *= (1 + np.sin(t / rng.uniform(3, 14) + _noise(rng, side, 50) * 4) * rng.uniform(0.04, 0.15))[..., None]
    elif kind >= 0.5:  # fibres, weave
        img += cv2.GaussianBlur(n.normal(0, rng.uniform(4, 14), (side, side)).astype(np.float32), (0, 0),
                                SS * rng.uniform(0.3, 1.0))[..., None]
    return img


def camera(rng: random.Random, canvas: np.ndarray, out: int) -> np.ndarray:
    """The scene as a phone or a webcam gives it, out x out: uneven light, white balance,
    a little blur (more now and then), shrinking, noise, sharpening and JPEG."""
    side = canvas.shape[0]
    yy, xx = np.mgrid[0:side, 0:side].astype(np.float32) / side
    canvas = canvas * (1 + rng.uniform(-0.2, 0.2) * (xx - 0.5) + rng.uniform(-0.2, 0.2) * (yy - 0.5))[..., None]
    canvas *= np.array([rng.uniform(0.88, 1.12) for _ in range(3)], np.float32) * rng.uniform(0.75, 1.2)
    blur = rng.uniform(0.2, 0.7) if rng.random() < 0.8 else rng.uniform(0.7, 1.8)
    img = cv2.GaussianBlur(np.clip(canvas, 0, 255), (0, 0), blur * SS)
    small = cv2.resize(img, (out, out), interpolation=cv2.INTER_AREA)
    small += np.random.default_rng(rng.randrange(1 << 30)).normal(0, rng.uniform(0, 5), small.shape).astype(np.float32)
    if rng.random() < 0.3:  # a phone's sharpening
        soft = cv2.GaussianBlur(small, (0, 0), 1.0)
        small = small + (small - soft) * rng.uniform(0.3, 1.0)
    small = np.clip(small, 0, 255).astype(np.uint8)
    ok, enc = cv2.imencode(".jpg", small, [cv2.IMWRITE_JPEG_QUALITY, rng.randint(55, 95)])
    return cv2.imdecode(enc, cv2.IMREAD_COLOR)

"""Read top faces: crop each candidate and ask the face model what it shows.

The model's classes: 0 = no die centred here, 1..6 = pips, 7 = a die without pips
(chance cube, symbol die). Crops are square, CROP_FACTOR x the die size, FACE_SIDE px.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Sequence

import cv2
import numpy as np

from hardware.vision import networks
from hardware.vision.detect import Candidate

FACE_SIDE = 48
CROP_FACTOR = 1.35
MODEL = "die_faces.onnx"
TWIN = "die_faces_twin.onnx"  # the face model trained on again, its right readings kept (see first_reading)
TWIN_BELOW = 0.98  # the twin reads the crops the face model reads as pips under this
SECOND_OPINION = "die_faces_second.onnx"  # the face model trained on with more kinds of crops (see settle)
LEANING, SECOND_SURE = 0.3, 0.9  # how sure the first and the second must be for settle to take the second
SECOND_LOOK = 0.8  # a die whose best class is below this is looked at again, in other views
SECOND_LOOKS = 24  # ... and of one batch of candidates, at most this many: the likeliest dice
# (turn in degrees, size factor, mirrored): small turns and mirrors only. The picture's top
# is the far side of the table, and a die seen at an angle shows its top face above its
# sides; turned a quarter, its side face could pass for the top.
LOOKS = ((0, 1.0, True), (12, 0.95, False), (-12, 1.05, False), (8, 1.08, True), (-8, 0.92, True))
SHRINK_FIRST = 0.5  # crops shrunk more than this are averaged down first (see cut)
NOT_A_DIE = 0
OTHER_DIE = 7
NO_DIE_READ = np.eye(8)[NOT_A_DIE]  # what a crop left unread for time counts as (budget.in_turn)


def cut(img: np.ndarray, cx: float, cy: float, side: float, out: int = FACE_SIDE, angle: float = 0.0) -> np.ndarray:
    """Square crop centred on (cx, cy), `side` pixels wide, rotated by `angle`, resized to out x out.

    warpAffine samples the picture (bilinearly: from the four pixels around each point) and
    does not average it, whatever the flag says. That is right down to half size; below it,
    a die of a many-pixel camera (a phone, a Pi camera close to the table) would be read
    from a scattering of its pixels, each with its own sensor noise. So the part of the
    picture the crop needs is first averaged down to the crop's scale (INTER_AREA) and the
    turn takes what is left (the models learned from bilinear crops, so smaller
    shrinks are sampled as before)."""
    s = out / side
    if s < SHRINK_FIRST:
        h, w = img.shape[:2]
        turn = np.radians(angle)
        r = side / 2 * (abs(np.cos(turn)) + abs(np.sin(turn))) + 2 / s  # the turned square's reach, and a margin
        x0, y0, x1, y1 = max(0, int(cx - r)), max(0, int(cy - r)), min(w, int(cx + r) + 1), min(h, int(cy + r) + 1)
        if x1 - x0 >= 2 and y1 - y0 >= 2:
            pw, ph = max(1, round((x1 - x0) * s)), max(1, round((y1 - y0) * s))
            sx, sy = pw / (x1 - x0), ph / (y1 - y0)
            img = cv2.resize(img[y0:y1, x0:x1], (pw, ph), interpolation=cv2.INTER_AREA)
            cx, cy, s = (cx - x0 + 0.5) * sx - 0.5, (cy - y0 + 0.5) * sy - 0.5, s / ((sx + sy) / 2)
    m = cv2.getRotationMatrix2D((cx, cy), angle, s)
    m[:, 2] += np.array([out / 2 - cx, out / 2 - cy])
    return cv2.warpAffine(img, m, (out, out), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


EDGE_SIDE = 32  # pixels of the crop edge_angle looks at
EDGE_SPAN = 1.3  # ... which is this many die sizes wide
EDGE_RING = (0.55, 0.12)  # its weights: a ring at this radius (in die sizes), this wide


@lru_cache(maxsize=None)
def _edge_ring() -> np.ndarray:
    """Weights of the ring where a die's outline lies (not its middle, where the symbol is)."""
    yy, xx = np.mgrid[0:EDGE_SIDE, 0:EDGE_SIDE].astype(np.float32) - (EDGE_SIDE - 1) / 2
    r = np.hypot(xx, yy) * EDGE_SPAN / EDGE_SIDE
    return np.exp(-((r - EDGE_RING[0]) ** 2) / (2 * EDGE_RING[1] ** 2)).astype(np.float32)


def edge_angle(frame: np.ndarray, cx: float, cy: float, size: float) -> float:
    """Which way the die's sides run, in degrees (-45..45]: the turn for `cut` that sets the
    die square to the crop, so its marks (printed square to its sides) come out upright or
    a whole quarter turn off.

    Gradient directions are taken four times over (a square's four sides agree then) and
    averaged, weighed by strength, over a ring where the outline lies: the symbol in the
    middle would pull the other way (a diamond mark runs at 45 degrees to its die)."""
    grey = cv2.cvtColor(cut(frame, cx, cy, EDGE_SPAN * size, EDGE_SIDE), cv2.COLOR_BGR2GRAY).astype(np.float32)
    gx = cv2.Sobel(grey, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(grey, cv2.CV_32F, 0, 1, ksize=3)
    strength = np.hypot(gx, gy) * _edge_ring()
    phi = 4 * np.arctan2(gy, gx)
    return float(np.degrees(np.arctan2((strength * np.sin(phi)).sum(), (strength * np.cos(phi)).sum())) / 4)


def standardise_crops(crops: Sequence[np.ndarray]) -> np.ndarray:
    """Crops as the face and spike models take them: each to zero mean and unit spread,
    (N, 3, H, W) float32. All at once: crop by crop took four times as long (0.50 against
    0.13 ms for a spike frame's fifteen 32 x 32 crops), with the same numbers."""
    x = np.stack(crops).astype(np.float32)
    mean = x.mean((1, 2, 3), keepdims=True)
    spread = x.std((1, 2, 3), keepdims=True)
    return ((x - mean) / (spread + 8.0)).transpose(0, 3, 1, 2)


def standardise_crop(crop: np.ndarray) -> np.ndarray:
    """One crop as standardise_crops gives it, (3, H, W)."""
    return standardise_crops([crop])[0]


def _view(crop: np.ndarray, mirror: bool) -> np.ndarray:
    return crop[:, ::-1] if mirror else crop


def _doubted(p: np.ndarray, sure: float) -> np.ndarray:
    """Rows whose best class is under `sure` but at least LEANING: where settle may take
    the second model's reading."""
    best = p.max(1)
    return (best < sure) & (best >= LEANING)


def settle(p: np.ndarray, q: np.ndarray, sure: float = SECOND_LOOK) -> np.ndarray:
    """The face model's probabilities `p`, except for a crop it is unsure of (best class under
    `sure`, but at least LEANING) where the second opinion `q` names the same best class at
    SECOND_SURE or more: there `q` stands.

    The second model is the first trained on with more kinds of crops (photographed top
    faces on dice seen at an angle, board pieces), so it reads such dice surely where the
    first hesitates; alone it also misreads some surely. Taken only where the first leans
    the same way, a misreading needs both models to make it."""
    rescue = _doubted(p, sure) & (q.max(1) >= SECOND_SURE) & (p.argmax(1) == q.argmax(1))
    return np.where(rescue[:, None], q, p)


def first_reading(blob: np.ndarray) -> np.ndarray:
    """The face model's reading of each crop; where it reads pips under TWIN_BELOW, the mean
    of its and its twin's probabilities. The twin is the face model trained on again with
    other crops, taught to keep the face model's right readings, so the two agree on most
    dice; a die one of them doubts by the luck of its training, the mean doubts less. Crops
    read best as no die or as a die without pips keep the face model's reading: the rules
    for chance cubes and spike dice weigh its P(die) at cut-offs chosen with it alone. Most
    candidates are read at TWIN_BELOW or more, so the twin reads a few crops, not all."""
    p = networks.softmax(networks.run(MODEL, blob).astype(np.float64))
    best = p.argmax(1)
    ask = np.flatnonzero((p.max(1) < TWIN_BELOW) & (best != NOT_A_DIE) & (best != OTHER_DIE))
    if ask.size:
        p[ask] = (p[ask] + networks.softmax(networks.run(TWIN, blob[ask]).astype(np.float64))) / 2
    return p


def probabilities(blob: np.ndarray, sure: float) -> np.ndarray:
    """Both face models' reading of each crop, settled; the second model reads only the
    crops settle may take its reading for (the first unsure, but leaning)."""
    p = first_reading(blob)
    doubted = np.flatnonzero(_doubted(p, sure))
    if doubted.size:
        q = networks.softmax(networks.run(SECOND_OPINION, blob[doubted]).astype(np.float64))
        p[doubted] = settle(p[doubted], q, sure)
    return p


def agreeing_views(blob: np.ndarray, p: np.ndarray, sure: float) -> np.ndarray:
    """`p` (the settled reading of `blob`), except for a die the models are unsure of
    (best class under `sure`, and not NOT_A_DIE) whose crop, mirrored, with its light
    inverted, and both, reads as the same class in all four, and two of the four at
    `sure` or more: there the second surest stands. One view's glare or pixel grid keeps
    a face under `sure` that another reads surely; a die that any view reads otherwise
    keeps its doubt, and one sure view alone misreads too often to pass. The model was
    taught light dice with dark pips and dark dice with light ones, so the inverted crop
    is a die it knows; a standardised crop inverted is the crop negated."""
    unsure = np.flatnonzero((p.max(1) < sure) & (p.argmax(1) != NOT_A_DIE))
    if not unsure.size:
        return p
    b = blob[unsure]
    mirrored = b[..., ::-1]
    views = np.ascontiguousarray(np.concatenate([-b, mirrored, -mirrored]))
    stack = np.concatenate([p[unsure][None], probabilities(views, sure).reshape(3, len(unsure), -1)])
    classes = stack.argmax(2)
    second = stack[np.argsort(-stack.max(2), 0, kind="stable")[1], np.arange(len(unsure))]
    agreed = (classes == classes[0]).all(0) & (second.max(1) >= sure)
    p = p.copy()
    p[unsure[agreed]] = second[agreed]
    return p


def face_probabilities(frame: np.ndarray, candidates: Sequence[Candidate],
                       second_look: float = SECOND_LOOK) -> np.ndarray:
    """(N, 8) class probabilities, one row per candidate, as the two face models settle
    them (`settle`, with `second_look` as where the first is unsure), a die they doubt
    settled by its crop's other views where those agree (`agreeing_views`).

    A die still unsure (no class above `second_look`) is looked at again,
    mirrored, turned a little and a little larger and smaller, and
    the views' probabilities are averaged: one view's unlucky glare or pixel grid
    matters less, and views that disagree keep the confidence low. At most SECOND_LOOKS
    candidates get it, those least likely to be no die: on a speckled table the frame's
    own pixels give hundreds of candidates, most of them its grain, whose views would
    take seconds."""
    if not candidates:
        return np.zeros((0, 8), np.float32)
    blob = standardise_crops([cut(frame, c.cx, c.cy, CROP_FACTOR * c.size) for c in candidates])
    p = agreeing_views(blob, probabilities(blob, second_look), second_look)
    unsure = [i for i in range(len(candidates)) if p[i].max() < second_look]
    if len(unsure) > SECOND_LOOKS:
        unsure = sorted(sorted(unsure, key=lambda i: p[i][NOT_A_DIE])[:SECOND_LOOKS])
    if unsure:
        views = standardise_crops([_view(cut(frame, candidates[i].cx, candidates[i].cy,
                                                 CROP_FACTOR * candidates[i].size * s, angle=a), mirror)
                                   for i in unsure for a, s, mirror in LOOKS])
        q = probabilities(views, second_look).reshape(len(unsure), len(LOOKS), -1)
        for k, i in enumerate(unsure):
            p[i] = (p[i] + q[k].sum(0)) / (1 + len(LOOKS))
    return p.astype(np.float32)

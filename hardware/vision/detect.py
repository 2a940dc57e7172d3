"""Find dice: candidate centres and sizes from the centre-heatmap model.

The frame (or its ROI) is looked at as a pyramid: shrunk so its long side is WORK_SIDE
pixels, a half and a quarter of that (and, when the reader must look harder, at its own
pixels), each level standardised per channel with the working view's statistics (so table
colour and exposure matter less). The model marks die centres at stride 4; each level keeps
the dice of the sizes it sees well. Whether each candidate is really a die is settled later
by the face model and the scene checks in reader.py, throw.py and doubt.py.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Sequence

import cv2
import numpy as np

from hardware.vision import networks
from hardware.vision.pictures import region_of

WORK_SIDE = 384
STRIDE = 4
MODEL = "dice_centres.onnx"


@dataclass(frozen=True)
class Candidate:
    """A place that looks like a die: centre and size in full-image pixels, heatmap score."""

    cx: float
    cy: float
    size: float
    score: float

    def box(self, shape: tuple[int, ...]) -> tuple[int, int, int, int]:
        h, w = shape[:2]
        r = self.size / 2
        return (max(0, int(round(self.cx - r))), max(0, int(round(self.cy - r))),
                min(w - 1, int(round(self.cx + r))), min(h - 1, int(round(self.cy + r))))

    def middle(self, frame: np.ndarray, half: float, least: int = 1) -> np.ndarray:
        """The square of `frame` around the centre reaching `half` die sizes each way (at
        least `least` pixels), cut at the frame's edges: where a die's top face is."""
        r = max(least, int(self.size * half))
        x, y = int(self.cx), int(self.cy)
        return frame[max(0, y - r):y + r, max(0, x - r):x + r]


def standardise(img: np.ndarray, stats: tuple[np.ndarray, np.ndarray] | None = None) -> np.ndarray:
    """Per-channel zero mean, unit spread, as CHW float32 (the centre model was trained so).
    `stats` = (mean, std) to use instead of the picture's own."""
    mean, std = stats if stats is not None else cv2.meanStdDev(img)
    gain = 1.0 / (std.ravel() + 8.0)
    # one fused scale-and-shift per channel straight into float (a third of the time of a
    # blob, then a multiply)
    return np.stack([cv2.addWeighted(c, float(g), c, 0.0, -float(m * g), dtype=cv2.CV_32F)
                     for c, g, m in zip(cv2.split(img), gain, mean.ravel())])


def shrink(img: np.ndarray, nw: int, nh: int) -> np.ndarray:
    """Resize to nw x nh: halvings by pixel averaging, then a bilinear step of less than 2x.

    (A one-step area resize by a factor like 3.3 costs ~4 ms on a 1280x960 frame; this ~0.5 ms.)"""
    while img.shape[1] >= 2 * nw and img.shape[0] >= 2 * nh:
        h, w = img.shape[0] // 2 * 2, img.shape[1] // 2 * 2
        img = cv2.resize(img[:h, :w], (w // 2, h // 2), interpolation=cv2.INTER_AREA)
    return cv2.resize(img, (nw, nh), interpolation=cv2.INTER_LINEAR)


def level_view(frame: np.ndarray, scale: float) -> np.ndarray:
    """`frame` shrunk by about `scale`, to sides the centre model's strides divide."""
    h, w = frame.shape[:2]
    return shrink(frame, max(8, int(round(w * scale / 8)) * 8), max(8, int(round(h * scale / 8)) * 8))


def _peaks(small: np.ndarray, shape: tuple[int, ...], x0: float, y0: float, min_score: float,
           stats: tuple[np.ndarray, np.ndarray], pad: int = 0) -> list[Candidate]:
    """Run the centre model on `small`, a level_view of a picture of `shape` cut from the
    frame at (x0, y0); candidates in frame coordinates. `stats`: the colour statistics
    to standardise with. `pad`: pixels of plain border (the picture's mean colour) around
    the view, so a die that fills much of it lies on a table as the model learned dice do
    (a close-up)."""
    h, w = shape[:2]
    nh, nw = small.shape[:2]
    sx, sy = nw / w, nh / h
    if pad:
        mean = [float(v) for v in stats[0].ravel()]
        small = cv2.copyMakeBorder(small, pad, pad, pad, pad, cv2.BORDER_CONSTANT, value=mean)
    out = networks.run(MODEL, standardise(small, stats)[None])[0]
    heat = 1.0 / (1.0 + np.exp(-out[0]))
    peaks = (heat >= cv2.dilate(heat, np.ones((3, 3), np.uint8))) & (heat > min_score)
    found = []
    gys, gxs = np.nonzero(peaks)
    fxs, fys = _centroids(heat, gys, gxs)
    sizes = np.exp(out[1][gys, gxs])
    for gy, gx, fx, fy, size in zip(gys, gxs, fxs, fys, sizes):
        px, py = (fx + 0.5) * STRIDE - pad, (fy + 0.5) * STRIDE - pad
        if not (0 <= px < nw and 0 <= py < nh):
            continue  # on the border, not in the picture
        found.append(Candidate(px / sx + x0, py / sy + y0, float(size) / ((sx + sy) / 2), float(heat[gy, gx])))
    return found


_AROUND = np.mgrid[-1:2, -1:2].reshape(2, 1, 9)  # a cell's 3x3 neighbourhood, row by row


def _centroids(heat: np.ndarray, gys: np.ndarray, gxs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each peak's centre: the heat-weighted mean of its 3x3 neighbourhood (cut at the
    heatmap's edges), in heatmap cells. All inner peaks at once, the few on an edge one by
    one (a speckled frame's finest level has a thousand peaks)."""
    gh, gw = heat.shape
    fx, fy = np.empty(len(gys)), np.empty(len(gys))
    inner = (gys > 0) & (gys < gh - 1) & (gxs > 0) & (gxs < gw - 1)
    yy, xx = gys[inner, None] + _AROUND[0], gxs[inner, None] + _AROUND[1]
    patch = heat[yy, xx]
    fx[inner] = (xx * patch).sum(1) / patch.sum(1)
    fy[inner] = (yy * patch).sum(1) / patch.sum(1)
    for i in np.flatnonzero(~inner):
        gy, gx = gys[i], gxs[i]
        ya, yb, xa, xb = max(0, gy - 1), min(gh, gy + 2), max(0, gx - 1), min(gw, gx + 2)
        patch = heat[ya:yb, xa:xb]
        yy, xx = np.mgrid[ya:yb, xa:xb]
        fx[i] = (xx * patch).sum() / patch.sum()
        fy[i] = (yy * patch).sum() / patch.sum()
    return fx, fy


# Die sizes, in a level's pixels, that the centre model finds well (it was trained on 9-48):
# under 12, specks of a speckled table are taken for dice; those dice are found a level up.
LEVEL_BAND = (12.0, 44.0)
LEVEL_TARGET = 22.0  # a calibrated die is read at this size
# Levels further apart than the band spans (44 / 12) would leave die sizes no level finds;
# this keeps a margin for the model's error in a die's size.
LEVEL_STEP = 3.0
MIN_LEVEL_SIDE = 64  # a level smaller than this on its long side shows nothing
NESTED = 1.6  # a candidate this much bigger than one inside it holds it (a pip, or a cluster)
GROUP_NEAR = 0.75  # candidates whose centres lie nearer than this times their sizes added are one group


def level_scales(long_side: int, die_px: float | None = None, finest: bool = False,
                 halfway: bool = False) -> tuple[float, ...]:
    """The pyramid's levels, as scales of the frame (or ROI), biggest first.

    The centre model finds dice of about LEVEL_BAND pixels of its input; levels a factor of
    two apart cover every size between them. Without a calibrated die size the levels are
    the working size (WORK_SIDE on the long side), a half and a quarter of it: dice from
    LEVEL_BAND[0] working pixels (about 40 px of a 1280x960 frame) up to half the picture.
    `finest` adds the frame's own pixels (dice down to about a dozen pixels), and levels
    between them and the working size, which a look that must try harder pays for;
    `halfway` those between levels only, short of the frame's own pixels (the costliest
    level: a 1280x960 frame's is ten times the working view).
    With the die size known (`die_px`, frame pixels), one level puts it at LEVEL_TARGET."""
    base = WORK_SIDE / long_side
    top = max(1.0, base)  # never enlarge a frame, but read a small one at the working size
    if die_px:
        return (min(top, LEVEL_TARGET / die_px),)
    scales = {min(top, base * f) for f in (1.0, 0.5, 0.25)}
    if finest and top > base:
        steps = math.ceil(math.log(top / base) / math.log(LEVEL_STEP) - 1e-9)
        scales.update(base * (top / base) ** (k / steps) for k in range(1, steps + (0 if halfway else 1)))
    return tuple(sorted((s for s in scales if long_side * s >= MIN_LEVEL_SIDE), reverse=True))


def has_halfway(frame: np.ndarray, roi: tuple[int, int, int, int] | None = None) -> bool:
    """Whether the frame (or ROI) has levels between the working view and its own pixels
    (over three times the working size): else a halfway look would look as the first did."""
    h, w = region_of(frame, roi)[0].shape[:2]
    return level_scales(max(h, w), finest=True, halfway=True) != level_scales(max(h, w))


def find_candidates(frame: np.ndarray, roi: tuple[int, int, int, int] | None = None,
                    min_score: float = 0.2, die_px: float | None = None, finest: bool = False,
                    levels: dict | None = None, halfway: bool = False) -> list[Candidate]:
    """Die candidates in full-frame pixels, from a pyramid of the frame (or ROI).

    Each level keeps the candidates whose size is in the model's band at that level (the
    coarsest also bigger ones; smaller ones are specks or pips, or dice a finer level
    finds; with `finest` it keeps its whole band). Of two candidates for one die (found
    at two levels), the surer stays; one much smaller inside another is left for the
    reader to judge (`inside`). `levels`: a dict kept between looks at one frame, so a
    level already run is not run again. `halfway`: with `finest`, short of the frame's
    own pixels (`level_scales`)."""
    frame, x0, y0 = region_of(frame, roi)
    h, w = frame.shape[:2]
    scales = level_scales(max(h, w), die_px, finest, halfway)
    base = WORK_SIDE / max(h, w)
    working = level_view(frame, base)  # the working view: its colours standardise every level
    stats = cv2.meanStdDev(working)
    found: list[Candidate] = []
    for i, scale in enumerate(scales):
        coarsest = i == len(scales) - 1 and i > 0
        key = (scale, min_score)
        if levels is not None and key in levels:
            level = levels[key]
        else:
            # the coarsest level shows a die as big as half the picture: framed in a plain
            # border, it lies on a table as the model learned dice do
            pad = int(round(max(h, w) * scale / 4 / STRIDE)) * STRIDE if coarsest else 0
            small = working if scale == base else level_view(frame, scale)
            level = _peaks(small, frame.shape, x0, y0, min_score, stats, pad)
            if levels is not None:
                levels[key] = level
        lo, hi = LEVEL_BAND
        if coarsest:  # the dice too big for the level above it; a look that must try harder,
            # its whole band too: a close die seen from the side, three faces showing, is
            # found whole there where the level above finds its top face or a pip
            lo, hi = (LEVEL_BAND[0] if finest else LEVEL_BAND[1] * scale / scales[i - 1]), np.inf
        found += [c for c in level if lo <= c.size * scale <= hi]
    found.sort(key=lambda c: -c.score)
    return distinct(found, lambda c: c.score)


def same_die(die: Candidate, x, y, size):
    """Whether each candidate at (x, y, size) (arrays, or one candidate's numbers) is `die`:
    about one size at about one place, one die found at two levels. (One much smaller
    inside the other is its pip, or a die of a cluster the bigger one takes for one die: the
    face model tells which, in reader.find_dice.) All at once: a speckled frame's finest
    level gives hundreds of candidates."""
    big, small = np.maximum(size, die.size), np.minimum(size, die.size)
    return (np.hypot(x - die.cx, y - die.cy) < 0.5 * big) & (big < NESTED * small)


def held_by(big: Candidate, x, y, size):
    """Whether each candidate at (x, y, size) (arrays, or one candidate's numbers) lies in
    `big`'s top face and is much smaller: a mark of it, or one of dice that `big` wrongly
    takes together. All at once, as `same_die`."""
    return (big.size >= NESTED * size) & (np.hypot(x - big.cx, y - big.cy) < 0.5 * big.size)


def inside(small: Candidate, big: Candidate) -> bool:
    """`small` is `held_by` `big`."""
    return bool(held_by(big, small.cx, small.cy, small.size))


def whole_of_groups(cands: Sequence[Candidate]) -> list[Candidate]:
    """For each group of two or more candidates lying together (centres nearer than
    GROUP_NEAR times their sizes added, one to the next), one candidate boxing the group
    (scored as its surest): a die much bigger than the centre model learned is found as its
    parts, its pips and faces, and this is the die whole. The face model tells which it is."""
    top = list(range(len(cands)))

    def root(i: int) -> int:
        while top[i] != i:
            i = top[i]
        return i

    x, y, size = places(cands)  # a row of pairs at once: a speckled frame has hundreds of candidates
    for a in range(len(cands)):
        near = np.hypot(x[a] - x[a + 1:], y[a] - y[a + 1:]) < GROUP_NEAR * (size[a] + size[a + 1:])
        for b in np.flatnonzero(near) + a + 1:
            top[root(a)] = root(b)
    groups: dict[int, list[Candidate]] = {}
    for i, c in enumerate(cands):
        groups.setdefault(root(i), []).append(c)
    whole = []
    for g in (g for g in groups.values() if len(g) > 1):
        x0, y0 = min(c.cx - c.size / 2 for c in g), min(c.cy - c.size / 2 for c in g)
        x1, y1 = max(c.cx + c.size / 2 for c in g), max(c.cy + c.size / 2 for c in g)
        whole.append(Candidate((x0 + x1) / 2, (y0 + y1) / 2, max(x1 - x0, y1 - y0), max(c.score for c in g)))
    return whole


def places(cands: Sequence[Candidate]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The candidates' centres and sizes as arrays (x, y, size), for tests over all at once."""
    a = np.array([(c.cx, c.cy, c.size) for c in cands], dtype=np.float64).reshape(-1, 3)
    return a[:, 0], a[:, 1], a[:, 2]


def distinct(cands: Sequence[Candidate], surer: Callable[[Candidate], float]) -> list[Candidate]:
    """One candidate for each die: of candidates that are `same_die`, the one `surer` ranks
    highest (the first, of equals); the rest go, and those kept keep their order."""
    x, y, size = places(cands)
    kept = np.zeros(len(cands), dtype=bool)
    for i in sorted(range(len(cands)), key=lambda i: -surer(cands[i])):
        kept[i] = not same_die(cands[i], x[kept], y[kept], size[kept]).any()
    return [c for c, k in zip(cands, kept) if k]

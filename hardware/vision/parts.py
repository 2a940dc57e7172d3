"""A die read as a one or a two that may be a piece of a bigger die.

A corner of a big die's top face, found alone (its die missed), shows one or two pips and
is read as a one or a two, sometimes surely. Seen grown a few times and moved a quarter of
that off its centre (where a die's pips lie from its middle), such a piece shows its whole
die, and the face models read the die's own face there. A real one or two seen so shows
itself small and off centre, which they read as no die or, now and then, as some face
in one such view; so a piece needs several views to agree on one bigger value
(`bigger_die`).

A close die seen from the side (three faces showing, in shadow) may be found whole and
read unsurely while one of its pips, found too, is read surely as a one: the finder's own
box of the whole die then names the piece (`piece_of_found`).

The other way round, a plain patch holding one die (a tray, a sheet of paper, a stretch of
table or board) looks like a big die showing a one, the die its pip, and is read as one,
sometimes surely; the die itself, found and read too, shows pips of its own, which no pip
does (`die_inside`). A die of 12-16 px on such a patch may not be found at all: the one's
pips are then boxed and read as dice themselves (`pips_as_dice`).
"""

from __future__ import annotations

from typing import Sequence

import cv2
import numpy as np

from hardware.vision.detect import Candidate
from hardware.vision.faces import CROP_FACTOR, cut, probabilities, standardise_crops
from hardware.vision.throw import SURE_DIE, away_from, p_die, reads_pips
from hardware.vision.values import face_level, pip_confidence, pip_value

PIECES = (1, 2)  # the values a piece of a bigger die's face is read as
# The bigger die's size, in times the piece's. The first is read first: when none of its
# views reads a bigger face surely, the rest are not read (the time goes to real ones).
GROWN = (2.6, 2.0, 3.2)
OFF = 0.25  # how far off the piece the bigger die's centre is looked for, in its sizes
AGREE = 2  # views that must read the same bigger value surely
# Among other dice, a piece is smaller than they are: only a one or a two under this many
# times the others' median size is looked at (a crowded tray's ones and twos are not).
PIECE_SIZE = 0.8
# A die's size, in times a piece's, as the finder boxes both (a pip, a corner of the face).
PIECE_OF = (2.0, 4.5)
# die_inside: a die read inside a one, at most INSIDE_SIZE times its size and within
# INSIDE of its size from its centre (where a one's pip lies).
INSIDE_SIZE, INSIDE = 0.5, 0.15
# pips_as_dice: the least a one's pip may be across, in pixels, to be looked at as a die
# (the finder's smallest dice), and the sizes it is read at, in times its blob's.
PIP_DIE_PX = 9
PIP_DIE_SIZES = (1.0, 1.3)
PIP_BLOBS = 3
# A small die on a plain patch lies wherever it lies on it, not only where a pip would.
PIP_OFF = 0.25
# Under this share of a one's box across, a blob read as a die with pips, its likeliest
# value at PIP_EVEN or more however unsure, overrules the one (a one's pip is mostly
# bigger; a small one under noise reads as pips, but no number of them at even odds).
PIP_SMALL, PIP_EVEN = 0.14, 0.5


def _views(piece: Candidate, others: Sequence[Candidate],
           grown: Sequence[float] = GROWN) -> list[tuple[float, float, float]]:
    """(cx, cy, size) of the bigger dice the piece may belong to: each `grown` size, moved
    OFF of it in each of the eight directions; none whose crop reaches another die of the
    reading (a die's face holds no other die, and at a few times their size, dice lying
    together look like pips)."""
    out = []
    for k in grown:
        size = k * piece.size
        reach = CROP_FACTOR * size / 2
        for dx in (-1, 0, 1):
            for dy in (-1, 0, 1):
                cx, cy = piece.cx + dx * OFF * size, piece.cy + dy * OFF * size
                if (dx or dy) and all(max(abs(cx - o.cx), abs(cy - o.cy)) >= reach + o.size / 2 for o in others):
                    out.append((cx, cy, size))
    return out


def bigger_die(frame: np.ndarray, dice: Sequence[Candidate], values: Sequence[int],
               confidences: Sequence[float], min_confidence: float) -> tuple[int, int] | None:
    """(index, bigger value) of the first die of a pip reading, read surely as a one or a
    two (alone, or smaller than the other dice), that AGREE or more views of a bigger die
    around it read surely as one value above its own; None when there is none."""
    for i, (c, v, conf) in enumerate(zip(dice, values, confidences)):
        others = [d for j, d in enumerate(dice) if j != i]
        if v not in PIECES or conf < min_confidence or (
                others and c.size >= PIECE_SIZE * float(np.median([d.size for d in others]))):
            continue
        seen = _bigger(frame, _views(c, others, GROWN[:1]), v, min_confidence)
        if seen:
            seen += _bigger(frame, _views(c, others, GROWN[1:]), v, min_confidence)
            w = max(set(seen), key=seen.count)
            if seen.count(w) >= AGREE:
                return i, w
    return None


def _bigger(frame, views, value: int, min_confidence: float) -> list[int]:
    """The faces above `value` that `views` read surely, one for each view that does."""
    if not views:
        return []
    seen = []
    for p in probabilities(standardise_crops(_crops(frame, views)), face_level("pips", min_confidence)):
        w, q = pip_value(p)
        if reads_pips(p) and w > value and pip_confidence(q) >= min_confidence:
            seen.append(w)
    return seen


def _crops(frame: np.ndarray, views) -> list[np.ndarray]:
    """The views' crops, as the face models read a die."""
    return [cut(frame, x, y, CROP_FACTOR * s) for x, y, s in views]


def piece_of_found(dice: Sequence[Candidate], values: Sequence[int], found: dict[Candidate, np.ndarray],
                   keep_score: float) -> tuple[int, int] | None:
    """(index, bigger value) of the first die read as a one or a two that another box the
    finder found overlaps, PIECE_OF times its size and over no other die of the reading (a
    box over two dice is a group), the centre model at least as sure of it (and at least
    `keep_score`), whose likeliest number of pips is bigger, however unsure the face models
    are that it is a die: the piece's own die, read unsurely (seen from the side). `found`:
    the finder's boxes read at this frame, with their face probabilities; None when there
    is none."""
    for i, (d, v) in enumerate(zip(dice, values)):
        if v not in PIECES:
            continue
        for c, p in found.items():
            if (c.score >= max(keep_score, d.score) and PIECE_OF[0] * d.size <= c.size <= PIECE_OF[1] * d.size
                    and _over(c, d) and not any(_over(c, o) for j, o in enumerate(dice) if j != i)
                    and (bigger := pip_value(p)[0]) > v):
                return i, bigger
    return None


def _over(c: Candidate, d: Candidate) -> bool:
    """Whether the boxes of c and d overlap."""
    reach = (c.size + d.size) / 2
    return abs(c.cx - d.cx) < reach and abs(c.cy - d.cy) < reach


def die_inside(dice: Sequence[Candidate], probs: np.ndarray, read: dict[Candidate, np.ndarray],
               min_confidence: float, blobs: dict[int, Sequence[Candidate]] | None = None) -> dict[int, Candidate]:
    """{index: the die inside it} for each die of a pip reading read as a one whose middle
    holds a die read surely as two to six pips (`read`: every candidate the face models
    read at this frame, with their probabilities): the one is a plain patch holding that
    die, and the die stands in its place. Of several, the surest; none that lies on another
    die of the reading. `blobs`: die i's pips boxed as dice (`pips_as_dice`), read too,
    which may lie up to PIP_OFF of its size from its centre; one under PIP_SMALL of its
    size, surely a die showing two to six pips and its value at PIP_EVEN or more, stands in
    however unsure (the reading is then held for that die, not scored as a one). A bigger
    blob may be the one's own pip, which noise can make look like a die: it stands in only
    when read surely."""
    out: dict[int, Candidate] = {}
    for i, (d, p) in enumerate(zip(dice, probs)):
        if pip_value(p)[0] != 1:
            continue
        others = [o for j, o in enumerate(dice) if j != i]
        own = set((blobs or {}).get(i, ()))
        best = None
        for c, q in read.items():
            conf = pip_value(q)[1]
            reach = PIP_OFF if c in own else INSIDE
            if (c.size <= INSIDE_SIZE * d.size and max(abs(c.cx - d.cx), abs(c.cy - d.cy)) <= reach * d.size
                    and _pips_of_die(q) is not None
                    and ((c in own and c.size < PIP_SMALL * d.size and conf >= PIP_EVEN)
                         or pip_confidence(conf) >= min_confidence)
                    and not any(_over(c, o) for o in others)
                    and (best is None or conf > best[0])):
                best = (conf, c)
        if best is not None:
            out[i] = best[1]
    return out


def pips_as_dice(frame: np.ndarray, one: Candidate) -> list[Candidate]:
    """The blobs in the middle of a die read as a one, boxed as dice: the parts unlike the
    box's median colour (CIELAB distance, cut at Otsu's level and at least half the
    farthest, after a 3 x 3 median for specks), whole within the box, within PIP_OFF of its
    size from its centre, PIP_DIE_PX to INSIDE_SIZE of it across; nearest first, at most
    PIP_BLOBS. The finder may miss a small die on a plain patch (its pyramid takes it for
    the patch's pip); read as a die, it shows pips of its own, which a one's pip does not."""
    half = int(one.size * (PIP_OFF + INSIDE_SIZE / 2))
    x0, y0 = int(one.cx) - half, int(one.cy) - half
    if x0 < 0 or y0 < 0 or x0 + 2 * half > frame.shape[1] or y0 + 2 * half > frame.shape[0] or half < PIP_DIE_PX:
        return []
    patch = cv2.medianBlur(frame[y0:y0 + 2 * half, x0:x0 + 2 * half], 3)
    lab = cv2.cvtColor(patch, cv2.COLOR_BGR2LAB).astype(np.float32)
    far = np.linalg.norm(lab - np.median(lab.reshape(-1, 3), 0), axis=2)
    if far.max() < 1:
        return []
    level, _ = cv2.threshold(np.uint8(255 * far / far.max()), 0, 255, cv2.THRESH_BINARY | cv2.THRESH_OTSU)
    mask = (far >= max(level / 255, 0.5) * far.max()).astype(np.uint8)
    n, _, stats, _ = cv2.connectedComponentsWithStats(mask)
    found = []
    for k in range(1, n):
        x, y, w, h = stats[k, :4]
        off = float(max(abs(x + w / 2 - half), abs(y + h / 2 - half)))
        if (x > 0 and y > 0 and x + w < 2 * half and y + h < 2 * half and off <= PIP_OFF * one.size
                and PIP_DIE_PX <= max(w, h) <= INSIDE_SIZE * one.size):
            found.append((off, Candidate(x0 + x + w / 2, y0 + y + h / 2, float(max(w, h)), one.score)))
    return [c for _, c in sorted(found, key=lambda t: t[0])[:PIP_BLOBS]]


def _pips_of_die(p: np.ndarray) -> int | None:
    """The number of pips (two to six) of a view the face models take surely for a die
    showing pips; None for any other view."""
    v = pip_value(p)[0]
    return v if v >= 2 and reads_pips(p) and p_die(p) >= SURE_DIE else None


def dice_inside(dice: list[Candidate], probs: np.ndarray, doubtful: list, read: dict[Candidate, np.ndarray],
                min_confidence: float, frame: np.ndarray | None = None):
    """(dice, probs, doubtful) with each die_inside standing in its patch's place (none of
    the doubtful candidates left at a die's place), or None when there is none. With the
    frame, each one's pips are first boxed as dice (`pips_as_dice`) and viewed at
    PIP_DIE_SIZES times the blob (a blob may hold only part of its die, or its shadow too),
    read by the face models alone (no second look: most are pips, read as no die); one
    whose every view they take surely for a die showing one number of pips is read as
    their mean."""
    blobs: dict[int, list[Candidate]] = {}
    seen_as_dice: dict[Candidate, np.ndarray] = {}  # the blobs' readings, for this rule alone
    if frame is not None:
        found = [(i, g) for i, (d, p) in enumerate(zip(dice, probs)) if pip_value(p)[0] == 1
                 for g in pips_as_dice(frame, d)]
        if found:
            views = [(g.cx, g.cy, g.size * k) for _, g in found for k in PIP_DIE_SIZES]
            seen = probabilities(standardise_crops(_crops(frame, views)), face_level("pips", min_confidence))
            seen = seen.reshape(len(found), len(PIP_DIE_SIZES), -1)
            for (i, g), q in zip(found, seen):
                if len(named := {_pips_of_die(v) for v in q}) == 1 and None not in named:
                    blob = Candidate(g.cx, g.cy, g.size * float(np.mean(PIP_DIE_SIZES)), g.score)
                    seen_as_dice[blob] = q.mean(0)  # every view surely a die with one number of pips
                    blobs.setdefault(i, []).append(blob)
    read = {**read, **seen_as_dice} if seen_as_dice else read
    inside = die_inside(dice, probs, read, min_confidence, blobs)
    if not inside:
        return None
    dice, probs = [inside.get(i, c) for i, c in enumerate(dice)], probs.copy()
    for i, c in inside.items():
        probs[i] = read[c]
    return dice, probs, away_from(doubtful, dice)


def piece_of_bigger(frame: np.ndarray, dice: Sequence[Candidate], values: Sequence[int],
                    confidences: Sequence[float], min_confidence: float, memo: dict,
                    keep_score: float) -> tuple[int, int] | None:
    """A die of a pip reading that is a piece of a bigger die: (index, the bigger die's
    value). `memo`: the reader's record of one frame (its levels' boxes, the faces read)."""
    boxed = {c for level in memo.get("levels", {}).values() for c in level}  # the finder's own, read
    found = {c: p for c, p in memo.get("faces", {}).items() if c in boxed}
    return (piece_of_found(dice, values, found, keep_score)
            or bigger_die(frame, dice, values, confidences, min_confidence))

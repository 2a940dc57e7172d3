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
does (`die_inside`).
"""

from __future__ import annotations

from typing import Sequence

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
               min_confidence: float) -> dict[int, Candidate]:
    """{index: the die inside it} for each die of a pip reading read as a one whose middle
    holds a die read surely as two to six pips (`read`: every candidate the face models
    read at this frame, with their probabilities): the one is a plain patch holding that
    die, and the die stands in its place. Of several, the surest; none that lies on another
    die of the reading."""
    out: dict[int, Candidate] = {}
    for i, (d, p) in enumerate(zip(dice, probs)):
        if pip_value(p)[0] != 1:
            continue
        others = [o for j, o in enumerate(dice) if j != i]
        best = None
        for c, q in read.items():
            v, conf = pip_value(q)
            if (c.size <= INSIDE_SIZE * d.size and max(abs(c.cx - d.cx), abs(c.cy - d.cy)) <= INSIDE * d.size
                    and v >= 2 and reads_pips(q) and p_die(q) >= SURE_DIE and pip_confidence(conf) >= min_confidence
                    and not any(_over(c, o) for o in others)
                    and (best is None or conf > best[0])):
                best = (conf, c)
        if best is not None:
            out[i] = best[1]
    return out


def dice_inside(dice: list[Candidate], probs: np.ndarray, doubtful: list, read: dict[Candidate, np.ndarray],
                min_confidence: float):
    """(dice, probs, doubtful) with each die_inside standing in its patch's place (none of
    the doubtful candidates left at a die's place), or None when there is none."""
    inside = die_inside(dice, probs, read, min_confidence)
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

"""read_dice: find every die in a frame, read its top face, and say when not to trust it.

Stages (each timed when a `timings` dict is passed): find (centre model), faces (face
model: is it a die, and its pips), value (pips / chance colour / spike match), checks.
"""

from __future__ import annotations

import time
from typing import Iterable, Sequence

import numpy as np

from hardware.vision import chance, spike
from hardware.vision.detect import WORK_SIDE, Candidate, find_candidates
from hardware.vision.faces import NOT_A_DIE, OTHER_DIE, SECOND_LOOK, face_probabilities
from hardware.vision.pictures import region_of
from hardware.vision.reading import DieReading, Reading, UnreadableFrame
from hardware.vision.ready import EmptyTable
from hardware.vision.spike import SpikeProfile, SpikeProfileError

DICE_KINDS = ("pips", "chance", "spike")
KEEP_SCORE = 0.40  # centre-model peak needed to count a die
KEEP_DIE = 0.5  # face-model belief that a die is centred there
DOUBT_SCORE = 0.30  # below KEEP but above these: something die-like we cannot confirm
DOUBT_DIE = 0.25
# A doubtful candidate beside a die that was read, which the face model does not believe to
# be a die (under PART_DIE), is part of that die: its front face on a tilted camera, its
# shadow. On the benchmark's sets and their shifted reads, the missed dice that were doubtful
# lay 0.64-0.77 die sizes from a read die, and the face model gave them 0.89-0.998; the
# doubtful front faces, shadows and cloth spots beside a die 0.46-0.69 (one spot 0.91, which
# still flags), at 0.35-1.1 die sizes. 0.9, set from the plain reads first, let a shifted
# read's missed die at 0.89 through silently.
PART_NEAR = 1.2
PART_DIE = 0.8
MAX_DICE = 40
# Dice smaller than this many pixels at the centre model's working size (the view or ROI
# shrunk to WORK_SIDE on its long side) are often missed, silently when they touch: on
# rendered scenes given wide margins of table, 5 of 20 reads with dice of 6-9 working
# pixels were wrong and unflagged (none of the dataset's own scenes is that small).
MIN_DIE_PX = 9.0
PIP_BLANK = 0.5  # see pip_value
MIN_FRAME_SIDE = 16  # pixels; a smaller picture cannot show a die


def check_frame(frame: object) -> np.ndarray:
    if not isinstance(frame, np.ndarray) or frame.ndim != 3 or frame.shape[2] != 3:
        shape = getattr(frame, "shape", None)
        raise UnreadableFrame(f"expected a colour picture (height x width x 3), got {shape or type(frame).__name__}")
    if min(frame.shape[:2]) < MIN_FRAME_SIDE:
        h, w = frame.shape[:2]
        raise UnreadableFrame(f"the picture is {w}x{h} pixels: too small to show a die "
                              f"(at least {MIN_FRAME_SIDE} pixels each way)")
    if frame.dtype != np.uint8:
        frame = np.clip(frame, 0, 255).astype(np.uint8)
    return frame


def _where(c: Candidate) -> str:
    return f"({int(c.cx)},{int(c.cy)})"


def _overlapping(dice: Sequence[Candidate]) -> tuple[Candidate, Candidate] | None:
    """Two dice closer than dice can lie side by side: stacked, cocked, or one found twice.
    Also a die whose centre lies well inside a larger one's top face: on an over-exposed
    picture, where a white die's outline washes into a light table, one of its pips was
    taken for a small die of its own, read 1 and sure (the benchmark's `bright` shift:
    matteop 6 -> 3 silent of 310, none of the plain and eight shifted rows changed)."""
    for i, a in enumerate(dice):
        for b in dice[i + 1:]:
            apart = np.hypot(a.cx - b.cx, a.cy - b.cy)
            if apart < 0.55 * min(a.size, b.size) or apart < 0.5 * max(a.size, b.size):
                return a, b
    return None


def find_dice(frame: np.ndarray, roi=None, timings: dict | None = None, second_look: float = SECOND_LOOK):
    """(kept candidates, their face probabilities, doubtful candidates).
    Candidates the face model is less sure of than `second_look` are looked at again."""
    t0 = time.perf_counter()
    cands = find_candidates(frame, roi, min_score=DOUBT_SCORE)
    t1 = time.perf_counter()
    probs = face_probabilities(frame, cands, second_look)
    t2 = time.perf_counter()
    if timings is not None:
        timings["find"] = timings.get("find", 0.0) + (t1 - t0) * 1000
        timings["faces"] = timings.get("faces", 0.0) + (t2 - t1) * 1000
    kept, kept_p, doubtful = [], [], []
    h, w = frame.shape[:2]
    x0, y0, x1, y1 = roi if roi is not None else (0, 0, w, h)
    for c, p in zip(cands, probs):
        die = 1.0 - float(p[NOT_A_DIE])
        if c.score >= KEEP_SCORE and die >= KEEP_DIE:
            kept.append(c)
            kept_p.append(p)
        elif c.score >= KEEP_SCORE and die >= DOUBT_DIE or c.score >= DOUBT_SCORE and die >= KEEP_DIE:
            # Something cut by the edge of the view is outside the play area, not a die to read.
            r = c.size / 2
            if c.cx - r > x0 and c.cy - r > y0 and c.cx + r < x1 and c.cy + r < y1:
                doubtful.append((c, die))
    doubtful = [c for c, die in doubtful if die >= PART_DIE or not _beside(c, kept)]
    return kept, np.array(kept_p).reshape(-1, 8), doubtful


def _beside(c: Candidate, dice: Sequence[Candidate]) -> bool:
    """Whether c lies within PART_NEAR die sizes of one of the dice."""
    return any(np.hypot(c.cx - d.cx, c.cy - d.cy) < PART_NEAR * d.size for d in dice)


def read_dice(frame_bgr: np.ndarray, dice: str = "pips", *, profile: SpikeProfile | None = None,
              roi: tuple[int, int, int, int] | None = None, min_confidence: float = 0.80,
              empty_table: EmptyTable | None = None, occluder_fraction: float = 0.12,
              timings: dict | None = None) -> Reading:
    """Read every die in the frame. Raises UnreadableFrame for a non-picture.

    With the calibrated `empty_table`, a read where one thing unlike the table covers more
    than `occluder_fraction` of the view (a hand, the cup) is flagged, its dice still read."""
    if dice not in DICE_KINDS:
        raise ValueError(f"dice must be one of {', '.join(DICE_KINDS)}, not {dice!r}")
    if dice == "spike" and (profile is None or not profile.taught):
        raise SpikeProfileError("reading spike dice needs a taught profile (companion teach spike)")
    frame = check_frame(frame_bgr)
    kept, probs, doubtful = find_dice(frame, roi, timings, min_confidence)
    t0 = time.perf_counter()
    values, confidences = _values(frame, kept, probs, dice, profile)
    t1 = time.perf_counter()
    order = sorted(range(len(kept)), key=lambda i: (kept[i].cx, kept[i].cy))
    readings = tuple(DieReading(values[i], kept[i].box(frame.shape), confidences[i]) for i in order)
    h, w = region_of(frame, roi)[0].shape[:2]
    untaught = profile.untaught if dice == "spike" else ()
    covered = empty_table.covered(frame) if empty_table is not None else None
    occluded = covered is not None and covered > occluder_fraction
    reason = _doubt(kept, values, confidences, doubtful, min_confidence, WORK_SIDE / max(h, w), untaught, occluded)
    if timings is not None:
        timings["value"] = timings.get("value", 0.0) + (t1 - t0) * 1000
        timings["checks"] = timings.get("checks", 0.0) + (time.perf_counter() - t1) * 1000
    return Reading(readings, flagged=reason is not None, reason=reason)


def pip_value(p: np.ndarray) -> tuple[int, float]:
    """(pips, confidence) from the face model's eight probabilities, on a table of pip dice.

    The model also knows dice without pips (chance cubes, symbol dice), and a lone central
    pip looks like their central marks: on the rendered pip scenes a clear one-pip face
    gave 15% of its probability to "no pips" on average. A pip table has no such dice, so
    that share is set aside and the pips are weighed among themselves (the doubt that
    this is a die at all is kept). When "no pips" is the most of it (PIP_BLANK), the face
    is washed out or not a pip die, and the pips' own small share is left as it is."""
    v = int(np.argmax(p[1:7])) + 1
    blank = float(p[OTHER_DIE])
    return v, float(p[v]) if blank >= PIP_BLANK else float(p[v]) / (1.0 - blank)


def _values(frame, kept, probs, dice, profile):
    values: list = []
    confidences: list[float] = []
    spikes = iter(spike.match_all(frame, kept, profile)) if dice == "spike" else None
    for c, p in zip(kept, probs):
        die = 1.0 - float(p[NOT_A_DIE])
        if dice == "pips":
            v, conf = pip_value(p)
            values.append(v)
            confidences.append(conf)
        elif dice == "chance":
            v, margin = chance.red_or_blue(frame, c)
            values.append(v)
            confidences.append(margin * die)
        else:
            v, conf = next(spikes)
            values.append(v)
            confidences.append(conf * die)
    return values, confidences


def _doubt(kept, values, confidences, doubtful, min_confidence, work_scale, untaught=(), occluded=False) -> str | None:
    """The first reason not to trust this reading, in words a player can act on."""
    if not kept:
        return "no dice found: is the cup still over them, or the table out of view?"
    if occluded:
        return ("something big is over the table (a hand, the cup?), so dice under it may be missed: clear "
                "the view and read again; if the table is clear, the camera or the way the light falls has "
                "changed since the empty-table photo: take it again (host panel, Camera set-up, or "
                "companion calibrate --empty-table)")
    if untaught:
        # A die showing a face the profile never saw is read as the nearest taught face,
        # and on spike-A that was sure (>= 0.8) for about half of such dice: the glyphs of
        # one set look alike to the embedding. So a partial profile never gives a clean read.
        listed = ", ".join(map(str, untaught))
        if len(untaught) == 1:
            return (f"the spike profile has not been taught face {listed} yet, so a die showing it "
                    f"would be misread: teach it (companion teach spike --face {listed})")
        return (f"the spike profile has not been taught faces {listed} yet, so a die showing one "
                f"would be misread: teach them (companion teach spike --face {untaught[0]})")
    if len(kept) > MAX_DICE:
        return f"{len(kept)} dice is more than a table uses: something else looks like dice"
    if np.median([c.size for c in kept]) * work_scale < MIN_DIE_PX:
        return ("the dice look very small, so some may be missed: bring the camera lower "
                "or set the table region (companion calibrate)")
    pair = _overlapping(kept)
    if pair:
        return f"dice at {_where(pair[0])} and {_where(pair[1])} overlap: stacked or cocked? please check"
    for c, v, conf in sorted(zip(kept, values, confidences), key=lambda t: t[2]):
        if conf < min_confidence:
            return f"die at {_where(c)} is unclear (maybe {v}): please check it"
        break
    if doubtful:
        return f"something at {_where(doubtful[0])} may be a die I cannot read: please check"
    return None


def spike_lesson(frame: np.ndarray, roi=None) -> tuple[list[np.ndarray], list[tuple[int, int, int, int]]]:
    """What one teaching picture teaches: a crop of every die seen (inside `roi`, if given),
    as the profile keeps them, and each die's box, to show the table which dice were taken."""
    frame = check_frame(frame)
    kept, _, _ = find_dice(frame, roi)
    if not kept:
        raise UnreadableFrame("no die found in a teaching picture: put the dice on a plain surface in good light")
    return [p for c in kept for p in spike.face_pictures(frame, c)], [c.box(frame.shape) for c in kept]


def teach_spike(profile: SpikeProfile, face: int, frames: Iterable[np.ndarray],
                roi=None) -> tuple[SpikeProfile, int]:
    """Add every die seen in the frames (inside `roi`, if given) as an example of `face`;
    returns the profile and how many were added."""
    examples = []
    for frame in frames:
        examples += spike_lesson(frame, roi)[0]
    return profile.with_examples(face, examples), len(examples)

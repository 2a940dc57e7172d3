"""read_dice: find every die in a frame, read its top face, and say when not to trust it.

Stages (each timed when a `timings` dict is passed): find (centre model), faces (face
model: is it a die, and its pips), value (pips / chance colour / spike match), checks.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from hardware.vision.budget import LookBudget, in_turn
from hardware.vision.detect import Candidate, distinct, find_candidates, has_halfway, whole_of_groups
from hardware.vision.doubt import doubt, part_of_bigger
from hardware.vision.faces import NO_DIE_READ, NOT_A_DIE, OTHER_DIE, SECOND_LOOK, face_probabilities
from hardware.vision.memory import TableMemory
from hardware.vision.parts import dice_inside, piece_of_bigger
from hardware.vision.reading import DieReading, Reading, check_frame
from hardware.vision.ready import EmptyTable
from hardware.vision.spike import NEAR_SURE, SpikeProfile, SpikeProfileError, likeness
from hardware.vision.throw import (PART_DIE, SMALLER, apart, at_place, away_from, beside, left_weak,
                                   missed_at_size, more_cubes, off_table, one_size, p_die, reads_pips, sure_die,
                                   surely_read, surest_throw, unnested, without_misfits, without_odd_sizes,
                                   without_smaller_doubts, without_strangers, without_strays,
                                   without_unsure_cubes)
from hardware.vision.values import face_level, pip_confidence, pip_value, read_values
from hardware.vision.whole import read_whole

DICE_KINDS = ("pips", "chance", "spike")
KEEP_SCORE = 0.40  # centre-model peak needed to count a die
KEEP_DIE = 0.5  # face-model belief that a die is centred there
DOUBT_SCORE = 0.30  # below KEEP but above these: something die-like we cannot confirm
DOUBT_DIE = 0.25
ODD_SIZE = 1.3  # a die read unsurely this far from the sure dice's size is read again at theirs (_at_throw_size)


@dataclass(frozen=True)
class Look:
    """How hard to look: the pyramid's levels and the cut-offs a die must pass."""

    finest: bool = False  # also the frame's own pixels (dice of about a dozen pixels)
    halfway: bool = False  # with finest: the levels between, short of the frame's own pixels
    keep_score: float = KEEP_SCORE
    keep_die: float = KEEP_DIE
    grown: tuple[float, ...] = ()  # sizes at which each unsure candidate is also read whole
    merged: bool = False  # each group of candidates lying together also read as one die


FIRST_LOOK = Look()
EVERY_LEVEL = Look(finest=True)  # without a count, the only look
# When the dice found are not the count the game waits for: the levels short of the frame's
# own pixels (on a frame over three times the working size), every level, lower cut-offs,
# then (dice read by their pips, too few found) unsure candidates also read whole at GROWN
# times their size (a die seen at an angle, its top face alone found), then also groups of
# candidates lying together read as one die (a big die found as its parts); the first look
# whose count, once the count's culls are made, is right is taken (and still flagged if
# unsure), else the nearest.
GROWN = (1.6, 2.0)
HARDER = (Look(finest=True, halfway=True), EVERY_LEVEL, Look(finest=True, keep_score=DOUBT_SCORE, keep_die=0.35),
          Look(finest=True, keep_score=DOUBT_SCORE, keep_die=0.35, grown=GROWN),
          Look(finest=True, keep_score=DOUBT_SCORE, keep_die=0.35, grown=GROWN, merged=True))


def find_dice(frame: np.ndarray, roi=None, timings: dict | None = None, second_look: float = SECOND_LOOK,
              die_px: float | None = None, look: Look = FIRST_LOOK, pips: bool = False, memo: dict | None = None):
    """(kept candidates, their face probabilities, doubtful candidates with their P(die)).
    Candidates the face model is less sure of than `second_look` are looked at again.
    With `pips` (a table of pip dice), something the face model takes for a die without pips
    (a board's printed disc, a token) is at most doubtful: it is no die this table uses.
    `memo`: a dict kept between looks at one frame (levels run, faces read)."""
    memo = {} if memo is None else memo
    t0 = time.perf_counter()
    cands = find_candidates(frame, roi, min_score=DOUBT_SCORE, die_px=die_px, finest=look.finest,
                            levels=memo.setdefault("levels", {}), halfway=look.halfway)
    t0 = _timed(timings, "find", t0)
    read = memo.setdefault("faces", {})
    _read_faces(frame, cands, read, second_look)
    if look.grown:
        cands = _grown(frame, cands, read, look, second_look, pips)
    if look.merged:  # grown candidates included; a group's box takes its surest part's score
        whole = [c for c in whole_of_groups(cands) if c not in cands]
        _read_faces(frame, whole, read, second_look)
        cands = cands + whole
    if look.grown or look.merged:  # a die grown or merged to where another already was
        cands = distinct(cands, lambda c: float(read[c][1:].max()))
    cands = unnested(cands, read, look.keep_die, pips)
    probs = [read[c] for c in cands]
    _timed(timings, "faces", t0)
    kept, kept_p, doubtful = [], [], []
    h, w = frame.shape[:2]
    x0, y0, x1, y1 = roi if roi is not None else (0, 0, w, h)
    for c, p in zip(cands, probs):
        die = _table_die(p, pips)
        if c.score >= look.keep_score and _read_as_die(p, die, look.keep_die):
            kept.append(c)
            kept_p.append(p)
        elif c.score >= KEEP_SCORE and die >= DOUBT_DIE or c.score >= DOUBT_SCORE and die >= KEEP_DIE:
            # Something cut by the edge of the view is outside the play area, not a die to read.
            r = c.size / 2
            if c.cx - r > x0 and c.cy - r > y0 and c.cx + r < x1 and c.cy + r < y1:
                doubtful.append((c, die))
    doubtful = [(c, die) for c, die in doubtful if die >= PART_DIE or not beside(c, kept)]
    return kept, np.array(kept_p).reshape(-1, 8), doubtful


def _read_faces(frame: np.ndarray, cands: Sequence[Candidate], read: dict, second_look: float) -> np.ndarray:
    """Add to `read` (kept between looks at one frame) the face probabilities of the candidates it
    lacks; theirs. In a harder look, surest first while the read's budget lasts (`budget.in_turn`)."""
    new = [c for c in cands if c not in read]
    read.update(in_turn(new, lambda some: face_probabilities(frame, some, second_look), NO_DIE_READ))
    return np.array([read[c] for c in cands]).reshape(-1, 8)


def _table_die(p: np.ndarray, pips: bool) -> float:
    """P(die) as the table weighs it: on a table of pip dice, something the face model
    takes for a die without pips (a board's printed disc, a token) is at most DOUBT_DIE."""
    die = p_die(p)
    return min(die, DOUBT_DIE) if pips and float(p[OTHER_DIE]) >= float(p[1:7].max()) else die


def _read_as_die(p: np.ndarray, die: float, keep_die: float) -> bool:
    """Whether the face model takes a candidate for a die: P(die) (`die`, as the table weighs
    it) at least `keep_die`, and some one reading of a die likelier than "no die here" (a
    side face or a gap between touching dice can gather a little of every die's class)."""
    return die >= keep_die and float(p[1:].max()) > float(p[NOT_A_DIE])


def _grown(frame, cands, read: dict, look: Look, second_look: float, pips: bool = True):
    """On a table of pip dice: each candidate the centre model is sure of (KEEP_SCORE) that
    the face model does not take for a pip die (so the look would not keep it; dice it keeps
    keep their box and value) is replaced by one as big as the mean of `look.grown` times
    it, read as the mean of its reads at each of those sizes, when that reads a number of
    pips more surely."""
    sizes = look.grown
    unsure = [c for c in cands
              if c.score >= KEEP_SCORE and not _read_as_die(read[c], _table_die(read[c], pips), look.keep_die)]
    if not unsure:
        return cands
    views = [Candidate(c.cx, c.cy, c.size * k, c.score) for c in unsure for k in sizes]
    # kept in `read` for the next look that grows them
    p = _read_faces(frame, views, read, second_look).reshape(len(unsure), len(sizes), -1).mean(1)
    out = list(cands)
    for c, q in zip(unsure, p):
        if float(q[1:7].max()) > float(read[c][1:7].max()):
            g = Candidate(c.cx, c.cy, c.size * float(np.mean(sizes)), c.score)
            read[g] = q
            out[out.index(c)] = g
    return out


def _settled(frame, kept, probs, dice, profile, min_confidence, expect):
    """A look's dice after the count's culls: (dice, face probabilities, values,
    confidences). When more are found than the count, misfits, strays, things
    of another size, smaller doubts, things on a chance table not surely a die without pips
    and things unlike every taught spike face go (see each);
    the values are read only when the culls need them, else None (read once, for the look
    that is taken: a spike die's match is not cheap)."""
    if expect is None or len(kept) <= expect:
        return kept, probs, None, None
    values, confidences = read_values(frame, kept, probs, dice, profile, min_confidence)
    kept, probs, values, confidences = without_misfits(kept, probs, values, confidences, expect, min_confidence)
    if len(kept) > expect:
        kept, probs, values, confidences = without_strays(kept, probs, values, confidences, expect, min_confidence)
    if len(kept) > expect:
        kept, probs, values, confidences = without_odd_sizes(kept, probs, values, confidences, expect)
    if len(kept) > expect:
        kept, probs, values, confidences = without_smaller_doubts(kept, probs, values, confidences, expect,
                                                                  min_confidence)
    if len(kept) > expect and dice == "chance":
        kept, probs, values, confidences = without_unsure_cubes(kept, probs, values, confidences, expect)
    if len(kept) > expect and dice == "spike":
        kept, probs, values, confidences = without_strangers(kept, probs, values, confidences, expect, min_confidence,
                                                             lambda: likeness(frame, kept, profile), NEAR_SURE)
    return kept, probs, values, confidences


def _at_throw_size(frame, kept, probs, values, confidences, dice, profile, min_confidence, timings=None):
    """Dice of one throw are one size. A die read unsurely whose box is more than
    ODD_SIZE times bigger or smaller than the surely read dice's (themselves one size) was
    boxed with its shadow or a neighbour, or by its top face alone: it is read again at
    their size, in the same place, and that reading is taken when it is surer (every
    kind's confidence counts the doubt that it is a die at all). A candidate found only
    under a lowered centre cut-off (under KEEP_SCORE) is read again only where a box of
    the throw's size around it takes in no other die (`apart`): a speck beside a die would
    show that die. The dice read again are kept only when every one of them is then
    surer."""
    sure = surely_read(probs, confidences, min_confidence)
    if not one_size(kept, sure):
        return kept, probs, values, confidences
    size = float(np.median([kept[i].size for i in sure]))
    odd = [i for i in range(len(kept)) if confidences[i] < min_confidence
           and not size / ODD_SIZE <= kept[i].size <= size * ODD_SIZE
           and (kept[i].score >= KEEP_SCORE or apart(kept[i], [d for d in kept if d is not kept[i]], size))]
    if not odd:
        return kept, probs, values, confidences
    again = [Candidate(kept[i].cx, kept[i].cy, size, kept[i].score) for i in odd]
    t0 = time.perf_counter()
    read = face_probabilities(frame, again, face_level(dice, min_confidence))
    t0 = _timed(timings, "faces", t0)
    by_die = {i: (c, p) for i, c, p in zip(odd, again, read)}

    def read_again(which: list[int]):
        trial, trial_p = list(kept), probs.copy()
        for i in which:
            trial[i], trial_p[i] = by_die[i]
        return (trial, trial_p, *read_values(frame, trial, trial_p, dice, profile, min_confidence))

    trial, trial_p, trial_values, trial_conf = read_again(odd)
    took = [i for i in odd if trial_conf[i] > confidences[i]]
    if took and took != odd:  # some, not all, read again: the throw read with just those
        trial, trial_p, trial_values, trial_conf = read_again(took)
    _timed(timings, "value", t0)
    if not took or any(trial_conf[i] <= confidences[i] for i in took):
        return kept, probs, values, confidences
    return trial, trial_p, trial_values, trial_conf


def _look_again(frame, roi, timings, level, pips, memo, look, dice, profile, min_confidence, count, die_px=None):
    """One look at the frame: its dice after the count's culls (`_settled`: dice,
    probabilities, values, confidences), its doubtful candidates, and whether the culls
    left a weak candidate (`throw.left_weak`: a harder look is then not taken)."""
    again, again_p, doubtful = find_dice(frame, roi, timings, level, die_px, look, pips, memo)
    t0 = time.perf_counter()
    settled = _settled(frame, again, again_p, dice, profile, min_confidence, count)
    _timed(timings, "value", t0)
    return settled, doubtful, left_weak(settled[0], again, KEEP_SCORE)


def _valued(frame, settled, dice, profile, min_confidence, timings):
    """A look's settled dice (`_settled`) with their values, read now when the count's
    culls did not need them."""
    kept, probs, values, confidences = settled
    if values is None:
        t0 = time.perf_counter()
        values, confidences = read_values(frame, kept, probs, dice, profile, min_confidence)
        _timed(timings, "value", t0)
    return kept, probs, values, confidences


def _surer(frame, roi, timings, level, pips, memo, dice, profile, min_confidence, first, looks, budget):
    """The count found, but a die read unsurely (a board's token in place of a die on it, a
    speck in place of a die the quick look missed, a die boxed by its top face alone). Of
    `looks` (the harder looks not yet run), the first whose reading of the count is sure is
    taken, if it keeps the sure dice of `first` (same value and place), its culls leave no
    weak candidate (`throw.left_weak`), and nothing else in it is under SMALLER times the first
    reading's smallest die (a pip of a die read unsurely reads surely as a one). Else
    `first` stands: (dice, probabilities, values, confidences, doubtful)."""
    kept, _, values, confidences, _ = first
    sure = [(c, v) for c, v, q in zip(kept, values, confidences) if q >= min_confidence]
    least = SMALLER * min(c.size for c in kept)
    for look in looks:
        if look.grown and not _by_pips(dice, profile):  # a colour or symbol is read from the die's own box
            break
        if not budget.allows():
            break
        settled, again_doubtful, weak = _look_again(
            frame, roi, timings, level, pips, memo, look, dice, profile, min_confidence, len(kept))
        if weak or len(settled[0]) != len(kept):
            continue
        other, other_p, o_values, o_conf = _valued(frame, settled, dice, profile, min_confidence, timings)
        at_sure = [any(at_place(c, o) for c, _ in sure) for o in other]
        if (min(o_conf) >= min_confidence
                and all(any(at_place(c, o) and v == ov for o, ov in zip(other, o_values)) for c, v in sure)
                and all(o.size >= least for o, known in zip(other, at_sure) if not known)):
            return other, other_p, o_values, o_conf, again_doubtful
    return first


def _by_pips(dice: str, profile: SpikeProfile | None) -> bool:
    """Whether the dice's pips tell their values: pip dice, and spike dice whose taught
    pip faces the face model's count names (`SpikeProfile.told_by_pips`)."""
    return dice == "pips" or dice == "spike" and bool(profile.told_by_pips)


def _timed(timings: dict | None, stage: str, since: float) -> float:
    """Add the time since `since` to `stage` in `timings` (when given); now."""
    now = time.perf_counter()
    if timings is not None:
        timings[stage] = timings.get(stage, 0.0) + (now - since) * 1000
    return now


def read_dice(frame_bgr: np.ndarray, dice: str = "pips", *, profile: SpikeProfile | None = None,
              roi: tuple[int, int, int, int] | None = None, min_confidence: float = 0.80,
              empty_table: EmptyTable | None = None, occluder_fraction: float = 0.12,
              expect: int | None = None, die_px: float | None = None, timings: dict | None = None,
              memory: TableMemory | None = None, budget_ms: float | None = None) -> Reading:
    """Read every die in the frame. Raises UnreadableFrame for a non-picture.

    `expect`: how many dice the game waits for. The first look is then a quick one (the pyramid
    short of the frame's own pixels); when it finds another number, or a die unsurely, the
    reader looks harder, in the order docs/vision-rules.md gives: finer levels, every level, lower
    cut-offs, candidates grown and grouped (`_surer`), cubes another level found
    (`throw.more_cubes`), a missed die at the throw's size (`throw.missed_at_size`,
    `_at_throw_size`), a die read whole (`whole.read_whole`), the surest throw
    (`throw.surest_throw`), a one that is a patch or a bigger die's part (`parts`); else the
    reading is flagged. Without `expect`, the first look is at every level. `die_px`: a die's
    size in frame pixels, when calibration knows it: the finder looks at that scale first.
    With the calibrated `empty_table`, a read where one thing unlike the table covers more than
    `occluder_fraction` of the view (a hand, the cup) is flagged, its dice still read; and what
    the table's photo shows is the table's own, not a die (`throw.off_table`). `memory`: the
    pip dice this table has read surely; it vouches for a die read unsurely that looks like
    those it remembers, and learns from a reading not flagged (memory.py). `budget_ms`: the
    time from the start of the read that its harder looks may run to (budget.py)."""
    if dice not in DICE_KINDS:
        raise ValueError(f"dice must be one of {', '.join(DICE_KINDS)}, not {dice!r}")
    if expect is not None and (isinstance(expect, bool) or not isinstance(expect, int) or expect < 0):
        raise ValueError(f"expect must be a count of dice (0 or more), not {expect!r}")
    if die_px is not None and not die_px > 0:
        raise ValueError(f"die_px must be a die's size in pixels (above 0), not {die_px!r}")
    if dice == "spike" and (profile is None or not profile.taught):
        raise SpikeProfileError("reading spike dice needs a taught profile (companion teach spike)")
    budget = LookBudget(None if budget_ms is None else budget_ms / 1000)
    try:  # whatever happens, the budget ends with the read (a face read after it is not cut)
        return _read(frame_bgr, dice, profile, roi, min_confidence, empty_table, occluder_fraction, expect, die_px,
                     timings, memory, budget)
    finally:
        budget.close()


def _read(frame_bgr, dice, profile, roi, min_confidence, empty_table, occluder_fraction, expect, die_px, timings,
          memory, budget) -> Reading:
    frame = check_frame(frame_bgr)
    pips = dice == "pips"
    memo: dict = {}
    # Without the count, nothing says when to look harder: look at every level at once.
    first = FIRST_LOOK if expect is not None or die_px else EVERY_LEVEL
    harder = tuple(look for look in HARDER if not look.halfway or has_halfway(frame, roi))
    level = face_level(dice, min_confidence)
    (kept, probs, values, confidences), doubtful, _ = _look_again(
        frame, roi, timings, level, pips, memo if die_px is None else None, first, dice, profile, min_confidence, expect,
        die_px)
    tried, budget.armed = 0, True  # harder looks run; and from now on, face reads count against the budget
    if expect is not None and len(kept) != expect:
        # the first look to find the count (after the count's culls: misfits,
        # strays) is taken; when none does, the one nearest it, so the host has the most
        # to fix from
        for look in harder:
            if look.grown and (len(kept) > expect or not _by_pips(dice, profile)):
                # the looks that grow or group candidates (the last two) find no die that
                # was missed; and a chance cube's colour or a symbol is read from its box,
                # which must then be the die's own, not grown or grouped
                break
            if not budget.allows():
                break
            tried += 1
            other, again_doubtful, weak = _look_again(frame, roi, timings, level, pips, memo, look, dice, profile,
                                                      min_confidence, expect)
            if weak:
                continue
            if abs(len(other[0]) - expect) < abs(len(kept) - expect):
                (kept, probs, values, confidences), doubtful = other, again_doubtful
            if len(kept) == expect:
                break
    if expect is not None and dice == "chance" and 2 <= len(kept) < expect:  # cubes another level found
        t0, found = time.perf_counter(), [c for level_found in memo.get("levels", {}).values() for c in level_found]
        read = memo.setdefault("faces", {})  # the looks' readings, at the same level: none is read twice
        more = more_cubes(kept, probs, found, expect, ODD_SIZE, KEEP_SCORE,
                          lambda cands: _read_faces(frame, cands, read, level))
        _timed(timings, "faces", t0)
        if len(more[0]) != len(kept):
            doubtful = [(c, die) for c, die in doubtful if not any(at_place(m, c) for m in more[0])]
            kept, probs, values, confidences = *more, None, None
    kept, probs, values, confidences = _valued(frame, (kept, probs, values, confidences), dice, profile,
                                               min_confidence, timings)
    if expect is not None and len(kept) < expect and doubtful and budget.allows():  # a missed die boxed at another size
        found = missed_at_size(kept, probs, confidences, [c for c, _ in doubtful], min_confidence, expect, ODD_SIZE,
                               lambda views: face_probabilities(frame, views, level),
                               lambda p: _read_as_die(p, _table_die(p, pips), KEEP_DIE))
        if found:
            kept, probs = kept + [g for _, g, _ in found], np.concatenate([probs, [p for _, _, p in found]])
            values, confidences = read_values(frame, kept, probs, dice, profile, min_confidence)
            doubtful = [(c, die) for c, die in doubtful  # nor another box of a die found so
                        if all(c is not f and not at_place(g, c) for f, g, _ in found)]
    if expect is not None and len(kept) == expect and min(confidences, default=1.0) < min_confidence:
        first = (kept, probs, values, confidences, doubtful)
        kept, probs, values, confidences, doubtful = _surer(frame, roi, timings, level, pips, memo, dice, profile,
                                                            min_confidence, first, harder[tried:], budget)
    if expect is not None and len(kept) == expect and (min(confidences, default=1.0) >= min_confidence
                                                       or budget.allows()):
        kept, probs, values, confidences = _at_throw_size(frame, kept, probs, values, confidences, dice, profile,
                                                          min_confidence, timings)
        if _by_pips(dice, profile):  # a die still unsure may be boxed by its top face
            t0 = time.perf_counter()  # alone (a spike die read again by its pips, where they name its face)
            whole, _, _ = read_whole(kept, probs, [pip_value(p)[0] for p in probs], confidences, min_confidence,
                                     lambda views: face_probabilities(frame, views, face_level("pips", min_confidence)))
            taken = [i for i in range(len(kept)) if not np.array_equal(whole[i], probs[i])
                     and (pips or pip_value(whole[i])[0] in profile.told_by_pips)]
            if taken:
                probs = probs.copy()
                probs[taken] = whole[taken]
                values, confidences = read_values(frame, kept, probs, dice, profile, min_confidence)
            _timed(timings, "faces", t0)
    if expect and pips and (len(kept) != expect or min(confidences) < min_confidence) and budget.allows():
        t0, read = time.perf_counter(), memo.get("faces", {})
        sure = {c: q for c, p in read.items() if sure_die(p) and reads_pips(p)
                and (q := pip_confidence(pip_value(p)[1])) >= min_confidence}
        throw = surest_throw(read, sure, dict(zip(kept, probs)), expect, KEEP_SCORE)
        if throw is not None:  # what may be a missed die is a thing of the throw's size, not a die taken
            kept, probs = throw, np.array([read[c] for c in throw])
            values, confidences = read_values(frame, kept, probs, dice, profile, min_confidence)
            doubtful = [(c, die) for c, die in away_from(doubtful, kept) if one_size(kept + [c], range(len(kept) + 1))]
        _timed(timings, "value", t0)
    if pips and kept and (inside := dice_inside(kept, probs, doubtful, memo.get("faces", {}), min_confidence, frame)):
        kept, probs, doubtful = inside  # a patch read as a one, a die its pip: the die in its place
        values, confidences = read_values(frame, kept, probs, dice, profile, min_confidence)
    if empty_table is not None:  # after every look: none may bring back what the table showed
        kept, probs, values, confidences, doubtful = off_table(frame, empty_table, kept, probs, values,
                                                                confidences, doubtful)
    t1 = time.perf_counter()
    own = confidences
    if memory is not None and pips:
        confidences = memory.vouch(frame, kept, values, confidences, min_confidence)
        t1 = _timed(timings, "memory", t1)
    order = sorted(range(len(kept)), key=lambda i: (kept[i].cx, kept[i].cy))
    readings = tuple(DieReading(values[i], kept[i].box(frame.shape), confidences[i]) for i in order)
    untaught = profile.untaught if dice == "spike" else ()
    covered = empty_table.covered(frame) if empty_table is not None else None
    occluded = covered is not None and covered > occluder_fraction
    # Something die-like the face model cannot confirm flags a reading, since it may be a
    # missed die; but when the dice found are exactly the count in play, it is one too many
    # to be a die of this throw, unless it looks more like a die than the least sure read one.
    if expect is not None and len(kept) == expect and len(probs):
        least = min(p_die(p) for p in probs)
        doubtful = [c for c, die in doubtful if die >= least]
    else:
        doubtful = [c for c, _ in doubtful]
    reason = doubt(kept, values, confidences, doubtful, min_confidence, untaught, occluded)
    if expect is not None and len(kept) != expect:
        reason = (f"{len(kept)} {'die' if len(kept) == 1 else 'dice'} found, the game waits for {expect}: "
                  "please check" + (f" ({reason})" if reason else ""))
    if reason is None and pips and (piece := piece_of_bigger(frame, kept, values, confidences, min_confidence, memo,
                                                              KEEP_SCORE)):
        i, bigger = piece
        reason = part_of_bigger(kept[i], values[i], bigger)
    t1 = _timed(timings, "checks", t1)
    reason = budget.finish(reason)  # held, saying why, if a harder look it needed was not made
    if memory is not None and pips and reason is None:  # what the face models read surely themselves
        sure = [i for i, c in enumerate(own) if c >= min_confidence]
        memory.learn(frame, [kept[i] for i in sure], [values[i] for i in sure])
        _timed(timings, "memory", t1)
    return Reading(readings, flagged=reason is not None, reason=reason,
                   doubtful=tuple(c.box(frame.shape) for c in doubtful))

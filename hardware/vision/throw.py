"""One throw's dice, as the count in play weighs them (and, before it, a die found whole
with its parts found inside it: `unnested`): when more are found than the game
waits for, what goes (a die's own front face or shadow, a misfit of another size, a
stray the face model doubts, smaller things it reads as no face in particular), and only
on the word of dice read surely and of one size; and when the looks' reading is still
not the count read surely, the surest throw among all they read (`surest_throw`); when
fewer are found, a die the finder boxed at another size (`missed_at_size`), and on a
chance table two touching cubes boxed as one, or a cube another level found
(`more_cubes`). With the calibrated empty table, what was found where
the table still shows goes (`off_table`)."""

from __future__ import annotations

from typing import Sequence

import numpy as np

from hardware.vision.detect import Candidate, distinct, held_by, inside, places
from hardware.vision.faces import NOT_A_DIE, OTHER_DIE

# A doubtful candidate beside a die that was read, which the face model does not believe to
# be a die (under PART_DIE), is part of that die: its front face on a tilted camera, its
# shadow.
PART_NEAR = 1.2
PART_DIE = 0.8
SURE_DIE = 0.85  # P(die) and the best class both this high: the face model is sure it sees a die
ONE_SIZE = 2.0  # dice of one throw are within this factor of each other's size (see without_misfits)
# Dice of one throw are one size, give or take the camera's perspective: things more than
# this factor apart in size are not dice of one throw (a board found whole, a number token,
# a pip or a speck of the table found as a die).
UNLIKE_SIZE = 3.0
SMALLER, MUDDLED = 0.75, 0.6  # see without_smaller_doubts
# A die of the surest throw that the looks did not find must be at least this many pixels
# across: smaller, its pips are a pixel or two, like a speckled table's specks.
NEW_DIE_PX = 16
# Two dice lying side by side have centres at least this many dice apart (a die's box
# takes in the sides the camera sees, so a little less than one).
SIDE_BY_SIDE = 0.7


def p_die(p: np.ndarray) -> float:
    """The face model's belief that a die is centred there: all but "no die here"."""
    return 1.0 - float(p[NOT_A_DIE])


def sure_die(p: np.ndarray) -> bool:
    return p_die(p) >= SURE_DIE and float(p.max()) >= SURE_DIE


def sure_cube(p: np.ndarray) -> bool:
    """Whether the face model reads a die without pips (a chance cube) at SURE_DIE or more."""
    return float(p[OTHER_DIE]) >= SURE_DIE


def reads_as(p: np.ndarray, *classes: int) -> bool:
    """Whether the face model's best reading is one of `classes`."""
    return int(np.argmax(p)) in classes


def reads_pips(p: np.ndarray) -> bool:
    """Whether the face model's best reading is a number of pips (not no die or no pips)."""
    return int(np.argmax(p)) not in (NOT_A_DIE, OTHER_DIE)


def surely_read(probs, confidences, min_confidence: float) -> list[int]:
    """Which dice are sure dice, read surely."""
    return [i for i in range(len(probs)) if sure_die(probs[i]) and confidences[i] >= min_confidence]


def _only(keep: list[int], kept, probs, values, confidences):
    return [kept[i] for i in keep], probs[keep], [values[i] for i in keep], [confidences[i] for i in keep]


def one_size(kept, which: list[int]) -> bool:
    """Whether the dice `which` (indices into `kept`) are one throw's size, within ONE_SIZE
    of each other. When the surely read dice are not, one of them is no die (a board found
    whole, a crop of a die's pip), and nothing should be culled on their word."""
    sizes = [kept[i].size for i in which]
    return bool(sizes) and max(sizes) <= ONE_SIZE * min(sizes)


def without_misfits(kept, probs, values, confidences, expect: int, min_confidence: float):
    """Dice of one throw are one size. When more dice are found than are in play, those
    not surely read and more than ONE_SIZE times smaller or bigger than the surely read ones
    (a speck of the table, a board's tile) go, if that leaves the count; not when the
    surely read ones are not one size themselves (`one_size`)."""
    sure = surely_read(probs, confidences, min_confidence)
    if not one_size(kept, sure):
        return kept, probs, values, confidences
    size = float(np.median([kept[i].size for i in sure]))
    keep = [i for i in range(len(kept)) if i in sure or size / ONE_SIZE <= kept[i].size <= size * ONE_SIZE]
    return _only(keep, kept, probs, values, confidences) if len(keep) == expect else (kept, probs, values, confidences)


def _count_read_surely(kept, probs, confidences, expect: int, min_confidence: float) -> list[int] | None:
    """The surely read dice, when they are exactly the count and one size (`one_size`): the
    word the count's culls of the rest go on. Else None."""
    sure = surely_read(probs, confidences, min_confidence)
    return sure if len(sure) == expect and one_size(kept, sure) else None


def without_strays(kept, probs, values, confidences, expect: int, min_confidence: float):
    """When more dice are found than are in play and exactly that many are surely read,
    the rest (each less like a die than every one of those, and doubted: under PART_DIE)
    are a speck of the table, a mark, a pip taken for a die: they go, when those are one
    size (`one_size`). Else all stay."""
    sure = _count_read_surely(kept, probs, confidences, expect, min_confidence)
    if sure is None:
        return kept, probs, values, confidences
    least = min(p_die(probs[i]) for i in sure)
    if any(p_die(probs[i]) >= min(PART_DIE, least) for i in range(len(kept)) if i not in sure):
        return kept, probs, values, confidences
    return _only(sure, kept, probs, values, confidences)


def without_smaller_doubts(kept, probs, values, confidences, expect: int, min_confidence: float):
    """When more dice are found than are in play, exactly that many are surely read (and
    one size), and each of the rest is smaller than every one of those (by SMALLER) and
    read as no face in particular (under MUDDLED), the rest go: marks and specks of the
    table. A speck read surely cannot send a bigger die away: every sure one must be
    bigger than all that go. Nor does a lone pip go this way: the face model reads one
    as a one, and then the sure ones may be pips too (a two's pips found as two ones)."""
    sure = _count_read_surely(kept, probs, confidences, expect, min_confidence)
    if sure is None:
        return kept, probs, values, confidences
    least = min(kept[i].size for i in sure)
    if any(confidences[i] >= MUDDLED or kept[i].size > SMALLER * least
           for i in range(len(kept)) if i not in sure):
        return kept, probs, values, confidences
    return _only(sure, kept, probs, values, confidences)


def surest_throw(read: dict, sure: dict, found: dict, expect: int, keep_score: float) -> list[Candidate] | None:
    """Of every candidate the looks read (`read`: its face probabilities), those read surely
    as pip dice (`sure`: each one's confidence), the surest of each die (one at another's
    place showing the same face is that die again, whatever its size): when the count's
    worth of the surest are one size (`one_size`), surer than each of the rest, and the
    rest all of another size (a board's tiles and tokens read as dice, the board found
    whole), they are the throw. Else None; so too when one die is read as two faces (at
    its place and within ONE_SIZE of its size), surely or by the looks' reading `found`
    (each its face probabilities). What `found` has of the throw's size and the throw
    leaves out must be doubted (P(die) under PART_DIE: a speck, a mark) and lie beside none
    of it (else that one may be its side face). A die of the throw that is no die found
    read again (about its size, at its place) must be NEW_DIE_PX across and show three
    pips or more; one showing one or two must also lie inside none of the rest. A speck of
    the table, a pip or a corner of a die's face shows one or two.
    The candidates the centre model is sure of (`keep_score`) are weighed first; when they
    give no throw, every candidate is: a die found only under a lowered cut-off (a die on
    a board's busy tile) may then be of the throw, when at least half of it was found at
    the usual one (a weak candidate read surely must not undo a throw the sure ones make)."""
    strong = {c: q for c, q in sure.items() if c.score >= keep_score}
    throw = _surest(read, strong, found, expect)
    if throw is None and len(strong) < len(sure):
        throw = _surest(read, sure, found, expect)
        if throw is not None and 2 * sum(c.score >= keep_score for c in throw) < len(throw):
            return None
    return throw


def _surest(read: dict, sure: dict, found: dict, expect: int) -> list[Candidate] | None:
    """surest_throw's throw of the candidates `sure`, all weighed alike."""
    ranked: list[Candidate] = []  # one to each die, the surest
    for c in sorted(sure, key=lambda c: -sure[c]):
        here = [k for k in ranked if at_place(k, c) or at_place(c, k)]
        face = int(np.argmax(read[c]))
        if any((_again(k, c) or _again(c, k)) and not reads_as(read[k], face) for k in here):
            return None  # one die read surely as two faces
        if not any(reads_as(read[k], face) for k in here):  # the same face at its place: that die again
            ranked.append(c)
    throw, rest = ranked[:expect], ranked[expect:]
    if len(throw) < expect or not one_size(throw, range(len(throw))):  # no dice are not one size
        return None
    size = float(np.median([c.size for c in throw]))

    def alike(c: Candidate) -> bool:  # of the throw's size
        return size / ONE_SIZE <= c.size <= size * ONE_SIZE

    if rest and (sure[rest[0]] >= sure[throw[-1]] or any(alike(c) for c in rest)):
        return None
    for d, p in found.items():
        if any(_again(d, c) and reads_pips(p) and not reads_as(read[c], int(np.argmax(p))) for c in throw):
            return None  # the looks read this die as another face
        if alike(d) and not any(at_place(d, c) for c in throw) and (beside(d, throw) or p_die(p) >= PART_DIE):
            return None
    for c in throw:
        again = any(_again(d, c) for d in found)
        if not again and c.size < NEW_DIE_PX or reads_as(read[c], 1, 2) and (
                not again or any(inside(c, o) for o in rest)):
            return None
    return throw


def _again(die: Candidate, other: Candidate) -> bool:
    """`other` is `die` read again: at its place, and within ONE_SIZE of its size."""
    return at_place(die, other) and max(die.size, other.size) <= ONE_SIZE * min(die.size, other.size)


def at_place(die: Candidate, other: Candidate) -> bool:
    """`other` lies at `die`'s place (within half of it)."""
    return bool(np.hypot(die.cx - other.cx, die.cy - other.cy) < 0.5 * die.size)


def away_from(doubtful: Sequence[tuple[Candidate, float]], dice: Sequence[Candidate]) -> list:
    """The doubtful (candidate, P(die)) pairs at no die's place, with no die at theirs."""
    return [(c, die) for c, die in doubtful if not any(at_place(k, c) or at_place(c, k) for k in dice)]


def beside(c: Candidate, dice: Sequence[Candidate]) -> bool:
    """Whether c lies within PART_NEAR die sizes of one of the dice."""
    return any(np.hypot(c.cx - d.cx, c.cy - d.cy) < PART_NEAR * d.size for d in dice)


def without_odd_sizes(kept, probs, values, confidences, expect: int):
    """When more dice are found than are in play and the biggest of them, more than
    UNLIKE_SIZE times bigger than the rest, are the count and of one size (`one_size`), the
    rest go: specks of a speckled table (or pips) read surely as small dice beside a die
    found whole. Smaller things are never kept over bigger ones: a speck read surely must
    not stand for a die that was found."""
    order = sorted(range(len(kept)), key=lambda i: kept[i].size)
    cut = max((k + 1 for k in range(len(order) - 1)
               if kept[order[k + 1]].size > UNLIKE_SIZE * kept[order[k]].size), default=0)
    big = order[cut:]
    if not cut or len(big) != expect or not one_size(kept, big):
        return kept, probs, values, confidences
    return _only(sorted(big), kept, probs, values, confidences)


def off_table(frame, empty_table, kept, probs, values, confidences, doubtful):
    """What the calibrated empty table still shows where it was found is the table's own (a
    cloth's pattern, a board's token; `EmptyTable.on_table`), not a die: it goes from the
    dice and the doubtful candidates. A reading left short of the count is then held."""
    table = empty_table.on_table(frame, [c.box(frame.shape) for c in kept + [c for c, _ in doubtful]])
    if table is None or not any(table):
        return kept, probs, values, confidences, doubtful
    doubtful = [d for d, t in zip(doubtful, table[len(kept):]) if not t]
    return (*_only([i for i in range(len(kept)) if not table[i]], kept, np.asarray(probs), values, confidences),
            doubtful)


def apart(c: Candidate, dice: Sequence[Candidate], size: float) -> bool:
    """Whether a box `size` wide centred on c stays clear of the dice's centres (a die's
    size from each): read at that size, c shows no other die."""
    return all(np.hypot(c.cx - d.cx, c.cy - d.cy) >= size for d in dice)


def unnested(cands: list[Candidate], read: dict, keep_die: float, pips: bool = True) -> list[Candidate]:
    """Candidates with no one inside another. A big one holding two or more that the face
    model reads surely as dice is several dice (or a tray, a board) taken for one: the small
    ones stay. On a table of dice without pips (`pips` false: chance cubes, symbol dice),
    none has pips to be taken for dice: in a big one read as a die without pips, one it
    holds that the face model is sure is a die and reads as a die without pips counts as
    read surely, however its belief divides between no pips and a few. So
    does one die read surely in a big one whose best reading is no die or a die without
    pips (a board's tile around a die on it); one read surely as two pips or more in a big
    one read as a one (a tile, its round number token) stays with the big one, for the
    count to weigh. A big one read surely as a die of k pips holding at most k
    read surely as ones holds its pips (a two's two pips must not stand for two dice). One
    read surely held in a big one read unsurely stays when the throw has its twin
    (`throw.has_twin`: a die on a board's tile the finder boxed whole). Else
    the small ones are its pips or marks (read as a die, they are seldom sure of it), and
    go, when the face model takes the big one for a die."""
    dropped: set[Candidate] = set()
    x, y, size = places(cands)
    for b in sorted(range(len(cands)), key=lambda i: -cands[i].size):
        big = cands[b]
        if big in dropped:
            continue
        held = [cands[i] for i in np.flatnonzero(held_by(big, x, y, size))
                if cands[i] not in dropped and cands[i] is not big]
        if not held:
            continue
        no_pips = not pips and reads_as(read[big], OTHER_DIE)
        sure = [c for c in held if sure_die(read[c])
                or no_pips and reads_as(read[c], OTHER_DIE) and p_die(read[c]) >= SURE_DIE]
        if reads_as(read[big], 1) and any(reads_as(read[c], *range(2, 7)) for c in sure):
            continue  # a pip never reads as more than one
        if (sure_die(read[big]) and reads_pips(read[big]) and all(reads_as(read[c], 1) for c in sure)
                and len(sure) <= np.argmax(read[big])):
            dropped.update(held)  # a die read surely as k pips holding at most k ones: its pips
            continue
        if (len(sure) >= 2 or p_die(read[big]) < keep_die
                or not reads_pips(read[big]) and any(reads_pips(read[c]) for c in sure)
                or not sure_die(read[big]) and any(has_twin(c, big, cands, dropped, read) for c in sure)):
            dropped.add(big)
        else:
            dropped.update(held)
    return [c for c in cands if c not in dropped]


def has_twin(die: Candidate, big: Candidate, cands, dropped, read) -> bool:
    """Another die read surely as pips, of `die`'s size, outside `big` and inside no
    candidate still standing: dice of one throw are one size, so `die` is one of them and
    `big` (unsure) is no die of the throw. A pip of a die has no such twin: the others' pips
    lie inside their own dice."""
    return any(d is not die and d is not big and sure_die(read[d]) and reads_pips(read[d])
               and max(d.size, die.size) <= ONE_SIZE * min(d.size, die.size) and not inside(d, big)
               and not any(o is not d and o not in dropped and inside(d, o) for o in cands)
               for d in cands)


def missed_at_size(kept, probs, confidences, doubtful: Sequence[Candidate], min_confidence: float, expect: int,
                   odd_size: float, read, is_die) -> list[tuple[Candidate, Candidate, np.ndarray]]:
    """When the looks found fewer dice than the count and something doubtful: a die the
    finder boxed at another size (twice its own, with its shadow) reads as no die at that
    size. Each doubtful candidate more than `odd_size` off the size of the dice read surely
    (themselves one size: `one_size`) is read again (`read`: face probabilities of boxes) at
    their size, where a box that size around it shows no other die found (`apart`); when
    exactly the missing dice then read as dice (`is_die`), they are the throw's: (the
    doubtful candidate, its box at the throw's size, its probabilities) of each, else none."""
    sure = surely_read(probs, confidences, min_confidence)
    if not sure or not one_size(kept, sure):
        return []
    size = float(np.median([kept[i].size for i in sure]))
    odd = [c for c in doubtful if not size / odd_size <= c.size <= size * odd_size]
    again = [(c, Candidate(c.cx, c.cy, size, c.score)) for c in odd]
    again = [(c, g) for c, g in again if apart(g, kept, size)]
    if not again:
        return []
    found: list[tuple[Candidate, Candidate, np.ndarray]] = []
    for (c, g), p in sorted(zip(again, read([g for _, g in again])), key=lambda t: float(t[1][NOT_A_DIE])):
        if is_die(p) and apart(g, [f for _, f, _ in found], size):
            found.append((c, g, p))
    return found if len(kept) + len(found) == expect else []


def left_weak(settled: Sequence[Candidate], found: Sequence[Candidate], keep_score: float) -> bool:
    """Whether the count's culls (`found` to `settled`) left a candidate the centre model is
    unsure of (under the usual cut-off, `keep_score`): one found only under a lowered
    cut-off is too weak to stand alone for the count."""
    return len(settled) < len(found) and min((c.score for c in settled), default=1.0) < keep_score


def boxed_apart(kept: list[Candidate], probs: np.ndarray, found: Sequence[Candidate], expect: int, odd: float,
                keep_score: float, read) -> tuple[list[Candidate], np.ndarray]:
    """Fewer dice than the count on a chance table: a die boxed `odd` times the median size
    of the others or more may be two touching cubes that a level boxed together and
    another found apart (beyond the sizes it keeps). Where exactly two of the finder's
    candidates of any level (`found`; the centre model sure of them, `keep_score`) lie
    inside its box, each of the others' size (within `odd`), as far apart as dice side by
    side (SIDE_BY_SIDE of that size) and as far from every other die, and the face model
    reads both surely as dice without pips (`read`: their probabilities), they stand for
    it; when that makes the count. Else the dice as they were."""
    out, out_p = list(kept), list(probs)
    for big in kept:
        others = [k for k in kept if k is not big]
        size = float(np.median([k.size for k in others]))
        if big.size < odd * size:
            continue
        in_box = [c for c in found
                  if c not in out and abs(c.cx - big.cx) < big.size / 2 and abs(c.cy - big.cy) < big.size / 2]
        alike = _found_apart(in_box, others, size, odd, keep_score)
        if len(alike) != 2 or not _side_by_side(alike[0], alike[1:], size):
            continue
        p = read(alike)
        if all(sure_cube(q) for q in p):
            i = out.index(big)
            out[i:i + 1], out_p[i:i + 1] = alike, list(p)
    if len(out) != expect:
        return kept, probs
    return out, np.array(out_p)


def _found_apart(found: Sequence[Candidate], dice: Sequence[Candidate], size: float, odd: float,
                 keep_score: float) -> list[Candidate]:
    """The finder's candidates (`found`, of any level) the centre model is sure of
    (`keep_score`), of `size` within `odd`, and side by side with each of `dice`; one die
    found at two levels counts once."""
    return distinct([c for c in found if c.score >= keep_score and size / odd <= c.size <= size * odd
                     and _side_by_side(c, dice, size)], lambda c: c.score)


def _side_by_side(c: Candidate, dice: Sequence[Candidate], size: float) -> bool:
    """Whether c lies as far from each of the dice as dice side by side (SIDE_BY_SIDE of the
    larger of `size` and that die's)."""
    return all(np.hypot(c.cx - k.cx, c.cy - k.cy) >= SIDE_BY_SIDE * max(size, k.size) for k in dice)


def missed_cubes(kept: list[Candidate], probs: np.ndarray, found: Sequence[Candidate], expect: int, odd: float,
                 keep_score: float, read) -> tuple[list[Candidate], np.ndarray]:
    """Fewer dice than the count on a chance table: a cube the looks left out (at a level
    that does not keep its size) may still be among the finder's candidates of any level
    (`found`). When exactly the missing number of them are of the throw's size (within
    `odd` of its median), the centre model sure of them (`keep_score`), each as far from
    every die found as dice side by side (SIDE_BY_SIDE), and the face model reads each
    surely as a die without pips (`read`: their probabilities), they join the throw. Else
    the dice as they were."""
    size = float(np.median([c.size for c in kept]))
    missed = _found_apart(found, kept, size, odd, keep_score)
    if len(missed) != expect - len(kept):
        return kept, probs
    p = read(missed)
    if not all(sure_cube(q) for q in p):
        return kept, probs
    return kept + missed, np.concatenate([probs, p])


def more_cubes(kept: list[Candidate], probs: np.ndarray, found: Sequence[Candidate], expect: int, odd: float,
               keep_score: float, read) -> tuple[list[Candidate], np.ndarray]:
    """Fewer dice than the count on a chance table: two touching cubes boxed as one
    (`boxed_apart`), else cubes left out (`missed_cubes`), that the finder found at another
    level; the dice as they were when neither makes the count."""
    more = boxed_apart(kept, probs, found, expect, odd, keep_score, read)
    return more if len(more[0]) != len(kept) else missed_cubes(kept, probs, found, expect, odd, keep_score, read)


def without_unsure_cubes(kept, probs, values, confidences, expect: int):
    """On a chance table, when more dice are found than are in play and exactly that many
    (and of one size) are read surely as dice without pips (the face model's class for
    them at SURE_DIE or more), the rest go: a chance cube shows no pips, and a patterned
    cloth's squares found as dice are never that sure of it."""
    sure = [i for i in range(len(kept)) if sure_cube(probs[i])]
    if len(sure) != expect or not one_size(kept, sure):
        return kept, probs, values, confidences
    return _only(sure, kept, probs, values, confidences)


def without_strangers(kept, probs, values, confidences, expect: int, min_confidence: float,
                      likeness, like: float):
    """On a spike table, when more dice are found than are in play and exactly that many
    are surely read (and one size): the rest go when each is less alike to every view the
    table taught than `like` and than every sure die is (a patterned cloth's blobs found
    as dice). `likeness()`: each die's likeness (`spike.likeness`), asked only then. Else
    all stay."""
    sure = _count_read_surely(kept, probs, confidences, expect, min_confidence)
    if sure is None:
        return kept, probs, values, confidences
    likeness = likeness()
    least = min(likeness[i] for i in sure)
    if any(likeness[i] >= min(like, least) for i in range(len(kept)) if i not in sure):
        return kept, probs, values, confidences
    return _only(sure, kept, probs, values, confidences)

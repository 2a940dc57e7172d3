"""Why a reading is not to be trusted: the first reason, in words a player can act on."""

from __future__ import annotations

from typing import Sequence

import numpy as np

from hardware.vision.detect import Candidate
from hardware.vision.throw import UNLIKE_SIZE

MAX_DICE = 40
# Dice smaller than this many pixels of the frame itself are too few pixels to read pips
# from, and often missed when they touch: the reading is flagged (bring the camera lower).
MIN_DIE_PX = 10.0


def _where(c: Candidate) -> str:
    return f"({int(c.cx)},{int(c.cy)})"


def part_of_bigger(c: Candidate, value: int, bigger: int) -> str:
    """Why a die read as `value` is not trusted when a bigger die around it shows `bigger`
    (parts.piece_of_found, parts.bigger_die)."""
    return f"the die at {_where(c)} read as {value} may be part of a bigger die showing {bigger}: please check it"


def _overlapping(dice: Sequence[Candidate]) -> tuple[Candidate, Candidate] | None:
    """Two dice closer than dice can lie side by side: stacked, cocked, or one found twice.
    Also a die whose centre lies well inside a larger one's top face: on an over-exposed
    picture one of a white die's pips can be taken for a small die of its own."""
    for i, a in enumerate(dice):
        for b in dice[i + 1:]:
            apart = np.hypot(a.cx - b.cx, a.cy - b.cy)
            if apart < 0.55 * min(a.size, b.size) or apart < 0.5 * max(a.size, b.size):
                return a, b
    return None


def _unlike(dice: Sequence[Candidate], confidences: Sequence[float]) -> Candidate | None:
    """A die whose size is unlike the rest of its throw's, over UNLIKE_SIZE times the others'
    median or under its inverse (some other thing); of two, the one read less surely
    (with two dice, either may be the odd one)."""
    odd = []
    for i, c in enumerate(dice):
        others = [d.size for j, d in enumerate(dice) if j != i]
        if others and not 1 / UNLIKE_SIZE <= c.size / float(np.median(others)) <= UNLIKE_SIZE:
            odd.append((confidences[i], i))
    return dice[min(odd)[1]] if odd else None


def doubt(kept, values, confidences, doubtful, min_confidence, untaught=(), occluded=False) -> str | None:
    """The first reason not to trust this reading, in words a player can act on."""
    if not kept and doubtful:
        return f"something at {_where(doubtful[0])} may be a die I cannot read: please check"
    if not kept:
        return "no dice found: is the cup still over them, or the table out of view?"
    if occluded:
        return ("something big is over the table (a hand, the cup?), so dice under it may be missed: clear "
                "the view and read again; if the table is clear, the camera or the way the light falls has "
                "changed since the empty-table photo: take it again (host panel, Camera set-up, or "
                "companion calibrate --empty-table)")
    if untaught:
        # A die showing a face the profile never saw is read as the nearest taught face,
        # often surely, so a partial profile never gives a clean read.
        listed = ", ".join(map(str, untaught))
        if len(untaught) == 1:
            return (f"the spike profile has not been taught face {listed} yet, so a die showing it "
                    f"would be misread: teach it (companion teach spike --face {listed})")
        return (f"the spike profile has not been taught faces {listed} yet, so a die showing one "
                f"would be misread: teach them (companion teach spike --face {untaught[0]})")
    if len(kept) > MAX_DICE:
        return f"{len(kept)} dice is more than a table uses: something else looks like dice"
    if np.median([c.size for c in kept]) < MIN_DIE_PX:
        return ("the dice look very small, so some may be missed: bring the camera lower "
                "or set the table region (companion calibrate)")
    pair = _overlapping(kept)
    if pair:
        return f"dice at {_where(pair[0])} and {_where(pair[1])} overlap: stacked or cocked? please check"
    for c, v, conf in sorted(zip(kept, values, confidences), key=lambda t: t[2]):
        if conf < min_confidence:
            return f"die at {_where(c)} is unclear (maybe {v}): please check it"
        break
    odd = _unlike(kept, confidences)
    if odd is not None:
        return (f"the die at {_where(odd)} is far bigger or smaller than the others: is it a die? "
                "please check")
    if doubtful:
        return f"something at {_where(doubtful[0])} may be a die I cannot read: please check"
    return None

"""Chance cubes: is the top face red or blue?

Each pixel in the middle of the die (where the top face is, a square of half the die's
size) votes: red when its red channel is clearly above its blue one, blue when the
other way round, nothing when it is grey, white glare or black shadow. The value is the
side with more votes; the confidence is how much of the middle voted for it, less what
voted against, so a face washed out by glare or half hidden by a neighbour is unsure.
A dark pixel's ratio is mostly noise (red 32 against blue 27 is "clearly" red by ratio),
so a pixel's vote also needs red and blue DARK_FROM grey levels apart, whole from
DARK_FULL: a near-black face or a dark blotch on the cloth is then unsure, not read.

The middle is taken about the die's top face, not its box: a camera looking down sees
the sides of a die that face the middle of the picture, so a die's box (its top and those
sides) is centred nearer the middle than its top face (detect.top_face). The square keeps
the box's size.

The camera's white balance is trusted first (the Pi camera's is locked after warm-up).
What a cast does is read from the throw (throw_colours): the dice of one throw lie under
one light, so a cast moves all of their colours one way, and a throw of both colours
still splits into two groups. The throw is also read with the light's colour estimated
from the picture's edges and taken out (light_gains): that settles a die still unsure,
and holds a die read surely that is then surely the other colour.
"""

from __future__ import annotations

from typing import Sequence

import cv2
import numpy as np

from hardware.vision.detect import Candidate, shrink, top_face

MIDDLE = 0.25  # half-width of the square looked at, in die sizes
CLEAR = 0.03  # (red - blue) / (red + blue) from which a pixel starts to vote ...
SURE = 0.13  # ... and at which its vote is whole
SCALE = 2.0  # confidence = SCALE x (share of votes for - share against), at most 1
DARK_FROM, DARK_FULL = 4.0, 14.0  # |red - blue| in grey levels from which a vote counts, and counts whole
# A throw splits into red and blue dice when the widest gap between its dice's colours
# (colour_score) is SPLIT_CLEAR times either group's own spread (taken as at least SPREAD:
# dice of one colour in one throw differ by up to about that), and the cut between them is
# no further from grey than MAX_CAST (a cast that strong would make a red die of a blue one).
SPLIT_CLEAR = 2.0
SPREAD = 0.15
MAX_CAST = 0.35
# A die takes part in the split (as the die read, or as one of the others) only when at
# least VOTING of its middle's pixels have colour enough to count half a vote or more.
VOTING = 0.25


# light_gains: the picture is shrunk to EDGE_WIDTH pixels across and blurred (sigma in
# pixels) before its edges are measured; EDGE_POWER is the Minkowski norm over the edges.
EDGE_WIDTH, EDGE_BLUR, EDGE_POWER = 320, 1.0, 6.0
DIE_AROUND = 0.9  # a die's part of the picture, left out: this many die sizes each way from its centre
TABLE_LEFT = 0.25  # ... and at least this share of the picture must be left to tell the light by
# The least edge strength in each channel that tells the light: the Minkowski mean of
# Sobel magnitudes on the shrunk, blurred picture (a step of one grey level gives about 4).
TABLE_EDGES = 8.0
# Lamps, daylight and LEDs differ in colour from amber to blue, hardly from green to
# magenta: an estimate further than this off that line (|ln(gain B x gain R / gain G^2)|)
# tells of a coloured table (green felt, tartan), not of the light, and is not used.
OFF_LIGHTS = 0.4


def _middle(frame: np.ndarray, die: Candidate, gains: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Each pixel of the die's middle (about its top face): (red - blue) / (red + blue),
    and how much its vote counts; with `gains` (B, G, R), the pixels are multiplied by them
    first."""
    top = top_face(die, frame.shape)
    patch = Candidate(top.cx, top.cy, die.size, die.score).middle(frame, MIDDLE, least=2)
    patch = patch.reshape(-1, 3).astype(np.float32)
    if gains is not None:
        patch = patch * gains
    blue, red = patch[:, 0], patch[:, 2]
    d = (red - blue) / (red + blue + 2.0)
    return d, np.clip((np.abs(red - blue) - DARK_FROM) / (DARK_FULL - DARK_FROM), 0, 1)


def colour_score(frame: np.ndarray, die: Candidate) -> float | None:
    """Where the die's middle lies from blue (below 0) to red (above): the median
    (red - blue) / (red + blue) of its pixels with colour enough (red and blue at least
    halfway from DARK_FROM to DARK_FULL apart); None when they are under a VOTING share of
    its pixels (grey, glare, shadow: no colour to set against the others')."""
    return _score(*_middle(frame, die))


def _score(d: np.ndarray, weight: np.ndarray) -> float | None:
    voting = d[weight >= 0.5]
    return float(np.median(voting)) if voting.size and voting.size >= VOTING * d.size else None


def red_or_blue(frame: np.ndarray, die: Candidate) -> tuple[str, float]:
    """("red" | "blue", confidence 0..1) for one die; a small confidence means we cannot tell."""
    return _vote(*_middle(frame, die))


def _vote(d: np.ndarray, weight: np.ndarray) -> tuple[str, float]:
    if d.size == 0:
        return "red", 0.0
    ramp = SURE - CLEAR
    for_red = (np.clip((d - CLEAR) / ramp, 0, 1) * weight).mean()
    for_blue = (np.clip((-d - CLEAR) / ramp, 0, 1) * weight).mean()
    margin = float(for_red - for_blue)
    return ("red" if margin > 0 else "blue"), min(1.0, abs(margin) * SCALE)


def _split(scores: Sequence[float], reads: Sequence[tuple[str, float]],
           min_confidence: float) -> tuple[float, float, float] | None:
    """The blue and red groups' middles (median scores) when these dice split clearly into
    two colours, with how clearly (0.5 for the least split taken, 1 for twice that); None
    when they do not, or when a die read surely alone lies in the other colour's group."""
    if len(scores) < 2:
        return None
    order = np.sort(scores)
    i = int(np.argmax(np.diff(order)))
    widest = order[i + 1] - order[i]
    spread = max(order[i] - order[0], order[-1] - order[i + 1], SPREAD)
    cut = (order[i] + order[i + 1]) / 2
    if widest < SPLIT_CLEAR * spread or abs(cut) > MAX_CAST:
        return None
    if any((s > cut) != (v == "red") and conf >= min_confidence for s, (v, conf) in zip(scores, reads)):
        return None
    clear = min(1.0, float(widest / spread / (2 * SPLIT_CLEAR)))
    return float(np.median(order[:i + 1])), float(np.median(order[i + 1:])), clear


def _throw(frame: np.ndarray, dice: Sequence[Candidate], min_confidence: float,
           gains: np.ndarray | None = None) -> list[tuple[str, float]]:
    """Each die's (colour, confidence), the throw read together.

    A colour cast the camera did not take out (a tungsten lamp) moves every die's colour
    one way: a blue face turns grey, and read alone it is unsure or, worse, red. The dice
    of one throw lie under one light, so each die is also set against the others: when
    they split clearly into a redder and a bluer group (see SPLIT_CLEAR), a die near the
    redder group is red and one near the bluer group blue, whatever the cast. A die read
    unsurely alone then takes that colour, as surely as the split is clear and less so
    the nearer it lies to halfway; a die in the middle third between the groups, or read
    surely alone as the other colour, is unsure. When the others do not split (a throw of
    one colour, or two dice), the die is read alone."""
    middles = [_middle(frame, d, gains) for d in dice]
    reads = [_vote(*m) for m in middles]
    scores = [_score(*m) for m in middles]
    out = []
    for i, ((v, conf), s) in enumerate(zip(reads, scores)):
        others = [(t, r) for j, (t, r) in enumerate(zip(scores, reads)) if j != i and t is not None]
        split = None if s is None else _split([t for t, _ in others], [r for _, r in others], min_confidence)
        if split is None:
            out.append((v, conf))
            continue
        blue, red, clear = split
        at = (s - blue) / (red - blue)  # 0 at the blue group's middle, 1 at the red's
        if 1 / 3 < at < 2 / 3:
            out.append((v, min(conf, 0.5)))
            continue
        side = "red" if at >= 2 / 3 else "blue"
        sure = clear * min(1.0, (abs(at - 0.5) - 1 / 6) * 6)  # 0 at the middle third's edge, whole from a group's middle
        if side == v:
            out.append((v, max(conf, sure)))
        else:
            out.append((side, sure) if conf < min_confidence else (v, 0.0))
    return out


def light_gains(frame: np.ndarray, dice: Sequence[Candidate] = ()) -> np.ndarray | None:
    """(B, G, R) gains that take the light's colour out of the picture, by the grey-edge
    assumption: the edges around the dice (the cloth's weave, the wood's grain, the tray's
    rim, shadows) are on average colourless, so the channels' edge strengths differ by the
    light's colour alone. The dice themselves are left out (a blue die's outline is blue
    and would pass its colour off as the light's). Measured on the picture shrunk to
    EDGE_WIDTH across; a high EDGE_POWER lets the strongest edges count most. None when
    the dice leave too little of the picture (TABLE_LEFT), it shows too few edges to tell
    (a plain cloth), or the estimate is no light's colour (see OFF_LIGHTS)."""
    h, w = frame.shape[:2]
    scale = min(1.0, EDGE_WIDTH / w)
    small = frame if scale == 1.0 else shrink(frame, EDGE_WIDTH, max(1, round(h * scale)))
    small = cv2.GaussianBlur(small.astype(np.float32), (0, 0), EDGE_BLUR)
    gx = cv2.Sobel(small, cv2.CV_32F, 1, 0)
    gy = cv2.Sobel(small, cv2.CV_32F, 0, 1)
    square = gx * gx + gy * gy  # each edge's strength, squared
    table = np.ones(square.shape[:2], bool)
    for d in dice:
        r = DIE_AROUND * d.size * scale
        x, y = d.cx * scale, d.cy * scale
        table[max(0, int(y - r)):max(0, int(y + r) + 1), max(0, int(x - r)):max(0, int(x + r) + 1)] = False
    square = square[table]
    if square.shape[0] < TABLE_LEFT * table.size:
        return None
    light = (square ** (EDGE_POWER / 2)).mean(0, dtype=np.float64) ** (1 / EDGE_POWER)
    if light.min() < TABLE_EDGES:
        return None
    gains = light.mean() / light
    if abs(np.log(gains[0] * gains[2] / gains[1] ** 2)) > OFF_LIGHTS:
        return None
    return gains.astype(np.float32)


def throw_colours(frame: np.ndarray, dice: Sequence[Candidate], min_confidence: float = 0.8) -> list[tuple[str, float]]:
    """Each die's (colour, confidence), the throw read together (see _throw).

    The throw is also read with the light's colour taken out (light_gains): under a
    tungsten lamp a blue face turns grey, and relit it is blue again. A die unsure at
    first takes its relit reading when that is sure. Relighting misleads too (a muted blue
    on green felt), so it may settle a throw but never gives a die another colour than a
    sure first reading did: once it has settled a die, every die read surely at first must
    also be read surely and alike relit, or it keeps its colour at a confidence of at most
    0.5 (a blue die whose box leans onto its red side face reads red surely at first, and
    relit its blue top votes too: the reading is held). A throw read surely at first is
    held the same way where a die is surely the other colour relit (a lone blue face
    greyed by a warm lamp reads red surely: nothing else in the throw tells the cast)."""
    first = _throw(frame, dice, min_confidence)
    gains = light_gains(frame, dice)
    if gains is None:
        return first
    relit = _throw(frame, dice, min_confidence, gains)
    if all(conf >= min_confidence for _, conf in first):
        return [(v, min(conf, 0.5)) if v2 != v and conf2 >= min_confidence else (v, conf)
                for (v, conf), (v2, conf2) in zip(first, relit)]
    if not any(conf < min_confidence <= again for (_, conf), (_, again) in zip(first, relit)):
        return first
    out = []
    for (v, conf), (v2, conf2) in zip(first, relit):
        if conf < min_confidence:
            out.append((v2, conf2) if conf2 >= min_confidence else (v, conf))
        else:
            out.append((v, conf) if v2 == v and conf2 >= min_confidence else (v, min(conf, 0.5)))
    return out

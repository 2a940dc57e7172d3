"""A die's value and how sure of it the reader is, from what the models read: pips from
the face model, a chance cube's colour from the colour model, a spike die's taught symbol."""

from __future__ import annotations

import numpy as np

from hardware.vision import chance, spike
from hardware.vision.faces import OTHER_DIE
from hardware.vision.throw import p_die

PIP_BLANK = 0.5  # see pip_value
# A pip reading's doubt (1 - p) counts this much more: the face model's p overstates how
# often it is right on cameras and light it never saw (docs/decisions.md), so a pip die
# needs p 0.85 to pass min_confidence 0.80.
PIP_DOUBT = 4 / 3
# A spike die's pips are counted surely at this pip confidence (teaching tells a profile's
# pip faces so); a count whose pips' share is PIPS_LEAN or more leans that way (pips_checked).
PIPS_SURE = 0.8
PIPS_LEAN = 0.5


def pip_value(p: np.ndarray) -> tuple[int, float]:
    """(pips, confidence) from the face model's eight probabilities, on a table of pip dice.

    The model also knows dice without pips (chance cubes, symbol dice), and a lone central
    pip looks like their central marks, so a clear one-pip face gives some of its
    probability to "no pips". A pip table has no such dice, so
    that share is set aside and the pips are weighed among themselves (the doubt that
    this is a die at all is kept). When "no pips" is the most of it (PIP_BLANK), the face
    is washed out or not a pip die, and the pips' own small share is left as it is."""
    v = int(np.argmax(p[1:7])) + 1
    blank = float(p[OTHER_DIE])
    return v, float(p[v]) if blank >= PIP_BLANK else float(p[v]) / (1.0 - blank)


def pip_confidence(p: float) -> float:
    """A pip die's confidence from the face models' probability: its doubt counted PIP_DOUBT
    times (at least 0)."""
    return max(0.0, 1.0 - (1.0 - p) * PIP_DOUBT)


def sure_pips(p: np.ndarray) -> int:
    """The pips the face model counts on a die surely (pip confidence PIPS_SURE), else 0."""
    v, q = pip_value(p)
    return v if pip_confidence(q) >= PIPS_SURE else 0


def pips_checked(p: np.ndarray, face: int, confidence: float, profile: spike.SpikeProfile,
                 min_confidence: float) -> tuple[int, float]:
    """A spike die's (value, confidence), read by the taught head as `face`, with the face
    model's pip count as a second opinion on a table whose dice have pip faces
    (`profile.pip_faces`). A count naming the head's face, a pip face, makes the die at
    least as sure as the count is. A sure count (PIPS_SURE) of a pip face that count names
    (`profile.told_by_pips`) names the die, as surely as it counts, against a head naming
    another pip face or unsure (under `min_confidence`) of a symbol: the face model counts
    pips better than a head taught from a few photos tells them apart, and seldom counts a
    symbol's marks surely as pips (docs/decisions.md). Else a count naming another pip face holds
    the die (confidence 0): leaning that way (PIPS_LEAN) against a pip face the head names,
    sure of it against a symbol face, and never a count the taught dice of `face` showed
    too. On a table of symbols, the head's reading stands."""
    pip_faces = profile.pip_faces
    v, q = pip_value(p)
    sure = pip_confidence(q)
    if v == face and face in pip_faces:
        return face, max(confidence, sure)
    if v != face and v in profile.told_by_pips and sure >= PIPS_SURE and (
            face in pip_faces or confidence < min_confidence):
        return v, sure
    if v != face and v in pip_faces and v not in profile.counted(face) and q >= PIPS_LEAN and (
            face in pip_faces or sure >= PIPS_SURE):
        return face, 0.0
    return face, confidence


def face_level(dice: str, min_confidence: float) -> float:
    """The face models' probability a die's reading needs to pass `min_confidence` (for a
    pip die, pip_confidence's inverse): the models look again at, and settle, what is under it."""
    return 1.0 - (1.0 - min_confidence) / PIP_DOUBT if dice == "pips" else min_confidence


def read_values(frame, kept, probs, dice, profile, min_confidence):
    """(values, confidences) of the dice `kept` (their face probabilities `probs`): every
    kind's confidence counts the doubt that it is a die at all."""
    values: list = []
    confidences: list[float] = []
    spikes = iter(spike.match_all(frame, kept, profile)) if dice == "spike" else None
    colours = iter(chance.colours(frame, kept)) if dice == "chance" else None
    for c, p in zip(kept, probs):
        die = p_die(p)
        if dice == "pips":
            v, conf = pip_value(p)
            values.append(v)
            confidences.append(pip_confidence(conf))
        elif dice == "chance":
            v, margin = next(colours)
            values.append(v)
            confidences.append(margin * die)
        else:
            v, conf = pips_checked(p, *next(spikes), profile, min_confidence)
            values.append(v)
            confidences.append(conf * die)
    return values, confidences

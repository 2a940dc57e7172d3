"""Spike dice: faces the table teaches us, matched whatever way up the die lies.

Teaching keeps a small grey picture of each taught die's face. Reading compares the
middle of a die (a disc, so the face's edges stay out) with every taught face turned in
ANGLE_STEP steps, by normalised correlation of grey levels (taken as an absolute value,
so a light symbol on a dark die matches a dark one on a light die) averaged with that of
edge strength. Because the top face is not always in
the middle of a die's outline (a tilted camera shows side faces), the die is also
searched at a few small shifts and scales. The best face wins; the gap to the runner-up
says how sure we are. No glyph is known in advance.
"""

from __future__ import annotations

import io
import json
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Iterable

import cv2
import numpy as np

from hardware.vision.detect import Candidate
from hardware.vision.faces import cut

SIDE = 32
ANGLE_STEP = 15
TEACH_CROP = 0.8  # of the die size: the taught face picture
RADIUS = 0.42  # of SIDE: the disc compared
SHIFTS = (-0.16, -0.08, 0.0, 0.08, 0.16)  # of the die size
SCALES = (0.6, 0.7, 0.8, 0.9)  # of the die size
FORMAT = "companion-spike-profile/2"


class SpikeProfileError(ValueError):
    """The profile file is missing, damaged, or not a spike profile."""


def _disc() -> np.ndarray:
    yy, xx = np.mgrid[0:SIDE, 0:SIDE]
    c = (SIDE - 1) / 2
    return ((xx - c) ** 2 + (yy - c) ** 2) <= (RADIUS * SIDE) ** 2


DISC = _disc()


def face_picture(frame: np.ndarray, die: Candidate, scale: float = TEACH_CROP, dx: float = 0.0,
                 dy: float = 0.0, angle: float = 0.0) -> np.ndarray:
    crop = cut(frame, die.cx + dx * die.size, die.cy + dy * die.size, scale * die.size, SIDE, angle)
    return cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY)


def _unit(v: np.ndarray) -> np.ndarray:
    v = v - v.mean()
    return v / (np.linalg.norm(v) + 1e-6)


def describe(gray: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(shade, edges): unit vectors of the disc's grey levels and of its edge strength.

    Shade is compared as |correlation| (either polarity); edge strength does not care
    about polarity at all and is less fooled by a shadow across the face."""
    g = cv2.GaussianBlur(gray.astype(np.float32), (3, 3), 0.8)
    edges = cv2.magnitude(cv2.Sobel(g, cv2.CV_32F, 1, 0), cv2.Sobel(g, cv2.CV_32F, 0, 1))
    edges = cv2.GaussianBlur(edges, (5, 5), 1.2)
    return _unit(g[DISC]), _unit(edges[DISC])


def _stack(pictures: Iterable[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    shade, edges = zip(*(describe(p) for p in pictures))
    return np.stack(shade), np.stack(edges)


def _turned(gray: np.ndarray) -> list[np.ndarray]:
    c = ((SIDE - 1) / 2, (SIDE - 1) / 2)
    return [cv2.warpAffine(gray, cv2.getRotationMatrix2D(c, a, 1.0), (SIDE, SIDE), borderMode=cv2.BORDER_REPLICATE)
            for a in range(0, 360, ANGLE_STEP)]


@dataclass(frozen=True)
class SpikeProfile:
    """Taught faces: for each value 1..6, grey face pictures of the dice shown for it."""

    faces: dict[int, tuple[np.ndarray, ...]] = field(default_factory=dict)

    @property
    def taught(self) -> tuple[int, ...]:
        return tuple(sorted(v for v, t in self.faces.items() if t))

    @cached_property
    def _banks(self) -> dict[int, tuple[np.ndarray, np.ndarray]]:
        return {v: _stack(t for g in self.faces[v] for t in _turned(g)) for v in self.taught}

    def with_examples(self, face: int, examples: Iterable[np.ndarray]) -> "SpikeProfile":
        if face not in range(1, 7):
            raise SpikeProfileError(f"a spike face is 1..6, not {face}")
        faces = dict(self.faces)
        faces[face] = tuple(faces.get(face, ())) + tuple(np.asarray(e, np.uint8) for e in examples)
        return SpikeProfile(faces)

    def save(self, path: str | Path) -> None:
        values = [v for v in sorted(self.faces) for _ in self.faces[v]]
        pictures = [g for v in sorted(self.faces) for g in self.faces[v]]
        buf = io.BytesIO()
        meta = json.dumps({"format": FORMAT, "side": SIDE}).encode()
        np.savez_compressed(buf, meta=np.frombuffer(meta, np.uint8), faces=np.array(values, np.int8),
                            pictures=np.array(pictures, np.uint8).reshape(len(values), SIDE, SIDE))
        Path(path).write_bytes(buf.getvalue())

    @classmethod
    def load(cls, path: str | Path) -> "SpikeProfile":
        try:
            data = np.load(io.BytesIO(Path(path).read_bytes()))
            meta = json.loads(bytes(data["meta"]).decode())
            values, pictures = data["faces"], data["pictures"]
        except FileNotFoundError:
            raise SpikeProfileError(f"no spike profile at {path}; teach one with `companion teach spike`") from None
        except Exception as exc:  # damaged zip, wrong keys, bad JSON
            raise SpikeProfileError(f"{path} is not a spike profile ({exc})") from None
        if meta.get("format") != FORMAT or pictures.shape[1:] != (SIDE, SIDE):
            raise SpikeProfileError(f"{path} was made by another version of the reader; teach the faces again")
        faces: dict[int, tuple[np.ndarray, ...]] = {}
        for v, g in zip(values.tolist(), pictures):
            faces[int(v)] = faces.get(int(v), ()) + (g,)
        return cls(faces)

    @classmethod
    def load_or_empty(cls, path: str | Path) -> "SpikeProfile":
        return cls.load(path) if Path(path).exists() else cls()


def _dot(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """a @ b.T without BLAS: these products are small, and a threaded BLAS on a busy Pi
    spends far longer waking its threads than multiplying."""
    return np.einsum("ij,kj->ik", a, b)


def match(frame: np.ndarray, die: Candidate, profile: SpikeProfile) -> tuple[int, float]:
    """(face, confidence 0..1): best taught face over turns, shifts and scales."""
    if not profile.taught:
        raise SpikeProfileError("the spike profile has no taught faces")
    shade, edges = _stack(face_picture(frame, die, s, dx, dy) for dx in SHIFTS for dy in SHIFTS for s in SCALES)
    scores = {face: float(((np.abs(_dot(shade, bank_shade)) + _dot(edges, bank_edges)) / 2).max())
              for face, (bank_shade, bank_edges) in profile._banks.items()}
    ranked = sorted(scores.items(), key=lambda kv: -kv[1])
    best, s1 = ranked[0]
    s2 = ranked[1][1] if len(ranked) > 1 else 0.0
    confidence = float(np.clip((s1 - s2) / 0.12, 0, 1) * np.clip((s1 - 0.3) / 0.3, 0, 1))
    return best, confidence

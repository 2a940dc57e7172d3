"""Spike dice: faces the table teaches us, matched whatever way up the die lies.

A die's top face is described by the gradient magnitude of its middle (a disc inside
the face, so the face's own edges stay out), which looks the same for light-on-dark and
dark-on-light symbols. Reading compares a face, turned in ANGLE_STEP steps, with every
taught face by normalised correlation; the best face wins, and the gap to the runner-up
says how sure we are. No glyph is known in advance.
"""

from __future__ import annotations

import io
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable

import cv2
import numpy as np

from hardware.vision.detect import Candidate
from hardware.vision.faces import cut

SIDE = 40
ANGLE_STEP = 10
CROP_FACTOR = 1.0
RADIUS = 0.40
FORMAT = "companion-spike-profile/1"


class SpikeProfileError(ValueError):
    """The profile file is missing, damaged, or not a spike profile."""


def _mask() -> np.ndarray:
    yy, xx = np.mgrid[0:SIDE, 0:SIDE]
    c = (SIDE - 1) / 2
    return ((xx - c) ** 2 + (yy - c) ** 2) <= (RADIUS * SIDE) ** 2


MASK = _mask()


def describe(frame: np.ndarray, die: Candidate, angle: float = 0.0) -> np.ndarray:
    """Unit-length, zero-mean vector of the face's edge strength inside the central disc."""
    gray = cv2.cvtColor(cut(frame, die.cx, die.cy, CROP_FACTOR * die.size, SIDE, angle), cv2.COLOR_BGR2GRAY)
    gray = cv2.GaussianBlur(gray.astype(np.float32), (3, 3), 0.8)
    mag = cv2.magnitude(cv2.Sobel(gray, cv2.CV_32F, 1, 0), cv2.Sobel(gray, cv2.CV_32F, 0, 1))
    mag = cv2.GaussianBlur(mag, (3, 3), 1.0)
    v = mag[MASK]
    v = v - v.mean()
    return v / (np.linalg.norm(v) + 1e-6)


@dataclass(frozen=True)
class SpikeProfile:
    """Taught faces: for each value 1..6, the descriptors of the dice shown for it."""

    faces: dict[int, tuple[np.ndarray, ...]] = field(default_factory=dict)

    @property
    def taught(self) -> tuple[int, ...]:
        return tuple(sorted(v for v, t in self.faces.items() if t))

    def with_examples(self, face: int, examples: Iterable[np.ndarray]) -> "SpikeProfile":
        if face not in range(1, 7):
            raise SpikeProfileError(f"a spike face is 1..6, not {face}")
        faces = dict(self.faces)
        faces[face] = tuple(faces.get(face, ())) + tuple(np.asarray(e, np.float32) for e in examples)
        return SpikeProfile(faces)

    def save(self, path: str | Path) -> None:
        values = [v for v in sorted(self.faces) for _ in self.faces[v]]
        vectors = [e for v in sorted(self.faces) for e in self.faces[v]]
        buf = io.BytesIO()
        np.savez_compressed(buf, meta=np.frombuffer(json.dumps({"format": FORMAT, "side": SIDE}).encode(), np.uint8),
                            faces=np.array(values, np.int8), vectors=np.array(vectors, np.float32).reshape(len(values), -1))
        Path(path).write_bytes(buf.getvalue())

    @classmethod
    def load(cls, path: str | Path) -> "SpikeProfile":
        try:
            data = np.load(io.BytesIO(Path(path).read_bytes()))
            meta = json.loads(bytes(data["meta"]).decode())
            values, vectors = data["faces"], data["vectors"]
        except FileNotFoundError:
            raise SpikeProfileError(f"no spike profile at {path}; teach one with `companion teach spike`") from None
        except Exception as exc:  # damaged zip, wrong keys, bad JSON
            raise SpikeProfileError(f"{path} is not a spike profile ({exc})") from None
        if meta.get("format") != FORMAT or vectors.shape[1:] != (int(MASK.sum()),):
            raise SpikeProfileError(f"{path} was made by another version of the reader; teach the faces again")
        faces: dict[int, tuple[np.ndarray, ...]] = {}
        for v, e in zip(values.tolist(), vectors):
            faces[int(v)] = faces.get(int(v), ()) + (e,)
        return cls(faces)

    @classmethod
    def load_or_empty(cls, path: str | Path) -> "SpikeProfile":
        return cls.load(path) if Path(path).exists() else cls()


def match(frame: np.ndarray, die: Candidate, profile: SpikeProfile) -> tuple[int, float]:
    """(face, confidence 0..1): best taught face over all turns, sure when the runner-up is far behind."""
    if not profile.taught:
        raise SpikeProfileError("the spike profile has no taught faces")
    turns = np.stack([describe(frame, die, a) for a in range(0, 360, ANGLE_STEP)])
    scores = {}
    for face in profile.taught:
        bank = np.stack(profile.faces[face])
        scores[face] = float((turns @ bank.T).max())
    ranked = sorted(scores.items(), key=lambda kv: -kv[1])
    best, s1 = ranked[0]
    s2 = ranked[1][1] if len(ranked) > 1 else 0.0
    confidence = float(np.clip((s1 - s2) / 0.12, 0, 1) * np.clip((s1 - 0.3) / 0.3, 0, 1))
    return best, confidence

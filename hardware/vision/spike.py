"""Spike dice: faces the table teaches us, read by a learned, glyph-agnostic face embedding.

The embedding model (models/face_embed.onnx, trained by scripts/vision/train_spike_embed.py
on procedurally generated symbols only) maps a small colour crop of a die to a unit
vector so that photos of the same symbol lie close together whatever the die's turn,
colour, light or blur, and different symbols lie apart. It knows no glyph: the table's
symbols come only from teaching.

Teaching keeps a SIDE x SIDE colour crop of each taught die in the profile file. The
taught crops (and their quarter turns) are embedded once per profile. Reading crops
every die at two sizes (the found size is only roughly right), embeds all crops of a
frame together, averages each die's two vectors, and gives the die the face of its
nearest taught example (cosine similarity). Confidence comes from the
gap to the best example of any other face and from how close the nearest example is,
so an unfamiliar or ambiguous face reads as unsure rather than as a confident guess.
"""

from __future__ import annotations

import io
import json
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from pathlib import Path
from typing import Iterable, Sequence

import numpy as np

from hardware.vision import networks
from hardware.vision.detect import Candidate
from hardware.vision.faces import cut

SIDE = 32  # crop side in pixels (the model's input)
CROP = 0.9  # of the die size: the taught crop
READ_SCALES = (0.75, 1.05)  # of the die size: a read averages these two crops' embeddings
MODEL = "face_embed.onnx"
CHUNK = 6  # crops per forward (see embed)
FORMAT = "companion-spike-profile/3"
# Calibrated on procedurally generated teaching episodes and pip dice taught as spike dice
# (never on spike-A). Of the dice whose best face beats the runner-up by 0.2 or more,
# about 1 in 1000 is wrong (synthetic; byler pips: none), so a die needs that gap
# (0.8 x MARGIN_SURE) to pass the reader's default min_confidence 0.80. A face that was
# never taught still finds a nearest face, often by a wide gap but at a lower similarity
# (half of them under 0.75, while 95% of right readings are over 0.83), so a die must
# also be within 0.8 of its nearest example.
MARGIN_SURE = 0.25  # similarity gap to the runner-up face at which a reading is fully sure
NEAR_FLOOR, NEAR_SURE = 0.6, 0.85  # nearest-example similarity: below the floor, no confidence


class SpikeProfileError(ValueError):
    """The profile file is missing, damaged, or not a spike profile."""


def face_picture(frame: np.ndarray, die: Candidate, scale: float = CROP) -> np.ndarray:
    """The SIDE x SIDE colour crop of a die, as taught and as read."""
    return cut(frame, die.cx, die.cy, scale * die.size, SIDE)


@lru_cache(maxsize=None)
def _plan(shape: tuple[int, ...]) -> None:
    networks.run(MODEL, np.zeros((CHUNK,) + shape, np.float32))


def _standardise(crop: np.ndarray) -> np.ndarray:
    x = crop.astype(np.float32)
    return ((x - x.mean()) / (x.std() + 8.0)).transpose(2, 0, 1)


def embed(pictures: Sequence[np.ndarray]) -> np.ndarray:
    """(N, DIM) unit vectors, in forwards of at most CHUNK pictures.

    cv2.dnn (5.0, one thread) takes about 0.3 ms a crop in batches of up to 6 but twice
    that from 7 on, and re-plans (a few ms) whenever a batch is larger than any before; so
    the batches are cut at CHUNK, and the first call plans for a full CHUNK."""
    if not len(pictures):
        return np.zeros((0, 0), np.float32)
    blob = np.stack([_standardise(p) for p in pictures])
    _plan(blob.shape[1:])
    return np.concatenate([networks.run(MODEL, blob[i:i + CHUNK]) for i in range(0, len(blob), CHUNK)]).astype(np.float32)


@dataclass(frozen=True)
class SpikeProfile:
    """Taught faces: for each value 1..6, colour crops of the dice shown for it."""

    faces: dict[int, tuple[np.ndarray, ...]] = field(default_factory=dict)

    @property
    def taught(self) -> tuple[int, ...]:
        return tuple(sorted(v for v, t in self.faces.items() if t))

    @cached_property
    def _bank(self) -> tuple[np.ndarray, np.ndarray]:
        """(embeddings, face of each): every taught crop in its four quarter turns."""
        pictures = [np.rot90(p, k) for v in self.taught for p in self.faces[v] for k in range(4)]
        values = [v for v in self.taught for _ in self.faces[v] for _ in range(4)]
        return embed(pictures), np.array(values)

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
                            pictures=np.array(pictures, np.uint8).reshape(len(values), SIDE, SIDE, 3))
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
        if meta.get("format") != FORMAT or pictures.shape[1:] != (SIDE, SIDE, 3):
            raise SpikeProfileError(f"{path} was made by another version of the reader "
                                    f"({meta.get('format')}, this one reads {FORMAT}); teach the faces again")
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


def confidence(best: float, runner_up: float) -> float:
    """0..1 from the nearest example's similarity and its gap to the nearest other face."""
    gap = np.clip((best - runner_up) / MARGIN_SURE, 0, 1)
    near = np.clip((best - NEAR_FLOOR) / (NEAR_SURE - NEAR_FLOOR), 0, 1)
    return float(gap * near)


def match_all(frame: np.ndarray, dice: Sequence[Candidate], profile: SpikeProfile) -> list[tuple[int, float]]:
    """(face, confidence 0..1) for each die: nearest taught example, all dice in one forward."""
    if not profile.taught:
        raise SpikeProfileError("the spike profile has no taught faces")
    if not dice:
        return []
    bank, values = profile._bank
    views = embed([face_picture(frame, d, s) for d in dice for s in READ_SCALES])
    mean = views.reshape(len(dice), len(READ_SCALES), -1).sum(1)
    mean /= np.linalg.norm(mean, axis=1, keepdims=True) + 1e-9
    sims = _dot(mean, bank)
    faces = profile.taught
    per_face = np.stack([sims[:, values == v].max(1) for v in faces], 1)
    out = []
    for row in per_face:
        order = np.argsort(-row)
        s1, s2 = float(row[order[0]]), float(row[order[1]]) if len(faces) > 1 else -1.0
        out.append((faces[order[0]], confidence(s1, s2)))
    return out


def match(frame: np.ndarray, die: Candidate, profile: SpikeProfile) -> tuple[int, float]:
    """(face, confidence 0..1) for one die."""
    return match_all(frame, [die], profile)[0]

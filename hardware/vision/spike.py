"""Spike dice: faces the table teaches us, read by a learned, glyph-agnostic face embedding.

The embedding model (models/face_embed.onnx, trained by scripts/vision/train_spike_embed.py
on procedurally generated symbols only) maps a small colour crop of a die to a unit
vector so that photos of the same symbol lie close together whatever the die's turn,
colour, light or blur, and different symbols lie apart. It knows no glyph: the table's
symbols come only from teaching.

Teaching keeps a SIDE x SIDE colour crop of each taught die in the profile file. Once per
profile (it never changes once loaded), each taught crop is embedded in its four quarter
turns and in VARIATIONS more plausible views (small turns, the crop's scale and centre
off as the reader's are, blur, colour and brightness), and a small linear head (softmax
regression) learns this profile's faces from those vectors. Reading crops every die at
three sizes (the found size is only roughly right), embeds all crops of a frame together,
averages each die's three vectors, and gives the die the head's most probable face.
Confidence is that probability times how close the nearest taught view is, so a face
unlike anything taught (a die from another set, a smudge) tends to read unsure. A face of
the same set that was never taught is not reliably unsure (its glyphs look alike to the
embedding), so the reader flags every read while the profile lacks a face. A die the head
is unsure of is judged again with a second opinion, its mark's outline (marks.py), weighed
in with the head's logits: it can make the die surer or less sure, or change its face.
"""

from __future__ import annotations

import io
import json
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from pathlib import Path
from typing import Iterable, Sequence

import cv2
import numpy as np

from hardware.files import replace_file
from hardware.vision import marks, networks
from hardware.vision.detect import Candidate
from hardware.vision.faces import cut, edge_angle, standardise_crops

SIDE = 32  # crop side in pixels (the model's input)
CROP = 0.9  # of the die size: the taught crop
# Of the die size: a read averages these crops' embeddings.
READ_SCALES = (0.75, 0.9, 1.05)
MODEL = "face_embed.onnx"
CHUNK = 6  # crops per forward (see embed)
FORMAT = "companion-spike-profile/4"  # /4: crops set square to the die (edge_angle)
FACES = range(1, 7)  # the values a spike die's faces stand for
UNCOUNTED = -1  # a taught die's pips, in a profile taught before they were counted
# A face never taught is still given its nearest taught face, but less similar: confidence
# is scaled from 1 at NEAR_SURE (cosine to the nearest taught view) to 0 at NEAR_FLOOR.
NEAR_FLOOR, NEAR_SURE = 0.6, 0.85
# The per-profile head is trained on views of taught crops, easier than dice on a table,
# so its probabilities come out timid; its logits are sharpened by this (chosen on pip dice
# taught as spike dice, never on a spike set: docs/decisions.md).
HEAD_SHARPEN = 1.25
VARIATIONS = 32  # extra views of each taught crop
# A die read less sure than this is read again with its crops in the other three quarter
# turns, the twelve embeddings averaged.
LOOK_AGAIN_BELOW = 0.8
# How far off square edge_angle may leave a crop, in degrees (taught views are turned this much).
TURN_ERROR = 10
HEAD_STEPS, HEAD_RATE, HEAD_L2 = 300, 0.5, 1e-3
# A die the head gives less than SECOND_OPINION_BELOW is judged again with the mark matcher
# (marks.py): its face is the most probable of the head's logits plus MARK_WEIGHT times each
# face's mark correlation.
SECOND_OPINION_BELOW = 0.9
MARK_WEIGHT = 7.5


class SpikeProfileError(ValueError):
    """The profile file is missing, damaged, or not a spike profile."""


def face_pictures(frame: np.ndarray, die: Candidate, scales: Sequence[float] = (CROP,)) -> list[np.ndarray]:
    """SIDE x SIDE colour crops of a die, `scale` x its size, as taught and as read: set
    square to the die's sides, so its symbol is upright or a whole quarter turn off, and the
    embedding and the head need not tell symbols apart at every angle."""
    angle = edge_angle(frame, die.cx, die.cy, die.size)
    return [cut(frame, die.cx, die.cy, s * die.size, SIDE, angle) for s in scales]


@lru_cache(maxsize=None)
def _plan(shape: tuple[int, ...]) -> None:
    networks.run(MODEL, np.zeros((CHUNK,) + shape, np.float32))


def embed(pictures: Sequence[np.ndarray]) -> np.ndarray:
    """(N, DIM) unit vectors, in forwards of at most CHUNK pictures.

    cv2.dnn spends a few ms the first time it meets a batch of a new size, so batches are
    cut at CHUNK (at most six sizes ever) and the first call runs a full CHUNK. (OpenCV 5's
    new engine was also twice as slow per crop from 7 on; the engine networks.py uses
    takes about 0.16 ms a crop whatever the batch.)"""
    if not len(pictures):
        return np.zeros((0, 0), np.float32)
    blob = standardise_crops(pictures)
    _plan(blob.shape[1:])
    return np.concatenate([networks.run(MODEL, blob[i:i + CHUNK]) for i in range(0, len(blob), CHUNK)]).astype(np.float32)


@dataclass(frozen=True)
class SpikeProfile:
    """Taught faces: for each value 1..6, colour crops of the dice shown for it, and for each
    crop the pips the face model counted on that die surely when it was taught (0: none
    surely; UNCOUNTED: taught before the counts were kept)."""

    faces: dict[int, tuple[np.ndarray, ...]] = field(default_factory=dict)
    pips: dict[int, tuple[int, ...]] = field(default_factory=dict)

    def __post_init__(self):
        """Every face's counts, one to each taught die: those not given are UNCOUNTED."""
        for v, counts in self.pips.items():
            if counts and len(counts) != len(self.faces.get(v, ())):
                raise SpikeProfileError(f"face {v} has {len(self.faces.get(v, ()))} taught dice "
                                        f"but {len(counts)} pip counts")
        object.__setattr__(self, "pips", {v: tuple(self.pips.get(v) or (UNCOUNTED,) * len(t))
                                          for v, t in self.faces.items()})

    def counted(self, face: int) -> frozenset[int]:
        """The pips the face model counted surely on `face`'s taught dice (none: 0)."""
        return frozenset(n for n in self.pips.get(face, ()) if n > 0)

    @property
    def taught(self) -> tuple[int, ...]:
        return tuple(sorted(v for v, t in self.faces.items() if t))

    @property
    def untaught(self) -> tuple[int, ...]:
        """The faces 1..6 still to teach; a read with any of them is flagged."""
        taught = self.taught
        return tuple(v for v in FACES if v not in taught)

    @cached_property
    def pip_faces(self) -> frozenset[int]:
        """The taught faces that are pip faces: most of the dice taught for the face showed
        that many pips to the face model (a table's spike dice may be pip dice with a
        symbol among their faces). A symbol face, or a face taught as another value than
        its pips, is none; neither is a face whose dice were not counted."""
        out = set()
        for v in self.taught:
            counted = [n for n in self.pips.get(v, ()) if n != UNCOUNTED]
            if counted and 2 * sum(n == v for n in counted) > len(counted):
                out.add(v)
        return frozenset(out)

    @cached_property
    def told_by_pips(self) -> frozenset[int]:
        """The pip faces whose count names them: no other taught face's dice showed that
        many pips when taught (a symbol the face model counts as one pip leaves 1 to the
        head), and every other taught face's dice were counted (a face taught before the
        counts were kept may be such a symbol)."""
        return frozenset(v for v in self.pip_faces
                         if not any(v in self.counted(f) or UNCOUNTED in self.pips.get(f, ())
                                    for f in self.taught if f != v))

    @cached_property
    def _bank(self) -> tuple[np.ndarray, np.ndarray]:
        """(embeddings, face of each): every taught crop in its quarter turns and variations."""
        rng = np.random.default_rng(0)  # the same profile always gives the same head
        pictures, values = [], []
        for v in self.taught:
            for p in self.faces[v]:
                views = [np.rot90(p, k) for k in range(4)] + variations(p, rng, VARIATIONS)
                pictures += views
                values += [v] * len(views)
        return embed(pictures), np.array(values)

    @cached_property
    def _head(self) -> tuple[np.ndarray, np.ndarray]:
        """(weights, biases) of a softmax regression from embeddings to the taught faces."""
        bank, values = self._bank
        faces = np.array(self.taught)
        target = (values[:, None] == faces[None, :]).astype(np.float32)
        w = np.zeros((len(faces), bank.shape[1]), np.float32)
        b = np.zeros(len(faces), np.float32)
        for _ in range(HEAD_STEPS):
            err = (networks.softmax(_dot(bank, w) + b) - target) / len(bank)
            w -= HEAD_RATE * (np.einsum("ni,nj->ij", err, bank) + HEAD_L2 * w)
            b -= HEAD_RATE * err.sum(0)
        return w, b

    @cached_property
    def _marks(self) -> tuple[np.ndarray, np.ndarray]:
        """(mark templates of every taught crop, face of each): see marks.py."""
        crops = [(v, p) for v in self.taught for p in self.faces[v]]
        return marks.templates([p for _, p in crops]), np.array([v for v, _ in crops])

    def with_examples(self, face: int, examples: Iterable[np.ndarray],
                      pips: Iterable[int] | None = None) -> "SpikeProfile":
        """The profile with `examples` added to `face`; `pips`: the face model's sure count
        on each (see the class), else they are UNCOUNTED."""
        if face not in FACES:
            raise SpikeProfileError(f"a spike face is 1..6, not {face}")
        examples = tuple(np.asarray(e, np.uint8) for e in examples)
        counts = tuple(int(n) for n in pips) if pips is not None else (UNCOUNTED,) * len(examples)
        if len(counts) != len(examples):
            raise SpikeProfileError(f"{len(examples)} examples but {len(counts)} pip counts")
        faces, all_pips = dict(self.faces), dict(self.pips)
        faces[face] = tuple(faces.get(face, ())) + examples
        all_pips[face] = all_pips.get(face, ()) + counts
        return SpikeProfile(faces, all_pips)

    def save(self, path: str | Path) -> None:
        values = [v for v in sorted(self.faces) for _ in self.faces[v]]
        pictures = [g for v in sorted(self.faces) for g in self.faces[v]]
        counts = [n for v in sorted(self.faces) for n in self.pips[v]]
        buf = io.BytesIO()
        meta = json.dumps({"format": FORMAT, "side": SIDE}).encode()
        # "pips" is an addition a reader of this format without it ignores
        np.savez_compressed(buf, meta=np.frombuffer(meta, np.uint8), faces=np.array(values, np.int8),
                            pictures=np.array(pictures, np.uint8).reshape(len(values), SIDE, SIDE, 3),
                            pips=np.array(counts, np.int8))
        replace_file(path, buf.getvalue())

    @classmethod
    def load(cls, path: str | Path) -> "SpikeProfile":
        try:
            data = np.load(io.BytesIO(Path(path).read_bytes()))
            meta = json.loads(bytes(data["meta"]).decode())
            values, pictures = data["faces"], data["pictures"]
            counts = data["pips"] if "pips" in data.files else np.full(len(values), UNCOUNTED, np.int8)
        except FileNotFoundError:
            raise SpikeProfileError(f"no spike profile at {path}; teach one with `companion teach spike`") from None
        except Exception as exc:  # damaged zip, wrong keys, bad JSON
            raise SpikeProfileError(f"{path} is not a spike profile ({exc})") from None
        if meta.get("format") != FORMAT or pictures.shape[1:] != (SIDE, SIDE, 3):
            raise SpikeProfileError(f"{path} was made by another version of the reader "
                                    f"({meta.get('format')}, this one reads {FORMAT}); teach the faces again")
        if len(counts) != len(values):
            raise SpikeProfileError(f"{path} is not a spike profile ({len(counts)} pip counts for {len(values)} "
                                    "taught dice)")
        faces: dict[int, tuple[np.ndarray, ...]] = {}
        pips: dict[int, tuple[int, ...]] = {}
        for v, g, n in zip(values.tolist(), pictures, counts.tolist()):
            faces[int(v)] = faces.get(int(v), ()) + (g,)
            pips[int(v)] = pips.get(int(v), ()) + (int(n),)
        return cls(faces, pips)

    @classmethod
    def load_or_empty(cls, path: str | Path) -> "SpikeProfile":
        return cls.load(path) if Path(path).exists() else cls()


def variations(picture: np.ndarray, rng: np.random.Generator, n: int) -> list[np.ndarray]:
    """n plausible other views of a taught crop (taken at CROP x the die size): a quarter
    turn plus up to TURN_ERROR degrees, the reader's crop scale (0.7-1.2x the die), a centre
    off by up to 6% of the die, sometimes a slight blur, and per-channel gain and brightness."""
    out = []
    for i in range(n):
        angle = 90 * (i % 4) + rng.uniform(-TURN_ERROR, TURN_ERROR)
        side = SIDE * rng.uniform(0.7, 1.2) / CROP
        dx, dy = rng.uniform(-0.06, 0.06, 2) * SIDE / CROP
        view = cut(picture, SIDE / 2 + dx, SIDE / 2 + dy, side, SIDE, angle)
        if rng.random() < 0.5:
            view = cv2.GaussianBlur(view, (0, 0), rng.uniform(0.3, 1.0))
        gain, lift = rng.uniform(0.75, 1.25, 3).astype(np.float32), np.float32(rng.uniform(-25, 25))
        out.append(np.clip(view.astype(np.float32) * gain + lift, 0, 255).astype(np.uint8))
    return out


def _dot(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """a @ b.T without BLAS: these products are small, and a threaded BLAS on a busy Pi
    spends far longer waking its threads than multiplying."""
    return np.einsum("ij,kj->ik", a, b)


def closeness(best: float) -> float:
    """0..1: how near the nearest taught view is (0 at NEAR_FLOOR, 1 from NEAR_SURE)."""
    return float(np.clip((best - NEAR_FLOOR) / (NEAR_SURE - NEAR_FLOOR), 0, 1))


def match_all(frame: np.ndarray, dice: Sequence[Candidate], profile: SpikeProfile) -> list[tuple[int, float]]:
    """(face, confidence 0..1) for each die: the profile's head, all dice in one forward.
    A die read under LOOK_AGAIN_BELOW is read again with its crops in the other three
    quarter turns, and all twelve embeddings averaged. A die the head is still unsure of
    (SECOND_OPINION_BELOW) is judged again with the mark matcher's scores added in."""
    if not profile.taught:
        raise SpikeProfileError("the spike profile has no taught faces")
    if not dice:
        return []
    pictures, sums = _read_sums(frame, dice)
    faces, probs, near = _judge(sums, profile)
    again = [i for i in range(len(dice)) if probs[i] * near[i] < LOOK_AGAIN_BELOW]
    if again:
        turned = [np.rot90(p, k) for i in again for k in (1, 2, 3) for p in pictures[i]]
        sums[again] += embed(turned).reshape(len(again), 3 * len(READ_SCALES), -1).sum(1)
        faces[again], probs[again], near[again] = _judge(sums[again], profile)
    unsure = [i for i in range(len(dice)) if probs[i] < SECOND_OPINION_BELOW and near[i] > 0]
    if unsure:
        bank, owners = profile._marks
        scores = np.stack([marks.face_scores(pictures[i], bank, owners, profile.taught) for i in unsure])
        faces[unsure], probs[unsure] = _decide(_logits(_unit(sums[unsure]), profile) + MARK_WEIGHT * scores, profile)
    return [(int(f), float(p * c)) for f, p, c in zip(faces, probs, near)]


def _read_sums(frame: np.ndarray, dice: Sequence[Candidate]) -> tuple[list[list[np.ndarray]], np.ndarray]:
    """Each die's crops at READ_SCALES, and the sum of their embeddings (one row a die)."""
    pictures = [face_pictures(frame, d, READ_SCALES) for d in dice]
    sums = embed([p for ps in pictures for p in ps]).reshape(len(dice), len(READ_SCALES), -1).sum(1)
    return pictures, sums


def _nearest(mean: np.ndarray, profile: SpikeProfile) -> np.ndarray:
    """For unit embeddings, the cosine to the nearest view the profile taught."""
    return _dot(mean, profile._bank[0]).max(1)


def _unit(sums: np.ndarray) -> np.ndarray:
    """Summed embeddings as unit vectors (their mean direction)."""
    return sums / (np.linalg.norm(sums, axis=1, keepdims=True) + 1e-9)


def _logits(mean: np.ndarray, profile: SpikeProfile) -> np.ndarray:
    """The head's sharpened logits for unit embeddings."""
    w, b = profile._head
    return (_dot(mean, w) + b) * HEAD_SHARPEN


def _decide(logits: np.ndarray, profile: SpikeProfile) -> tuple[np.ndarray, np.ndarray]:
    """(faces, probabilities): the most probable taught face of each row of logits."""
    probs = networks.softmax(logits)
    return np.array(profile.taught)[probs.argmax(1)], probs.max(1)


def _judge(sums: np.ndarray, profile: SpikeProfile) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(faces, probabilities, nearness) for summed embeddings: the head's most probable face,
    its probability, and how near the nearest taught view is (closeness); a die's
    confidence is the product."""
    mean = _unit(sums)
    nearest = _nearest(mean, profile)
    faces, probs = _decide(_logits(mean, profile), profile)
    return faces, probs, np.array([closeness(float(s)) for s in nearest])


def likeness(frame: np.ndarray, dice: Sequence[Candidate], profile: SpikeProfile) -> np.ndarray:
    """How alike each die is to the nearest view the table taught (cosine of their
    embeddings, as `match_all` reads them in their upright turn)."""
    if not dice:
        return np.zeros(0, np.float32)
    return _nearest(_unit(_read_sums(frame, dice)[1]), profile)


def match(frame: np.ndarray, die: Candidate, profile: SpikeProfile) -> tuple[int, float]:
    """(face, confidence 0..1) for one die."""
    return match_all(frame, [die], profile)[0]

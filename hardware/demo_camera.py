"""The demo's camera: bundled photos that follow the game.

`DemoCamera` is a frame source like the real ones (read/close), so the demo runs the
very reveal flow the table runs. While no dice are expected it shows an empty table;
when the game asks for dice the throw is under the cup, and the cup comes off at the
Reveal (`lift_cup`, as the table's reveal button), never by itself. The throw is a
scene of that kind and count: now and then a bundled photo as it is, mostly dice of
faces drawn at random, cut from the photos and laid on the demo's own felt (at the
photos' scale), so a game sees varied throws and no two running alike. The real vision
reader then reads it; `ManifestReader` stands in when the reader cannot be loaded,
using the values the photos were rendered with.

Photos: hardware/data/demo/ (rendered scenes; manifest.json says what each shows).
"""

from __future__ import annotations

import json
import random
import threading
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from hardware.reveal import CAMERA_KINDS, Sight

#: How often a throw is a bundled photo as it is (when one has that many dice); else its
#: faces are drawn at random. Two of three photos of two pips show 4 and 6, both of five
#: chance cubes 2 red and 3 blue, the one of two spike dice 3 and 4.
OWN_PHOTO = 0.2
EMPTY_SIZE = (768, 1024)  # height, width of the bundled photos
FELT_BGR = (52, 84, 40)


@dataclass(frozen=True)
class Scene:
    """One picture the demo camera can show, and what it shows."""

    kind: str
    values: tuple[Any, ...]
    boxes: tuple[tuple[int, int, int, int], ...]
    files: tuple[str, ...]


def _dice(values) -> list[str]:
    return sorted(map(str, values))


def demo_folder() -> Path:
    return Path(str(resources.files("hardware").joinpath("data/demo")))


def load_manifest(folder: Path | None = None) -> dict[str, Any]:
    folder = folder or demo_folder()
    return json.loads((folder / "manifest.json").read_text(encoding="utf-8"))


class DemoCamera:
    """A FrameSource that shows a photo fitting `table.expected_dice()`."""

    def __init__(self, table, folder: Path | None = None, *, seed: int | None = None):
        self.table = table
        self.folder = folder or demo_folder()
        manifest = load_manifest(self.folder)
        self._photos: dict[tuple[str, int], list[dict[str, Any]]] = {}
        for entry in manifest["scenes"]:
            self._photos.setdefault((entry["kind"], len(entry["dice"])), []).append(entry)
        self._rng = random.Random(seed)
        self._lock = threading.Lock()
        self._empty = _empty_table()
        self._key: tuple[Any, ...] | None = None
        self._lifted = False
        self._scene: Scene | None = None
        self._frame: np.ndarray | None = None
        self.shown: Scene | None = None  # what the last frame handed out shows (None: empty table)
        self.last_scene: Scene | None = None  # the last scene with dice handed out
        self._lift = False

    def kinds(self) -> dict[str, list[int]]:
        """Dice counts with a photo of their own, per kind."""
        out: dict[str, list[int]] = {}
        for kind, count in sorted(self._photos):
            out.setdefault(kind, []).append(count)
        return out

    def read(self) -> np.ndarray:
        request = self.table.expected_dice()
        with self._lock:
            if request is None or request.kind not in CAMERA_KINDS:
                self._key, self.shown, self._lift = None, None, False
                return self._empty.copy()
            session = self.table.session
            key = (self.table.game_id, len(session.record.events) if session else 0, request.kind, request.count)
            if key != self._key:
                self._key, self._lifted = key, False
                self._scene, self._frame = self.compose(request.kind, request.count)
            if self._lift:
                self._lifted, self._lift = True, False
            if self._frame is None or not self._lifted:
                self.shown = None  # the cup is still over the dice (or no photo fits)
                return self._empty.copy()
            self.shown = self.last_scene = self._scene
            return self._frame.copy()

    def lift_cup(self) -> None:
        """The reveal button: the cup comes off, and the next picture shows the dice."""
        with self._lock:
            self._lift = True

    def compose(self, kind: str, count: int) -> tuple[Scene | None, np.ndarray | None]:
        """A scene of exactly `count` dice of `kind`: now and then (OWN_PHOTO) a bundled
        photo with that many, else dice of random faces laid on the felt (cut from the
        photos at their scale, blended in), else, if no room is left, photos side by side."""
        # Not the same dice twice running while another picture can be had: two of the three
        # photos of two pips show 4 and 6, and a roll-off tied round after round.
        last = _dice(self.last_scene.values) if self.last_scene and self.last_scene.kind == kind else None
        for _ in range(4):
            scene, image = self._compose_once(kind, count, last)
            if scene is None or _dice(scene.values) != last:
                break
        return scene, image

    def _compose_once(self, kind: str, count: int, last: list[str] | None):
        own = [e for e in self._photos.get((kind, count), []) if _dice(e["dice"]) != last] or \
            self._photos.get((kind, count), [])
        if own and self._rng.random() < OWN_PHOTO:
            entry = self._rng.choice(own)
            image = self._image(entry)
            return Scene(kind, tuple(entry["dice"]), tuple(tuple(b) for b in entry["boxes"]), (entry["file"],)), image
        return self._scatter(kind, count) or self._side_by_side(kind, count)

    def _image(self, entry: dict[str, Any]) -> np.ndarray | None:
        return cv2.imread(str(self.folder / entry["file"]), cv2.IMREAD_COLOR)

    def _scatter(self, kind: str, count: int, *, gap: int = 24, margin: int = 6):
        """Dice of faces drawn at random (each face as likely as another, whichever photos
        show it) cut from the photos and laid on the demo's felt, the table the cup is
        lifted from. (On a photo's own table the reader took its marks for dice: a third of
        the spike throws were held; laid on the felt, 3 of 60 throws of all kinds were.)"""
        entries = [e for (k, _), group in self._photos.items() if k == kind for e in group]
        if not entries:
            return None
        image = self._empty.copy()
        height, width = image.shape[:2]
        values, boxes, files = [], [], []
        cx, cy = width / 2, height / 2
        donors: dict[str, list[tuple[dict[str, Any], int]]] = {}  # face -> the dice showing it
        for e in entries:
            for i, value in enumerate(e["dice"]):
                donors.setdefault(str(value), []).append((e, i))
        faces = sorted(donors)
        face = self._rng.choice(faces)
        for attempt in range(3000):
            if len(values) == count:  # left to right, as a reading lists them
                order = sorted(range(count), key=lambda i: (boxes[i][0] + boxes[i][2], boxes[i][1] + boxes[i][3]))
                return Scene(kind, tuple(values[i] for i in order), tuple(boxes[i] for i in order),
                             tuple(files)), image
            entry, index = self._rng.choice(donors[face])
            x1, y1, x2, y2 = entry["boxes"][index]
            x1, y1 = max(0, x1 - margin), max(0, y1 - margin)
            pw, ph = x2 + margin - x1, y2 + margin - y1
            spread = 150 + attempt * 0.5  # widen the search round the dice as the table fills
            nx = int(cx + self._rng.uniform(-1, 1) * spread * 1.3 - pw / 2)
            ny = int(cy + self._rng.uniform(-1, 1) * spread - ph / 2)
            box = (nx + margin, ny + margin, nx + pw - margin, ny + ph - margin)
            if nx < 20 or ny < 20 or nx + pw > width - 20 or ny + ph > height - 20 or ph < 12 or pw < 12:
                continue
            if any(not (box[2] + gap < b[0] or b[2] + gap < box[0] or box[3] + gap < b[1] or b[3] + gap < box[1])
                   for b in boxes):
                continue
            donor = self._image(entry)  # read only once the die has found a place
            patch = donor[y1:y1 + ph, x1:x1 + pw].copy()
            del donor
            if patch.shape[:2] != (ph, pw):
                continue
            mask = np.zeros((ph, pw), np.uint8)
            mask[2:-2, 2:-2] = 255
            # Blended into the felt round the die alone: seamlessClone works on the whole
            # picture it is given, and a whole table's worth per die made a 15-die throw
            # take tens of MB for a moment (which the process then kept).
            pad = 16
            y0, x0 = max(0, ny - pad), max(0, nx - pad)
            around = image[y0:min(height, ny + ph + pad), x0:min(width, nx + pw + pad)]
            image[y0:y0 + around.shape[0], x0:x0 + around.shape[1]] = cv2.seamlessClone(
                patch, np.ascontiguousarray(around), mask, (nx - x0 + pw // 2, ny - y0 + ph // 2), cv2.NORMAL_CLONE)
            values.append(entry["dice"][index])
            boxes.append(box)
            files.append(entry["file"])
            face = self._rng.choice(faces)  # the next die's face
        return None

    def _side_by_side(self, kind: str, count: int) -> tuple[Scene | None, np.ndarray | None]:
        parts = self._pick(kind, count)
        if not parts:
            return None, None
        images, values, boxes, offset = [], [], [], 0
        for entry in parts:
            image = self._image(entry)
            if image is None:
                return None, None
            if image.shape[0] != EMPTY_SIZE[0]:
                scale = EMPTY_SIZE[0] / image.shape[0]
                image = cv2.resize(image, (round(image.shape[1] * scale), EMPTY_SIZE[0]))
                entry = dict(entry, boxes=[[round(v * scale) for v in b] for b in entry["boxes"]])
            images.append(image)
            values += entry["dice"]
            boxes += [(b[0] + offset, b[1], b[2] + offset, b[3]) for b in entry["boxes"]]
            offset += image.shape[1]
        scene = Scene(kind, tuple(values), tuple(boxes), tuple(e["file"] for e in parts))
        return scene, np.hstack(images) if len(images) > 1 else images[0]

    def _pick(self, kind: str, count: int) -> list[dict[str, Any]]:
        """Photos adding up to `count` dice, the fewest pictures first."""
        counts = sorted((c for k, c in self._photos if k == kind), reverse=True)
        chosen, left = [], count
        while left > 0:
            fitting = [c for c in counts if c <= left]
            if not fitting:
                return []
            chosen.append(self._rng.choice(self._photos[(kind, fitting[0])]))
            left -= fitting[0]
        return chosen

    def close(self) -> None:
        pass

    def __enter__(self) -> "DemoCamera":
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


class ManifestReader:
    """A DiceReader for the demo when the vision reader cannot be loaded: the rendered values."""

    def __init__(self, camera: DemoCamera):
        self._camera = camera

    def read(self, frame: np.ndarray, kind: str, expect: int | None = None) -> Sight:
        scene = self._camera.shown
        if scene is None or scene.kind != kind:
            return Sight((), (), (), True, "no dice in view yet: the cup is still down")
        return Sight(scene.values, scene.boxes, (1.0,) * len(scene.values))



def demo_spike_profile(folder: Path | None = None):
    """Teach the vision reader the bundled spike dice, as `companion teach spike` would."""
    from hardware import vision

    folder = folder or demo_folder()
    profile = vision.SpikeProfile()
    for lesson in load_manifest(folder)["spike_teaching"]:
        image = cv2.imread(str(folder / lesson["file"]), cv2.IMREAD_COLOR)
        profile, _ = vision.teach_spike(profile, lesson["face"], [image])
    return profile


def _empty_table() -> np.ndarray:
    """A plain felt table with a little grain (a perfectly flat picture is not a camera's)."""
    rng = np.random.default_rng(7)
    table = np.empty((*EMPTY_SIZE, 3), np.uint8)
    table[:] = FELT_BGR
    grain = rng.integers(-6, 7, size=EMPTY_SIZE + (1,), dtype=np.int16)
    return np.clip(table.astype(np.int16) + grain, 0, 255).astype(np.uint8)

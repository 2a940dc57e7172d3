"""Labelled dice photos for training the vision models, with a fixed hold-out split.

Sets (all under shared/datasets, each with its own licence in SOURCE.txt):
byler-train (BSD-3), matteop-train (MIT), rendered-dev (project renders).
An image is held out when crc32 of its file name is divisible by 5 (about 20% of each
set); held-out images never reach training, and benchmarks/vision.py --split heldout
reports on exactly these.

label_fixes.json lists the few labelled dice whose label is not what the die shows, and
the few dice in plain view that have no label at all ("label": null; the box is added),
each checked by eye, with what was seen; fixed() applies them to a manifest.
"""

from __future__ import annotations

import json
import os
import zlib
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from glyphs import glyph_set, pip_like
from legibility import legible  # the renders whose marks their picture does not show
from render_dice import held_out  # which render splits draw the held-out styles

# COMPANION_DATASETS: another root (a copy carried to a training machine)
DATASETS = Path(os.environ.get("COMPANION_DATASETS") or Path(__file__).resolve().parents[3] / "shared" / "datasets")
SETS = {
    "byler": DATASETS / "photos" / "byler-train",
    "matteop": DATASETS / "photos" / "matteop-train",
    "rendered": DATASETS / "rendered-dev",
}
# Photos from cameras, tables and dice no model here was trained on: benchmarks/vision.py
# reads them, and nothing that trains may (load_all never returns them).
TEST_ONLY = {
    "epanemu": DATASETS / "photos" / "epanemu-table",  # CC BY 4.0, Jiri Nemecek: phone, oblique, office table, Catan
    "spezm": DATASETS / "photos" / "spezm-webcam",  # CC BY 4.0, Roboflow workspace-spezm: webcam, red translucent dice
}


FIXES = Path(__file__).with_name("label_fixes.json")


def fixed(set_name: str, entries: list[dict]) -> list[dict]:
    """The manifest entries with label_fixes.json applied: dice relabelled as they show, and
    unlabelled dice added. A fix that no longer matches its manifest is refused."""
    fixes = [f for f in json.loads(FIXES.read_text()) if f["set"] == set_name]
    relabel = {(f["image"], tuple(f["box"])): f for f in fixes if f["label"] is not None}
    missing: dict[str, list[dict]] = {}
    for f in fixes:
        if f["label"] is None:
            missing.setdefault(f["image"], []).append(f)
    out = []
    for e in entries:
        boxes = [list(b) for b in e.get("boxes") or []]
        for b in boxes:
            f = relabel.get((e["image"], tuple(b[:4])))
            if f is not None:
                if b[4] != f["label"]:
                    raise ValueError(f"label fix for {e['image']} {b[:4]} expects label {f['label']}, found {b[4]}")
                b[4] = f["shows"]
        for f in missing.get(e["image"], ()):
            x1, y1, x2, y2 = f["box"]
            if any(x1 <= (b[0] + b[2]) / 2 <= x2 and y1 <= (b[1] + b[3]) / 2 <= y2 for b in boxes):
                raise ValueError(f"label fix adds a die at {e['image']} {f['box']}, but the manifest now has one there")
            boxes.append([x1, y1, x2, y2, f["shows"]])
        out.append({**e, "boxes": boxes, "dice": [b[4] for b in boxes]} if boxes else e)
    return out


def is_held_out(image_name: str) -> bool:
    return zlib.crc32(Path(image_name).name.encode()) % 5 == 0


@dataclass(frozen=True)
class Labelled:
    set_name: str
    path: Path
    kind: str  # "pip", "chance", "spike-A", "spike-A-enrol"
    boxes: tuple[tuple[float, float, float, float, object], ...]
    held_out: bool
    #: The picture has no up (a render seen straight down, or by renderer 4 and before,
    #: whose tilted cameras were turned any way): its crops may be turned any way.
    any_turn: bool = False


def load(set_name: str, root: Path | None = None) -> list[Labelled]:
    if root is None and set_name in TEST_ONLY:
        raise ValueError(f"{set_name} is test-only: never train on it (benchmarks/vision.py reads it)")
    root = root or SETS[set_name]
    entries = fixed(set_name, json.loads((root / "manifest.json").read_text()))
    out = []
    for e in entries:
        boxes = tuple(tuple(b) for b in (e.get("boxes") or []))
        out.append(Labelled(set_name, root / e["image"], e.get("kind") or "pip", boxes, is_held_out(e["image"])))
    return out


def load_all() -> list[Labelled]:
    return [item for name in SETS for item in load(name)]


#: A rendered die whose top face is hidden more than this, that lies cocked, or whose marks
#: the picture does not show (legibility.legible) is labelled nothing: neither a face to
#: learn nor the table (render_dice.py's labels say which).
RENDER_HIDDEN = 0.3


@lru_cache(maxsize=None)
def _pip_like_faces(symbols: int) -> frozenset[int]:
    return frozenset(v for v, glyph in glyph_set(symbols).items() if pip_like(glyph))


def shows_pips(detail: dict) -> bool:
    """Whether a rendered symbol die (`dice_detail` of a manifest line) shows a glyph that
    could pass for pips (glyphs.pip_like): no face to teach as "a die without pips"."""
    symbols = detail.get("style", {}).get("symbols")
    return symbols is not None and detail["value"] in _pip_like_faces(symbols)


def lies_flat(detail: dict) -> bool:
    """A rendered die (`dice_detail` of a manifest line) a table would read: flat, its top
    face mostly seen (a cocked die is thrown again)."""
    return not detail["cocked"] and detail["hidden"] <= RENDER_HIDDEN


def load_renders(root: Path) -> list[Labelled]:
    """The scenes of a render cache (scripts/vision/render_dice.py: OUT/manifest.jsonl), as
    Labelled photos. A die whose top face is mostly hidden, that lies cocked, whose
    marks are lost in its picture, or a symbol die showing a glyph that could pass for pips
    (`shows_pips`) keeps its box with the value None (a die is there; what it shows is not
    for learning). Held-out
    renders are of styles no training render has, so a cache is one split or the other."""
    out = []
    for line in (root / "manifest.jsonl").read_text().splitlines():
        try:
            e = json.loads(line)
        except ValueError:
            continue  # a line cut short by a stopped render
        boxes = tuple(tuple(d["box"]) + ((d["value"] if lies_flat(d) and legible(d) and not shows_pips(d) else None),)
                      for d in e["dice_detail"])
        kind = {"pip": "pip", "chance": "chance", "symbol": "symbol"}[e["kind"]]
        # renderer 5 says whether its camera had an up (its first scenes by the tilt: 8 degrees)
        upright = e["scene"].get("upright", e.get("renderer", 1) >= 5 and e["scene"]["tilt_deg"] >= 8.0)
        any_turn = not upright
        out.append(Labelled("renders", root / e["image"], kind, boxes, held_out(e["split"]), any_turn))
    return out


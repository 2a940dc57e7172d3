"""Check the spike reader: spike-A scenes (taught from spike-A-enrol, as the table would),
ordinary pip dice taught as if they were spike dice (a symbol set it never saw), and speed.

    .venv/bin/python scripts/vision/spike_check.py [--sets spikeA,rendered-pip,byler,matteop] [--speed 20]
                                                   [--expect] [--details FILE.jsonl]

(epanemu and spezm, the test-only sets, may be named too: teaching is not training, and
their dice taught as spike dice are a symbol set that no model saw, on cameras none saw.)

Per set: scenes read exactly right and unflagged, silent errors, flagged (as in
benchmarks/vision.py), die-level accuracy of matched dice, and how sure the reader was
when it was wrong. Pip sets are taught from labelled dice in a few pictures of the set (a
fixed pseudo-random choice; each die found is taught as its labelled value) and read on
all the others.
Speed: frames resized to 1280x960 and read on one core; median whole read, median spike stage.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
import zlib
from collections import Counter
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
from hardware.vision import SpikeProfile, read_dice, spike, teach_spike  # noqa: E402
from hardware.vision.reader import find_dice  # noqa: E402
from hardware.vision.values import sure_pips  # noqa: E402
from dataset import SETS, TEST_ONLY, fixed  # noqa: E402  (scripts/vision is this script's own folder)

SET_OF = {"spikeA": "rendered", "rendered-pip": "rendered", "byler": "byler", "matteop": "matteop",
          "epanemu": "epanemu", "spezm": "spezm"}
ROOTS = {name: {**SETS, **TEST_ONLY}[s] for name, s in SET_OF.items()}
KIND = {"spikeA": "spike-A", "rendered-pip": "pip", "byler": "pip", "matteop": "pip", "epanemu": "pip", "spezm": "pip"}


def labelled_die(c, boxes):
    """The label of the box whose (grown) area holds the candidate's centre, nearest first."""
    best = None
    for x1, y1, x2, y2, v in boxes:
        g = 0.5 * max(x2 - x1, y2 - y1)
        if x1 - g <= c.cx <= x2 + g and y1 - g <= c.cy <= y2 + g:
            d = np.hypot(c.cx - (x1 + x2) / 2, c.cy - (y1 + y2) / 2)
            if best is None or d < best[0]:
                best = (d, v)
    return None if best is None else best[1]


def teach_from_labels(entries, root, per_face=4, max_images=30):
    """A profile from labelled dice in a fixed pseudo-random choice of pictures, and the pictures used."""
    profile, used, counts = SpikeProfile(), set(), Counter()
    for e in sorted(entries, key=lambda e: zlib.crc32(e["image"].encode())):
        if min(counts[v] for v in range(1, 7)) >= per_face or len(used) >= max_images:
            break
        frame = cv2.imread(str(root / e["image"]))
        kept, probs, _ = find_dice(frame)
        for c, p in zip(kept, probs):
            v = labelled_die(c, e["boxes"])
            if v is not None and counts[v] < per_face:
                profile = profile.with_examples(int(v), spike.face_pictures(frame, c), [sure_pips(p)])
                counts[v] += 1
        used.add(e["image"])
    return profile, used


def check(name, entries, root, profile, skip, speed, min_confidence=0.8, expect=False, details=None):
    g = Counter()
    wrong_conf, times, stage = [], [], []
    for e in entries:
        if e["image"] in skip:
            continue
        frame = cv2.imread(str(root / e["image"]))
        truth = [b[4] for b in e["boxes"]]
        reading = read_dice(frame, "spike", profile=profile, min_confidence=min_confidence,
                            expect=len(truth) if expect else None)
        exact = Counter(reading.values) == Counter(truth)
        if details is not None:
            details.write(json.dumps({"set": name, "image": e["image"], "truth": truth, "read": list(reading.values),
                                      "confidences": [round(d.confidence, 3) for d in reading.dice],
                                      "flagged": reading.flagged, "reason": reading.reason}) + "\n")
        g["images"] += 1
        g["right"] += exact and not reading.flagged
        g["silent"] += (not exact) and not reading.flagged
        g["flagged"] += reading.flagged
        for d in reading.dice:
            c = type("C", (), {"cx": (d.box[0] + d.box[2]) / 2, "cy": (d.box[1] + d.box[3]) / 2})
            v = labelled_die(c, e["boxes"])
            if v is not None:
                g["dice"] += 1
                g["die_ok"] += d.value == v
                if d.value != v:
                    wrong_conf.append(d.confidence)
        if len(times) < speed:
            big = cv2.resize(frame, (1280, 960), interpolation=cv2.INTER_LINEAR)
            stages: dict = {}
            t0 = time.perf_counter()
            read_dice(big, "spike", profile=profile, timings=stages)
            times.append((time.perf_counter() - t0) * 1000)
            stage.append(stages["value"])
    n = max(1, g["images"])
    line = (f"{name:<14}{g['images']:>5} scenes  right {100 * g['right'] / n:5.1f}%  silent {100 * g['silent'] / n:5.1f}%"
            f"  flagged {100 * g['flagged'] / n:5.1f}%  dice right {100 * g['die_ok'] / max(1, g['dice']):5.1f}%"
            f" of {g['dice']}  wrong dice with confidence >= {min_confidence}: {sum(c >= min_confidence for c in wrong_conf)}")
    if times:
        line += f"\n{'':<14}speed 1280x960 one core: median {statistics.median(times):.1f} ms, spike stage {statistics.median(stage):.2f} ms"
    print(line, flush=True)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sets", default="spikeA,rendered-pip,byler,matteop")
    ap.add_argument("--speed", type=int, default=20, help="frames timed per set (0: none)")
    ap.add_argument("--min-confidence", type=float, default=0.8, help="the reader's min_confidence")
    ap.add_argument("--expect", action="store_true", help="read in play: each scene with its count of dice")
    ap.add_argument("--details", type=argparse.FileType("w"), help="write each scene's reading here (JSON lines)")
    args = ap.parse_args()
    unknown = [name for name in args.sets.split(",") if name not in ROOTS]
    if unknown:
        ap.error(f"unknown set {', '.join(unknown)}; known: {', '.join(ROOTS)}")
    cv2.setNumThreads(1)
    for name in args.sets.split(","):
        root = ROOTS[name]
        manifest = fixed(SET_OF[name], json.loads((root / "manifest.json").read_text()))
        entries = [e for e in manifest if (e.get("kind") or "pip") == KIND[name]]
        if name == "spikeA":
            profile = SpikeProfile()
            for e in manifest:
                if e.get("kind") == "spike-A-enrol":
                    profile, _ = teach_spike(profile, int(e["dice"][0]), [cv2.imread(str(root / e["image"]))])
            skip: set = set()
        else:
            profile, skip = teach_from_labels(entries, root)
        check(name, entries, root, profile, skip, args.speed, args.min_confidence, args.expect, args.details)
    return 0


if __name__ == "__main__":
    sys.exit(main())

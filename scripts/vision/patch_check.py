"""One die at every size in a plain frame: where the reader holds, reads right, or errs silently.

Each photo of one die (the test-only sets whole, the others' held-out split) is laid, shrunk
or enlarged so the die is N pixels across, in the middle of a 1280 x 960 frame of its
table's colour (the median of the photo's edges), and read in play (`expect=1`):

- `photo`: the whole photo, as the issue's check of scale did (a photo in a plain border);
- `patch`: the die with the table three dice across around it, as a tray or a sheet of paper
  with one die on it shows.

A plain patch holding one die looks like a big die showing a one (the die its pip): that
is what `parts.die_inside` guards against. Prints right / held / silent per set, way and
size. Not a benchmark of the bar (benchmarks/vision.py is): a probe of scale.

    .venv/bin/python scripts/vision/patch_check.py [--sets epanemu,matteop] [--limit 40]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import cv2
import numpy as np

HERE = Path(__file__).resolve()
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE.parents[2]))
from dataset import SETS, TEST_ONLY, fixed, is_held_out  # noqa: E402
from hardware.vision import read_dice  # noqa: E402

W, H = 1280, 960
SIZES = (12, 19, 38, 77, 154, 317, 480)


def framed(im: np.ndarray, box, die_px: float, around: float | None) -> np.ndarray:
    """The photo (around=None) or a square `around` dice across about the die, scaled so the
    die is die_px across, in the middle of a plain W x H frame of the table's colour."""
    x1, y1, x2, y2 = box[:4]
    side, cx, cy = max(x2 - x1, y2 - y1), (x1 + x2) / 2, (y1 + y2) / 2
    if around is not None:
        r = around * side / 2
        x0, y0 = int(max(0, cx - r)), int(max(0, cy - r))
        im = im[y0:int(min(im.shape[0], cy + r)), x0:int(min(im.shape[1], cx + r))]
        cx, cy = cx - x0, cy - y0
    k = die_px / side
    small = cv2.resize(im, None, fx=k, fy=k, interpolation=cv2.INTER_AREA if k < 1 else cv2.INTER_LINEAR)
    edge = np.concatenate([im[0], im[-1], im[:, 0], im[:, -1]])
    colour = tuple(float(c) for c in np.median(edge, 0))
    kx, ky = small.shape[1] / im.shape[1], small.shape[0] / im.shape[0]
    shift = np.float32([[1, 0, W / 2 - cx * kx], [0, 1, H / 2 - cy * ky]])
    return cv2.warpAffine(small, shift, (W, H), flags=cv2.INTER_NEAREST, borderMode=cv2.BORDER_CONSTANT,
                          borderValue=colour)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sets", default="epanemu,matteop")
    ap.add_argument("--limit", type=int, default=40, help="photos of one die per set")
    args = ap.parse_args()
    cv2.setNumThreads(1)
    for name in args.sets.split(","):
        test_only = name in TEST_ONLY
        root = TEST_ONLY[name] if test_only else SETS[name]
        entries = [e for e in fixed(name, json.loads((root / "manifest.json").read_text()))
                   if (e.get("kind") or "pip") == "pip" and len(e.get("boxes") or ()) == 1
                   and (test_only or is_held_out(e["image"]))][:args.limit]
        photos = [cv2.imread(str(root / e["image"])) for e in entries]  # decoded once, laid out 14 ways
        for way, around in (("photo", None), ("patch", 3.0)):
            for size in SIZES:
                right = held = silent = 0
                for e, photo in zip(entries, photos):
                    box = e["boxes"][0]
                    reading = read_dice(framed(photo, box, size, around), "pips", expect=1)
                    if reading.flagged:
                        held += 1
                    elif [d.value for d in reading.dice] == [box[4]]:
                        right += 1
                    else:
                        silent += 1
                print(f"{name}{'*' if test_only else ''} {way} die {size:3d} px: right {right:3d}  held {held:3d}  "
                      f"silent {silent:3d}  of {len(entries)}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

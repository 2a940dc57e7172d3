"""Train the top-face classifier (pips 1..6, "not a die", "a die without pips") and export ONNX.

Reproduce: python scripts/vision/train_faces.py --out hardware/vision/models/die_faces.onnx
Needs torch (CPU) + numpy + opencv; uses the non-held-out images of the three sets
(see dataset.py) plus procedural crops (synth_faces.py). Seeds are fixed. The shipped
model came from the defaults (280 epochs, width 1.0, one thread, seed 12): about an hour.

A crop is taken square around a die centre with side CROP_FACTOR x the die size,
rotated at random, resized to FACE_SIDE. Class 0 = background (no die centred),
1..6 = pips, 7 = a die that is not a pip die (chance cube, symbol die).
Hard negatives: places the trained centre model marks that are no labelled die
(patterned cloth, shadows, holes in a tray clip) are shown as "no die".
Training images are picked in proportion to their dice, so crowded mixed-colour trays
weigh as much as their dice do. Augmentation inverts brightness a quarter of the time so
light-on-dark and dark-on-light pips are one problem, and shuffles colour channels so
body colour carries no signal. A fifth of each batch is procedural faces: dice designs
no photo set has (smoky see-through bodies showing the bottom pips, marbled swirls,
low-contrast pips, polka-dot and tartan cloths, random symbols for class 7).

Measured 2026-11-21 (benchmarks/vision.py, held out; byler right / silent, values right
among matched dice): previous model (width 1, 60 epochs, uniform image picking, half
inverted, no procedural crops) 38.7% / 0% / 92.5%; these settings at 50 epochs 45.2% /
0% / 93.9%; at 70 epochs 54.8% / 3.2% (one photo: a smoky die read 5 for 4 at 0.83) /
94.3%, but its faces stage (1.4 ms a die) took the whole read to 22.1 ms median at
1280x960 over all images, past the 20 ms bar; width 1.0 at 70 epochs (shipped then, 0.8 ms a
die) 48.4% / 0% / 93.4%, whole read 14.4 ms held out, 18.6 ms all images. matteop and the
rendered sets did not change much. A run with 40% procedural crops at width 1 and 60
epochs was worse on byler (values 90.4%).

Measured 2026-11-23 (centre model of 280 epochs in place, byler label fixes applied):
140 epochs, one thread (shipped then) against 70 epochs, two threads, held out: byler right
48.4 -> 51.6%, silent 0 -> 0%, values among matched dice 92.1 -> 95.2%; byler from a
camera placed higher (--shift small) 38.7 -> 54.8%; matteop 95.8 -> 95.8%. All images:
byler 61.5 -> 73.5% right (silent 1.0 -> 1.0%), rendered pips 65.0 -> 72.5%, matteop
97.1 -> 97.4%. Silent reads over the plain, turned, small and blurred rows of all images
11 -> 12 of 2840 (one more on matteop turned a quarter); held out 3 -> 4 of 372 (a smoky
die with red pips read 5 for 4 at 0.82 once the photo is turned).

Measured 2026-11-23, 280 epochs (shipped; same settings otherwise) against 140, held
out: byler right 51.6 -> 67.7%, values among matched dice 95.2 -> 96.9%, byler right
higher under every shift of the benchmark (e.g. camera higher 54.8 -> 67.7%, turned
54.8 -> 61.3%); matteop 95.8 -> 95.8%. All images: byler 73.5 -> 83.0%, rendered pips
72.5 -> 80.0%. Silent reads: held out, over the plain row and all eight shifts, 8 -> 9
of 1125 (byler's one silent photo is now in the plain row: the same smoky die, a 4 whose
bottom 3's middle pip shows through, read 5 at 0.88); all images, plain, turned, small
and blurred rows of pips and chance, 11 -> 13 of 2280. The held-out crop accuracy
printed during training did not move (0.979 -> 0.978).

Measured 2026-11-23, the same 280 epochs with seed 12 (shipped now) against seed 11 (the
label fixes then in force, so the added byler die is now trained on; the fourth relabel
came after). Held out: byler right 67.7 -> 71.0%, silent 3.2 -> 0% (the smoky 4 is now
flagged), values among matched dice 96.9 -> 97.4%; matteop 95.8 -> 95.8%; over the plain
row and all eight shifts, silent 9 -> 7 and right 915 -> 923 of 1125; held-out crop
accuracy 0.978 -> 0.983. All images (mostly training photos): byler right 83.5 -> 83.5%,
rendered pips 80.0 -> 82.5%, chance 86.7 -> 88.3%, spike-A 31.7 -> 33.3%, but silent reads
over the plain row and eight shifts 28 -> 43 of 6030, byler 15 -> 28: two smoky dice with
red pips read 6 for 3 at 0.91 (training photos 111352 and 095359), which seed 11 left
unsure. Byler dice read under 0.80: 44 -> 33 of 1488; read wrong at >= 0.80: 4 -> 5.
So a second seed moves held-out byler by one photo in 31 either way: treat differences
of that size between models as noise. Averaging both models' probabilities (an ensemble,
twice the faces stage) held out: byler right 67.7%, silent 0%, flagged 32.3%; silent
over plain and shifts 6 of 1125 but right 916: not kept. Seed 11 at 420 epochs (not kept)
fits the training photos better (all images: byler 84.5%, matteop 98.1%, rendered pips
85.0%; silent over plain and shifts 32 of 6030) but held out byler falls to 61.3% right
with one silent photo (3.2%: a 1 read as 3 in 100127), and right over plain and shifts
905 of 1125.

Measured 2026-11-23 (fifth session), the defaults again (seed 12) on the current labels
(the fourth relabel now trained on), after the centre model was retrained the same way;
with benchmarks/vision.py over the plain row and eight shifts, against the two models
before: held out right 920 -> 933 of 1125, silent 7 -> 7 (with the right number of dice:
1 -> 1); all images right 4959 -> 5012 of 6030, silent 40 -> 36 (right count 20 -> 8).
Held-out crop accuracy 0.983 -> 0.978. Not kept: width 1.25 on the previous centre model
(held-out crop accuracy 0.986; held out 928 right, 7 silent, 2 with the right count).
"""

from __future__ import annotations

import argparse
import itertools
import math
import random
import sys
import time
from pathlib import Path

import cv2
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
import dataset  # noqa: E402
import synth_faces  # noqa: E402
from hardware.vision.detect import find_candidates  # noqa: E402  (needs dice_centres.onnx trained first)
from hardware.vision.faces import cut, standardise_crop  # noqa: E402  (the reader's own crop and scaling)

FACE_SIDE = 48
CROP_FACTOR = 1.35
N_CLASSES = 8


def set_side(side: int) -> None:
    global FACE_SIDE
    FACE_SIDE = side


def conv(cin, cout):
    return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True))


class FaceNet(nn.Module):
    def __init__(self, width: float = 1.0):
        super().__init__()
        a, b, c = (int(round(n * width / 4)) * 4 for n in (16, 32, 48))
        self.body = nn.Sequential(conv(3, a), conv(a, a), nn.MaxPool2d(2),
                                  conv(a, b), conv(b, b), nn.MaxPool2d(2),
                                  conv(b, c), conv(c, c), nn.MaxPool2d(2))
        self.fc1 = nn.Linear(c * (FACE_SIDE // 8) ** 2, 96)
        self.fc2 = nn.Linear(96, N_CLASSES)
        self.drop = nn.Dropout(0.3)

    def forward(self, x):
        x = self.body(x).flatten(1)
        return self.fc2(self.drop(F.relu(self.fc1(x))))


def label_of(kind: str, value) -> int:
    if kind == "pip":
        return int(value)
    return 7


def hard_negatives(img, dice):
    """Places the centre model finds that are no labelled die (cloth dots, shadows, holes)."""
    out = []
    for c in find_candidates(img, min_score=0.1):
        if all(math.hypot(c.cx - d[0], c.cy - d[1]) > 0.6 * max(d[2], 20) for d in dice):
            out.append((c.cx, c.cy, c.size))
    return out


def load_items(held_out: bool):
    out = []
    for it in dataset.load_all():
        if it.held_out != held_out and not (not held_out and it.kind.endswith("enrol")):
            continue
        img = cv2.imread(str(it.path))
        dice = [((b[0] + b[2]) / 2, (b[1] + b[3]) / 2, max(b[2] - b[0], b[3] - b[1]), label_of(it.kind, b[4])) for b in it.boxes]
        out.append((img, dice, hard_negatives(img, dice)))
    return out


def synth_pool(n: int, seed: int = 5):
    """n procedural crops per class share (synth_faces.py), made once: drawing is slow, augmenting is not."""
    rng = random.Random(seed)
    labels = [rng.choice([0, 1, 2, 3, 4, 5, 6, 7, 1, 2, 3, 4, 5, 6]) for _ in range(n)]
    return [(synth_faces.face_crop(rng, lab, out=FACE_SIDE, crop_factor=CROP_FACTOR), lab) for lab in labels]


def sample_synth(pool, rng):
    crop, label = pool[rng.randrange(len(pool))]
    f = np.rot90(crop, rng.randrange(4)).astype(np.float32)
    if rng.random() < 0.5:
        f = f[:, ::-1]
    f *= np.array([rng.uniform(0.8, 1.2) for _ in range(3)], np.float32)
    f = f[:, :, list(rng.sample([0, 1, 2], 3))]
    if label != 7 and rng.random() < 0.3:
        f = 255 - f
    return standardise_crop(np.clip(f, 0, 255)), label


INVERT = 0.5  # share of real crops shown with brightness inverted (set by --invert)


def sample(items, rng, pool=None, share=0.0, cum=None):
    """One training crop: from the procedural pool (share), else a real image, picked in
    proportion to its dice when `cum` (cumulative dice counts) is given, so crowded trays
    are not under-weighted."""
    if pool and rng.random() < share:
        return sample_synth(pool, rng)
    img, dice, hard = items[rng.choices(range(len(items)), cum_weights=cum)[0] if cum else rng.randrange(len(items))]
    if hard and rng.random() < 0.15:
        cx, cy, size = hard[rng.randrange(len(hard))]
        cx += rng.uniform(-0.1, 0.1) * size
        cy += rng.uniform(-0.1, 0.1) * size
        label = 0
    elif rng.random() < 0.2 or not dice:
        # background: a point away from every die centre, at a die-like size
        size = dice[rng.randrange(len(dice))][2] if dice else 40.0
        for _ in range(20):
            x, y = rng.uniform(0, img.shape[1]), rng.uniform(0, img.shape[0])
            if all(math.hypot(x - d[0], y - d[1]) > 0.45 * max(size, d[2]) for d in dice):
                break
        cx, cy, label = x, y, 0
    else:
        cx, cy, size, label = dice[rng.randrange(len(dice))]
        cx += rng.uniform(-0.12, 0.12) * size
        cy += rng.uniform(-0.12, 0.12) * size
    side = CROP_FACTOR * size * math.exp(rng.uniform(-0.2, 0.2))
    crop = cut(img, cx, cy, side, FACE_SIDE, rng.uniform(0, 360))
    f = crop.astype(np.float32)
    f *= np.array([rng.uniform(0.7, 1.3) for _ in range(3)], np.float32)
    f = (f - f.mean()) * rng.uniform(0.6, 1.4) + f.mean() * rng.uniform(0.6, 1.3)
    f = np.clip(f, 0, 255)
    if rng.random() < 0.25:
        f = cv2.GaussianBlur(f, (3, 3), rng.uniform(0.5, 1.2))
    if rng.random() < 0.3:
        f += np.random.default_rng(rng.randrange(1 << 30)).normal(0, rng.uniform(2, 10), f.shape).astype(np.float32)
    f = f[:, :, list(rng.sample([0, 1, 2], 3))]
    if label != 7 and rng.random() < INVERT:
        f = 255 - f
    return standardise_crop(np.clip(f, 0, 255)), label


def evaluate(net, items, rng, n=3000):
    net.eval()
    xs, ys = zip(*(sample(items, rng) for _ in range(n)))
    with torch.no_grad():
        p = net(torch.from_numpy(np.stack(xs))).argmax(1).numpy()
    net.train()
    return float((p == np.array(ys)).mean())


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="hardware/vision/models/die_faces.onnx")
    ap.add_argument("--epochs", type=int, default=280)
    ap.add_argument("--per-epoch", type=int, default=6400)
    ap.add_argument("--synth", type=int, default=12000, help="procedural crops drawn before training")
    ap.add_argument("--synth-share", type=float, default=0.2, help="share of each batch taken from them")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--width", type=float, default=1.0, help="channel multiplier of the net")
    ap.add_argument("--invert", type=float, default=0.25, help="share of real crops shown brightness-inverted")
    ap.add_argument("--by-image", dest="by_die", action="store_false",
                    help="pick training images uniformly (default: in proportion to their dice)")
    ap.add_argument("--side", type=int, default=FACE_SIDE, help="crop side in pixels (must match faces.FACE_SIDE)")
    ap.add_argument("--seed", type=int, default=12, help="seed of the weights and of the crops drawn")
    args = ap.parse_args()
    set_side(args.side)
    torch.manual_seed(args.seed)
    rng = random.Random(args.seed)
    torch.set_num_threads(args.threads)
    train = load_items(False)
    held = load_items(True)
    print(f"{len(train)} training images, {len(held)} held out", flush=True)
    t0 = time.time()
    pool = synth_pool(args.synth)
    print(f"{len(pool)} procedural crops in {time.time() - t0:.0f}s", flush=True)
    global INVERT
    INVERT = args.invert
    cum = list(itertools.accumulate(max(1, len(d)) for _, d, _ in train)) if args.by_die else None
    net = FaceNet(args.width)
    bs = 64
    steps = args.epochs * (args.per_epoch // bs)
    opt = torch.optim.AdamW(net.parameters(), 3e-3, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, 3e-3, total_steps=steps)
    t0 = time.time()
    for epoch in range(args.epochs):
        tot = 0.0
        for _ in range(args.per_epoch // bs):
            xs, ys = zip(*(sample(train, rng, pool, args.synth_share, cum) for _ in range(bs)))
            out = net(torch.from_numpy(np.stack(xs)))
            loss = F.cross_entropy(out, torch.tensor(ys), label_smoothing=0.05)
            opt.zero_grad(); loss.backward(); opt.step(); sched.step()
            tot += loss.item()
        msg = f"epoch {epoch} loss {tot / (args.per_epoch // bs):.3f} {time.time() - t0:.0f}s"
        if epoch % 5 == 4 or epoch == args.epochs - 1:
            msg += f" held-out crop acc {evaluate(net, held, random.Random(3)):.3f}"
            export(net, args.out)
        print(msg, flush=True)


def export(net, out):
    net.eval()
    torch.onnx.export(net, torch.zeros(1, 3, FACE_SIDE, FACE_SIDE), out, input_names=["faces"], output_names=["logits"],
                      opset_version=13, dynamic_axes={"faces": {0: "n"}, "logits": {0: "n"}}, dynamo=False)
    net.train()


if __name__ == "__main__":
    main()

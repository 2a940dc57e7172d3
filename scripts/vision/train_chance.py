"""Train the chance-cube colour model (is the top face red or blue?) and export ONNX.

The model reads the crop the face model reads (faces.cut: square, CROP_FACTOR x the
die's size, about its box), at CHANCE_SIDE px, standardised the same way: the whole die,
sides and all, and a little table.

Data: the chance cubes of render caches (render_dice.py, training styles only: --renders,
one or more), each die that lies flat and shows its top face; and "nothing" (no cube):
die-sized places on the scenes' tables with no die (--tables), and with --mined-share what
the shipped centre model finds there that is no die. Batches are 30% nothing. A fifth of the
scenes (crc32 of the image name, as dataset.is_held_out) is kept out of training to
calibrate the model: a temperature fitted on their crops, folded into the exported
logits, so that p = 0.95 is right about 95 times in 100 on scenes it did not train on.

Augmentation: the finder's error (crop off-centre, larger or smaller), turns (any way for a
picture with no up, else within --upright degrees), mirroring, a light's colour from
amber to blue (the camera's white balance off), exposure, gamma, saturation, blur, sensor
noise (and, with --lost, crops made too dark or too blown out to tell, labelled nothing).
--members nets are trained from seeds SEED, SEED+1..., each calibrated; the export
averages their probabilities (Members).

Needs torch (CPU). Reproduce the shipped model: the defaults, with --renders for every
training cache (docs/vision.md names them); about 11 minutes on one core.
"""

from __future__ import annotations

import argparse
import functools
import math
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
from hardware.vision.chance import CHANCE_SIDE, COLOURS  # noqa: E402  (the model's first classes, in order)
from hardware.vision.detect import find_candidates  # noqa: E402  (the shipped centre model)
from hardware.vision.faces import CROP_FACTOR, cut, standardise_crops  # noqa: E402

NOTHING = 2  # the model's class after COLOURS: no chance cube centred in the crop


class ChanceNet(nn.Module):
    """Four 3x3 convolution blocks (16-32-64-64 channels, three halvings), the mean over
    the crop, three logits (blue, red, nothing)."""

    def __init__(self):
        super().__init__()
        layers, c = [], 3
        for i, out in enumerate((16, 32, 64, 64)):
            layers += [nn.Conv2d(c, out, 3, padding=1, bias=False), nn.BatchNorm2d(out), nn.ReLU()]
            if i < 3:
                layers.append(nn.MaxPool2d(2))
            c = out
        self.body = nn.Sequential(*layers)
        self.head = nn.Linear(c, len(COLOURS) + 1)
        self.register_buffer("temperature", torch.ones(()))

    def forward(self, x):
        # a global average pool, not x.mean((2, 3)): OpenCV 4.8's dnn reads the ReduceMean
        # that exports as wrongly past the fourth crop of a batch
        return self.head(F.adaptive_avg_pool2d(self.body(x), 1).flatten(1)) / self.temperature


def chance_dice(roots: list[Path], tables: int, rng: np.random.Generator,
                mined: bool = False) -> list[tuple]:
    """(image, box, class, any turn, calibrate, stray) of each chance cube a table would read,
    of `tables` places on the scenes' tables where no die lies, and (`mined`) of what the
    centre model finds there that is no die (both NOTHING)."""
    out, scenes = [], []
    for root in roots:
        for item in dataset.load_renders(root):
            if item.held_out:
                raise SystemExit(f"{root} is a held-out cache: train on training styles only")
            calibrate = dataset.is_held_out(item.path.name)
            scenes.append((item, calibrate))
            for *box, value in item.boxes:
                if item.kind == "chance" and value in COLOURS:
                    out.append((item.path, tuple(box), COLOURS.index(value), item.any_turn, calibrate, False))
    if not scenes:
        raise SystemExit(f"no rendered scenes in {', '.join(map(str, roots))}: render some (render_dice.py --out DIR)")
    for k in rng.integers(len(scenes), size=tables):
        item, calibrate = scenes[k]
        box = no_die(item, rng)
        if box is not None:
            out.append((item.path, box, NOTHING, item.any_turn, calibrate, False))
    if mined:
        for item, calibrate in scenes:
            out += [(item.path, box, NOTHING, item.any_turn, calibrate, True) for box in finder_strays(item)]
    return out


def finder_strays(item) -> list[tuple]:
    """Boxes of what the centre model finds in the scene that is no die: a tray's notch, a
    chip, a card's corner, the cloth's print (the finder's mistakes the colour model meets)."""
    img = cv2.imread(str(item.path))
    dice = [b[:4] for b in item.boxes]
    out = []
    for c in find_candidates(img, min_score=0.1):  # its crop (CROP_FACTOR x its size) holds no die
        if all(math.hypot(c.cx - (b[0] + b[2]) / 2, c.cy - (b[1] + b[3]) / 2)
               > CROP_FACTOR / 2 * c.size + max(b[2] - b[0], b[3] - b[1]) / 2 for b in dice):
            out.append((c.cx - c.size / 2, c.cy - c.size / 2, c.cx + c.size / 2, c.cy + c.size / 2))
    return out


def no_die(item, rng: np.random.Generator) -> tuple | None:
    """A die-sized box of the scene's picture (the size of one of its dice, give or take)
    whose middle is clear of every die; None when ten tries find none."""
    dice = [b[:4] for b in item.boxes]
    if not dice:
        return None
    w, h = _size(item.path)
    for _ in range(10):
        x1, y1, x2, y2 = dice[rng.integers(len(dice))]
        size = max(x2 - x1, y2 - y1) * math.exp(rng.normal(0, 0.25))
        cx, cy = rng.uniform(size / 2, w - size / 2), rng.uniform(size / 2, h - size / 2)
        if all(math.hypot(cx - (b[0] + b[2]) / 2, cy - (b[1] + b[3]) / 2) > 0.7 * max(size, b[2] - b[0], b[3] - b[1])
               for b in dice):
            return (cx - size / 2, cy - size / 2, cx + size / 2, cy + size / 2)
    return None


@functools.lru_cache(maxsize=None)
def _size(path: Path) -> tuple[int, int]:
    h, w = cv2.imread(str(path), cv2.IMREAD_REDUCED_GRAYSCALE_2).shape
    return 2 * w, 2 * h


def crop(img: np.ndarray, box: tuple, any_turn: bool, rng: np.random.Generator, upright: float) -> np.ndarray:
    """One training crop of the die in `box`, as the finder might box it, turned and mirrored."""
    x1, y1, x2, y2 = box
    size = max(x2 - x1, y2 - y1) * math.exp(rng.normal(0, 0.12))
    cx = (x1 + x2) / 2 + rng.normal(0, 0.08) * size
    cy = (y1 + y2) / 2 + rng.normal(0, 0.08) * size
    angle = rng.uniform(-180, 180) if any_turn else rng.uniform(-upright, upright)
    c = cut(img, cx, cy, CROP_FACTOR * size, CHANCE_SIDE, angle)
    return c[:, ::-1] if rng.random() < 0.5 else c


def looks(crops: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Each crop under another light and camera: a colour cast along the amber-blue line
    (and a little green-magenta), exposure, gamma, saturation, blur and noise."""
    out = crops.astype(np.float32)
    n = len(out)
    warm = rng.normal(0, 0.22, n)
    gains = np.exp(np.stack([-warm, rng.normal(0, 0.05, n), warm], 1))  # B, G, R
    out *= (gains * np.exp(rng.normal(0, 0.3, n))[:, None])[:, None, None, :]
    out = 255 * (np.clip(out, 0, 255) / 255) ** np.exp(rng.normal(0, 0.2, n))[:, None, None, None]
    grey = out.mean(3, keepdims=True)  # paler or deeper colours: the dice's own shades, a hazy lens
    out = grey + (out - grey) * np.clip(np.exp(rng.normal(-0.1, 0.35, n)), 0.3, 1.6)[:, None, None, None]
    for i in np.flatnonzero(rng.random(n) < 0.2):
        out[i] = cv2.GaussianBlur(out[i], (0, 0), rng.uniform(0.5, 1.2))
    out += rng.normal(0, 1, out.shape) * rng.uniform(0, 8, n)[:, None, None, None]
    return np.clip(out, 0, 255)


def lost(crops: np.ndarray, classes: np.ndarray, rng: np.random.Generator, share: float) -> None:
    """In place: `share` of the crops so dark, or so blown out by glare, that no colour can
    be told, labelled NOTHING (else a near-black face's noise, or a white glare, would be
    read as a colour: every cube the renders show is red or blue)."""
    for i in np.flatnonzero(rng.random(len(crops)) < share):
        if rng.random() < 0.5:
            crops[i] *= rng.uniform(0.03, 0.1)
        else:
            crops[i] = 255 - (255 - crops[i]) * rng.uniform(0.0, 0.08)
        classes[i] = NOTHING


def batches(dice, images, n: int, rng, upright: float, nothing: float = 0.3, lost_share: float = 0.0,
            mined_share: float = 0.0):
    """(standardised crops, classes) of `n` dice drawn from `dice`, each under another
    light and camera: a `nothing` share of them places with no cube (`mined_share` of those
    the finder's strays, where there are any), the rest cubes."""
    strays = [i for i, d in enumerate(dice) if d[5]]
    empty = [i for i, d in enumerate(dice) if d[2] == NOTHING and not d[5]]
    cubes = [i for i, d in enumerate(dice) if d[2] != NOTHING]
    is_none, none = rng.random(n) < nothing, rng.choice(empty, n)  # this order of draws remakes the shipped model
    if strays:
        none = np.where(rng.random(n) < mined_share, rng.choice(strays, n), none)
    pick = np.where(is_none, none, rng.choice(cubes, n))
    crops = np.stack([crop(images[dice[i][0]], dice[i][1], dice[i][3], rng, upright) for i in pick])
    classes = np.array([dice[i][2] for i in pick])
    crops = looks(crops, rng)
    lost(crops, classes, rng, lost_share)
    x = standardise_crops(list(crops))
    return torch.from_numpy(x), torch.from_numpy(classes)


def fit_temperature(logits: torch.Tensor, y: torch.Tensor) -> float:
    """The temperature that minimises the calibration crops' negative log-likelihood."""
    t = torch.zeros((), requires_grad=True)  # log temperature
    opt = torch.optim.LBFGS([t], lr=0.1, max_iter=200)

    def closure():
        opt.zero_grad()
        loss = F.cross_entropy(logits / t.exp(), y)
        loss.backward()
        return loss

    opt.step(closure)
    return float(t.exp())


class Members(nn.Module):
    """Nets trained alike from other seeds, their calibrated probabilities averaged; the
    output is the average's log, so a softmax of it gives the average back. One net's
    doubt on a look it never saw is often another's certainty, and the average then holds."""

    def __init__(self, nets: list[ChanceNet]):
        super().__init__()
        self.nets = nn.ModuleList(nets)

    def forward(self, x):
        p = sum(F.softmax(net(x), 1) for net in self.nets) / len(self.nets)  # no stack: OpenCV's importer drops its batch
        return torch.log(p.clamp_min(1e-12))


def train_one(train, images, calib, args, seed: int) -> ChanceNet:
    """One net trained on `train` from `seed`, its temperature fitted on the calibration
    crops `calib` (x, y)."""
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    net = ChanceNet()
    opt = torch.optim.AdamW(net.parameters(), lr=args.lr, weight_decay=1e-4)
    steps = args.epochs * (args.per_epoch // args.batch)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, args.lr, total_steps=steps)
    start = time.time()
    for epoch in range(args.epochs):
        net.train()
        total = 0.0
        for _ in range(args.per_epoch // args.batch):
            x, y = batches(train, images, args.batch, rng, args.upright, lost_share=args.lost,
                           mined_share=args.mined_share)
            loss = F.cross_entropy(net(x), y, label_smoothing=0.02)
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            total += float(loss.detach())
        print(f"seed {seed} epoch {epoch} loss {total / (args.per_epoch // args.batch):.4f} "
              f"{time.time() - start:.0f}s", flush=True)
    net.eval()
    x, y = calib
    with torch.no_grad():
        net.temperature.fill_(fit_temperature(net(x), y))
    report(f"seed {seed}, temperature {float(net.temperature):.2f}", net, x, y)
    return net


def calibration(held, images, args):
    """The calibration crops, drawn as training's are from the scenes kept out of it."""
    parts = [batches(held, images, 512, np.random.default_rng(args.seed + 1000 + k), args.upright, lost_share=args.lost,
                     mined_share=args.mined_share) for k in range(8)]
    return torch.cat([p[0] for p in parts]), torch.cat([p[1] for p in parts])


def report(name: str, net: nn.Module, x, y) -> None:
    """How `net` reads the calibration crops (x, y): the share right, and how many of those
    read at p 0.9 or more are wrong."""
    with torch.no_grad():
        p = F.softmax(net(x), 1).max(1)
    right = p.indices == y
    sure = p.values >= 0.9
    print(f"{name}: calibration crops {float(right.float().mean()):.3f} right; at p >= 0.9 "
          f"{int(sure.sum())} of {len(y)}, {int((sure & ~right).sum())} wrong", flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--renders", type=Path, action="append", required=True, help="a training render cache")
    ap.add_argument("--epochs", type=int, default=40)
    ap.add_argument("--per-epoch", type=int, default=8192)
    ap.add_argument("--batch", type=int, default=128)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--upright", type=float, default=15.0)
    ap.add_argument("--seed", type=int, default=5)
    ap.add_argument("--members", type=int, default=3, help="nets trained from seeds SEED, SEED+1...: their average")
    ap.add_argument("--tables", type=int, default=800, help="places with no die to learn NOTHING from")
    ap.add_argument("--mined-share", type=float, default=0.0,
                    help="share of the NOTHING crops taken from what the centre model finds that is no die (0: "
                         "none mined; all of them mixed in, as --mined did, lost more than it gained: "
                         "docs/decisions.md, 2026-12-07)")
    ap.add_argument("--lost", type=float, default=0.0,
                    help="share of crops made too dark or bright to tell, learned as NOTHING (0.06 lost more than "
                         "it gained: docs/decisions.md, 2026-12-07)")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--out", default="hardware/vision/models/chance_colour.onnx")
    args = ap.parse_args()
    torch.set_num_threads(args.threads)

    dice = chance_dice(args.renders, args.tables, np.random.default_rng(args.seed), args.mined_share > 0)
    images = {p: cv2.imread(str(p)) for p in {d[0] for d in dice}}
    train = [d for d in dice if not d[4]]
    held = [d for d in dice if d[4]]
    cubes = sum(d[2] != NOTHING for d in train), sum(d[2] != NOTHING for d in held)
    print(f"{cubes[0]} cubes and {len(train) - cubes[0]} places with none to train on, {cubes[1]} and "
          f"{len(held) - cubes[1]} to calibrate on ({len(images)} scenes; of those places, "
          f"{sum(d[5] for d in dice)} the finder's strays)", flush=True)

    kinds = {0: "blue cube", 1: "red cube", NOTHING: "place without a die"}
    for name, part in (("training", train), ("calibration", held)):
        lacking = [kinds[c] for c in kinds if c not in {d[2] for d in part}]
        if lacking:
            raise SystemExit(f"the {name} scenes hold no {', no '.join(lacking)}: give more render caches "
                             "(--renders) or --tables")
    calib = calibration(held, images, args)
    net = Members([train_one(train, images, calib, args, args.seed + k) for k in range(args.members)])
    report(f"the {args.members} averaged", net, *calib)
    torch.onnx.export(net.eval(), torch.zeros(1, 3, CHANCE_SIDE, CHANCE_SIDE), args.out, input_names=["crops"],
                      output_names=["logits"], opset_version=13, dynamic_axes={"crops": {0: "n"}, "logits": {0: "n"}},
                      dynamo=False)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()

"""Train the die-centre detector (a tiny fully convolutional net) and export it to ONNX.

Reproduce: python scripts/vision/train_detector.py --out hardware/vision/models/dice_centres.onnx
Needs torch (CPU) + numpy + opencv; trains on the non-held-out images of the three sets
(see dataset.py). Seeds are fixed; the defaults (280 epochs, one thread, about 55 minutes)
reproduce the shipped model.

Output at stride 4: channel 0 = die-centre heatmap (logit), channel 1 = log(die size in
input pixels). The run-time reader (hardware/vision/detect.py) resizes a frame so its long
side is WORK_SIDE, feeds it normalised per image, and decodes peaks.
"""

from __future__ import annotations

import argparse
import copy
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
import dataset  # noqa: E402
import parallel  # noqa: E402
import synth_scenes  # noqa: E402

WORK_SIDE = 384
STRIDE = 4
CROP = 256


def conv(cin, cout, stride=1, dil=1):
    return nn.Sequential(nn.Conv2d(cin, cout, 3, stride, padding=dil, dilation=dil, bias=False),
                         nn.BatchNorm2d(cout), nn.ReLU(inplace=True))


class CentreNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.s1 = conv(3, 16, 2)          # /2
        self.s2 = nn.Sequential(conv(16, 24, 2), conv(24, 24))   # /4
        self.s3 = nn.Sequential(conv(24, 32, 2), conv(32, 32), conv(32, 32, dil=2), conv(32, 32, dil=4))  # /8
        self.fuse = conv(24 + 32, 32)
        self.head = nn.Conv2d(32, 2, 1)
        with torch.no_grad():
            self.head.bias[0] = -2.19  # start near p=0.1 so the focal loss is sane
            self.head.bias[1] = 3.5    # about log(33 px)

    def forward(self, x):
        a = self.s2(self.s1(x))
        b = self.s3(a)
        b = F.interpolate(b, scale_factor=2.0, mode="nearest")
        return self.head(self.fuse(torch.cat([a, b], 1)))


def separable(cin, cout):
    """A depthwise 3x3 then a pointwise 1x1: about a seventh of a full 3x3's work."""
    return nn.Sequential(nn.Conv2d(cin, cin, 3, padding=1, groups=cin, bias=False), nn.BatchNorm2d(cin),
                         nn.ReLU(inplace=True), nn.Conv2d(cin, cout, 1, bias=False), nn.BatchNorm2d(cout),
                         nn.ReLU(inplace=True))


class SlimCentreNet(CentreNet):
    """CentreNet with a 12-channel stem and a separable fuse (--arch slim): about a fifth
    less work for cv2.dnn on one core."""

    def __init__(self):
        super().__init__()
        self.s1 = conv(3, 12, 2)
        self.s2 = nn.Sequential(conv(12, 24, 2), conv(24, 24))
        self.fuse = separable(24 + 32, 32)


class WideCentreNet(CentreNet):
    """CentreNet with half as many channels again (--arch wide): about twice its work, for a
    run with data to fill it (a lent machine, --workers)."""

    def __init__(self):
        super().__init__()
        self.s1 = conv(3, 24, 2)
        self.s2 = nn.Sequential(conv(24, 36, 2), conv(36, 36))
        self.s3 = nn.Sequential(conv(36, 48, 2), conv(48, 48), conv(48, 48, dil=2), conv(48, 48, dil=4))
        self.fuse = conv(36 + 48, 48)
        self.head = nn.Conv2d(48, 2, 1)
        with torch.no_grad():
            self.head.bias[0] = -2.19
            self.head.bias[1] = 3.5


ARCHS = {"standard": CentreNet, "slim": SlimCentreNet, "wide": WideCentreNet}


class FoldedCentreNet(nn.Module):
    """CentreNet as it is exported (each batch norm folded into its convolution): to go on
    training a shipped model (--from-onnx)."""

    def __init__(self):
        super().__init__()

        def c(cin, cout, stride=1, dil=1):
            return nn.Sequential(nn.Conv2d(cin, cout, 3, stride, padding=dil, dilation=dil), nn.ReLU(inplace=True))

        self.s1 = c(3, 16, 2)
        self.s2 = nn.Sequential(c(16, 24, 2), c(24, 24))
        self.s3 = nn.Sequential(c(24, 32, 2), c(32, 32), c(32, 32, dil=2), c(32, 32, dil=4))
        self.fuse = c(24 + 32, 32)
        self.head = nn.Conv2d(32, 2, 1)

    forward = CentreNet.forward

    @classmethod
    def exported(cls, path: str) -> "FoldedCentreNet":
        """The net of a CentreNet export (--from-onnx, --teachers)."""
        net = cls()
        net.load_onnx(path)
        return net

    def load_onnx(self, path: str) -> None:
        import onnx
        from onnx import numpy_helper

        weights = {i.name: numpy_helper.to_array(i) for i in onnx.load(path).graph.initializer}
        head = [weights.pop("head.weight"), weights.pop("head.bias")]
        convs = [m for m in self.modules() if isinstance(m, nn.Conv2d) and m is not self.head]
        values = list(weights.values())  # in the net's order: weight, bias of each convolution
        assert len(values) == 2 * len(convs), "not a CentreNet export"
        with torch.no_grad():
            for k, m in enumerate(convs):
                m.weight.copy_(torch.from_numpy(values[2 * k])); m.bias.copy_(torch.from_numpy(values[2 * k + 1]))
            self.head.weight.copy_(torch.from_numpy(head[0])); self.head.bias.copy_(torch.from_numpy(head[1]))


def normalise(img: np.ndarray) -> np.ndarray:
    """Per-image channel standardisation: the run-time reader does exactly the same."""
    x = img.astype(np.float32)
    mean = x.reshape(-1, 3).mean(0)
    std = x.reshape(-1, 3).std(0) + 8.0
    return ((x - mean) / std).transpose(2, 0, 1)


def load_items(held_out: bool, grow: dict[str, float] | None = None, renders: list | None = None):
    """The photos at 640 px and their boxes; `grow`: set name -> factor its boxes are grown
    by about their centres (matteop's boxes cover the top face's pips, not the die). Given
    `renders` (dataset.load_renders), those instead: every die is one to find, cocked or not."""
    items = [it for it in (dataset.load_all() if renders is None else renders)
             if it.held_out == held_out or (not held_out and it.kind.endswith("enrol"))]
    out = []
    for it in items:
        img = cv2.imread(str(it.path))
        s = 640.0 / max(img.shape[:2])
        img = cv2.resize(img, None, fx=s, fy=s, interpolation=cv2.INTER_AREA)
        boxes = np.array([[b[0] * s, b[1] * s, b[2] * s, b[3] * s] for b in it.boxes], np.float32).reshape(-1, 4)
        g = (grow or {}).get(it.set_name)
        if g:
            centres = np.tile((boxes[:, :2] + boxes[:, 2:]) / 2, 2)
            boxes = centres + (boxes - centres) * np.float32(g)
        out.append((img, boxes))
    return out


def augment(img, boxes, rng, die_range=None):
    """A turned, scaled, recoloured crop of a photo. With `die_range` (lo, hi), the scale puts
    the photo's typical die at a size drawn from it (log-uniform, in working pixels), so the
    net meets every die size a pyramid level can hand it; else 0.6-1.8x the working scale."""
    h, w = img.shape[:2]
    scale = WORK_SIDE / max(h, w) * math.exp(rng.uniform(math.log(0.6), math.log(1.8)))
    if die_range is not None and len(boxes):
        typical = float(np.median(np.maximum(boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1])))
        scale = math.exp(rng.uniform(math.log(die_range[0]), math.log(die_range[1]))) / max(typical, 1.0)
    ang = rng.uniform(0, 360)
    c = (w / 2, h / 2)
    M = cv2.getRotationMatrix2D(c, ang, scale)
    # put a random point of the image at the centre of the crop
    px, py = rng.uniform(0.2, 0.8) * w, rng.uniform(0.2, 0.8) * h
    if len(boxes) and rng.random() < 0.7:
        b = boxes[rng.randrange(len(boxes))]
        px, py = (b[0] + b[2]) / 2 + rng.uniform(-60, 60), (b[1] + b[3]) / 2 + rng.uniform(-60, 60)
    p = M @ np.array([px, py, 1.0])
    M[:, 2] += np.array([CROP / 2, CROP / 2]) - p
    out = cv2.warpAffine(img, M, (CROP, CROP), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)
    centres, sizes = [], []
    for b in boxes:
        cx, cy = (b[0] + b[2]) / 2, (b[1] + b[3]) / 2
        q = M @ np.array([cx, cy, 1.0])
        centres.append(q)
        sizes.append(max(b[2] - b[0], b[3] - b[1]) * scale)
    # photometric: gain per channel (white balance), contrast, gamma, blur, noise
    f = out.astype(np.float32)
    f *= np.array([rng.uniform(0.75, 1.25) for _ in range(3)], np.float32)
    f = (f - f.mean()) * rng.uniform(0.7, 1.3) + f.mean() * rng.uniform(0.6, 1.3)
    f = np.clip(f, 0, 255)
    f = 255.0 * (f / 255.0) ** rng.uniform(0.7, 1.4)
    if rng.random() < 0.3:
        k = rng.choice([3, 5])
        f = cv2.GaussianBlur(f, (k, k), 0)
    if rng.random() < 0.3:
        f += np.random.default_rng(rng.randrange(1 << 30)).normal(0, rng.uniform(2, 8), f.shape).astype(np.float32)
    if rng.random() < 0.5:
        f = f[:, :, list(rng.sample([0, 1, 2], 3))]
    return np.clip(f, 0, 255).astype(np.uint8), centres, sizes


def flicker_bands(f: np.ndarray, rng: random.Random) -> np.ndarray:
    """Lamps flickering with the mains, as a rolling shutter shows them: bands of light and
    shade (+-5-30%) across the picture's rows; the crop may be turned, so at any angle."""
    side = f.shape[0]
    yy, xx = np.mgrid[0:side, 0:side].astype(np.float32) / side
    a = rng.uniform(0, math.pi)
    t = xx * math.cos(a) + yy * math.sin(a)
    gain = 1 + rng.uniform(0.05, 0.3) * np.sin(2 * math.pi * (rng.uniform(0.5, 3.0) * t + rng.random()))
    return f * gain[:, :, None]


def uneven_light(f: np.ndarray, rng: random.Random) -> np.ndarray:
    """Light that falls unevenly on the table: a shadow with a soft edge over part of the
    picture (a lamp to one side, a player leaning in; down to 35-80% of the light), or a
    lamp's pool of light on a dimmer table."""
    side = f.shape[0]
    yy, xx = np.mgrid[0:side, 0:side].astype(np.float32) / side
    if rng.random() < 0.6:
        a = rng.uniform(0, 2 * math.pi)
        t = (xx - 0.5) * math.cos(a) + (yy - 0.5) * math.sin(a) - rng.uniform(-0.4, 0.4)
        low = rng.uniform(0.35, 0.8)
        gain = low + (1 - low) / (1 + np.exp(np.clip(-t / rng.uniform(0.01, 0.12), -60, 60)))
    else:
        cx, cy, r = rng.uniform(0, 1), rng.uniform(0, 1), rng.uniform(0.2, 0.7)
        gain = rng.uniform(0.5, 0.8) + rng.uniform(0.4, 0.9) * np.exp(-((xx - cx) ** 2 + (yy - cy) ** 2) / r ** 2)
    return f * gain[:, :, None]


def specks(f: np.ndarray, rng: random.Random) -> np.ndarray:
    """Impulse noise: 0.2-2% of the pixels turned black or white, as a hot or dead sensor
    pixel, a phone's sharpening of grain, or a photo exporter's "salt and pepper" shows
    them. Specks are no dice: a net that fires on them sends each to the face reader."""
    g = np.random.default_rng(rng.randrange(1 << 30))
    hit = g.random(f.shape[:2]) < rng.uniform(0.002, 0.02)
    out = f.copy()
    out[hit] = np.where(g.random(int(hit.sum())) < 0.5, 0, 255)[:, None]
    return out


def scene_pool(n: int, seed: int = 9):
    """n procedural scenes (synth_scenes.py), drawn once: drawing is slow, augmenting is not."""
    rng = random.Random(seed)
    return [synth_scenes.scene(rng, CROP) for _ in range(n)]


def augment_scene(img, dice, rng):
    """Quarter turns, mirror and the photometric changes of `augment` on a procedural scene."""
    k = rng.randrange(4)
    centres = []
    for x, y, _ in dice:
        for _ in range(k):  # np.rot90 turns counter-clockwise: (x, y) -> (y, side - 1 - x)
            x, y = y, CROP - 1 - x
        centres.append((x, y))
    img = np.rot90(img, k)
    if rng.random() < 0.5:
        img = img[:, ::-1]
        centres = [(CROP - 1 - x, y) for x, y in centres]
    f = np.ascontiguousarray(img).astype(np.float32)
    f *= np.array([rng.uniform(0.8, 1.2) for _ in range(3)], np.float32)
    f = 255.0 * (np.clip(f, 0, 255) / 255.0) ** rng.uniform(0.7, 1.4)
    if rng.random() < 0.5:
        f = f[:, :, list(rng.sample([0, 1, 2], 3))]
    return np.clip(f, 0, 255).astype(np.uint8), [np.array(c) for c in centres], [s for _, _, s in dice]


def targets(centres, sizes):
    g = CROP // STRIDE
    heat = np.zeros((g, g), np.float32)
    size = np.zeros((g, g), np.float32)
    mask = np.zeros((g, g), np.float32)
    ys, xs = np.mgrid[0:g, 0:g]
    for (cx, cy), s in zip(centres, sizes):
        gx, gy = round(cx / STRIDE - 0.5), round(cy / STRIDE - 0.5)  # peak on a cell, as CentreNet decodes
        if not (-2 < gx < g + 1 and -2 < gy < g + 1):
            continue
        sigma = max(0.8, s / STRIDE / 6.0)
        heat = np.maximum(heat, np.exp(-((xs - gx) ** 2 + (ys - gy) ** 2) / (2 * sigma ** 2)))
        near = ((xs - gx) ** 2 + (ys - gy) ** 2) <= max(1.0, (s / STRIDE / 4.0)) ** 2
        size[near] = math.log(max(s, 2.0))
        mask[near] = 1.0
    return heat, size, mask


def focal(logits, heat):
    p = torch.sigmoid(logits).clamp(1e-4, 1 - 1e-4)
    pos = heat.ge(0.99).float()
    neg = 1 - pos
    pl = -torch.log(p) * (1 - p) ** 2 * pos
    nl = -torch.log(1 - p) * p ** 2 * (1 - heat) ** 4 * neg
    return (pl.sum() + nl.sum()) / pos.sum().clamp(min=1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="hardware/vision/models/dice_centres.onnx")
    ap.add_argument("--epochs", type=int, default=280)
    ap.add_argument("--per-epoch", type=int, default=640)
    # procedural scenes (synth_scenes.py): off by default, see docs/decisions.md
    ap.add_argument("--synth", type=int, default=0, help="procedural scenes drawn before training")
    ap.add_argument("--synth-share", type=float, default=0.35, help="share of each batch taken from them")
    ap.add_argument("--paste", type=float, default=0.0,
                    help="share of each batch drawn from cut-and-paste scenes (paste_scenes.py)")
    ap.add_argument("--die-range", default=None,
                    help="lo,hi: die sizes in working pixels that photos and pasted scenes are scaled to")
    ap.add_argument("--sprites-cache", default=None, help="pickle file for the pasted dice (made when missing)")
    ap.add_argument("--oblique", type=int, default=0, help="dice seen at an angle added to the pasted ones (--paste)")
    ap.add_argument("--boards", type=float, default=0.0, help="share of the pasted scenes thrown onto a printed board")
    ap.add_argument("--board-pool", type=int, default=300, help="printed boards drawn before training (--boards)")
    ap.add_argument("--renders", action="append", default=[], metavar="DIR",
                    help="a render cache (render_dice.py) whose training scenes join the photos (repeatable)")
    ap.add_argument("--renders-share", type=float, default=0.35, help="share of the photo scenes taken from renders")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--bands", type=float, default=0.0, help="share of crops shown under mains-flicker bands")
    ap.add_argument("--shadows", type=float, default=0.0, help="share of crops shown under uneven light")
    ap.add_argument("--specks", type=float, default=0.0, help="share of crops shown with impulse noise (specks)")
    ap.add_argument("--arch", default="standard", choices=sorted(ARCHS), help="the net (standard: the shipped one)")
    ap.add_argument("--from-onnx", help="go on training this exported CentreNet instead of starting afresh")
    ap.add_argument("--lr", type=float, default=3e-3, help="the learning rate's peak (one cycle)")
    ap.add_argument("--seed", type=int, default=7, help="the run's random seed (7: the shipped model)")
    ap.add_argument("--teachers", help="comma-separated CentreNet exports: also learn their averaged output "
                                       "(distillation), so one net reads as two would")
    ap.add_argument("--checkpoint", metavar="FILE",
                    help="save the run here with every export, and go on from it when it is there (keep it "
                         "outside the repository)")
    ap.add_argument("--teach-weight", type=float, default=1.0, help="weight of the teachers' loss against the labels'")
    ap.add_argument("--teach-photos-only", action="store_true",
                    help="the teachers' loss on every scene but the renders: keep what the teachers read on "
                         "photos, learn the renders' looks from their labels alone")
    # a lent machine (a GPU, many cores): see parallel.py and docs/vision.md
    ap.add_argument("--device", default="cpu", help="torch device to train on (cuda on a GPU machine)")
    ap.add_argument("--workers", type=int, default=0, help="processes drawing the training scenes (0: this one)")
    ap.add_argument("--batch", type=int, default=16, help="scenes per step")
    ap.add_argument("--minutes", type=float, default=None,
                    help="train for this long (the learning-rate cycle spread over it) instead of --epochs")
    ap.add_argument("--grow-boxes", default=None, metavar="SET=F,...",
                    help="grow a set's labelled boxes by F about their centres (matteop=1.25: its boxes hold the pips)")
    args = ap.parse_args()
    torch.manual_seed(args.seed)
    rng = random.Random(args.seed)
    bands_rng = random.Random(args.seed + 4)  # 11 and 13 for the shipped seed, as before the option
    shadows_rng = random.Random(args.seed + 6)
    specks_rng = random.Random(args.seed + 12)
    torch.set_num_threads(args.threads)
    if args.workers:
        parallel.one_thread()
    grow = {k: float(v) for k, v in (pair.split("=") for pair in args.grow_boxes.split(","))} if args.grow_boxes else None
    train = load_items(held_out=False, grow=grow)
    renders = load_items(False, renders=[it for root in args.renders for it in dataset.load_renders(Path(root))])
    print(f"{len(train)} training images, {len(renders)} rendered scenes", flush=True)
    t0 = time.time()
    pool = scene_pool(args.synth)
    print(f"{len(pool)} procedural scenes in {time.time() - t0:.0f}s", flush=True)
    die_range = tuple(float(v) for v in args.die_range.split(",")) if args.die_range else None
    paster = None
    if args.paste > 0:
        import boards
        import paste_scenes
        cache = Path(args.sprites_cache) if args.sprites_cache else None
        board_pool = boards.pool(args.board_pool, args.seed + 10, CROP) if args.boards else []
        paster = paste_scenes.Paster(paste_scenes.load_sprites(cache=cache), paste_scenes.background_patches(),
                                     boards=args.boards, board_pool=board_pool)
        if args.oblique:  # dice seen at an angle (oblique_dice.py) among the pasted ones
            paster.sprites = paster.sprites + paste_scenes.oblique_sprites(args.oblique)
        print(f"{len(paster.sprites)} dice to paste, {len(paster.backgrounds)} backgrounds", flush=True)
    paste_rng = random.Random(args.seed + 8)
    net = ARCHS[args.arch]()
    if args.from_onnx:
        net = FoldedCentreNet.exported(args.from_onnx)
    device = torch.device(args.device)
    net.to(device)
    teachers = [FoldedCentreNet.exported(path).eval().requires_grad_(False).to(device)
                for path in (args.teachers.split(",") if args.teachers else [])]
    opt = torch.optim.AdamW(net.parameters(), args.lr, weight_decay=1e-4)
    per_epoch = args.per_epoch // args.batch
    sched = parallel.schedule(opt, args.lr, args.minutes, args.epochs * per_epoch)

    def batch(streams):
        rng, paste_rng, bands_rng, shadows_rng = streams
        xs, hs, ss, ms, ts = [], [], [], [], []
        for _ in range(args.batch):
            rendered = False
            if paster is not None and paste_rng.random() < args.paste:
                a, dice = paster.scene(paste_rng, CROP, die_range or (9.0, 48.0))
                c, s = [np.array(d[:2]) for d in dice], [d[2] for d in dice]
            elif pool and rng.random() < args.synth_share:
                a, c, s = augment_scene(*pool[rng.randrange(len(pool))], rng)
            elif renders and rng.random() < args.renders_share:  # no draw at all without renders
                a, c, s = augment(*renders[rng.randrange(len(renders))], rng, die_range)
                rendered = True
            else:
                img, boxes = train[rng.randrange(len(train))]
                a, c, s = augment(img, boxes, rng, die_range)
            if bands_rng.random() < args.bands:  # its own random stream: the rest is drawn as without
                a = np.clip(flicker_bands(a.astype(np.float32), bands_rng), 0, 255).astype(np.uint8)
            if shadows_rng.random() < args.shadows:  # as the bands: a stream of its own
                a = np.clip(uneven_light(a.astype(np.float32), shadows_rng), 0, 255).astype(np.uint8)
            if args.specks and specks_rng.random() < args.specks:  # drawn only when asked: older runs repeat
                a = specks(a, specks_rng)
            h, sz, m = targets(c, s)
            xs.append(normalise(a)); hs.append(h); ss.append(sz); ms.append(m)
            ts.append(0.0 if rendered and args.teach_photos_only else 1.0)
        return np.stack(xs), np.stack(hs), np.stack(ss), np.stack(ms), np.array(ts, np.float32)

    def streams(seed):  # a worker's four streams, apart from every other worker's
        return tuple(random.Random(seed * 16 + k) for k in (0, 8, 4, 6))

    first = parallel.resumed(args.checkpoint, net, opt, sched) if args.checkpoint else 0
    scenes = parallel.batches(batch, streams(args.seed + first) if first else (rng, paste_rng, bands_rng, shadows_rng),
                              args.workers, streams, args.seed + first)
    t0 = time.time()
    for epoch in itertools.count(first) if args.minutes else range(first, args.epochs):
        net.train()
        tot = 0.0
        going = True
        for n in range(1, per_epoch + 1):
            x, heat, size, mask, taught_too = (torch.as_tensor(a).to(device, non_blocking=True) for a in next(scenes))
            out = net(x)
            loss = focal(out[:, 0], heat) + 0.5 * (F.l1_loss(out[:, 1], size, reduction="none") * mask).sum() / mask.sum().clamp(min=1)
            if teachers:
                loss = loss + args.teach_weight * taught(out, teachers, x, heat, taught_too)
            opt.zero_grad(); loss.backward(); opt.step()
            going = sched.step() is not False
            tot += loss.item()
            if not going:
                break
        print(f"epoch {epoch} loss {tot / n:.3f} {time.time() - t0:.0f}s", flush=True)
        last = not going or (not args.minutes and epoch == args.epochs - 1)
        if epoch % 10 == 9 or last:
            export(net, args.out)
            if args.checkpoint:
                parallel.save_checkpoint(args.checkpoint, net, opt, sched, epoch)
        if last:
            break


def taught(out, teachers, x, heat, scenes=None):
    """How far the net's output is from its teachers' averaged output on the same batch:
    binary cross-entropy to their centre probabilities (summed, per labelled die, as the
    focal loss is) and the L1 distance to their log sizes where they see a die. `scenes`
    (one weight a scene, 0 or 1) leaves scenes out; the teachers do not read those (eval
    mode: a scene's reading does not depend on the others in its batch)."""
    with torch.no_grad():
        read = None if scenes is None else scenes > 0
        if read is None or bool(read.all()):
            t = torch.stack([teacher(x) for teacher in teachers]).mean(0)
        else:  # a scene left out weighs 0 below, whatever stands in for its teachers' reading
            t = torch.zeros_like(out)
            if bool(read.any()):
                t[read] = torch.stack([teacher(x[read]) for teacher in teachers]).mean(0)
    w = torch.ones(x.shape[0], device=x.device) if scenes is None else scenes
    w = w[:, None, None]
    soft = torch.sigmoid(t[:, 0])
    entropy = (F.binary_cross_entropy(soft, soft, reduction="none") * w).sum()  # the floor: what is left is a divergence
    centres = ((F.binary_cross_entropy_with_logits(out[:, 0], soft, reduction="none") * w).sum() - entropy) \
        / heat.ge(0.99).sum().clamp(min=1)
    where = (soft > 0.3).float() * w
    sizes = (F.l1_loss(out[:, 1], t[:, 1], reduction="none") * where).sum() / where.sum().clamp(min=1)
    return centres + 0.5 * sizes


def export(net, out):
    net = copy.deepcopy(net).cpu().eval()
    dummy = torch.zeros(1, 3, 288, 384)
    torch.onnx.export(net, dummy, out, input_names=["image"], output_names=["centres"], opset_version=13,
                      dynamic_axes={"image": {2: "h", 3: "w"}, "centres": {2: "gh", 3: "gw"}}, dynamo=False)


if __name__ == "__main__":
    main()

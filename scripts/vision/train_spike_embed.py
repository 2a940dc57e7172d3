"""Train the spike face embedding (a die-face crop -> a unit vector) and export ONNX.

Reproduce:
    /tmp/tv/bin/python scripts/vision/train_spike_embed.py --out hardware/vision/models/face_embed.onnx
(torch CPU + numpy + opencv + onnx; one thread; seeds fixed; about two hours.)

Why 81000 steps, with figures: docs/decisions.md.
--cubes SHARE draws that share of the photos as 3-D cubes whose sides show the die's other
glyphs (glyphs.cube_crop); --from-onnx goes on training an export; --width W makes every
stage W times as wide. The shipped embedding uses none of these (a fine-tune with cubes, one
with --real and a run from scratch at --width 2 were tried and not kept: docs/decisions.md).
--marks makes the net see each crop's mark map (hardware/vision/marks.py's mark_map: how unlike
the die's own colour each pixel is, so colour and polarity drop out) instead of its colours:
a mark embedding, tried beside the colour one and not kept (docs/decisions.md).
--real SHARE makes that share of the pooled groups real pip dice instead of drawn glyphs:
the six faces of the training split's labelled dice (byler, matteop, rendered-dev pips) and
of tomitomi3's crops, each photo of a face from another die (RealDice).

Data provenance: **only procedurally generated symbols** (scripts/vision/glyphs.py:
random strokes, polygons, rings, stars, rays, arcs, dots, pip layouts and combinations,
drawn on random dice on random tables with tilt, bevel, glare, shadow, blur, noise and
JPEG); with --real, also the training split's photographed and rendered pip dice (never a
held-out or test-only photo). Without --real no photo is used, and never a rendered-dev
spike-A image (neither the scenes nor the spike-A-enrol teaching photos): spike-A is kept
unseen so that the benchmark measures reading a symbol set never seen in development.

Batches: a pool of GROUPS x 6 glyphs x RENDERS photos is rendered ahead and one group is
replaced every other step. Half the groups are families of six glyphs that differ only in
small ways (the six pip layouts, or one symbol with six small additions), the rest six
unrelated glyphs (a quarter of them near misses of another: one part added or cut away),
so small differences are learned too. A batch: GROUPS_PER_BATCH groups x SHOTS photos.
Loss: supervised contrastive (a photo is pulled towards the other photos of its glyph and
pushed from every other glyph in the batch).
Validation: episodes like a table's teaching: six new glyphs, a few taught photos each,
other photos read by the nearest taught face; prints accuracy and the margins.
"""

from __future__ import annotations

import argparse
import functools
import json
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
import glyphs  # noqa: E402
import parallel  # noqa: E402
from hardware.vision.faces import cut, standardise_crop  # noqa: E402  (exactly as spike.py reads)
from hardware.vision.marks import mark_map  # noqa: E402

SIDE = 32  # must match hardware/vision/spike.py SIDE
CROP = 0.9  # of the die size; must match spike.py CROP
DIM = 64
GROUPS, RENDERS = 500, 6  # the rendered pool
GROUPS_PER_BATCH, SHOTS = 5, 4  # a batch: 30 glyphs x 4 photos
TEMPERATURE = 0.1


def conv(cin, cout, folded: bool = False):
    if folded:  # as exported: the batch norm folded into the convolution
        return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1), nn.ReLU(inplace=True))
    return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True))


class FaceEmbed(nn.Module):
    """Four conv stages (32 -> 4 px) and a linear map to a DIM-vector, L2-normalised in the graph.
    `folded`: as exported, to go on training a shipped model (--from-onnx). `width`: every
    stage's channels times this (the shipped embedding: 1). `cin`: input channels (3 colours,
    or 1 for a mark map: --marks)."""

    def __init__(self, folded: bool = False, width: float = 1.0, cin: int = 3):
        super().__init__()
        self.cin = cin
        c = functools.partial(conv, folded=folded)
        a, b, d, e = (max(1, round(n * width)) for n in (16, 24, 48, 64))
        self.body = nn.Sequential(c(cin, a), nn.MaxPool2d(2), c(a, b), c(b, b), nn.MaxPool2d(2),
                                  c(b, d), c(d, d), nn.MaxPool2d(2), c(d, e))
        self.fc = nn.Linear(e * (SIDE // 8) ** 2, DIM)

    def load_onnx(self, path: str) -> "FaceEmbed":
        """The weights of an export (a folded net only: an export has no batch norms)."""
        import onnx
        from onnx import numpy_helper

        weights = {i.name: numpy_helper.to_array(i).copy() for i in onnx.load(path).graph.initializer}
        fc = [weights.pop("fc.weight"), weights.pop("fc.bias")]
        convs = [m for m in self.body.modules() if isinstance(m, nn.Conv2d)]
        values = list(weights.values())  # in the net's order: weight, bias of each convolution
        assert all(m.bias is not None for m in convs) and len(values) == 2 * len(convs), "not a folded FaceEmbed"
        with torch.no_grad():
            for k, m in enumerate(convs):
                m.weight.copy_(torch.from_numpy(values[2 * k]))
                m.bias.copy_(torch.from_numpy(values[2 * k + 1]))
            self.fc.weight.copy_(torch.from_numpy(fc[0]))
            self.fc.bias.copy_(torch.from_numpy(fc[1]))
        return self

    def forward(self, x):
        return F.normalize(self.fc(self.body(x).flatten(1)), dim=1)


MARKS = False  # --marks: the net sees each crop's mark map (mark_input), not its colours


def mark_input(crop: np.ndarray) -> np.ndarray:
    """(1, SIDE, SIDE): the crop's mark map (marks.mark_map: how unlike the die's own colour
    each pixel is, so colour and polarity drop out) at full size, to zero mean and about
    unit spread."""
    m = mark_map(np.ascontiguousarray(crop), crop.shape[0])
    return ((m - m.mean()) / (m.std() + 0.1))[None].astype(np.float32)


def as_input(crop: np.ndarray) -> np.ndarray:
    """One crop as the net takes it: standardised colours, or its mark map (--marks)."""
    return mark_input(crop) if MARKS else standardise_crop(crop)


CUBES = 0.0  # the share of photos drawn as 3-D cubes (glyphs.cube_crop; --cubes)
REAL = None  # RealDice, with --real
REAL_SHARE = 0.0  # the share of pooled groups that are real pip dice (--real)
REAL_CUTS = 4  # crops cut of each real die, each with the finder's errors
TOMI_SAMPLE = 800  # of tomitomi3's 2,400 grey crops (the colour dice are 2,163)


class RealDice:
    """The training split's labelled pip dice by face (byler, matteop and rendered-dev's pip
    scenes, never a held-out or test-only photo, and TOMI_SAMPLE of tomitomi3's crops), each
    cut REAL_CUTS times as the reader would cut it: the finder's size and centre errors
    (glyphs.as_found, as for a drawn die) and any turn. Photos of one face from other dice
    are the same symbol: what a table teaches on one die it reads on the others."""

    def __init__(self, rng: random.Random):
        import dataset
        import paste_scenes
        self.crops: dict[int, list[np.ndarray]] = {v: [] for v in range(1, 7)}
        for item in dataset.load_all():
            if item.held_out or item.kind != "pip" or not item.boxes:
                continue
            img = cv2.imread(str(item.path))
            for x1, y1, x2, y2, v in item.boxes:
                self._cuts(img, (x1 + x2) / 2, (y1 + y2) / 2, max(x2 - x1, y2 - y1), int(v), rng)
        names = json.loads((paste_scenes.TOMI / "manifest.json").read_text())
        for e in rng.sample(names, min(TOMI_SAMPLE, len(names))):
            img = cv2.imread(str(paste_scenes.TOMI / e["image"]))
            self._cuts(img, img.shape[1] / 2, img.shape[0] / 2, paste_scenes.TOMI_DIE, int(e["dice"][0]), rng)

    def _cuts(self, img, x, y, box, value, rng) -> None:
        for _ in range(REAL_CUTS):
            cx, cy, size = glyphs.as_found(x, y, box, rng)
            self.crops[value].append(cut(img, cx, cy, size * CROP, SIDE, rng.uniform(0, 360)))

    def photo(self, value: int, rng: random.Random) -> np.ndarray:
        """A crop of some die showing `value`, its light and focus changed a little."""
        crop = rng.choice(self.crops[value]).astype(np.float32)
        crop = crop * np.float32([rng.uniform(0.8, 1.2) for _ in range(3)]) + rng.uniform(-20, 20)
        crop = np.clip(crop, 0, 255).astype(np.uint8)
        if rng.random() < 0.3:
            crop = cv2.GaussianBlur(crop, (0, 0), rng.uniform(0.3, 1.0))
        if rng.random() < 0.1:
            crop = cv2.cvtColor(cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY), cv2.COLOR_GRAY2BGR)
        return crop


def photo(glyph, rng, neighbour, shapes=None) -> np.ndarray:
    if shapes is not None and CUBES and rng.random() < CUBES:
        crop = glyphs.cube_crop([glyph] + [g for g in shapes if g is not glyph], rng, SIDE, CROP, neighbour)
    else:
        crop = glyphs.face_crop(glyph, rng, SIDE, CROP, neighbour)
    if rng.random() < 0.1:
        crop = cv2.cvtColor(cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY), cv2.COLOR_GRAY2BGR)
    return crop


def group(rng: random.Random) -> list[np.ndarray]:
    """Six glyphs: a family of near relatives half the time, else six unrelated ones (a quarter
    of them near misses of an earlier one)."""
    if rng.random() < 0.5:
        return glyphs.family(rng)
    shapes: list[np.ndarray] = []
    for i in range(6):
        shapes.append(glyphs.variant(shapes[rng.randrange(i)], rng) if i and rng.random() < 0.25 else glyphs.random_glyph(rng))
    return shapes


class Pool:
    """GROUPS groups x 6 glyphs x RENDERS photos, rendered ahead (rendering costs more than a
    training step); one group is replaced every other step, so no glyph is seen for long."""

    def __init__(self, rng: random.Random):
        self.rng = rng
        groups = [self.render() for _ in range(GROUPS)]
        self.real = np.array([r for r, _ in groups])  # which groups are real pip dice (their faces: one label each)
        self.photos = np.stack([p for _, p in groups])

    def render(self) -> tuple[bool, np.ndarray]:
        if REAL is not None and self.rng.random() < REAL_SHARE:
            return True, np.stack([[REAL.photo(v, self.rng) for _ in range(RENDERS)] for v in range(1, 7)])
        shapes = group(self.rng)
        return False, np.stack([[photo(g, self.rng, shapes[self.rng.randrange(6)], shapes) for _ in range(RENDERS)]
                                for g in shapes])

    def refresh(self) -> None:
        real, photos = self.render()  # drawn before the group it replaces, as the shipped run drew them
        gi = self.rng.randrange(GROUPS)
        self.real[gi], self.photos[gi] = real, photos

    def batch(self):
        xs, ys = [], []
        for k, gi in enumerate(self.rng.sample(range(GROUPS), GROUPS_PER_BATCH)):
            for j in range(6):
                for r in self.rng.sample(range(RENDERS), SHOTS):
                    xs.append(as_input(np.rot90(self.photos[gi, j, r], self.rng.randrange(4))))
                    # two real groups in a batch show the same six faces
                    ys.append(6 * GROUPS_PER_BATCH + j if self.real[gi] else 6 * k + j)
        return torch.from_numpy(np.stack(xs)), torch.tensor(ys)


def supcon(z: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    sim = z @ z.T / TEMPERATURE
    eye = torch.eye(len(y), dtype=torch.bool)
    sim = sim.masked_fill(eye, -1e9)
    pos = (y[:, None] == y[None, :]) & ~eye
    logp = sim - torch.logsumexp(sim, dim=1, keepdim=True)
    return -(logp * pos).sum(1).div(pos.sum(1)).mean()


def episodes(seed: int, n: int = 20, taught: int = 4, read: int = 8, cubes: bool = False):
    """Fixed validation episodes (half of them families): taught crops and faces, read crops
    and faces; `cubes`: every photo a 3-D cube (glyphs.cube_crop)."""
    rng = random.Random(seed)
    out = []

    def shot(g, faces):
        if cubes:
            return glyphs.cube_crop([g] + [f for f in faces if f is not g], rng, SIDE, CROP, faces[rng.randrange(6)])
        return photo(g, rng, faces[rng.randrange(6)])

    for k in range(n):
        faces = glyphs.family(rng) if k % 2 else [glyphs.random_glyph(rng) for _ in range(6)]
        t = [(as_input(shot(g, faces)), v) for v, g in enumerate(faces) for _ in range(taught)]
        r = [(as_input(shot(g, faces)), v) for v, g in enumerate(faces) for _ in range(read)]
        out.append(tuple(np.stack(a) if k % 2 == 0 else np.array(a) for k, a in
                         enumerate([[x for x, _ in t], [v for _, v in t], [x for x, _ in r], [v for _, v in r]])))
    return out


def evaluate(net, eps) -> str:
    net.eval()
    right, margins_ok, margins_bad = 0, [], []
    total = 0
    with torch.no_grad():
        for tx, ty, rx, ry in eps:
            zt, zr = net(torch.from_numpy(tx)).numpy(), net(torch.from_numpy(rx)).numpy()
            sims = zr @ zt.T
            per_face = np.stack([sims[:, ty == v].max(1) for v in range(6)], 1)
            best = per_face.argmax(1)
            top2 = np.sort(per_face, 1)[:, -2:]
            margin = top2[:, 1] - top2[:, 0]
            ok = best == ry
            right += ok.sum()
            total += len(ry)
            margins_ok += margin[ok].tolist()
            margins_bad += margin[~ok].tolist()
    net.train()
    bad = np.array(margins_bad) if margins_bad else np.zeros(1)
    return (f"episode acc {right / total:.3f}; margin right median {np.median(margins_ok):.3f}, "
            f"wrong median {np.median(bad):.3f} p95 {np.percentile(bad, 95):.3f}")


def export(net, out):
    net.eval()
    torch.onnx.export(net, torch.zeros(1, net.cin, SIDE, SIDE), out, input_names=["faces"],
                      output_names=["embedding"], opset_version=13,
                      dynamic_axes={"faces": {0: "n"}, "embedding": {0: "n"}}, dynamo=False)
    net.train()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="hardware/vision/models/face_embed.onnx")
    ap.add_argument("--steps", type=int, default=81000)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--from-onnx", help="go on training this export (folded; use a lower --lr)")
    ap.add_argument("--cubes", type=float, default=0.0, help="share of photos drawn as 3-D cubes, sides showing the die's other glyphs")
    ap.add_argument("--checkpoint", metavar="FILE",
                    help="save the run here with every export, and go on from it when it is there (keep it "
                         "outside the repository)")
    ap.add_argument("--width", type=float, default=1.0, help="channels of every stage times this (from scratch)")
    ap.add_argument("--real", type=float, default=0.0,
                    help="share of pooled groups that are the training split's real pip dice (RealDice)")
    ap.add_argument("--marks", action="store_true", help="the net sees mark maps (mark_input), not colours")
    ap.add_argument("--refresh", type=int, default=2, help="replace one pooled group every this many steps")
    args = ap.parse_args()
    global CUBES, REAL, REAL_SHARE, MARKS
    CUBES, REAL_SHARE, MARKS = args.cubes, args.real, args.marks
    torch.manual_seed(23)
    np.random.seed(23)
    rng = random.Random(23)
    torch.set_num_threads(1)
    cv2.setNumThreads(1)
    eps = episodes(1234)
    cube_eps = episodes(1235, cubes=True) if args.cubes else None

    def scores() -> str:
        return evaluate(net, eps) + ("; cubes: " + evaluate(net, cube_eps) if cube_eps else "")

    net = FaceEmbed(folded=bool(args.from_onnx), width=args.width, cin=1 if MARKS else 3)
    if args.from_onnx:
        net.load_onnx(args.from_onnx)
        print(f"from {args.from_onnx}: " + scores(), flush=True)
    opt = torch.optim.AdamW(net.parameters(), args.lr, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, args.lr, total_steps=args.steps, pct_start=0.1)
    first = (parallel.resumed(args.checkpoint, net, opt, sched, "step") if args.checkpoint else 0) or 1  # a step
    if first > 1:  # the glyphs are drawn anew, from a stream of the step resumed at
        rng = random.Random(23 + first)
    t0, tot = time.time(), 0.0
    if REAL_SHARE:
        REAL = RealDice(random.Random(29))
        print(f"real dice cut {time.time() - t0:.0f}s: " + ", ".join(f"{v}: {len(c)}" for v, c in REAL.crops.items()),
              flush=True)
    pool = Pool(rng)
    print(f"pool rendered {time.time() - t0:.0f}s", flush=True)
    for step in range(first, args.steps + 1):
        if step % args.refresh == 0:
            pool.refresh()
        x, y = pool.batch()
        loss = supcon(net(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        tot += loss.item()
        if step % 100 == 0:
            msg = f"step {step} loss {tot / 100:.3f} {time.time() - t0:.0f}s"
            tot = 0.0
            if step % 300 == 0 or step == args.steps:
                msg += " " + scores()
                export(net, args.out)
                if args.checkpoint:
                    parallel.save_checkpoint(args.checkpoint, net, opt, sched, step)
            print(msg, flush=True)
    export(net, args.out)


if __name__ == "__main__":
    main()

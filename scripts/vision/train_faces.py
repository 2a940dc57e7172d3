"""Train the top-face classifier (pips 1..6, "not a die", "a die without pips") and export ONNX.

Reproduce the shipped model (docs/vision.md): the defaults (280 epochs, width 1.0, one
thread, seed 12; about an hour), then --from-onnx that export --lr 5e-4 --epochs 80
--oblique 16000 --oblique-share 0.35 (12 minutes), then twice 80 epochs with --upright 15
(the commands are in docs/vision.md). Needs torch (CPU) + numpy + opencv;
uses the non-held-out images of the three sets (see dataset.py) plus procedural crops
(synth_faces.py, oblique_dice.py). Seeds are fixed.

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
--oblique draws a pool of dice seen at 20-70 degrees (oblique_dice.py: side faces with
pips of their own below the top face) and --oblique-share takes that share of each batch;
--from-onnx goes on training a shipped model (its batch norms folded, --lr lower).
--upright keeps crops of pictures that have an up within that many degrees (see UPRIGHT_ROLL).
--oblique-real gives that share of the oblique dice a top face cut from a training photo;
--oblique-boards shows a board's tile or token in that share of their "no die" crops;
--oblique-common draws that share of them as the dice and tables most people play with.
--from-onnx with a --width above the export's widens it first (widened).
--off-centre and --size-spread set how far a crop may lie off its die and how much bigger
or smaller it may be (synth_faces.OFF_CENTRE, SIZE_SPREAD), for every kind of crop (the
pasted scenes' crops keep their own size spread, +-0.15).
--keep X also teaches X's probabilities on the crops X reads as labelled (distillation),
pulling a model trained on from X towards what X reads right.
--checkpoint FILE saves the run with every export and resumes it from FILE when there.
--motion SHARE smears that share of the crops along a line (a die still moving, a phone's
shake); off by default (docs/decisions.md).
"""

from __future__ import annotations

import argparse
import copy
import functools
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
import onnx_features  # noqa: E402
import parallel  # noqa: E402
import synth_faces  # noqa: E402
from hardware.vision.detect import find_candidates  # noqa: E402  (needs dice_centres.onnx trained first)
from hardware.vision.faces import cut, standardise_crop  # noqa: E402  (the reader's own crop and scaling)

FACE_SIDE = 48
CROP_FACTOR = 1.35
N_CLASSES = 8


def set_side(side: int) -> None:
    global FACE_SIDE
    FACE_SIDE = side


def conv(cin, cout, folded: bool = False):
    if folded:  # as exported: the batch norm folded into the convolution's weights and bias
        return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1), nn.ReLU(inplace=True))
    return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True))


class FaceNet(nn.Module):
    """The face model; `folded`: as it is exported, to go on training a shipped model
    (--from-onnx, `load_onnx`)."""

    def __init__(self, width: float = 1.0, folded: bool = False):
        super().__init__()
        a, b, c = (int(round(n * width / 4)) * 4 for n in (16, 32, 48))
        self.body = nn.Sequential(conv(3, a, folded), conv(a, a, folded), nn.MaxPool2d(2),
                                  conv(a, b, folded), conv(b, b, folded), nn.MaxPool2d(2),
                                  conv(b, c, folded), conv(c, c, folded), nn.MaxPool2d(2))
        self.fc1 = nn.Linear(c * (FACE_SIDE // 8) ** 2, 96)
        self.fc2 = nn.Linear(96, N_CLASSES)
        self.drop = nn.Dropout(0.3)

    def forward(self, x):
        x = self.body(x).flatten(1)
        return self.fc2(self.drop(F.relu(self.fc1(x))))

    def load_onnx(self, path: str) -> "FaceNet":
        """The weights of an export (a folded net only: an export has no batch norms)."""
        import onnx
        from onnx import numpy_helper

        weights = {i.name: numpy_helper.to_array(i) for i in onnx.load(path).graph.initializer}
        fcs = {name: weights.pop(name) for name in ("fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias")}
        convs = [m for m in self.body.modules() if isinstance(m, nn.Conv2d)]
        values = list(weights.values())  # in the net's order: weight, bias of each convolution
        assert all(m.bias is not None for m in convs), "load_onnx needs FaceNet(folded=True)"
        assert len(values) == 2 * len(convs), "not a FaceNet export"
        with torch.no_grad():
            for k, m in enumerate(convs):
                m.weight.copy_(torch.from_numpy(values[2 * k])); m.bias.copy_(torch.from_numpy(values[2 * k + 1]))
            for name, value in fcs.items():
                getattr(self, name.split(".")[0]).get_parameter(name.split(".")[1]).copy_(torch.from_numpy(value))
        return self


def export_width(path: str) -> float:
    """The width an export was trained at (its first convolution's channels against 16)."""
    import onnx

    first = next(i for i in onnx.load(path).graph.initializer if len(i.dims) == 4)
    return first.dims[0] / 16


def widened(net: FaceNet, times: float, seed: int = 0) -> FaceNet:
    """A folded FaceNet `times` as wide that computes about what `net` does (net2net):
    each convolution's channels repeated, the next layer's weights over them divided among
    the copies, then every convolution weight jittered by 1% (fixed seed) so the copies
    can learn apart (outputs move by about 0.1%). Training a wider net from a trained one
    starts where it stands instead of from scratch. Widths must be multiples of 0.25
    (export_width reads them back from the first layer's 16 x width channels). A whole
    multiple repeats every channel that many times; what is left of another (1.5: width 2
    to 3) is copies of channels drawn at random (fixed seed), none twice."""
    old = [m for m in net.body.modules() if isinstance(m, nn.Conv2d)]
    wide = FaceNet(old[0].out_channels / 16 * times, folded=True)
    new = [m for m in wide.body.modules() if isinstance(m, nn.Conv2d)]
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        picked = torch.arange(3)  # the channels each layer reads: first the picture's three
        for o, n in zip(old, new):
            assert n.out_channels >= o.out_channels, "a wider net only"
            whole, part = divmod(n.out_channels, o.out_channels)
            mine = torch.arange(o.out_channels).repeat(whole)
            if part:
                mine = torch.cat([mine, torch.randperm(o.out_channels, generator=g)[:part]])
            copies = torch.bincount(picked, minlength=o.in_channels).float()
            w = (o.weight[:, picked] / copies[picked][None, :, None, None])[mine]
            n.weight.copy_(w * (1 + 0.01 * torch.randn(w.shape, generator=g)))
            n.bias.copy_(o.bias[mine])
            picked = mine
        c, side = old[-1].out_channels, FACE_SIDE // 8
        copies = torch.bincount(picked, minlength=c).float()
        fc1 = net.fc1.weight.reshape(net.fc1.out_features, c, side, side)
        wide.fc1.weight.copy_((fc1[:, picked] / copies[picked][None, :, None, None]).reshape(net.fc1.out_features, -1))
        wide.fc1.bias.copy_(net.fc1.bias)
        wide.fc2.load_state_dict(net.fc2.state_dict())
    return wide


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


def load_items(held_out: bool, renders: list | None = None, pips_only: bool = False):
    """(picture, dice, hard negatives, top-down) of each training photo (or held-out one);
    given `renders` (dataset.load_renders), of those instead. A die labelled None (a
    render's cocked or hidden die) is never a crop's subject, nor where a background crop
    is cut. `pips_only`: pictures of chance cubes, spike or symbol dice are left out
    (--pips-only)."""
    out = []
    for it in (dataset.load_all() if renders is None else renders):
        if it.held_out != held_out and not (not held_out and it.kind.endswith("enrol")):
            continue
        if pips_only and it.kind != "pip":
            continue
        img = cv2.imread(str(it.path))
        dice = [((b[0] + b[2]) / 2, (b[1] + b[3]) / 2, max(b[2] - b[0], b[3] - b[1]),
                 None if b[4] is None else label_of(it.kind, b[4])) for b in it.boxes]
        out.append((img, dice, hard_negatives(img, dice), it.set_name in TOP_DOWN_SETS or it.any_turn))
    return out


def synth_pool(n: int, seed: int = 5, draw=None):
    """n procedural crops per class share, made once: drawing is slow, augmenting is not.
    `draw(rng, label, out=, crop_factor=)`: synth_faces.face_crop unless given."""
    draw = draw or synth_faces.face_crop
    rng = random.Random(seed)
    labels = [rng.choice([0, 1, 2, 3, 4, 5, 6, 7, 1, 2, 3, 4, 5, 6]) for _ in range(n)]
    return [(draw(rng, lab, out=FACE_SIDE, crop_factor=CROP_FACTOR), lab) for lab in labels]


def oblique_pool(n: int, seed: int = 7, roll: float | None = None, real_share: float = 0.0, cache: str | None = None,
                 boards: float = 0.0, common: float = 0.0):
    """n crops of dice seen at an angle (oblique_dice.py), made as synth_pool's; `roll`:
    the camera within this many degrees of upright (None: any turn); `real_share`: the
    share whose top face is cut from a training photo (paste_scenes.load_sprites); `boards`:
    the share of its "no die" crops centred on a board's tile or token (oblique_dice.board_piece);
    `common`: the share drawn as the dice and tables most people play with (table_dice.py)."""
    import oblique_dice
    real = None
    if real_share > 0:
        import paste_scenes
        real = oblique_dice.face_textures(paste_scenes.load_sprites(cache=Path(cache) if cache else None))
    return synth_pool(n, seed, lambda rng, lab, **kw: oblique_dice.oblique_crop(rng, lab, roll=roll, real=real,
                                                                                 real_share=real_share, boards=boards,
                                                                                 common=common, **kw))


# --upright: the picture's top is the far side of the table (a phone as it is held, a
# camera as it is mounted). A die seen at an angle then shows its top face above its side
# faces, which tells the top face from a side face where three faces show; turning its
# crop by a quarter or a half would hide that. Photos looking straight down (byler's
# tray) are turned any way still: there is no up in them.
UPRIGHT_ROLL = None  # degrees of turn for upright crops; None: every crop turned any way
TOP_DOWN_SETS = {"byler"}


def sample_synth(pool, rng, upright: bool = False):
    crop, label = pool[rng.randrange(len(pool))]
    f = np.asarray(crop if upright else np.rot90(crop, rng.randrange(4)), np.float32)
    if rng.random() < 0.5:
        f = f[:, ::-1]
    f *= np.array([rng.uniform(0.8, 1.2) for _ in range(3)], np.float32)
    f = f[:, :, list(rng.sample([0, 1, 2], 3))]
    if label != 7 and rng.random() < 0.3:
        f = 255 - f
    return standardise_crop(stretched(smeared(np.clip(f, 0, 255), rng), rng)), label


INVERT = 0.5  # share of real crops shown with brightness inverted (set by --invert)
HARD = 0.15  # share of a photo's crops cut where the centre model finds no die (set by --hard-share)
LOW_RES = 0.0  # share of photographed and pasted crops shown as a far die would be (set by --low-res)
STRETCH = 1.0  # the most a crop is made wider than tall, or taller than wide (set by --stretch)
MOTION = 0.0  # share of crops smeared as a moving die or a shaken camera smears it (set by --motion)


def smeared(f: np.ndarray, rng: random.Random) -> np.ndarray:
    """A MOTION share of crops smeared along a line (a die still rolling, a phone's shake):
    2 to 10 crop pixels long, any way."""
    if not MOTION or rng.random() >= MOTION:
        return f
    k = 11
    line = np.zeros((k, k), np.float32)
    half, a = rng.uniform(1.0, 5.0), rng.uniform(0, math.pi)
    c = (k - 1) / 2
    cv2.line(line, (round(c - half * math.cos(a)), round(c - half * math.sin(a))),
             (round(c + half * math.cos(a)), round(c + half * math.sin(a))), 1.0, 1, cv2.LINE_AA)
    return cv2.filter2D(f, -1, line / line.sum(), borderType=cv2.BORDER_REPLICATE)


def stretched(f: np.ndarray, rng: random.Random) -> np.ndarray:
    """Half the crops made up to STRETCH times wider than tall or taller than wide (their
    area kept): a die is not square in every picture (seen at an angle its top face is
    squashed; an exporter may stretch a whole photo to a square), and models trained on
    similarity-cut crops alone read a stretched die less surely."""
    if STRETCH <= 1.0 or rng.random() < 0.5:
        return f
    a = math.exp(rng.uniform(-1, 1) * math.log(STRETCH) / 2)  # sqrt of the stretch, either way
    side = f.shape[0]
    m = np.array([[a, 0, (1 - a) * (side - 1) / 2], [0, 1 / a, (1 - 1 / a) * (side - 1) / 2]], np.float32)
    return cv2.warpAffine(f, m, (side, side), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT_101)


def low_res(f: np.ndarray, rng: random.Random) -> np.ndarray:
    """A LOW_RES share of crops as a die 11-30 px across in the frame shows: shrunk to that
    many pixels (its JPEG at that size), then enlarged to the crop as the reader's cut does.
    The training photos' dice are mostly bigger than that; the oblique pool has its own."""
    if not LOW_RES or rng.random() >= LOW_RES:
        return f
    side = f.shape[0]
    small = max(8, round(rng.uniform(11, 30) * CROP_FACTOR * side / FACE_SIDE))
    f = cv2.resize(f, (small, small), interpolation=cv2.INTER_AREA)
    if rng.random() < 0.5:
        ok, enc = cv2.imencode(".jpg", f.astype(np.uint8), [cv2.IMWRITE_JPEG_QUALITY, rng.randint(50, 95)])
        f = cv2.imdecode(enc, cv2.IMREAD_COLOR).astype(np.float32)
    return cv2.resize(f, (side, side), interpolation=cv2.INTER_LINEAR)


def sample(items, rng, pool=None, share=0.0, cum=None, pasted=None, paste_share=0.0, oblique=None, oblique_share=0.0):
    """One training crop: from the oblique dice (oblique_share), the pasted scenes
    (paste_share), the procedural pool (share), else a real image, picked in proportion to
    its dice when `cum` (cumulative dice counts) is given, so crowded trays are not
    under-weighted."""
    if oblique and rng.random() < oblique_share:
        return sample_synth(oblique, rng, upright=UPRIGHT_ROLL is not None)
    if pasted and rng.random() < paste_share:
        return sample_pasted(pasted, rng)
    if pool and rng.random() < share:
        return sample_synth(pool, rng)
    img, dice, hard, top_down = items[rng.choices(range(len(items)), cum_weights=cum)[0] if cum else rng.randrange(len(items))]
    if hard and rng.random() < HARD:
        cx, cy, size = hard[rng.randrange(len(hard))]
        cx += rng.uniform(-0.1, 0.1) * size
        cy += rng.uniform(-0.1, 0.1) * size
        label = 0
    elif rng.random() < 0.2 or all(d[3] is None for d in dice):
        # background: a point away from every die centre, at a die-like size
        size = dice[rng.randrange(len(dice))][2] if dice else 40.0
        for _ in range(20):
            x, y = rng.uniform(0, img.shape[1]), rng.uniform(0, img.shape[0])
            if all(math.hypot(x - d[0], y - d[1]) > 0.45 * max(size, d[2]) for d in dice):
                break
        cx, cy, label = x, y, 0
    elif any(d[3] is not None for d in dice):
        cx, cy, size, label = rng.choice([d for d in dice if d[3] is not None])
        dx, dy = synth_faces.off_centre(rng)
        cx, cy = cx + dx * size, cy + dy * size
    side = CROP_FACTOR * size * synth_faces.size_error(rng)
    any_turn = top_down or UPRIGHT_ROLL is None
    crop = cut(img, cx, cy, side, FACE_SIDE, rng.uniform(0, 360) if any_turn else rng.uniform(-UPRIGHT_ROLL, UPRIGHT_ROLL))
    if not any_turn and rng.random() < 0.5:
        crop = crop[:, ::-1]  # a mirror keeps the top face on top
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
    return standardise_crop(stretched(smeared(low_res(np.clip(f, 0, 255), rng), rng), rng)), label


def paste_pool(n: int, seed: int = 6, cache: str | None = None):
    """n cut-and-paste scenes (paste_scenes.py): dice of every size, look and table."""
    import paste_scenes
    paster = paste_scenes.Paster(paste_scenes.load_sprites(cache=Path(cache) if cache else None),
                                 paste_scenes.background_patches())
    rng = random.Random(seed)
    return [paster.scene(rng, 256, (14.0, 70.0)) for _ in range(n)]


def sample_pasted(pool, rng):
    """A crop of a pasted scene: a die (its pips, or 7 for a die without pips), or what a
    finder looking at other scales may offer that is no die: a bare place, a speck, one
    pip of a die, the gap between two dice, a whole cluster."""
    img, dice = pool[rng.randrange(len(pool))]
    r = rng.random()
    if dice and r < 0.6:
        cx, cy, size, value = dice[rng.randrange(len(dice))]
        dx, dy = synth_faces.off_centre(rng)
        cx, cy = cx + dx * size, cy + dy * size
        label = 7 if value is None else int(value)
    else:
        size = dice[rng.randrange(len(dice))][2] if dice else rng.uniform(14, 70)
        label = 0
        kind = rng.random()
        if dice and kind < 0.3:  # part of a die: a pip-sized look off its middle
            cx, cy, s, _ = dice[rng.randrange(len(dice))]
            a = rng.uniform(0, 2 * math.pi)
            cx, cy = cx + 0.28 * s * math.cos(a), cy + 0.28 * s * math.sin(a)
            size = s * rng.uniform(0.2, 0.45)
        elif len(dice) > 1 and kind < 0.45:  # between two dice, or several dice seen as one
            a, b = rng.sample(dice, 2)
            cx, cy = (a[0] + b[0]) / 2, (a[1] + b[1]) / 2
            size = max(a[2], b[2]) * rng.uniform(1.0, 2.5)
        else:  # the table: a place away from every die, die-sized or a speck
            if rng.random() < 0.4:
                size *= rng.uniform(0.2, 0.6)
            for _ in range(20):
                cx, cy = rng.uniform(0, img.shape[1]), rng.uniform(0, img.shape[0])
                if all(math.hypot(cx - d[0], cy - d[1]) > 0.5 * (size + d[2]) for d in dice):
                    break
    side = CROP_FACTOR * size * math.exp(rng.uniform(-0.15, 0.15))
    f = cut(img, cx, cy, side, FACE_SIDE, rng.uniform(0, 360)).astype(np.float32)
    f = f[:, :, list(rng.sample([0, 1, 2], 3))]
    if label not in (0, 7) and rng.random() < 0.25:
        f = 255 - f
    return standardise_crop(stretched(smeared(low_res(np.clip(f, 0, 255), rng), rng), rng)), label


def evaluate(net, items, rng, n=3000):
    net.eval()
    xs, ys = zip(*(sample(items, rng) for _ in range(n)))
    with torch.no_grad():
        p = net(torch.from_numpy(np.stack(xs)).to(next(net.parameters()).device)).argmax(1).cpu().numpy()
    net.train()
    return float((p == np.array(ys)).mean())


def main():
    global INVERT, LOW_RES, STRETCH, MOTION, HARD
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="hardware/vision/models/die_faces.onnx")
    ap.add_argument("--epochs", type=int, default=280)
    ap.add_argument("--per-epoch", type=int, default=6400)
    ap.add_argument("--synth", type=int, default=12000, help="procedural crops drawn before training")
    ap.add_argument("--synth-share", type=float, default=0.2, help="share of each batch taken from them")
    ap.add_argument("--paste", type=int, default=0, help="cut-and-paste scenes drawn before training")
    ap.add_argument("--paste-share", type=float, default=0.3, help="share of each batch cut from them")
    ap.add_argument("--renders", action="append", default=[], metavar="DIR",
                    help="a render cache (render_dice.py) whose training scenes join the photos (repeatable)")
    ap.add_argument("--renders-share", type=float, default=0.4,
                    help="share of all crops cut from renders (the rest: photos, procedural, oblique)")
    ap.add_argument("--sprites-cache", default=None, help="pickle file for the pasted dice (made when missing)")
    ap.add_argument("--oblique", type=int, default=0, help="crops of dice seen at an angle drawn before training")
    ap.add_argument("--oblique-share", type=float, default=0.25, help="share of each batch taken from them")
    ap.add_argument("--oblique-real", type=float, default=0.0,
                    help="share of the oblique dice whose top face is cut from a training photo (--sprites-cache)")
    ap.add_argument("--oblique-boards", type=float, default=0.0,
                    help="share of the oblique 'no die' crops that show a board's tile or number token")
    ap.add_argument("--oblique-common", type=float, default=0.0,
                    help="share of the oblique dice drawn as the dice and tables most people play with")
    ap.add_argument("--upright", type=float, default=None, metavar="DEGREES",
                    help="crops of pictures with an up (dice at an angle, tilted cameras) turned at most this "
                         "much, and the oblique dice drawn so (default: every crop turned any way)")
    ap.add_argument("--from-onnx", help="go on training this exported model instead of starting afresh")
    ap.add_argument("--lr", type=float, default=3e-3, help="peak learning rate (lower with --from-onnx)")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--width", type=float, default=None,
                    help="channel multiplier of the net (default 1, or the --from-onnx export's own)")
    ap.add_argument("--invert", type=float, default=0.25, help="share of real crops shown brightness-inverted")
    ap.add_argument("--hard-share", type=float, default=HARD,
                    help="share of a picture's crops cut where the centre model finds no labelled die (cloth dots, "
                         "shadows, tiles): what keeps a model shown many new looks of dice from seeing dice there")
    ap.add_argument("--low-res", type=float, default=0.0,
                    help="share of photographed and pasted crops shown as a die 11-30 px across (see low_res)")
    ap.add_argument("--stretch", type=float, default=1.0,
                    help="half the crops made up to this many times wider than tall or taller than wide")
    ap.add_argument("--motion", type=float, default=0.0,
                    help="share of crops smeared along a line, as a moving die or a shaken camera shows it")
    ap.add_argument("--by-image", dest="by_die", action="store_false",
                    help="pick training images uniformly (default: in proportion to their dice)")
    ap.add_argument("--side", type=int, default=FACE_SIDE, help="crop side in pixels (must match faces.FACE_SIDE)")
    ap.add_argument("--seed", type=int, default=12, help="seed of the weights and of the crops drawn")
    # a lent machine (a GPU, many cores): see parallel.py and docs/vision.md
    ap.add_argument("--device", default="cpu", help="torch device to train on (cuda on a GPU machine)")
    ap.add_argument("--workers", type=int, default=0, help="processes drawing crops and pools (0: this one)")
    ap.add_argument("--batch", type=int, default=64, help="crops per step")
    ap.add_argument("--minutes", type=float, default=None,
                    help="train for this long (the learning-rate cycle spread over it) instead of --epochs")
    ap.add_argument("--pools", metavar="DIR", help="keep the procedural and oblique pools here: loaded when "
                                                   "there, else drawn and saved (shared by several jobs)")
    ap.add_argument("--pools-only", action="store_true", help="draw and save the --pools, then stop")
    ap.add_argument("--off-centre", type=float, default=synth_faces.OFF_CENTRE,
                    help="a crop's centre lies up to this many die sizes off its die's, each way")
    ap.add_argument("--size-spread", type=float, default=synth_faces.SIZE_SPREAD,
                    help="a crop's size is its die's times up to exp(+-this)")
    ap.add_argument("--marks", type=float, default=0.0,
                    help="share of the procedural and oblique one faces drawn with a maker's mark")
    ap.add_argument("--keep", metavar="ONNX",
                    help="an export whose readings the net keeps where they are right: on each crop it reads as "
                         "labelled, its probabilities are also learned (distillation), pulling a model trained "
                         "on with new crops towards the dice it read before")
    ap.add_argument("--keep-weight", type=float, default=1.0, help="weight of --keep's loss against the labels'")
    ap.add_argument("--checkpoint", metavar="FILE",
                    help="save the run here with every export, and go on from it when it is there (a run "
                         "stopped or killed resumes; keep it outside the repository)")
    ap.add_argument("--pips-only", action="store_true",
                    help="leave out the pictures of chance cubes, spike or symbol dice: a face model "
                         "for pip tables (class 7 is then taught by the procedural faces alone)")
    ap.add_argument("--no-held-out", dest="held_check", action="store_false",
                    help="do not read the held-out photos (a training machine given the training split only)")
    args = ap.parse_args()
    set_side(args.side)
    torch.manual_seed(args.seed)
    rng = random.Random(args.seed)
    torch.set_num_threads(args.threads)
    if args.workers:
        parallel.one_thread()
    t0 = time.time()
    pools = Path(args.pools) if args.pools else None
    synth_faces.MARKS = args.marks
    spreads = (synth_faces.OFF_CENTRE, synth_faces.SIZE_SPREAD)
    synth_faces.OFF_CENTRE, synth_faces.SIZE_SPREAD = args.off_centre, args.size_spread
    marked = f"-marks{args.marks}" if args.marks else ""
    if (args.off_centre, args.size_spread) != spreads:  # the pools' crops lie otherwise
        marked += f"-off{args.off_centre}-spread{args.size_spread}"
    marked += f"-drawing{synth_faces.DRAWING}"  # a pool drawn by older code is not taken
    # a kept pool is whichever run drew it first (drawn by workers, other seeds than alone)
    pool = parallel.kept_pool(pools and pools / f"synth-{args.synth}-side{args.side}{marked}",
                              lambda: parallel.drawn_in_parallel(synth_pool, args.synth, 5, args.workers))
    print(f"{len(pool)} procedural crops in {time.time() - t0:.0f}s", flush=True)
    pasted = paste_pool(args.paste, cache=args.sprites_cache) if args.paste else None
    print(f"{args.paste} pasted scenes in {time.time() - t0:.0f}s", flush=True)
    global UPRIGHT_ROLL
    UPRIGHT_ROLL = args.upright
    oblique = None
    if args.oblique:
        if args.oblique_real and args.sprites_cache:  # made once here, not by each worker
            import paste_scenes
            paste_scenes.load_sprites(cache=Path(args.sprites_cache))
        draw = functools.partial(oblique_pool, roll=args.upright, real_share=args.oblique_real,
                                 cache=args.sprites_cache, boards=args.oblique_boards,
                                 common=args.oblique_common)
        name = (f"oblique-{args.oblique}-side{args.side}-seed{args.seed - 5}-roll{args.upright}"
                f"-real{args.oblique_real}-boards{args.oblique_boards}"
                + (f"-common{args.oblique_common}" if args.oblique_common else "") + marked)
        oblique = parallel.kept_pool(pools and pools / name,
                                     lambda: parallel.drawn_in_parallel(draw, args.oblique, args.seed - 5, args.workers))
    print(f"{args.oblique} oblique crops in {time.time() - t0:.0f}s", flush=True)
    if args.pools_only:
        return
    train = load_items(False, pips_only=args.pips_only)
    held = load_items(True, pips_only=args.pips_only) if args.held_check else []
    renders = load_items(False, [it for root in args.renders for it in dataset.load_renders(Path(root))],
                         pips_only=args.pips_only)
    rendered_cum = list(itertools.accumulate(max(1, len(d)) for _, d, _, _ in renders))
    print(f"{len(renders)} rendered scenes", flush=True)
    print(f"{len(train)} training images, {len(held)} held out", flush=True)
    INVERT = args.invert
    HARD = args.hard_share
    LOW_RES = args.low_res
    STRETCH = args.stretch
    MOTION = args.motion
    cum = list(itertools.accumulate(max(1, len(d)) for _, d, _, _ in train)) if args.by_die else None
    if args.from_onnx:
        had = export_width(args.from_onnx)
        net = FaceNet(had, folded=True).load_onnx(args.from_onnx)
        if args.width is not None and args.width != had:  # --width 2 from a width-1 export: widened
            times = args.width / had
            if times < 1 or args.width * 4 != int(args.width * 4):
                raise SystemExit(f"--width {args.width} must be at least the export's width {had}, "
                                 "in steps of 0.25")
            net = widened(net, times)
    else:
        net = FaceNet(args.width or 1.0)
    device = torch.device(args.device)
    net.to(device)
    keeper = None
    if args.keep:
        keeper = FaceNet(export_width(args.keep), folded=True).load_onnx(args.keep).to(device).eval()
        for w in keeper.parameters():
            w.requires_grad_(False)
    bs = args.batch
    per_epoch = args.per_epoch // bs
    opt = torch.optim.AdamW(net.parameters(), args.lr, weight_decay=1e-4)
    sched = parallel.schedule(opt, args.lr, args.minutes, args.epochs * per_epoch)

    def one(r):
        if renders and r.random() < args.renders_share:
            return sample(renders, r, cum=rendered_cum)
        return sample(train, r, pool, args.synth_share, cum, pasted, args.paste_share, oblique, args.oblique_share)

    def batch(r):
        xs, ys = zip(*(one(r) for _ in range(bs)))
        return np.stack(xs), np.array(ys, np.int64)

    first = parallel.resumed(args.checkpoint, net, opt, sched) if args.checkpoint else 0
    crops = parallel.batches(batch, random.Random(args.seed + first) if first else rng, args.workers,
                             random.Random, args.seed + first)
    t0 = time.time()
    for epoch in itertools.count(first) if args.minutes else range(first, args.epochs):
        tot = 0.0
        going = True
        for n in range(1, per_epoch + 1):
            x, y = next(crops)
            xb, yb = torch.as_tensor(x).to(device, non_blocking=True), torch.as_tensor(y).to(device)
            out = net(xb)
            loss = F.cross_entropy(out, yb, label_smoothing=0.05)
            if keeper is not None:
                with torch.no_grad():
                    t = F.softmax(keeper(xb), 1)
                right = (t.argmax(1) == yb).float()  # what it read right is kept; its mistakes are not taught
                kl = (t * (t.clamp_min(1e-8).log() - F.log_softmax(out, 1))).sum(1)
                loss = loss + args.keep_weight * (kl * right).mean()
            opt.zero_grad(); loss.backward(); opt.step()
            going = sched.step() is not False
            tot += loss.item()
            if not going:
                break
        msg = f"epoch {epoch} loss {tot / n:.3f} {time.time() - t0:.0f}s"
        last = not going or (not args.minutes and epoch == args.epochs - 1)
        if epoch % 5 == 4 or last:
            if held:
                msg += f" held-out crop acc {evaluate(net, held, random.Random(3)):.3f}"
            export(net, args.out)
            if args.checkpoint:
                parallel.save_checkpoint(args.checkpoint, net, opt, sched, epoch)
        print(msg, flush=True)
        if last:
            break


def export(net, out):
    net = copy.deepcopy(net).cpu().eval()
    torch.onnx.export(net, torch.zeros(1, 3, FACE_SIDE, FACE_SIDE), out, input_names=["faces"], output_names=["logits"],
                      opset_version=13, dynamic_axes={"faces": {0: "n"}, "logits": {0: "n"}}, dynamo=False)
    onnx_features.declare_features(out)  # the table memory reads its features by name


if __name__ == "__main__":
    main()

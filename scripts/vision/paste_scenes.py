"""Cut-and-paste table scenes for training: real dice, any size, on any table.

The photo sets show a few cameras, trays and die sizes; a table brings others. Here dice
cut from the labelled training photos (byler, matteop, rendered-dev, tomitomi3's crops),
recoloured, inverted and turned, are pasted at one size per scene (anywhere from a
speck to a close-up) onto procedural tables, empty parts of the real photos or board-game
clutter, with drop shadows, touching neighbours, a perspective tilt, uneven light, blur,
noise, white balance and JPEG. `Paster(items).scene(rng, side, die_range)` returns the
picture and each die's (x, y, size, value). Held-out photos never become sprites.
Look at some: python scripts/vision/paste_scenes.py /tmp/pasted.png
"""

from __future__ import annotations

import json
import math
import random
import sys
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

import boards
import dataset
import synth_faces as faces

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from hardware.vision import faces as faces_of_reader  # noqa: E402  (the reader's own turn finder)

TOMI = dataset.DATASETS / "photos" / "tomitomi3-crops"
TOMI_DIE = 58.0  # tomitomi3: the die is about this many pixels across in its 128 px crop
MARGIN = 0.8  # a sprite is cut this many die sizes from the centre each way


@dataclass(frozen=True)
class Sprite:
    picture: np.ndarray  # BGR float32, square, the die in the middle
    alpha: np.ndarray  # float32 0..1: where the die is
    die: float  # the die's side in sprite pixels
    value: int | None  # pips shown, or None for a die without pips (chance cube, symbol die)
    turn: float = 0.0  # faces.edge_angle of the die in the sprite: the turn that sets it square
    upright: bool = False  # a die seen at an angle: pasted unturned (its sides below it) at its box size

    def extent(self, side: float, angle: float) -> float:
        """The upright box of the die (the photos' labels, and the reader's die size) once it
        is `side` pixels on a side and the sprite is turned by `angle` degrees."""
        a = np.radians(self.turn - angle)
        return side * (abs(np.cos(a)) + abs(np.sin(a)))


def _die_mask(patch: np.ndarray, die: float) -> np.ndarray:
    """Soft mask of the die in a square patch centred on it. GrabCut, told the die lies in
    the middle square of side `die` (the labelled box); that square itself when GrabCut
    keeps too little or too much of it."""
    side = patch.shape[0]
    r = int(round(die / 2)) + 1
    c = side // 2
    rect = (max(0, c - r), max(0, c - r), min(side - 1, 2 * r), min(side - 1, 2 * r))
    square = np.zeros((side, side), np.float32)
    square[rect[1]:rect[1] + rect[3], rect[0]:rect[0] + rect[2]] = 1.0
    mask = np.zeros((side, side), np.uint8)
    try:
        cv2.grabCut(np.clip(patch, 0, 255).astype(np.uint8), mask, rect, np.zeros((1, 65), np.float64),
                    np.zeros((1, 65), np.float64), 3, cv2.GC_INIT_WITH_RECT)
    except cv2.error:
        return square
    blob = ((mask == cv2.GC_FGD) | (mask == cv2.GC_PR_FGD)).astype(np.uint8)
    n, comp = cv2.connectedComponents(blob)
    if comp[c, c] == 0 or not 0.45 < (comp == comp[c, c]).sum() / square.sum() < 1.02:
        return cv2.GaussianBlur(square, (0, 0), 0.7)
    blob = (comp == comp[c, c]).astype(np.uint8)
    blob = cv2.morphologyEx(blob, cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8), iterations=max(1, int(die / 10)))
    return cv2.GaussianBlur(blob.astype(np.float32), (0, 0), max(0.6, die / 50))


def _cut(img: np.ndarray, cx: float, cy: float, die: float, value) -> Sprite | None:
    r = int(math.ceil(MARGIN * die))
    h, w = img.shape[:2]
    if cx - r < 0 or cy - r < 0 or cx + r >= w or cy + r >= h or die < 12:
        return None
    x0, y0 = int(round(cx)) - r, int(round(cy)) - r
    patch = img[y0:y0 + 2 * r + 1, x0:x0 + 2 * r + 1].astype(np.float32)
    # the labelled box is upright: a die lying turned is smaller on its side than the box
    turn = float(faces_of_reader.edge_angle(patch, r, r, die))
    side = die / (abs(np.cos(np.radians(turn))) + abs(np.sin(np.radians(turn))))
    return Sprite(patch, _die_mask(patch, die), side, value, turn)


def load_sprites(limit_tomi: int = 600, seed: int = 3, cache: Path | None = None) -> list[Sprite]:
    """Every die of the training split that lies wholly in its photo, and some of tomitomi3's.
    `cache`: a pickle file to keep them in between runs (the masks take a minute or two)."""
    if cache is not None and cache.exists():
        import pickle
        return [Sprite(*fields) for fields in pickle.loads(cache.read_bytes())]
    out = []
    for item in dataset.load_all():
        if item.held_out or item.kind.endswith("enrol"):
            continue
        img = cv2.imread(str(item.path))
        for x1, y1, x2, y2, v in item.boxes:
            die = max(x2 - x1, y2 - y1)
            if item.set_name == "matteop":  # its boxes cover the pips, not the whole face
                die *= 1.2
            s = _cut(img, (x1 + x2) / 2, (y1 + y2) / 2, die, v if item.kind == "pip" else None)
            if s is not None:
                out.append(s)
    names = json.loads((TOMI / "manifest.json").read_text())
    rng = random.Random(seed)
    for e in rng.sample(names, min(limit_tomi, len(names))):
        img = cv2.imread(str(TOMI / e["image"]))
        s = _cut(img, 64, 64, TOMI_DIE, e["dice"][0])
        if s is not None:
            out.append(s)
    if cache is not None:
        import pickle
        cache.write_bytes(pickle.dumps([(s.picture, s.alpha, s.die, s.value, s.turn) for s in out]))
    return out


def oblique_sprites(n: int, seed: int = 9) -> list[Sprite]:
    """n dice seen at an angle (oblique_dice.py), for the finder's pasted scenes."""
    import oblique_dice
    rng = random.Random(seed)
    return [Sprite(picture, alpha, die, value, 0.0, upright=True)
            for picture, alpha, die, value in (oblique_dice.oblique_sprite(rng) for _ in range(n))]


def background_patches(n: int = 300, seed: int = 4) -> list[np.ndarray]:
    """Parts of the training photos with no labelled die in them."""
    rng = random.Random(seed)
    items = [it for it in dataset.load_all() if not it.held_out and not it.kind.endswith("enrol")]
    out = []
    for _ in range(n * 4):
        if len(out) >= n:
            break
        it = rng.choice(items)
        img = cv2.imread(str(it.path))
        h, w = img.shape[:2]
        side = int(rng.uniform(0.2, 0.6) * min(h, w))
        x, y = rng.randrange(w - side), rng.randrange(h - side)
        if all(b[2] < x or b[0] > x + side or b[3] < y or b[1] > y + side for b in it.boxes):
            out.append(img[y:y + side, x:x + side].copy())
    return out


def _clutter(rng: random.Random, canvas: np.ndarray, die: float) -> None:
    """Board-game things that are not dice: tiles, cards, tokens, lines, printed shapes."""
    side = canvas.shape[0]
    for _ in range(rng.randint(1, 8)):
        colour = tuple(float(c) for c in faces._colour(rng))
        k = rng.random()
        x, y = rng.uniform(0, side), rng.uniform(0, side)
        if k < 0.35:  # hexagon or polygon board tile
            r = die * rng.uniform(1.5, 8)
            n = rng.choice([3, 4, 5, 6, 6])
            a0 = rng.uniform(0, math.pi)
            pts = np.array([[x + r * math.cos(a0 + 2 * math.pi * i / n), y + r * math.sin(a0 + 2 * math.pi * i / n)]
                            for i in range(n)], np.int32)
            cv2.fillPoly(canvas, [pts], colour, cv2.LINE_AA)
            if rng.random() < 0.5:
                cv2.polylines(canvas, [pts], True, tuple(c * 0.5 for c in colour), max(1, int(die / 10)), cv2.LINE_AA)
        elif k < 0.55:  # a card
            w, h = die * rng.uniform(2, 5), die * rng.uniform(3, 7)
            box = cv2.boxPoints(((x, y), (w, h), rng.uniform(0, 180))).astype(np.int32)
            cv2.fillPoly(canvas, [box], colour, cv2.LINE_AA)
        elif k < 0.8:  # a round token, about a die's size (the hardest thing that is not one)
            cv2.circle(canvas, (int(x), int(y)), int(die * rng.uniform(0.3, 0.9)), colour, -1, cv2.LINE_AA)
        elif k < 0.9:  # a line
            cv2.line(canvas, (int(x), int(y)), (int(rng.uniform(0, side)), int(rng.uniform(0, side))), colour,
                     max(1, int(die * rng.uniform(0.05, 0.3))), cv2.LINE_AA)
        else:  # a printed ring (a board's number disc)
            cv2.circle(canvas, (int(x), int(y)), int(die * rng.uniform(0.4, 1.2)), colour,
                       max(1, int(die * rng.uniform(0.05, 0.2))), cv2.LINE_AA)


def _restyle(rng: random.Random, sprite: Sprite) -> np.ndarray:
    """The sprite's die in another colour now and then: hue turned, or light and dark swapped."""
    pic = sprite.picture
    r = rng.random()
    if r < 0.3:
        hsv = cv2.cvtColor(np.clip(pic, 0, 255).astype(np.uint8), cv2.COLOR_BGR2HSV).astype(np.int32)
        hsv[..., 0] = (hsv[..., 0] + rng.randrange(180)) % 180
        if rng.random() < 0.5:
            hsv[..., 1] = np.clip(hsv[..., 1] + rng.randrange(40, 160), 0, 255)
        pic = cv2.cvtColor(hsv.astype(np.uint8), cv2.COLOR_HSV2BGR).astype(np.float32)
    elif r < 0.45:
        pic = 255.0 - pic
    elif r < 0.6:  # a tinted body: multiply by a colour (pips darker stay dark)
        pic = pic * (faces._colour(rng).astype(np.float32) / 255.0 * 0.8 + 0.3)
    return pic


def _from_pool(rng: random.Random, pool: list[np.ndarray], side: int, mirror: bool = False) -> np.ndarray:
    """One picture of `pool` turned a random quarter (and, with `mirror`, mirrored half the
    time), side x side, float32."""
    bg = np.rot90(rng.choice(pool), rng.randrange(4))
    if mirror and rng.random() < 0.5:
        bg = bg[:, ::-1]
    return cv2.resize(np.ascontiguousarray(bg), (side, side), interpolation=cv2.INTER_AREA).astype(np.float32)


class Paster:
    def __init__(self, sprites: list[Sprite], backgrounds: list[np.ndarray], boards: float = 0.0,
                 board_pool: list[np.ndarray] = ()):
        self.sprites = sprites
        self.backgrounds = backgrounds
        self.boards = boards  # share of scenes thrown onto a printed board (boards.py) ...
        self.board_pool = list(board_pool)  # ... taken from these, drawn once (a board takes ~150 ms)

    def _table(self, rng: random.Random, side: int, die: float) -> np.ndarray:
        if self.boards and rng.random() < self.boards:
            if not self.board_pool:
                return boards.board(rng, side, die)
            return _from_pool(rng, self.board_pool, side, mirror=True)
        if self.backgrounds and rng.random() < 0.45:
            return _from_pool(rng, self.backgrounds, side)
        return faces._table(rng, side, die)

    def scene(self, rng: random.Random, side: int = 256, die_range: tuple[float, float] = (9.0, 48.0)):
        """(picture, [(x, y, size, value), ...]) of a throw of dice of one size on a table."""
        die = math.exp(rng.uniform(math.log(die_range[0]), math.log(die_range[1])))
        canvas = self._table(rng, side, die)
        if rng.random() < 0.5:
            _clutter(rng, canvas, die)
        n = rng.choice([1, 1, 2, 2, 3, 4, 5, 5, 6, 6, 8, 10, 14, 20, 25])
        n = min(n, max(1, int(0.45 * side * side / (die * die))))
        dice: list[tuple[float, float, float, object]] = []
        shadow = (rng.uniform(-0.25, 0.25), rng.uniform(-0.25, 0.25), rng.uniform(0.0, 0.6))
        gx, gy = rng.uniform(0.2, 0.8) * side, rng.uniform(0.2, 0.8) * side
        for _ in range(n):
            size = die * rng.uniform(0.93, 1.07)
            for _ in range(12):
                if dice and rng.random() < 0.6:
                    ox, oy, os, _ = dice[rng.randrange(len(dice))]
                    a = rng.uniform(0, 2 * math.pi)
                    d = rng.uniform(1.02, 1.7) * (os + size) / 2
                    x, y = ox + d * math.cos(a), oy + d * math.sin(a)
                else:
                    spread = max(2.0, math.sqrt(n)) * die
                    x, y = gx + rng.uniform(-spread, spread), gy + rng.uniform(-spread, spread)
                if not (0.55 * size <= x < side - 0.55 * size and 0.55 * size <= y < side - 0.55 * size):
                    continue
                if all(math.hypot(x - ox, y - oy) > (os + size) / 2 for ox, oy, os, _ in dice):
                    break
            else:
                continue
            sprite = rng.choice(self.sprites)
            angle = 0.0 if sprite.upright else rng.uniform(0, 360)
            self._paste(rng, canvas, sprite, x, y, size, shadow, angle)
            dice.append((x, y, sprite.extent(size, angle), sprite.value))
        if rng.random() < 0.15:  # a hand or the cup's rim over part of the table: what it hides is no die
            colour = faces._colour(rng).astype(np.float32)
            layer = np.zeros((side, side), np.uint8)
            cx, cy = rng.uniform(0, side), rng.uniform(0, side)
            cv2.ellipse(layer, (int(cx), int(cy)), (int(die * rng.uniform(2, 5)), int(die * rng.uniform(1.5, 3))),
                        rng.uniform(0, 180), 0, 360, 255, -1, cv2.LINE_AA)
            a = (layer.astype(np.float32) / 255)[..., None]
            canvas = canvas * (1 - a) + colour * a
            dice = [d for d in dice if layer[min(side - 1, int(d[1])), min(side - 1, int(d[0]))] == 0]
        canvas, dice = _tilt(rng, canvas, dice)
        return _camera(rng, canvas), dice

    def _paste(self, rng, canvas, sprite: Sprite, x, y, size, shadow, angle):
        scale = size / sprite.die
        pic = _restyle(rng, sprite)
        alpha = sprite.alpha
        s = pic.shape[0]
        reach = int(math.ceil(s * scale * 0.75)) + 2
        m = cv2.getRotationMatrix2D(((s - 1) / 2, (s - 1) / 2), angle, scale)
        m[:, 2] += np.array([reach - (s - 1) / 2, reach - (s - 1) / 2])
        inter = cv2.INTER_AREA if scale < 0.7 else cv2.INTER_LINEAR
        if scale < 0.5:  # average down first: warpAffine only samples
            f = max(scale * 1.5, 0.05)
            pic = cv2.resize(np.ascontiguousarray(pic), None, fx=f, fy=f, interpolation=cv2.INTER_AREA)
            alpha = cv2.resize(np.ascontiguousarray(alpha), (pic.shape[1], pic.shape[0]), interpolation=cv2.INTER_AREA)
            s2 = pic.shape[0]
            m = cv2.getRotationMatrix2D(((s2 - 1) / 2, (s2 - 1) / 2), angle, size / (sprite.die * f))
            m[:, 2] += np.array([reach - (s2 - 1) / 2, reach - (s2 - 1) / 2])
        out = 2 * reach + 1
        wp = cv2.warpAffine(np.ascontiguousarray(pic), m, (out, out), flags=inter, borderMode=cv2.BORDER_REPLICATE)
        wa = cv2.warpAffine(np.ascontiguousarray(alpha), m, (out, out), flags=cv2.INTER_LINEAR)
        x0, y0 = int(round(x)) - reach, int(round(y)) - reach
        h, w = canvas.shape[:2]
        ax0, ay0, ax1, ay1 = max(0, x0), max(0, y0), min(w, x0 + out), min(h, y0 + out)
        if ax1 <= ax0 or ay1 <= ay0:
            return
        sl = (slice(ay0 - y0, ay1 - y0), slice(ax0 - x0, ax1 - x0))
        if shadow[2] > 0.05:  # a soft drop shadow, the same way for every die of the scene
            sh = cv2.warpAffine(wa, np.float32([[1, 0, shadow[0] * size], [0, 1, shadow[1] * size]]), (out, out))
            sh = cv2.GaussianBlur(sh, (0, 0), max(0.5, size / 10))[sl]
            canvas[ay0:ay1, ax0:ax1] *= (1 - shadow[2] * sh)[..., None]
        a = wa[sl][..., None]
        canvas[ay0:ay1, ax0:ax1] = canvas[ay0:ay1, ax0:ax1] * (1 - a) + wp[sl] * a


def _tilt(rng, canvas, dice):
    """A camera that does not look straight down: the scene seen in perspective."""
    if rng.random() > 0.3:
        return canvas, dice
    side = canvas.shape[0]
    k = rng.uniform(0.05, 0.25) * side
    src = np.float32([[0, 0], [side, 0], [side, side], [0, side]])
    dst = src.copy()
    edge = rng.randrange(4)  # the far edge is drawn in
    a, b = edge, (edge + 1) % 4
    for i in (a, b):
        centre = np.float32([side / 2, side / 2])
        dst[i] = dst[i] + (centre - dst[i]) * (k / side) * np.float32([1.0, 1.0])
    m = cv2.getPerspectiveTransform(src, dst)
    out = cv2.warpPerspective(canvas, m, (side, side), borderMode=cv2.BORDER_REFLECT)
    moved = []
    for x, y, s, v in dice:
        p = m @ np.array([x, y, 1.0])
        q = m @ np.array([x + s / 2, y, 1.0])
        px, py = p[0] / p[2], p[1] / p[2]
        s2 = 2 * math.hypot(q[0] / q[2] - px, q[1] / q[2] - py)
        moved.append((px, py, s2, v))
    return out, moved


def _camera(rng, canvas):
    """Light and camera: uneven light, white balance, gamma, blur, noise, JPEG."""
    side = canvas.shape[0]
    yy, xx = np.mgrid[0:side, 0:side].astype(np.float32) / side
    if rng.random() < 0.4:
        cx, cy, r = rng.uniform(0, 1), rng.uniform(0, 1), rng.uniform(0.2, 0.8)
        canvas = canvas * (rng.uniform(0.5, 0.85) + rng.uniform(0.3, 0.8) * np.exp(-((xx - cx) ** 2 + (yy - cy) ** 2) / r ** 2))[..., None]
    else:
        canvas = canvas * (1 + rng.uniform(-0.3, 0.3) * (xx - 0.5) + rng.uniform(-0.3, 0.3) * (yy - 0.5))[..., None]
    canvas = canvas * np.array([rng.uniform(0.75, 1.25) for _ in range(3)], np.float32)
    canvas = 255.0 * (np.clip(canvas, 0, 255) / 255.0) ** rng.uniform(0.7, 1.4)
    if rng.random() < 0.4:
        canvas = cv2.GaussianBlur(canvas, (0, 0), rng.uniform(0.3, 1.5))
    canvas = canvas + np.random.default_rng(rng.randrange(1 << 30)).normal(0, rng.uniform(0, 7), canvas.shape).astype(np.float32)
    ok, enc = cv2.imencode(".jpg", np.clip(canvas, 0, 255).astype(np.uint8), [cv2.IMWRITE_JPEG_QUALITY, rng.randint(45, 95)])
    return cv2.imdecode(enc, cv2.IMREAD_COLOR)


if __name__ == "__main__":
    import sys
    import time

    t0 = time.time()
    paster = Paster(load_sprites(cache=Path("/tmp/dice-sprites.pkl")), background_patches())
    print(f"{len(paster.sprites)} sprites, {len(paster.backgrounds)} backgrounds in {time.time() - t0:.0f}s")
    r = random.Random(1)
    tiles = []
    t0 = time.time()
    for _ in range(12):
        img, dice = paster.scene(r)
        for x, y, s, _v in dice:
            cv2.circle(img, (int(x), int(y)), max(1, int(s / 2)), (0, 255, 0), 1)
        tiles.append(img)
    print(f"{(time.time() - t0) / 12 * 1000:.0f} ms a scene")
    cv2.imwrite(sys.argv[1] if len(sys.argv) > 1 else "/tmp/pasted.png",
                np.vstack([np.hstack(tiles[i:i + 4]) for i in range(0, 12, 4)]))

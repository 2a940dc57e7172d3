"""Benchmark the ready-to-read watcher (hardware/vision/ready.py): what it costs a frame, and
what flicker bands it stays still under.

    .venv/bin/python benchmarks/ready.py [--frames 300] [--renders DIR]

1. Cost: ReadyToRead.feed on 1280x960 frames (a rendered pip scene with sensor noise), one
   core, median ms a frame, in the two states a table spends its evening in: dice rolling
   (every frame differs) and dice at rest, already read (the idle table); and the idle
   table under a lamp that clips part of it (where the watcher measures what clipped).
2. Flicker: a still scene under lamps flickering with the mains, as a rolling shutter shows
   them (bands of +-A across the rows, three to a frame, in a new place each frame): how
   many of 30 frames (3 s at 10 frames a second) said MOVING, and whether READY came, for
   each amplitude A; then the same under a lamp's pool of light that clips the table to
   white over part of the view (the bands are in the light, and the sensor clips both:
   where the glare clips, no band shows).
3. Still picture: ReadyToRead.still_picture (the mean of the newest still frames, what a
   settled scene is read from), median ms for 4 frames at 1280x960. It runs once a read.
4. With --renders DIR (a held-out render cache, scripts/vision/render_dice.py): over its
   scenes whose dice all lie flat, (a) under flicker bands of +-15% (benchmarks/vision.py's
   `flicker`, four frames, the bands elsewhere in each): how many never look still, so
   the camera would wait for the reveal button (what `vision.py --still-frames 4` holds as
   "never looked still"); (b) each scene's first three dice, one at a time, crept half
   their width between two frames, with sensor noise (`grainy`) and under the bands: how
   many the watcher saw move. Each without the die's size, and with it (`die_px`: the
   scene's mean labelled die side, as the camera page's trial read learns it).
The camera loop feeds the watcher about 10 frames a second; a Raspberry Pi 4 is about 5x
slower than the development machine.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from hardware.vision import ReadyState, ReadyToRead  # noqa: E402

SCENE = ROOT / "tests" / "fixtures" / "rendered" / "images"
AMPLITUDES = (0.0, 0.02, 0.05, 0.1, 0.2, 0.3)


def scene() -> np.ndarray:
    path = sorted(SCENE.glob("pip_*.jpg"))[0]
    return cv2.resize(cv2.imread(str(path)), (1280, 960), interpolation=cv2.INTER_LINEAR)


def noisy(frame: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    return np.clip(frame + rng.normal(0, 2, frame.shape), 0, 255).astype(np.uint8)


def flickering(frame: np.ndarray, amplitude: float, phase: float, bands: float = 3.0,
               light: np.ndarray | None = None) -> np.ndarray:
    """The frame as a camera shows it under lamps flickering with the mains: bands of +-amplitude
    across the rows (times `light`, a lamp's gain at each pixel, when given), then clipped, as
    a sensor clips the light, bands and all."""
    rows = np.arange(frame.shape[0], dtype=np.float32)[:, None] / frame.shape[0]
    gain = 1 + amplitude * np.sin(2 * np.pi * (bands * rows + phase))
    if light is not None:
        gain = gain * light
    return np.clip(frame * gain[:, :, None], 0, 255).astype(np.uint8)


def lamp_pool(frame: np.ndarray, strength: float = 1.0) -> np.ndarray:
    """A lamp's pool of light over the frame: its gain at each pixel, up to 1 + strength."""
    h, w = frame.shape[:2]
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    return 1 + strength * np.exp(-(((xx - 0.3 * w) ** 2 + (yy - 0.4 * h) ** 2) / (0.3 * max(h, w)) ** 2))


def cost(frames: list[np.ndarray]) -> float:
    """Median ms of feed over the frames, fed in a loop at 10 frames a second."""
    watcher, times = ReadyToRead(still_seconds=0.5), []
    for i, frame in enumerate(frames):
        t0 = time.perf_counter()
        watcher.feed(frame, i * 0.1)
        times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times[len(times) // 10:])


def renders(cache: Path) -> None:
    """Part 4: settling under flicker and creeping dice, over a render cache's flat scenes;
    each as a watcher without the die's size, and as one that knows it (the scene's dice's
    mean labelled side, as the camera page's trial read learns it)."""
    import zlib

    import vision  # benchmarks/vision.py: its scenes and its shifts, so both benchmarks agree

    scenes = vision.rendered_scenes(cache)
    known = {"without the die's size": False, "with it": True}
    never, crept, seen = dict.fromkeys(known, 0), 0, {(k, s): 0 for k in known for s in ("grainy", "flicker")}
    for e in scenes:
        frame = cv2.imread(str(cache / e["image"]))
        if frame is None:
            raise SystemExit(f"{cache / e['image']}: cannot be read")
        die = float(np.mean([x2 - x1 for x1, _, x2, _, _ in e["boxes"]]))
        rng = np.random.default_rng(zlib.crc32(e["image"].encode()))
        for k, sized in known.items():
            never[k] += vision.still_frames(vision.SHIFTS["flicker"](frame), frame, "flicker", 4, e["image"],
                                            die_px=die if sized else None) is None
        for x1, y1, x2, y2, _ in e["boxes"][:3]:
            x1, y1, x2, y2 = int(x1), int(y1), int(x2), int(y2)
            step = max(2, (x2 - x1) // 2)
            if x1 < 0 or y1 < 0 or x2 + step > frame.shape[1] or y2 > frame.shape[0]:
                continue
            moved = frame.copy()
            moved[y1:y2, x1 + step:x2 + step] = frame[y1:y2, x1:x2]
            crept += 1
            for shift, before, after in (("grainy", vision._grainy(frame, 1), vision._grainy(moved, 2)),
                                         ("flicker", vision._flicker(frame, float(rng.random())),
                                          vision._flicker(moved, float(rng.random())))):
                for k, sized in known.items():
                    watcher = ReadyToRead(die_px=die if sized else None)
                    watcher.feed(before, 0.0)
                    seen[k, shift] += watcher.feed(after, 0.1) is ReadyState.MOVING
    print(f"{cache}: {len(scenes)} scenes whose dice lie flat")
    for k in known:
        print(f"  {k}: under +-15% flicker bands, four frames, {never[k]} never look still (the reveal button "
              f"reads them); a die crept half its width, seen moving {seen[k, 'grainy']} of {crept} with sensor "
              f"noise, {seen[k, 'flicker']} of {crept} under the bands")


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--frames", type=int, default=300)
    ap.add_argument("--renders", type=Path, metavar="DIR", help="also measure over this held-out render cache's scenes")
    args = ap.parse_args()
    cv2.setNumThreads(1)
    rng = np.random.default_rng(0)
    base = scene()
    still = [noisy(base, rng) for _ in range(8)]
    rolling = [noisy(np.roll(base, 15 * (i % 8), axis=1), rng) for i in range(8)]
    n = args.frames
    print(f"ReadyToRead.feed at 1280x960, one core, median of {n} frames:")
    print(f"  dice rolling (every frame differs): {cost([rolling[i % 8] for i in range(n)]):.2f} ms")
    print(f"  dice at rest, already read (the idle table): {cost([still[i % 8] for i in range(n)]):.2f} ms")
    pool = lamp_pool(base, 2.5)  # a dim render: the lamp clips about a fifth of it
    glare = [flickering(noisy(base, rng), 0.0, 0.0, light=pool) for _ in range(8)]
    print(f"  the idle table under a lamp's clipped glare: {cost([glare[i % 8] for i in range(n)]):.2f} ms")
    watcher = ReadyToRead(still_seconds=0.5, still_frames=4)
    for i, frame in enumerate(still[:4]):
        watcher.feed(frame, i * 0.1)
    times = []
    for _ in range(max(10, n // 10)):
        t0 = time.perf_counter()
        watcher.still_picture()
        times.append((time.perf_counter() - t0) * 1000)
    print(f"ReadyToRead.still_picture of 4 still frames at 1280x960, once a read: {statistics.median(times):.2f} ms")
    clipped = (glare[0] == 255).any(2).mean()
    for name, light in (("a still scene", None), (f"the scene under a lamp's pool ({100 * clipped:.0f}% of it clipped)", pool)):
        print(f"flicker bands over {name}, 30 frames at 10 a second (MOVING frames, READY seen):")
        for amplitude in AMPLITUDES:
            watcher = ReadyToRead(still_seconds=0.5)
            states = [watcher.feed(flickering(noisy(base, rng), amplitude, rng.uniform(), light=light), i * 0.1)
                      for i in range(30)]
            print(f"  +-{100 * amplitude:4.0f}%: {states.count(ReadyState.MOVING):2d} moving, "
                  f"READY {'yes' if ReadyState.READY in states else 'never'}")
    if args.renders:
        renders(args.renders)
    return 0


if __name__ == "__main__":
    sys.exit(main())

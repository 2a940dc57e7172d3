"""Benchmark the ready-to-read watcher (hardware/vision/ready.py): what it costs a frame, and
what flicker bands it stays still under.

    .venv/bin/python benchmarks/ready.py [--frames 300]

1. Cost: ReadyToRead.feed on 1280x960 frames (a rendered pip scene with sensor noise), one
   core, median ms a frame, in the two states a table spends its evening in: dice rolling
   (every frame differs) and dice at rest, already read (the idle table).
2. Flicker: a still scene under lamps flickering with the mains, as a rolling shutter shows
   them (bands of +-A across the rows, three to a frame, in a new place each frame): how
   many of 30 frames (3 s at 10 frames a second) said MOVING, and whether READY came, for
   each amplitude A.
3. Still picture: ReadyToRead.still_picture (the mean of the newest still frames, what a
   settled scene is read from), median ms for 4 frames at 1280x960. It runs once a read.
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


def flickering(frame: np.ndarray, amplitude: float, phase: float, bands: float = 3.0) -> np.ndarray:
    rows = np.arange(frame.shape[0], dtype=np.float32)[:, None, None] / frame.shape[0]
    return np.clip(frame * (1 + amplitude * np.sin(2 * np.pi * (bands * rows + phase))), 0, 255).astype(np.uint8)


def cost(frames: list[np.ndarray]) -> float:
    """Median ms of feed over the frames, fed in a loop at 10 frames a second."""
    watcher, times = ReadyToRead(still_seconds=0.5), []
    for i, frame in enumerate(frames):
        t0 = time.perf_counter()
        watcher.feed(frame, i * 0.1)
        times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times[len(times) // 10:])


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--frames", type=int, default=300)
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
    watcher = ReadyToRead(still_seconds=0.5, still_frames=4)
    for i, frame in enumerate(still[:4]):
        watcher.feed(frame, i * 0.1)
    times = []
    for _ in range(max(10, n // 10)):
        t0 = time.perf_counter()
        watcher.still_picture()
        times.append((time.perf_counter() - t0) * 1000)
    print(f"ReadyToRead.still_picture of 4 still frames at 1280x960, once a read: {statistics.median(times):.2f} ms")
    print("flicker bands over a still scene, 30 frames at 10 a second (MOVING frames, READY seen):")
    for amplitude in AMPLITUDES:
        watcher = ReadyToRead(still_seconds=0.5)
        states = [watcher.feed(flickering(f, amplitude, rng.uniform()), i * 0.1)
                  for i, f in enumerate(noisy(base, rng) for _ in range(30))]
        print(f"  +-{100 * amplitude:4.0f}%: {states.count(ReadyState.MOVING):2d} moving, "
              f"READY {'yes' if ReadyState.READY in states else 'never'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

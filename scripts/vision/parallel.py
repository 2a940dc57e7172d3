"""Training on many cores and a GPU: batches drawn by worker processes, pools drawn in
parallel, a learning-rate cycle over a time budget instead of a step count, and a run's
checkpoint to resume it from.

With no workers, batches are drawn in this process from the given random stream, exactly as
the training scripts drew them before these options (the shipped CPU recipes are unchanged).
"""

from __future__ import annotations

import math
import multiprocessing
import os
import time
from typing import Callable, Iterator

import torch


def one_thread() -> None:
    """OpenCV and torch on one thread each. Call it before a process forks workers: a
    child forked from a process whose thread pool exists hangs in its first parallel call."""
    import cv2
    cv2.setNumThreads(1)
    torch.set_num_threads(1)


class _Batches(torch.utils.data.IterableDataset):
    def __init__(self, make: Callable, streams: Callable, seed: int):
        self.make, self.streams, self.seed = make, streams, seed

    def __iter__(self):
        one_thread()
        info = torch.utils.data.get_worker_info()
        state = self.streams(self.seed * 1000 + 1 + (info.id if info else 0))
        while True:
            yield self.make(state)


def batches(make: Callable, state, workers: int = 0, streams: Callable | None = None, seed: int = 0) -> Iterator:
    """Endless batches `make(state)`. With `workers`, each worker process draws its own with
    `streams(seed * 1000 + 1 + worker)` as its state (forked: the training data is shared,
    not copied)."""
    if workers <= 0:
        while True:
            yield make(state)
    loader = torch.utils.data.DataLoader(_Batches(make, streams, seed), batch_size=None, num_workers=workers,
                                         multiprocessing_context="fork", prefetch_factor=6, persistent_workers=True)
    yield from loader


def drawn_in_parallel(draw: Callable, n: int, seed: int, workers: int) -> list:
    """`draw(n, seed)` (a list of n items) as `workers` processes drawing shares of n, each
    with its own seed; with one worker or none, draw(n, seed) itself."""
    if workers <= 1:
        return draw(n, seed)
    shares = [n // workers + (k < n % workers) for k in range(workers)]
    with multiprocessing.get_context("fork").Pool(workers, initializer=one_thread) as pool:
        parts = pool.starmap(draw, [(m, seed * 1000 + k) for k, m in enumerate(shares) if m])
    return [item for part in parts for item in part]


class TimedCycle:
    """OneCycleLR's shape (cosine up from peak/25 over the first 30%, cosine down to
    peak/2.5e5) over `seconds` of wall time: a run on a lent machine ends on time whatever
    its speed. `step()` sets the rate and says whether time is left."""

    def __init__(self, opt: torch.optim.Optimizer, peak: float, seconds: float):
        self.opt, self.peak, self.seconds = opt, peak, seconds
        self.start = time.time()
        self.steps = 0
        self._set(0.0)  # the first step runs at the cycle's start, as OneCycleLR's does

    def fraction(self) -> float:
        return (time.time() - self.start) / self.seconds

    def _set(self, f: float) -> None:
        lo, end = self.peak / 25, self.peak / 25 / 1e4
        if f < 0.3:
            lr = lo + (self.peak - lo) * (1 - math.cos(math.pi * f / 0.3)) / 2
        else:
            lr = end + (self.peak - end) * (1 + math.cos(math.pi * (f - 0.3) / 0.7)) / 2
        for group in self.opt.param_groups:
            group["lr"] = lr

    def state_dict(self) -> dict:
        """Where the cycle stands, for a checkpoint: the wall time spent in it."""
        return {"elapsed": time.time() - self.start, "steps": self.steps}

    def load_state_dict(self, state: dict) -> None:
        """Go on from a checkpoint's `state_dict`: the time spent then counts as spent."""
        self.start, self.steps = time.time() - state["elapsed"], state["steps"]
        self._set(min(1.0, self.fraction()))

    def step(self) -> bool:
        """Called after each optimiser step: the rate for the next one."""
        f = min(1.0, self.fraction())
        self._set(f)
        self.steps += 1
        return f < 1.0


def schedule(opt: torch.optim.Optimizer, peak: float, minutes: float | None, steps: int):
    """The learning rate's one cycle: over `minutes` of wall time when given (TimedCycle),
    else over `steps` (OneCycleLR)."""
    if minutes:
        return TimedCycle(opt, peak, 60 * minutes)
    return torch.optim.lr_scheduler.OneCycleLR(opt, peak, total_steps=steps)


class SavedPool:
    """A pool of (crop, label) kept as two .npy files, read memory-mapped: processes that
    load it share one copy."""

    def __init__(self, crops, labels):
        self.crops, self.labels = crops, labels

    def __len__(self) -> int:
        return len(self.labels)

    def __getitem__(self, i: int):
        return self.crops[i], int(self.labels[i])


def kept_pool(path, draw: Callable[[], list]):
    """The pool saved at `path` (a name without suffix) when it is there, else `draw()`'s,
    saved there first; with no path, `draw()`'s. A pool drawn once with every core serves
    several training jobs (lent_machine.sh), which drawing their own at once slowed to
    minutes."""
    import numpy as np
    from pathlib import Path

    if path is None:
        return draw()
    path = Path(path)
    crops, labels = path.with_name(path.name + ".crops.npy"), path.with_name(path.name + ".labels.npy")
    if not (crops.exists() and labels.exists()):
        pool = draw()
        path.parent.mkdir(parents=True, exist_ok=True)
        np.save(crops, np.stack([c for c, _ in pool]).astype(np.uint8))
        np.save(labels, np.array([label for _, label in pool], np.int64))
    return SavedPool(np.load(crops, mmap_mode="r"), np.load(labels))


def save_checkpoint(path: str, net, opt, sched, epoch: int) -> None:
    """The run so far (weights, optimiser, learning-rate cycle, the epoch done), written
    beside `path` and renamed over it, so a kill mid-write leaves the last one whole."""
    tmp = f"{path}.tmp"
    torch.save({"net": net.state_dict(), "opt": opt.state_dict(), "sched": sched.state_dict(), "epoch": epoch}, tmp)
    os.replace(tmp, path)


def resumed(path: str, net, opt, sched, unit: str = "epoch") -> int:
    """Load a checkpoint into the run when `path` holds one; the first epoch (or step:
    `unit`) still to run, 0 for a new run. The training data is drawn from a stream seeded
    anew, not from where the stopped run's stood."""
    if not os.path.exists(path):
        return 0
    state = torch.load(path, map_location="cpu", weights_only=False)
    steps = getattr(sched, "total_steps", None)  # OneCycleLR's: the cycle is --epochs long
    if steps is not None and state["sched"].get("total_steps") != steps:
        raise SystemExit(f"{path} is a run of {state['sched'].get('total_steps')} steps, this one of {steps}: "
                         "go on with the length it was started with (--epochs and --per-epoch, or --steps), "
                         "or start afresh with another --checkpoint")
    net.load_state_dict(state["net"])
    opt.load_state_dict(state["opt"])
    sched.load_state_dict(state["sched"])
    print(f"resumed from {path} after {unit} {state['epoch']}", flush=True)
    return state["epoch"] + 1

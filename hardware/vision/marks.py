"""A second opinion on a spike die's face: the outline of its mark, compared with the taught ones.

The spike embedding (spike.py) sees a die's colours and light as well as its mark, and two
marks of one set that are both "an outline with something inside" can lie close in it.
This looks only at where the mark is: a map of how far each pixel's colour is from the
die's own colour (so a dark mark on a light die and a light mark on a dark die give the
same map), compared with the map of every taught crop in its four quarter turns, over a
few pixels of shift and the reader's crop sizes, by normalised correlation. It knows no
glyph either: the taught crops are its only templates.

Alone it is weaker than the embedding's head: it picks the right face for 91% of spike-A's
dice (the head 97%) and, on pip dice taught as spike dice, rendered 89% (99%), matteop 93%
(99%), byler 84% (87%). But it errs on other dice than the head, so spike.match_all asks it
only about dice the head is unsure of, and weighs its scores in with the head's.

Its settings were chosen on the pip sets, by how often it alone picks the right face
(docs/decisions.md).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Sequence

import cv2
import numpy as np

MAP_SIDE = 24  # pixels of a mark map (crops are shrunk to it)
SHIFT = 3  # pixels a read map may shift against a taught one, each way
BODY_DISC = 0.9  # of the crop's half side: where the die's own colour is taken (median)
FADE = 1.3  # the map fades to nothing at this many half sides from the middle


@lru_cache(maxsize=None)
def _layout(side: int) -> tuple[np.ndarray, np.ndarray]:
    """(where the die's own colour is taken, the fade towards the crop's edge), raveled."""
    yy, xx = np.mgrid[0:side, 0:side].astype(np.float32) - (side - 1) / 2
    r = (np.hypot(xx, yy) / (side / 2)).ravel()
    return r < BODY_DISC, np.clip(FADE - r, 0, 1).astype(np.float32)


def _nth(x: np.ndarray, q: float) -> np.ndarray:
    """The q-quantile of x along its first axis (the nearest order statistic; faster than np.quantile)."""
    k = int(round(q * (len(x) - 1)))
    return np.partition(x, k, axis=0)[k]


def mark_map(crop: np.ndarray, out: int = MAP_SIDE) -> np.ndarray:
    """(out, out) float32 0..1: how unlike the die's colour each pixel is (CIELAB
    distance from the median colour of the middle, scaled by its 97th percentile there),
    fading out towards the crop's edge where the table and the die's sides show."""
    side = crop.shape[0]
    inner, fade = _layout(side)
    lab = cv2.cvtColor(crop, cv2.COLOR_BGR2LAB).astype(np.float32).reshape(-1, 3)
    diff = lab - _nth(lab[inner], 0.5)
    d = np.sqrt(np.einsum("ij,ij->i", diff, diff)) * fade
    m = np.minimum(d / (_nth(d[inner], 0.97) + 1e-3), 1).reshape(side, side)
    return m if side == out else cv2.resize(m, (out, out), interpolation=cv2.INTER_AREA)


def _unit_rows(x: np.ndarray) -> np.ndarray:
    x = x - x.mean(1, keepdims=True)
    return x / (np.linalg.norm(x, axis=1, keepdims=True) + 1e-6)


CORE = MAP_SIDE - 2 * SHIFT


def templates(crops: Sequence[np.ndarray]) -> np.ndarray:
    """(len(crops), 4, CORE * CORE) unit vectors: each taught crop's map, less SHIFT pixels
    each side, in four quarter turns, zero mean."""
    out = [_unit_rows(np.stack([np.rot90(mark_map(c), k)[SHIFT:-SHIFT, SHIFT:-SHIFT].ravel() for k in range(4)]))
           for c in crops]
    return np.stack(out).reshape(len(crops), 4, CORE * CORE).astype(np.float32)


def likeness(crops: Sequence[np.ndarray], bank: np.ndarray) -> np.ndarray:
    """(len(bank),): each taught crop's best correlation with the read crops (one die at
    several sizes), over its quarter turns and every shift of up to SHIFT pixels."""
    n = CORE * CORE
    windows = np.concatenate([
        np.lib.stride_tricks.sliding_window_view(mark_map(c), (CORE, CORE)).reshape(-1, n) for c in crops])
    # The templates have zero mean and unit length, so a window's correlation with one is
    # its product with it over the window's own spread about its mean.
    total = windows.sum(1)
    spread = np.sqrt(np.maximum(np.einsum("ij,ij->i", windows, windows) - total * total / n, 0)) + 1e-6
    # BLAS here, unlike spike._dot: for this product (147 x 324 by 324 x 148 for 37 taught
    # dice) numpy's matmul took 0.10 ms median on the development machine, 0.10-0.12 ms with
    # both cores kept busy by other processes (one of them multiplying matrices); einsum
    # 1.2 ms either way; cv2.gemm 0.2 ms, but 4-20 ms under that load.
    scores = ((windows @ bank.reshape(-1, n).T) / spread[:, None]).max(0)
    return scores.reshape(len(bank), 4).max(1)


def face_scores(crops: Sequence[np.ndarray], bank: np.ndarray, owners: np.ndarray,
                faces: Sequence[int]) -> np.ndarray:
    """(len(faces),): for each face, the best correlation of the die's mark with any taught
    mark of that face (`owners` gives the face of each template in `bank`)."""
    like = likeness(crops, bank)
    return np.array([like[owners == v].max() for v in faces], np.float32)

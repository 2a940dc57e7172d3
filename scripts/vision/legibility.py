"""Can a rendered die's top face be read at all? Its marks measured in the picture itself.

The renderer knows, for every pixel of a die's top face, which mark (pip or symbol) the
camera's ray meets there, or the bare face (render_dice.top_face_marks). A mark that the
light blew out, that sits in the dark, that depth of field or a neighbour's shadow smeared
into the body, or that another die hides, is one no reader can see; a die labelled with
its value there teaches a model to guess, and a judge set of such dice counts a right hold
as a miss. So each mark's colour in the rendered picture is compared with the face's:
the label says how many marks are seen and how far the faintest stands out (CIELAB
distance), and `legible` draws the line.
"""

from __future__ import annotations

import cv2
import numpy as np

_CROSS = cv2.getStructuringElement(cv2.MORPH_CROSS, (3, 3))

#: A die whose faintest mark stands out from its face by less than this (CIELAB Delta E,
#: 1976) is not legible: chosen by eye on contact sheets of renders sorted by it
#: (docs/decisions.md, 2026-12-07).
MIN_MARK_CONTRAST = 12.0


def to_lab(picture_bgr: np.ndarray) -> np.ndarray:
    """The picture in CIELAB (L 0-100), float32."""
    return cv2.cvtColor(picture_bgr.astype(np.float32) / 255.0, cv2.COLOR_BGR2Lab)


def _core(where: np.ndarray) -> np.ndarray:
    """`where` less the pixels with a 4-neighbour outside it (beyond the window counts as
    outside); `where` itself if that leaves none (a mark one pixel wide is measured whole)."""
    inner = cv2.erode(where.astype(np.uint8), _CROSS, borderType=cv2.BORDER_CONSTANT, borderValue=0) > 0
    return inner if inner.any() else where


def measure(lab: np.ndarray, origin: tuple[int, int], marks: np.ndarray, expected: int) -> dict:
    """`marks`: a die's top face over a window of the picture whose top-left pixel is
    `origin` (x, y): -1 where the camera sees something else, 0 the bare face, k >= 1 its
    k-th mark. `expected`: the marks the face has (a pip die's value; 1 for a symbol; 0 for
    a chance cube). Returns {"marks_seen": marks with a pixel in view, "mark_contrast": the
    faintest expected mark's CIELAB distance from the face (0 for one not seen, or for a
    face not seen at all; None for a face without marks: a chance cube's)}."""
    x0, y0 = origin
    h, w = marks.shape
    window = lab[y0:y0 + h, x0:x0 + w]
    if window.shape[:2] != marks.shape:
        raise ValueError(f"marks window {marks.shape} at {origin} leaves the picture {lab.shape[:2]}")
    seen = {int(k) for k in np.unique(marks) if k > 0}
    bare = marks == 0
    if not expected:
        return {"marks_seen": len(seen), "mark_contrast": None}
    if not bare.any():  # the face not seen at all: nothing to read
        return {"marks_seen": len(seen), "mark_contrast": 0.0}
    # the face's colour away from its marks (a mark's antialiased rim is neither)
    around = cv2.dilate((marks > 0).astype(np.uint8), np.ones((3, 3), np.uint8)) > 0
    face_px = bare & ~around
    face = np.median(window[face_px if face_px.any() else bare], axis=0)
    faintest = None
    for k in range(1, expected + 1):
        where = marks == k
        if not where.any():
            faintest = 0.0
            break
        d = float(np.linalg.norm(window[_core(where)].mean(axis=0) - face))
        faintest = d if faintest is None else min(faintest, d)
    return {"marks_seen": len(seen), "mark_contrast": round(faintest, 1)}


def legible(detail: dict) -> bool:
    """A rendered die's label (`dice_detail` of a manifest line) says its top face can be
    read: every mark seen, standing out by MIN_MARK_CONTRAST. A label made before marks
    were measured (no "mark_contrast" key) or of a face without marks counts as legible."""
    contrast = detail.get("mark_contrast")
    return contrast is None or contrast >= MIN_MARK_CONTRAST

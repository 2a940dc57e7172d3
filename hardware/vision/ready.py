"""ReadyToRead: watch the stream and say when the dice are ready to be read.

Pure: frames and their times come in, states come out; no clock, no camera. The scene
is shrunk to a small picture; change between consecutive pictures is motion. Colours are
compared, not grey levels: a yellow die on a grey tray is about as bright as the tray
(151 against 162 grey levels in a byler photo), and rolled across it unseen in grey.
With an empty-table reference, a large area unlike the table is an occluder (cup, hand):
dice are small, so no set of resting dice covers `occluder_fraction` of the view.
READY fires once per settled scene and re-arms when the scene changes.

Light that flickers with the mains (most LED and fluorescent lamps, at twice the mains
frequency) is caught by a camera's rolling shutter as dark and light bands across the
picture, which move from one frame to the next: to a plain difference, a table that
never stops moving. Before two pictures are compared, each row of one is brought to the
other's brightness (the median ratio along the row; rows are the sensor's, read at one
instant), which takes out such bands and any change of the light as a whole, and leaves
a die that moved, a hand or a cup: they change only part of a row. Where the frame is
clipped (glare, a white tray under a lamp) the camera shows less than the light: such a
channel is left out of the row's ratio, and its change counts only beyond what the
clipping may hide as the light changed, in the direction it hides it (`_changed`).

The scene READY fires on is best read from the frames it stood still in, averaged
(`still_picture`): the sensor's noise in a dim room falls with the square root of their
number, and flicker bands that moved between them even out. A frame whose view differs
from the newest one's (a die that crept) is left out, so nothing that moved is averaged.
"""

from __future__ import annotations

import enum
import math
import numbers
from collections import deque
from typing import NamedTuple

import cv2
import numpy as np

from hardware.vision.detect import shrink
from hardware.vision.pictures import load_picture, region_of

SMALL_SIDE = 160
PIXEL_CHANGE = 18  # levels a pixel's colour must move in one channel to count as changed
CLIPPED = 250  # level (in the frame) from which a channel is taken as clipped: brighter than shown
# A channel of the small picture with more than this share of its pixels clipped says too
# little of the row's light to be counted in its ratio (row_gain).
CLIP_UNKNOWN = 0.25
# What was found where the empty table still shows (EmptyTable.on_table): under ON_TABLE of
# its box changed, a pixel compared with the photo's colours within SETTLE pixels of it, and
# at least STRUCTURE of the box where the photo's colours spread (an edge, a print, a token).
ON_TABLE, SETTLE, STRUCTURE = 0.1, 2, 0.1
CHANGED = int(PIXEL_CHANGE * 1.5)  # levels a pixel must lie outside them: an occluder's change
ROW_GAIN = (0.5, 2.0)  # the most a row's light may be taken to have changed by (row_gain)
# With the die's size known: a change over this share of a die's top face is motion, where
# that is less than `motion_threshold` of the view (small dice in a wide view). Over 1272
# still pairs of held-out renders (noise, JPEG, bands) the most that changed was 0.48 of a
# die; a die crept half its width changes 0.5-0.85 of one (benchmarks/ready.py --renders).
DIE_SHARE = 0.5
MIN_MOTION_PX = 9  # but never under 3 x 3 pixels of the small view: one changed pixel is no die


class ReadyState(enum.Enum):
    WAITING = "waiting"  # nothing new to read (settling, or this scene was already read)
    MOVING = "moving"  # the picture is changing: cup, hand or rolling dice
    OCCLUDED = "occluded"  # still, but something big (cup, hand) sits over the table
    READY = "ready"  # the dice have rested long enough: read this frame


def _view(frame: np.ndarray, roi) -> tuple[np.ndarray, tuple[int, int]]:
    """(the table region of the frame, the (width, height) it shrinks to: SMALL_SIDE long)."""
    frame = region_of(frame, roi)[0]
    h, w = frame.shape[:2]
    s = SMALL_SIDE / max(h, w)
    return frame, (max(1, int(w * s)), max(1, int(h * s)))


_LEFT_OUT = 1e6  # (row_gain) a ratio left out of a row's median, as +- this, in turns


def row_gain(picture: np.ndarray, like: np.ndarray, unknown: np.ndarray | None = None) -> np.ndarray:
    """How much brighter each row of each channel of `like` is than `picture` (both int16,
    height x width x channels): the median ratio along the row (rows x channels), so a change
    of light along rows (a flicker band, a lamp switched on) is measured, and a change over
    less than half a row (a die, a hand's edge) is not.

    `unknown` (bool, the pictures' shape): channels left out of the ratios (clipped in either
    picture: their ratio is not the light's). A row's channel with none left takes the mean
    of the row's other channels; a row with none at all, its nearest rows'."""
    ratio = (like.astype(np.float32) + 4) / (picture.astype(np.float32) + 4)
    if unknown is not None and unknown.any():
        # Left-out ratios become -/+_LEFT_OUT in turns along the row, the first below: as many
        # below every kept one as above, or one more below, so the partition's middle is the
        # kept ones' median (of an even count, one of the two middle ones).
        turn = np.cumsum(unknown, axis=1) % 2 == 0
        ratio = np.where(unknown, np.where(turn, _LEFT_OUT, -_LEFT_OUT), ratio)
    middle = ratio.shape[1] // 2  # the median by partition: np.median took twice as long (0.6 -> 1.3 ms)
    gain = np.partition(ratio, middle, axis=1)[:, middle, :]  # rows x channels
    known = np.abs(gain) < _LEFT_OUT
    if not known.all():
        counts = known.sum(1)
        mean = np.where(known, gain, 0).sum(1) / np.maximum(counts, 1)
        gain = np.where(known, gain, mean[:, None]).astype(np.float32)
        rows = np.flatnonzero(counts)
        if len(rows) < len(counts):
            near = np.interp(np.arange(len(counts)), rows, mean[rows]) if len(rows) else np.ones(len(counts))
            gain[counts == 0] = near[counts == 0, None]
    return np.clip(gain, *ROW_GAIN)


def _shrunk(frame: np.ndarray, roi) -> np.ndarray:
    """The view in colour, shrunk to SMALL_SIDE by halvings (detect.shrink: a one-step
    area resize of a 1280x960 frame took 1.9 ms of a covered() check) and blurred: what
    motion and the empty-table comparison are measured on."""
    return _small(*_view(frame, roi))


def _small(view: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    return cv2.GaussianBlur(shrink(view, *size), (5, 5), 0).astype(np.int16)


class _Motion(NamedTuple):
    """A frame as motion is measured on it: the small picture (`_shrunk`), and for each of
    its channels the share of the frame's pixels blurred into it that were clipped."""

    small: np.ndarray  # int16, height x width x channels
    clipped: np.ndarray | None  # float32 0..1, the same shape; None where nothing clipped
    scale: float  # the small picture's pixels to a frame pixel, along a side


def _motion(frame: np.ndarray, roi) -> _Motion:
    view, size = _view(frame, roi)
    small, scale = _small(view, size), size[0] / view.shape[1]
    if view.max() < CLIPPED:  # nothing clipped: 0.1 ms to know, where the shares cost 0.7 (1280x960)
        return _Motion(small, None, scale)
    white = cv2.threshold(view, CLIPPED - 1, 255, cv2.THRESH_BINARY)[1]
    return _Motion(small, _small(white, size).astype(np.float32) / 255, scale)


class EmptyTable:
    """The calibrated empty-table photo, shrunk once, to tell how much of a frame one big
    thing that is not the table (a cup, a hand) covers. Dice are small: no set of resting
    dice covers much of the view, so a large share is an occluder, not dice. Colours are
    compared, not grey levels: a hand as bright as the tray is still unlike it. Kept whole
    too, to tell, place by place, what was on the table before the throw (`on_table`)."""

    def __init__(self, photo: np.ndarray, roi: tuple[int, int, int, int] | None = None):
        self.roi = roi
        self._photo = _colour(photo)
        self._small = _shrunk(self._photo, roi)
        # on_table's: the photo's colours near each pixel, and where they spread. Made here, at
        # set-up, not in the first read (125 ms at 1280x960 on the development machine, in that
        # read's budget); and so the table is only read from after, by threads sharing it.
        kernel = np.ones((2 * SETTLE + 1, 2 * SETTLE + 1), np.uint8)
        lo, hi = cv2.erode(self._photo, kernel).astype(np.int16), cv2.dilate(self._photo, kernel).astype(np.int16)
        self._range = (lo - CHANGED, hi + CHANGED, (hi - lo > 2 * CHANGED).any(2))

    @classmethod
    def load(cls, path, roi: tuple[int, int, int, int] | None = None) -> "EmptyTable":
        """From the photo file; UnreadableFrame (saying why) when it cannot be read. Each
        caller says so its own way: the CLI on stderr, the service in its log."""
        return cls(load_picture(path), roi)

    def covered(self, frame: np.ndarray) -> float | None:
        """0..1: the biggest region of the frame unlike the table, as a share of the view;
        None when the frame is not the size of the photo (another camera mode: no judgement)."""
        small = _shrunk(_colour(frame), self.roi)
        if small.shape != self._small.shape:
            return None
        diff = (np.abs(_matched(small, self._small) - self._small).max(2) > PIXEL_CHANGE * 1.5).astype(np.uint8)
        n, _, stats, _ = cv2.connectedComponentsWithStats(diff)
        return float(stats[1:, cv2.CC_STAT_AREA].max()) / diff.size if n > 1 else 0.0

    def on_table(self, frame: np.ndarray, boxes) -> list[bool] | None:
        """For each box (x1, y1, x2, y2 in frame pixels): whether it still shows what the
        photo shows there, and the photo shows something there, so what was found is the
        table's own (a pattern on the cloth, a board's token), not a die thrown on it. A
        pixel has changed when it lies outside the colours the photo shows within SETTLE
        pixels of it by more than an occluder's change (a camera nudged a pixel or two leaves
        a patterned cloth unchanged), the frame's light first matched to the photo's; the
        photo shows something where at least STRUCTURE of the box has such a spread of
        colours (a die thrown on bare cloth of its own colour changes little of its box).
        None when the frame is not the size of the photo."""
        frame = _colour(frame)
        if frame.shape != self._photo.shape:
            return None
        gain = np.clip(_gain(_shrunk(frame, self.roi), self._small), *ROW_GAIN)
        lo, hi, spread = self._range
        out = []
        for x1, y1, x2, y2 in boxes:
            part = (slice(max(0, int(y1)), int(y2) + 1), slice(max(0, int(x1)), int(x2) + 1))
            seen = frame[part].astype(np.float32) * gain
            changed = ((seen < lo[part]) | (seen > hi[part])).any(2)
            out.append(bool(changed.size) and float(changed.mean()) < ON_TABLE
                       and float(spread[part].mean()) >= STRUCTURE)
        return out


def _gain(view: np.ndarray, photo: np.ndarray) -> np.ndarray:
    """Each channel's median ratio of the empty-table `photo` to `view` (small pictures)."""
    # every other pixel each way is plenty for a median, and took 0.3 ms where all took 0.5 and a
    # partition, slow over many equal ratios (a still table against its own photo), 1.8
    ratio = (photo[::2, ::2].astype(np.float32) + 4) / (view[::2, ::2].astype(np.float32) + 4)
    return np.median(ratio.reshape(-1, ratio.shape[2]), axis=0)


def _matched(view: np.ndarray, photo: np.ndarray) -> np.ndarray:
    """`view` with each channel scaled to the light of the empty-table `photo`: the median
    ratio over the whole view, which the table fills more than half of whatever lies on it.
    An exposure or white balance that moved since the photo is then not a thing over the table."""
    return np.rint(view * np.clip(_gain(view, photo), *ROW_GAIN)).astype(np.int16)


def _colour(frame: np.ndarray) -> np.ndarray:
    return frame if frame.ndim == 3 else cv2.cvtColor(frame, cv2.COLOR_GRAY2BGR)


class Photo(enum.Enum):
    """`ReadyToRead.from_config`'s default: load the config's empty-table photo."""

    LOAD = "load"


class ReadyToRead:
    """Feed frames with their times; READY once the scene has been still for `still_seconds`."""

    def __init__(self, still_seconds: float = 0.5, motion_threshold: float = 0.004,
                 occluder_fraction: float = 0.12, empty_table: np.ndarray | EmptyTable | None = None,
                 roi: tuple[int, int, int, int] | None = None, still_frames: int = 4,
                 die_px: float | None = None):
        """`empty_table`: the empty-table photo, or an EmptyTable already made of it (for the same `roi`).
        `still_frames`: how many of the newest still frames `still_picture` averages (1: the newest alone).
        `die_px`: a die's side in frame pixels, when calibration knows it: then a change of
        DIE_SHARE of a die's top face is motion too, where that is less than `motion_threshold`
        of the view (a small die rolling in a wide view changes little of it)."""
        if isinstance(still_frames, bool) or not isinstance(still_frames, int) or still_frames < 1:
            raise ValueError(f"still_frames must be a whole number of frames, 1 or more, not {still_frames!r}")
        if die_px is not None and (isinstance(die_px, bool) or not isinstance(die_px, numbers.Real)
                                   or not 0 < die_px < math.inf):
            raise ValueError(f"die_px must be a die's side in pixels (above 0), not {die_px!r}")
        if isinstance(empty_table, EmptyTable):
            if empty_table.roi != roi:
                raise ValueError(f"the empty-table reference was made for the table region {empty_table.roi}, not {roi}")
            self._reference: EmptyTable | None = empty_table
        else:
            self._reference = EmptyTable(empty_table, roi) if empty_table is not None else None
        self.still_seconds = still_seconds
        self.motion_threshold = motion_threshold
        self.die_px = None if die_px is None else float(die_px)
        self.occluder_fraction = occluder_fraction
        self.roi = roi
        self._previous: _Motion | None = None
        self._still_since: float | None = None
        self._read_scene: _Motion | None = None  # the scene READY last fired on
        self._still_and_read = False  # this still spell was found to be the scene read: not compared again
        self._still: deque[tuple[np.ndarray, _Motion]] = deque(maxlen=still_frames)  # (frame, its view)
        self.state = ReadyState.WAITING

    @classmethod
    def from_config(cls, config, *, empty_table: EmptyTable | None | Photo = Photo.LOAD) -> "ReadyToRead":
        """Built from a VisionConfig. `empty_table`: the EmptyTable already made of its photo
        (shared with the reader), or None to go without; by default the photo is loaded here,
        and an unreadable one raises UnreadableFrame (a watcher that silently could not tell
        a cup would mislead)."""
        reference = empty_table
        if reference is Photo.LOAD:
            reference = EmptyTable.load(config.empty_table, config.roi) if config.empty_table else None
        return cls(still_seconds=config.still_seconds, motion_threshold=config.motion_threshold,
                   occluder_fraction=config.occluder_fraction, empty_table=reference, roi=config.roi,
                   still_frames=config.still_frames, die_px=config.die_size)

    def still_picture(self) -> np.ndarray | None:
        """The scene of this still spell: the mean of its newest `still_frames` frames (those
        whose view has not changed from the newest one's), or None while things move.

        Read this, not the frame READY came with: noise and moving flicker bands average out.
        Frames are kept as they came (the camera gives a new array each time), so a caller
        must not change a frame it has fed in place."""
        if not self._still:
            return None
        newest, view = self._still[-1]
        same = [f for f, v in self._still
                if f.shape == newest.shape and not self._moved(view, v)]
        if len(same) == 1:
            return newest
        total = same[0].astype(np.uint16)  # 16 bits hold up to 257 frames of 255
        for f in same[1:]:
            total += f
        total += len(same) // 2  # rounded, not floored
        total //= len(same)
        return total.astype(np.uint8)

    def mark_read(self, frame_bgr: np.ndarray) -> None:
        """This scene has been read another way (a reveal pressed before the dice settled, or
        by a watcher this one replaces): READY will not fire for it, only for a scene that
        differs from it. Without this, a press followed by the dice settling read them twice,
        the second time as the next throw."""
        self._read_scene = _motion(_colour(frame_bgr), self.roi)
        self._still_and_read = False

    def _moved(self, a: _Motion, b: _Motion) -> bool:
        """Whether enough changed from b to a to be motion (`motion_threshold`, or DIE_SHARE of a die)."""
        limit = self.motion_threshold
        if self.die_px is not None:
            die = max(DIE_SHARE * (self.die_px * a.scale) ** 2, MIN_MOTION_PX)
            limit = min(limit, die / (a.small.shape[0] * a.small.shape[1]))
        return self._changed(a, b) > limit

    def _changed(self, a: _Motion, b: _Motion) -> float:
        """The share of pixels that changed from b to a, once b's rows have a's light."""
        if a.small.shape != b.small.shape:
            return 1.0
        unknown = None
        if a.clipped is not None or b.clipped is not None:
            a_clipped = a.clipped if a.clipped is not None else np.zeros(a.small.shape, np.float32)
            b_clipped = b.clipped if b.clipped is not None else np.zeros(b.small.shape, np.float32)
            unknown = (a_clipped > CLIP_UNKNOWN) | (b_clipped > CLIP_UNKNOWN)
        gain = row_gain(b.small, a.small, unknown)[:, None, :]
        # b relit, but never past white: a camera shows no more, lit as it may be
        change = a.small - np.minimum(np.rint(b.small * gain), 255)
        if unknown is None:  # nothing clipped: no change hidden
            return float((np.abs(change) > PIXEL_CHANGE).any(2).mean())
        # Where the frame clipped, the camera showed less than the light, and relighting gets
        # it wrong by up to white x the light's change, for each clipped pixel: a brighter
        # where the light fell (b's clipped ones), darker where it rose (a's own).
        hidden = 255 * np.where(change > 0, np.maximum(0, 1 - gain) * b_clipped, np.maximum(0, gain - 1) * a_clipped)
        return float((np.abs(change) > PIXEL_CHANGE + hidden).any(2).mean())

    def _occluded(self, frame: np.ndarray) -> bool:
        if self._reference is None:
            return False
        share = self._reference.covered(frame)
        return share is not None and share > self.occluder_fraction

    def feed(self, frame_bgr: np.ndarray, t_seconds: float) -> ReadyState:
        small = _motion(_colour(frame_bgr), self.roi)
        previous, self._previous = self._previous, small
        if previous is None or self._moved(small, previous):
            self._still_since = None if previous is not None else t_seconds
            self._still_and_read = False
            self._still.clear()
            if previous is None:
                self._still.append((frame_bgr, small))
            self.state = ReadyState.MOVING if previous is not None else ReadyState.WAITING
            return self.state
        self._still.append((frame_bgr, small))
        if self._still_since is None:
            self._still_since = t_seconds
        if self._occluded(frame_bgr):
            self.state = ReadyState.OCCLUDED
        elif t_seconds - self._still_since < self.still_seconds:
            self.state = ReadyState.WAITING
        elif self._still_and_read or (self._read_scene is not None
                                      and not self._moved(small, self._read_scene)):
            self._still_and_read = True  # (half the work of an idle table: one comparison a frame)
            self.state = ReadyState.WAITING  # already read this scene
        else:
            self._read_scene, self._still_and_read = small, True
            self.state = ReadyState.READY
        return self.state

"""hardware.vision behind the reveal desk's interfaces: `VisionReader` reads a frame
as a `Sight`, `VisionReader.ready_factory` builds the ready-to-read watcher, and both
share the empty-table photo (`empty_table_of`)."""

from __future__ import annotations

import functools
import logging
import os
from typing import Any, Callable

import numpy as np

from hardware.reveal.sight import ReadySignal, Sight

log = logging.getLogger("companion.reveal")


def empty_table_of(vision_config) -> Any:
    """The config's empty-table photo as a vision EmptyTable, or None when it is unset or
    unreadable (said in the log). Made once per photo file and table region: the reader and
    the ready-to-read watcher share it (it is only read from, so threads may share it)."""
    if vision_config is None or not vision_config.empty_table:
        return None
    path = str(vision_config.empty_table)
    try:
        stat = os.stat(path)
        stamp = (stat.st_mtime_ns, stat.st_size)  # a photo taken again is loaded again
    except OSError:
        stamp = None
    roi = tuple(vision_config.roi) if vision_config.roi is not None else None
    return _empty_table(path, stamp, roi)


@functools.lru_cache(maxsize=4)
def _empty_table(path: str, stamp: tuple[int, int] | None, roi: tuple[int, int, int, int] | None) -> Any:
    from hardware import vision

    try:
        return vision.EmptyTable.load(path, roi)
    except vision.UnreadableFrame as exc:
        log.warning("the empty-table picture: %s; going without it (a hand or the cup over the dice "
                    "will not be noticed)", exc)
        return None


class VisionReader:
    """hardware.vision behind the DiceReader interface (imported here, never at module import)."""

    def __init__(self, vision_config, *, spike_profile=None):
        from hardware import vision

        self._vision = vision
        self._config = vision_config
        self._profile = spike_profile
        # a hand or the cup over the dice at a read the host forced is then flagged
        self._empty_table = empty_table_of(vision_config)
        # the pip dice read surely at this table, while this camera set-up lasts (a new
        # set-up makes a new reader, and a new memory)
        remember = getattr(vision_config, "remember_dice", True)
        self._memory = vision.TableMemory() if remember else None
        if spike_profile is None and vision_config is not None and vision_config.spike_profile:
            try:
                self._profile = vision.SpikeProfile.load(vision_config.spike_profile)
            except vision.SpikeProfileError as exc:
                log.warning("%s; spike dice will be typed in", exc)

    def read(self, frame: np.ndarray, kind: str, expect: int | None = None) -> Sight:
        if kind == "spike" and (self._profile is None or not self._profile.taught):
            return Sight((), (), (), True, "spike dice need a taught profile (companion teach spike)")
        sure = getattr(self._config, "min_confidence", 0.8)
        try:
            reading = self._vision.read_dice(
                frame, kind, profile=self._profile if kind == "spike" else None,
                roi=getattr(self._config, "roi", None), min_confidence=sure,
                empty_table=self._empty_table, occluder_fraction=getattr(self._config, "occluder_fraction", 0.12),
                expect=expect, die_px=getattr(self._config, "die_size", None),
                memory=self._memory if kind == "pips" else None,
                budget_ms=getattr(self._config, "read_budget_ms", None),
            )
        finally:
            self._vision.release()  # readings are seconds apart at least: their working memory goes back
        return Sight(tuple(d.value for d in reading.dice), tuple(tuple(d.box) for d in reading.dice),
                     tuple(float(d.confidence) for d in reading.dice), reading.flagged, reading.reason,
                     tuple(i for i, d in enumerate(reading.dice) if d.confidence < sure),
                     tuple(tuple(box) for box in reading.doubtful))

    @staticmethod
    def ready_factory(vision_config) -> Callable[[], ReadySignal]:
        from hardware import vision

        empty = empty_table_of(vision_config)

        def make() -> ReadySignal:
            if vision_config is None:
                return vision.ReadyToRead()
            return vision.ReadyToRead.from_config(vision_config, empty_table=empty)

        return make

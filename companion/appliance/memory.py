"""How the service process asks the C allocator to hand big buffers back.

A camera frame is a few MB, and so are a reading's working buffers and a photo's. glibc
serves such a block with its own mapping, returned on free, until one is freed: then it
raises its threshold for mappings to that size (up to 32 MB), and every later frame comes
from the heap, which fragments and stays with the process; the threshold is held at
1 MiB instead (figures: docs/decisions.md). Where the C library is not glibc (macOS,
musl) nothing is changed.
"""

from __future__ import annotations

import ctypes
import logging

log = logging.getLogger("companion.service")

M_MMAP_THRESHOLD = -3  # glibc's mallopt parameter; set, it also stops the threshold moving
BIG_BUFFER = 1 << 20


def hand_big_buffers_back() -> bool:
    """Serve blocks of BIG_BUFFER bytes and more with their own mappings, always; True when set."""
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return False
    done = bool(mallopt(M_MMAP_THRESHOLD, BIG_BUFFER))
    if not done:
        log.debug("the C library did not take the mapping threshold")
    return done

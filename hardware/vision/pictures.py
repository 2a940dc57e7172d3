"""Pictures from files: the photo, or a reason a player can act on.

cv2.imread decodes a JPEG or PNG that was cut short (copied, uploaded or saved while still
being written) without complaint, filling the missing part with grey: the dice there are
simply gone, and a reading with dice missing need not be flagged. So a JPEG or PNG whose
end marker never comes is refused before decoding. The check walks the file's own
structure rather than looking at its last bytes, because phones append data after the
picture (a motion photo carries a whole video behind the JPEG's end).
"""

from __future__ import annotations

import re
import struct
from pathlib import Path

import cv2
import numpy as np

from hardware.vision.reading import UnreadableFrame

MIN_REGION_SIDE = 16  # pixels each way of the table region that must lie in the picture


def region_of(frame: np.ndarray, roi: tuple[int, int, int, int] | None) -> tuple[np.ndarray, int, int]:
    """(the part of `frame` inside the table region `roi`, its left, its top), the region cut
    to the picture. UnreadableFrame, saying what to do, when not even MIN_REGION_SIDE pixels
    each way of it are in the picture: a region set for a bigger picture than the camera now
    gives (another camera, another resolution in the config)."""
    if roi is None:
        return frame, 0, 0
    x1, y1, x2, y2 = roi
    h, w = frame.shape[:2]
    left, top, right, bottom = max(0, x1), max(0, y1), min(w, x2), min(h, y2)
    if right - left < MIN_REGION_SIDE or bottom - top < MIN_REGION_SIDE:
        raise UnreadableFrame(f"the table region {x1},{y1},{x2},{y2} lies outside the camera's {w}x{h} picture: "
                              "set it again (host panel, Camera set-up, or companion calibrate --roi)")
    return frame[top:bottom, left:right], left, top


PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
# Inside a JPEG's compressed data 0xFF is always followed by 0x00 (a stuffed byte) or a
# restart marker 0xD0-0xD7; anything else after 0xFF is the next segment's marker.
_NEXT_MARKER = re.compile(rb"\xff[^\x00\xd0-\xd7\xff]")
_NO_LENGTH = frozenset(range(0xD0, 0xD8)) | {0x01}  # markers with no length field


def _jpeg_complete(data: bytes) -> bool:
    """True when the JPEG's segments run on to its end-of-image marker."""
    pos = 2  # after SOI
    while True:
        while pos < len(data) and data[pos] == 0xFF:  # fill bytes before a marker
            pos += 1
        if pos >= len(data):
            return False
        marker = data[pos]
        pos += 1
        if marker == 0xD9:  # EOI
            return True
        if marker in _NO_LENGTH:
            continue
        if pos + 2 > len(data):
            return False
        pos += struct.unpack(">H", data[pos:pos + 2])[0]
        if marker == 0xDA:  # SOS: compressed data runs to the next marker
            found = _NEXT_MARKER.search(data, pos)
            if found is None:
                return False
            pos = found.start()


def _png_complete(data: bytes) -> bool:
    """True when the PNG's chunks run on to its IEND chunk."""
    pos = len(PNG_SIGNATURE)
    while pos + 8 <= len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        end = pos + 12 + length  # length, type, data, CRC
        if end > len(data):
            return False
        if kind == b"IEND":
            return True
        pos = end
    return False


def cut_short(data: bytes) -> str | None:
    """Why a JPEG or PNG file is incomplete, or None (other formats are left to the decoder)."""
    if data[:2] == b"\xff\xd8" and not _jpeg_complete(data):
        return "the JPEG file is cut short (was it copied or saved while still being written?)"
    if data[:8] == PNG_SIGNATURE and not _png_complete(data):
        return "the PNG file is cut short (was it copied or saved while still being written?)"
    return None


def load_picture(path: str | Path) -> np.ndarray:
    """The picture at `path` as an HxWx3 BGR array; UnreadableFrame says why it cannot be."""
    p = Path(path)
    if not p.exists():
        raise UnreadableFrame(f"cannot read {path}: no such file")
    if p.is_dir():
        raise UnreadableFrame(f"cannot read {path}: it is a folder, not a picture")
    try:
        data = p.read_bytes()
    except OSError as exc:
        raise UnreadableFrame(f"cannot read {path}: {exc.strerror or exc}") from None
    why = cut_short(data)
    if why:
        raise UnreadableFrame(f"cannot read {path}: {why}")
    # Decoded by imread from the file, not imdecode from `data`: imread turns a photo upright by
    # its EXIF orientation, and imdecode did not in every OpenCV version (opencv#8172).
    frame = cv2.imread(str(p), cv2.IMREAD_COLOR) if data else None
    if frame is None:
        raise UnreadableFrame(f"cannot read {path}: not a picture this reader can open")
    return frame

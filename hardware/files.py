"""Replacing a file whole: a crash or a pulled plug leaves the old file or the new one,
never half of either. A Pi on a games table is unplugged without warning, and a spike
profile or a config cut off mid-write would lose what the table taught or set up."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path


def replace_file(path: str | Path, data: bytes, mode: int | None = None) -> None:
    """Write `data` to a temporary file beside `path`, flush it to disk, then rename it over
    `path`. The file gets `mode` when given (a secret: 0o600, never readable by others, not
    even while being written), else an existing file's permissions are kept. On failure
    `path` is untouched."""
    path = Path(path)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.new")
    if mode is None and path.exists():
        mode = path.stat().st_mode & 0o777
    try:
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o666 if mode is None else mode & 0o600)
        with os.fdopen(fd, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        if mode is not None:
            os.chmod(temporary, mode)
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            temporary.unlink()
        raise
    with contextlib.suppress(OSError):  # make the rename itself durable (not every filesystem allows it)
        folder = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(folder)
        finally:
            os.close(folder)

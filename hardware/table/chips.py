"""The GPIO chips the kernel offers (`/dev/gpiochip*`): which one carries the header pins.

A kernel upgrade has moved the Pi 5's header between chip numbers (gpiochip4 on early
kernels, gpiochip0 later), and a table whose chip is gone falls back to the host panel's
virtual buttons. `check-hardware` lists what it sees, and the fallback's message names the
chips, so the host can set `[gpio] chip`. Each chip is asked its name, label and line count
with the GPIO character device's GPIO_GET_CHIPINFO_IOCTL (linux/gpio.h).
"""

from __future__ import annotations

import fcntl
import os
import re
import struct
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

#: _IOR(0xB4, 0x01, struct gpiochip_info): char name[32], char label[32], __u32 lines.
GPIO_GET_CHIPINFO_IOCTL = 0x8044B401
_CHIPINFO = struct.Struct("32s32sI")
#: Labels of the chip that carries the 40-pin header: Pi 5 (RP1), Pi 4, Pi 3 and older.
HEADER_LABELS = ("pinctrl-rp1", "pinctrl-bcm2711", "pinctrl-bcm2835")


@dataclass(frozen=True)
class GpioChip:
    number: int
    label: str
    lines: int

    @property
    def has_header(self) -> bool:
        return self.label in HEADER_LABELS

    def __str__(self) -> str:
        header = ", the 40-pin header" if self.has_header else ""
        return f"gpiochip{self.number} ({self.label or 'no label'}, {self.lines} lines{header})"


def chip_info(path: Path) -> tuple[str, int]:
    """(label, lines) of one /dev/gpiochipN, asked of the kernel."""
    fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    try:
        raw = fcntl.ioctl(fd, GPIO_GET_CHIPINFO_IOCTL, bytes(_CHIPINFO.size))
    finally:
        os.close(fd)
    _, label, lines = _CHIPINFO.unpack(raw)
    return label.split(b"\0", 1)[0].decode(errors="replace"), lines


def list_chips(dev: Path = Path("/dev"), info: Callable[[Path], tuple[str, int]] = chip_info) -> list[GpioChip]:
    """Every GPIO chip under `dev`, by number; one that cannot be asked shows as unreadable."""
    chips = []
    for path in dev.glob("gpiochip*"):
        found = re.fullmatch(r"gpiochip(\d+)", path.name)
        if not found:
            continue
        try:
            label, lines = info(path)
        except OSError as exc:
            label, lines = f"unreadable: {exc.strerror or exc}", 0
        chips.append(GpioChip(int(found.group(1)), label, lines))
    return sorted(chips, key=lambda chip: chip.number)


def describe_chips(chips: list[GpioChip]) -> str:
    """One line for a message: what is there, and which chip to name in `[gpio] chip`."""
    if not chips:
        return "no GPIO chips found (/dev/gpiochip*): not a Raspberry Pi, or the service may not see them"
    header = [chip for chip in chips if chip.has_header]
    hint = f"; set [gpio] chip = {header[0].number} if the buttons are not found" if header else ""
    return "GPIO chips: " + "; ".join(str(chip) for chip in chips) + hint

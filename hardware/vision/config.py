"""The [vision] section of the companion's config file."""

from __future__ import annotations

import math
from dataclasses import dataclass, fields
from typing import Any, Mapping

DICE_KINDS = ("pips", "chance", "spike")
MAX_STILL_FRAMES = 16  # more is memory (4 MB a 1280x960 frame) and time for little more quiet
MIN_DIE_SIZE, MAX_DIE_SIZE = 6, 4000  # pixels: a die's side in any camera's picture
READ_BUDGET_MS = 900.0  # a read's harder looks stop before this (docs/decisions.md, 2026-12-06)
MAX_READ_BUDGET_MS = 60_000.0


class VisionConfigError(ValueError):
    """A [vision] setting is missing, unknown or out of range; the message names it."""


@dataclass(frozen=True)
class VisionConfig:
    """How the reader looks at the table. Every field has a default that works on a bare table."""

    dice: str = "pips"
    roi: tuple[int, int, int, int] | None = None  # x1, y1, x2, y2 in camera pixels
    empty_table: str | None = None  # path of a photo of the empty table (optional)
    spike_profile: str | None = None  # path written by `companion teach spike`
    min_confidence: float = 0.80  # a die below this flags the whole reading
    still_seconds: float = 0.5  # how long the scene must rest before READY
    motion_threshold: float = 0.004  # share of pixels changing that counts as movement
    occluder_fraction: float = 0.12  # share of the table covered by one big object (cup/hand)
    still_frames: int = 4  # a settled scene is read from the mean of this many still frames
    die_size: float | None = None  # a die's side in camera pixels, once calibration knows it
    remember_dice: bool = True  # pip dice read surely vouch for look-alikes read unsurely later (memory.py)
    read_budget_ms: float = READ_BUDGET_MS  # time for the harder looks; past it the reading is held (budget.py)

    @classmethod
    def from_mapping(cls, section: Mapping[str, Any] | None) -> "VisionConfig":
        section = dict(section or {})
        known = {f.name for f in fields(cls)}
        for key in section:
            if key not in known:
                raise VisionConfigError(f"[vision] has an unknown setting {key!r}; known: {', '.join(sorted(known))}")
        values: dict[str, Any] = {}
        if "dice" in section:
            if section["dice"] not in DICE_KINDS:
                raise VisionConfigError(f"[vision] dice must be one of {', '.join(DICE_KINDS)}, not {section['dice']!r}")
            values["dice"] = section["dice"]
        if section.get("roi") is not None:
            values["roi"] = parse_roi(section["roi"])
        for key in ("empty_table", "spike_profile"):
            if section.get(key) not in (None, ""):
                values[key] = str(section[key])
        for key in ("min_confidence", "still_seconds", "motion_threshold", "occluder_fraction"):
            if key in section:
                try:
                    number = float(section[key])
                except (TypeError, ValueError):
                    raise VisionConfigError(f"[vision] {key} must be a number, not {section[key]!r}") from None
                if number < 0 or (key != "still_seconds" and number > 1):
                    raise VisionConfigError(f"[vision] {key} is out of range: {number}")
                values[key] = number
        if section.get("die_size") is not None:
            size = section["die_size"]
            if isinstance(size, bool) or not isinstance(size, (int, float)) or not MIN_DIE_SIZE <= size <= MAX_DIE_SIZE:
                raise VisionConfigError(f"[vision] die_size must be a die's side in camera pixels, "
                                        f"{MIN_DIE_SIZE} to {MAX_DIE_SIZE}, not {size!r}")
            values["die_size"] = float(size)
        if "remember_dice" in section:
            if not isinstance(section["remember_dice"], bool):
                raise VisionConfigError(f"[vision] remember_dice must be true or false, "
                                        f"not {section['remember_dice']!r}")
            values["remember_dice"] = section["remember_dice"]
        if "read_budget_ms" in section:
            budget = section["read_budget_ms"]
            if isinstance(budget, bool) or not isinstance(budget, (int, float)) or not 0 <= budget <= MAX_READ_BUDGET_MS:
                raise VisionConfigError(f"[vision] read_budget_ms must be milliseconds, 0 to {MAX_READ_BUDGET_MS:.0f} "
                                        f"(0: the first look only), not {budget!r}")
            values["read_budget_ms"] = float(budget)
        if "still_frames" in section:
            frames = section["still_frames"]
            if isinstance(frames, bool) or not isinstance(frames, int) or not 1 <= frames <= MAX_STILL_FRAMES:
                raise VisionConfigError(f"[vision] still_frames must be a whole number from 1 to {MAX_STILL_FRAMES}, "
                                        f"not {frames!r}")
            values["still_frames"] = frames
        return cls(**values)

    def to_mapping(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if value is not None:
                out[f.name] = list(value) if f.name == "roi" else value
        return out


def four_numbers(value: Any, name: str = "roi") -> tuple[int, int, int, int]:
    """[x1, y1, x2, y2] or "x1,y1,x2,y2" as four whole pixels; VisionConfigError naming
    `name` for anything else (not four, not numbers, true/false, infinite)."""
    given = value
    if isinstance(value, str):
        value = value.split(",")
    try:
        numbers = [float(v) for v in value if not isinstance(v, bool)]
        if len(numbers) != 4 or len(numbers) != len(value):
            raise ValueError
    except (TypeError, ValueError):
        raise VisionConfigError(f"{name} must be four numbers x1,y1,x2,y2, not {given!r}") from None
    if not all(math.isfinite(v) for v in numbers):
        raise VisionConfigError(f"{name} must be four finite numbers, not {given!r}")
    x1, y1, x2, y2 = (int(round(v)) for v in numbers)
    return x1, y1, x2, y2


def parse_roi(value: Any) -> tuple[int, int, int, int]:
    """Accept [x1, y1, x2, y2] or "x1,y1,x2,y2"; the box must have a positive area."""
    x1, y1, x2, y2 = four_numbers(value)
    if x2 <= x1 or y2 <= y1 or min(x1, y1) < 0:
        raise VisionConfigError(f"roi {x1},{y1},{x2},{y2} is empty or negative: x2 > x1 >= 0 and y2 > y1 >= 0 needed")
    return (x1, y1, x2, y2)

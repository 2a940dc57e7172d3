"""Camera readings as the table keeps them: the one held for the host, and the photos of
the dice.

A photo comes with every camera reading; it is public only once its reading is in force
(a held reading's photo waits for the host: shown sooner, a player who can still change
their call could look at the dice first). The reveal photo is the slate's: the photo of
the latest reading in force, with each die's box and value. Neither class locks: the
table calls them under its own lock.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Sequence

from companion.rules import DiceObserved
from companion.session import Session


class Offered(StrEnum):
    """What the table did with a camera reading offered to it."""

    APPLIED = "applied"  # it fitted the game and is in force
    HELD = "held"  # flagged or not fitting: held for the host's fix
    STALE = "stale"  # the dice it read were entered meanwhile: dropped
    IGNORED = "ignored"  # no dice are expected now


@dataclass(frozen=True)
class OfferedReading:
    """One reading of the dice as the camera offers it to the table: the faces, each die's
    box in the photo and the reader's confidence (either may be missing), and whether the
    reader wants the host to look (`flagged`, with a `reason`; `unsure`: the indices of
    the dice it doubts, marked on the host panel; `suspects`: boxes of things that may be
    dice it could not read, where the host panel shows a missing die). Boxes are in the
    photo's pixels."""

    values: tuple[Any, ...]
    boxes: tuple[tuple[int, ...], ...] = ()
    confidences: tuple[float, ...] = ()
    flagged: bool = False
    reason: str | None = None
    unsure: frozenset[int] = frozenset()
    suspects: tuple[tuple[int, ...], ...] = ()

    def __post_init__(self) -> None:
        # Readers hand in lists and numpy numbers: kept as plain, hashable values.
        object.__setattr__(self, "values", tuple(self.values))
        object.__setattr__(self, "boxes", tuple(tuple(int(v) for v in box) for box in self.boxes))
        object.__setattr__(self, "confidences", tuple(float(c) for c in self.confidences))
        object.__setattr__(self, "unsure", frozenset(int(i) for i in self.unsure))
        object.__setattr__(self, "suspects", tuple(tuple(int(v) for v in box) for box in self.suspects))

    def box(self, die: int) -> list[int] | None:
        """Die `die`'s box in the photo, as JSON has it; None when the reading has none."""
        return list(self.boxes[die]) if die < len(self.boxes) else None

    def confidence(self, die: int) -> float | None:
        return self.confidences[die] if die < len(self.confidences) else None


#: A reader's reason that names camera pixels ("something at (521,686) ..."): meaningless
#: on the scaled photo, so the host is told in words and shown marks instead.
_PIXELS = re.compile(r"\(\d+, ?\d+\)")


def _dice(n: int) -> str:
    return f"{n} {'die' if n == 1 else 'dice'}"


_ROWS, _COLUMNS = ("top", "middle", "bottom"), ("left", "middle", "right")


def place(box: Sequence[int], among: Sequence[Sequence[int]]) -> str:
    """Where a die lies among the dice seen, in words a host finds at a glance ("top left",
    "middle"): its centre in thirds of the dice's spread, across and down."""
    xs = [v for b in among for v in (b[0], b[2])]
    ys = [v for b in among for v in (b[1], b[3])]
    cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2

    def third(v: float, lo: float, hi: float) -> int:
        return 1 if hi - lo < 1 else min(2, max(0, int(3 * (v - lo) / (hi - lo))))

    row, column = _ROWS[third(cy, min(ys), max(ys))], _COLUMNS[third(cx, min(xs), max(xs))]
    if row == column == "middle":
        return "middle"
    return column if row == "middle" else row if column == "middle" else f"{row} {column}"


@dataclass(frozen=True)
class HeldReading:
    """A camera reading the table must confirm: flagged, or not fitting the game (`reason`,
    the reader's or the rules' words). `expected`: how many dice the game waits for."""

    reading: OfferedReading
    reason: str
    photo_id: int | None
    expected: int | None = None

    @property
    def values(self) -> tuple[Any, ...]:
        return self.reading.values

    @property
    def missing(self) -> int:
        """How many dice the reader did not find (the count the game waits for, less those read)."""
        return max(0, (self.expected or 0) - len(self.values)) if self.expected is not None else 0

    @property
    def extra(self) -> int:
        """How many more dice were read than the game waits for."""
        return max(0, len(self.values) - self.expected) if self.expected is not None else 0

    def for_people(self) -> str:
        """What the host is to do, in words: how many dice were not found, read one too
        many or are unclear, each of which is marked on the photo to be tapped. The
        reader's own reason follows when it says more (a hand over the table, untaught
        faces) and names no camera pixels."""
        said = []
        if self.missing:
            seen = self.reading.suspects[:self.missing] if len(self.reading.boxes + self.reading.suspects) >= 3 else ()
            where = f" ({'one' if self.missing > 1 else 'it'} seen {self._places_of(seen)})" if len(seen) == 1 else \
                (f" (seen {self._places_of(seen)})" if seen else "")
            said.append(f"{_dice(self.missing)} not found{where}: "
                        f"tap where {'it is' if self.missing == 1 else 'they are'}, or type them")
        if self.extra:
            said.append(f"{_dice(self.extra)} too many: tap each one that is not a die")
        unsure = len(self.reading.unsure)
        if unsure:
            said.append(f"{_dice(unsure)} unclear{self._places(self.reading.unsure)}: "
                        f"tap {'it' if unsure == 1 else 'each'} to pick its value")
        reason = self.reason.strip()
        if reason and not _PIXELS.search(reason) and "the game waits for" not in reason:
            said.append(reason)  # the rules' or the reader's words, when they say more
        elif not said:
            said.append("the camera is unsure of this reading: check the photo, set each die, then enter them")
        text = "; ".join(said)
        return text[0].upper() + text[1:]

    def _places(self, dice: frozenset[int]) -> str:
        """" (top left, bottom)": where the dice lie, for up to three of them among more;
        " (marked ? on the photo)" for more."""
        boxes = self.reading.boxes
        if len(boxes) < 3 or not dice or any(i >= len(boxes) for i in dice):
            return ""
        if len(dice) > 3:
            return " (marked ? on the photo)"
        return " (" + self._places_of([boxes[i] for i in sorted(dice)]) + ")"

    def _places_of(self, boxes: Sequence[Sequence[int]]) -> str:
        """"top left, bottom": where `boxes` lie among every box the reading has."""
        return ", ".join(place(b, self.reading.boxes + self.reading.suspects) for b in boxes)

    def boxes_for(self, values: Sequence[Any]) -> tuple[tuple[int, ...], ...]:
        """The held boxes for the host's fix of it: kept when the fix has as many dice; when
        it adds the missing ones (after those read, as the panel lists them), with the boxes
        of the places they were seen, as far as those go."""
        boxes = self.reading.boxes
        if len(boxes) != len(self.values):
            return ()
        if len(values) == len(boxes):
            return boxes
        if self.missing and len(values) == len(boxes) + self.missing:
            return boxes + self.reading.suspects[:self.missing]
        return ()


class RevealPhotos:
    """The last `limit` photos of the dice, which of them are public, and the reveal photo."""

    def __init__(self, limit: int = 12):
        self._photos: dict[int, bytes] = {}
        self._shown: set[int] = set()  # of readings that came in force: public
        self._ids = itertools.count(1)
        self._limit = limit
        self._reveal: dict[str, Any] | None = None

    def keep(self, photo: bytes | None) -> int | None:
        """Keep a reading's photo (not public yet); its id, or None without a photo."""
        if photo is None:
            return None
        photo_id = next(self._ids)
        self._photos[photo_id] = photo
        while len(self._photos) > self._limit:
            oldest = min(self._photos)
            del self._photos[oldest]
            self._shown.discard(oldest)
        return photo_id

    def applied(self, index: int, photo_id: int | None, reading: OfferedReading) -> None:
        """The reading at record `index` is in force: its photo is public and the reveal photo."""
        if photo_id is not None:
            self._shown.add(photo_id)
        self._reveal = None if photo_id is None else {
            "id": photo_id,
            "event": index,
            "dice": [{"value": v, "box": reading.box(i), "confidence": reading.confidence(i)}
                     for i, v in enumerate(reading.values)],
        }

    def forget_reveal(self) -> None:
        """A new game: no reveal photo until its first reading."""
        self._reveal = None

    def photo(self, photo_id: int, *, held_too: bool = False) -> bytes | None:
        """A kept photo, once its reading is in force (`held_too`: a held reading's too)."""
        if not held_too and photo_id not in self._shown:
            return None
        return self._photos.get(photo_id)

    def in_force(self, session: Session) -> dict[str, Any] | None:
        """The reveal photo, only while its reading is the latest one in force (not undone,
        not followed by a typed-in reading), with the dice as amended since."""
        photo = self._reveal
        if photo is None:
            return None
        readings = [(i, e) for i, e in session.live_events() if isinstance(e, DiceObserved)]
        if not readings or readings[-1][0] != photo["event"]:
            return None
        values = readings[-1][1].values
        if len(values) != len(photo["dice"]):
            return photo
        return dict(photo, dice=[dict(d, value=v) for d, v in zip(photo["dice"], values)])

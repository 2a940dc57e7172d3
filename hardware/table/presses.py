"""What a player pressed, as a value the session can queue and fold."""

from __future__ import annotations

import enum
from dataclasses import dataclass


class ButtonKind(enum.Enum):
    """The four kinds of button on the table.

    GREEN and YELLOW sit under each player's hand (believe / doubt, Val / Des, and on
    your own turn in a bidding game YELLOW is your "Liar!"). REVEAL and LIAR are shared.
    """

    GREEN = "green"
    YELLOW = "yellow"
    REVEAL = "reveal"
    LIAR = "liar"

    @property
    def is_shared(self) -> bool:
        """Shared buttons belong to no seat."""
        return self in (ButtonKind.REVEAL, ButtonKind.LIAR)


@dataclass(frozen=True)
class Press:
    """One accepted (debounced, enabled) press.

    `seat` is the seat index the rules engine uses (0 for the first `[[gpio.seats]]`
    entry, up to 5), None for shared buttons; `button.value` is the engine's button name.
    What a press means (a ChipCall, a Challenge, nothing) is the session's decision.
    """

    seat: int | None
    button: ButtonKind

    def __post_init__(self) -> None:
        if self.button.is_shared != (self.seat is None):
            raise ValueError(f"{self.button.value} press needs seat={'None' if self.button.is_shared else 'a seat number'}")

    def __str__(self) -> str:
        return self.button.value if self.seat is None else f"seat {self.seat + 1} {self.button.value}"  # people count from 1

"""Trickster's Tavern events: the loser's discard and the host's ability actions.

Registered for game records when the game module imports this one.
"""

from __future__ import annotations

from companion.rules.events import Event, event


@event("discard")
class Discard(Event):
    """The loser's pick of the die to lose, or a hand cut to six: die sizes to drop.

    No sizes named = the default, the smallest die (or dice): the loser's green button.
    """

    seat: int
    dice: tuple[int, ...] = ()


@event("upgrade_die")
class UpgradeDie(Event):
    """Host action (an ability): one of `seat`'s d`size` becomes `steps` sizes larger."""

    seat: int
    size: int
    steps: int = 1


@event("downgrade_die")
class DowngradeDie(Event):
    """Host action: one of `seat`'s d`size` becomes `steps` sizes smaller (below a d2: lost)."""

    seat: int
    size: int
    steps: int = 1


@event("add_die")
class AddDie(Event):
    """Host action: `seat` takes a new d`size` into their hand."""

    seat: int
    size: int


@event("remove_die")
class RemoveDie(Event):
    """Host action: `seat` loses one d`size` from their hand."""

    seat: int
    size: int


@event("wild_face")
class WildFace(Event):
    """Host action: `face` counts as a wildcard this round, on `seat`'s dice (None: everyone's),
    on dice of `size` only (None: every size that has the face)."""

    face: int
    seat: int | None = None
    size: int | None = None


HOST_ACTIONS = (UpgradeDie, DowngradeDie, AddDie, RemoveDie, WildFace)

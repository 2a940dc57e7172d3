"""A game in progress: an append-only record and the state it folds to.

Pure: no I/O, no clock, no threads. A session is a value: every change returns a new
session and leaves the old one as it was, so the table service (`companion.table`), which
wraps it with storage and listeners, keeps the old value when the store refuses the new
one. Every change is all-or-nothing: the rules accept the event or nothing is returned.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from companion.rules import (
    Amend,
    BadRecord,
    EndGame,
    Event,
    GameRecord,
    IllegalAction,
    Prompt,
    Slate,
    Undo,
    effective_events,
    get_game,
    replay,
)
from companion.rules.game import Game, GameState


@dataclass(frozen=True)
class Session:
    """One game: its record, the state it folds to, and the changes the table may make.

    Build one with `Session.new` (a new game) or `Session.of` (a stored record); the
    changes (`submitted`, `undone`, `amended`, `ended`) return the next session.
    """

    record: GameRecord
    state: GameState
    game: Game = field(compare=False, repr=False)

    @classmethod
    def of(cls, record: GameRecord) -> "Session":
        """The session a record folds to; BadRecord for a record that does not replay."""
        return cls(record, replay(record), get_game(record.game))

    @classmethod
    def new(cls, game: str, players: Sequence[str], options: Mapping[str, Any] | None = None,
            meta: Mapping[str, Any] | None = None) -> "Session":
        """Start a game; IllegalAction for bad players or options (nothing is created)."""
        rules = get_game(game)
        start = rules.start(players, options)  # validates and resolves defaults
        record = GameRecord(game=rules.name, players=start.players, options=dict(start.options), meta=dict(meta or {}))
        return cls.of(record)

    # --- what the table sees --------------------------------------------------------

    @property
    def finished(self) -> bool:
        return self.state.finished

    @property
    def last_event(self) -> Event:
        """The event the latest change appended (the one the table stores)."""
        return self.record.events[-1]

    def prompt(self) -> Prompt:
        return self.game.prompt(self.state)

    def slate(self) -> Slate:
        return self.game.slate(self.state)

    def live_events(self) -> list[tuple[int, Event]]:
        """The events in force (after undo/amend) with their record index."""
        return effective_events(self.record.events)

    # --- changes: each returns the next session ---------------------------------------

    def submitted(self, event: Event) -> "Session":
        """The session after a game event; IllegalAction when the rules refuse it."""
        if isinstance(event, (Undo, Amend, EndGame)):
            raise IllegalAction("corrections", "use undo, amend or end for host corrections")
        return Session(self.record.appended(event), self.game.apply(self.state, event), self.game)

    def undone(self) -> "Session":
        """The session with the latest game event in force taken back."""
        if not self.live_events():
            raise IllegalAction("undo", "there is nothing to undo")
        return self._corrected(Undo())

    def amended(self, target: int, event: Event) -> "Session":
        """The session with the event at record index `target` replaced (a misread die, a
        mistyped bid)."""
        return self._corrected(Amend(target=target, event=event))

    def ended(self, reason: str = "ended by the host") -> "Session":
        if self.state.finished:
            raise IllegalAction("game over", "the game is already over")
        return self._corrected(EndGame(reason=reason))

    def _corrected(self, correction: Event) -> "Session":
        candidate = self.record.appended(correction)
        try:
            state = replay(candidate)
        except BadRecord as exc:
            raise IllegalAction("corrections", f"that correction does not fit the game: {exc.reason}") from None
        return Session(candidate, state, self.game)

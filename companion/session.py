"""A game in progress: an append-only record and the state it folds to.

Pure: no I/O, no clock, no threads. The table service (`companion.table`) wraps it
with storage and listeners. Every change is all-or-nothing: the new state is computed
first and the record grows only when the rules accept the event.
"""

from __future__ import annotations

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
from companion.rules.game import GameState


class Session:
    """One game: its record, its state, and the operations the table may perform."""

    def __init__(self, record: GameRecord):
        self.game = get_game(record.game)
        self._record = record
        self._state = replay(record)  # BadRecord for a record that does not replay

    @classmethod
    def new(cls, game: str, players: Sequence[str], options: Mapping[str, Any] | None = None,
            meta: Mapping[str, Any] | None = None) -> "Session":
        """Start a game; IllegalAction for bad players or options (nothing is created)."""
        rules = get_game(game)
        start = rules.start(players, options)  # validates and resolves defaults
        record = GameRecord(game=rules.name, players=start.players, options=dict(start.options), meta=dict(meta or {}))
        return cls(record)

    # --- what the table sees --------------------------------------------------------

    @property
    def record(self) -> GameRecord:
        return self._record

    @property
    def state(self) -> GameState:
        return self._state

    @property
    def finished(self) -> bool:
        return self._state.finished

    def prompt(self) -> Prompt:
        return self.game.prompt(self._state)

    def slate(self) -> Slate:
        return self.game.slate(self._state)

    def live_events(self) -> list[tuple[int, Event]]:
        """The events in force (after undo/amend) with their record index."""
        return effective_events(self._record.events)

    # --- changes ----------------------------------------------------------------------

    def submit(self, event: Event) -> Event:
        """Apply a game event; IllegalAction leaves everything unchanged."""
        if isinstance(event, (Undo, Amend, EndGame)):
            raise IllegalAction("corrections", "use undo, amend or end for host corrections")
        self._state = self.game.apply(self._state, event)
        self._record = self._record.appended(event)
        return event

    def undo(self) -> Event:
        """Take back the latest game event in force."""
        if not self.live_events():
            raise IllegalAction("undo", "there is nothing to undo")
        return self._correct(Undo())

    def amend(self, target: int, event: Event) -> Event:
        """Replace the event at record index `target` (a misread die, a mistyped bid)."""
        return self._correct(Amend(target=target, event=event))

    def end(self, reason: str = "ended by the host") -> Event:
        if self._state.finished:
            raise IllegalAction("game over", "the game is already over")
        return self._correct(EndGame(reason=reason))

    def _correct(self, correction: Event) -> Event:
        candidate = self._record.appended(correction)
        try:
            state = replay(candidate)
        except BadRecord as exc:
            raise IllegalAction("corrections", f"that correction does not fit the game: {exc.reason}") from None
        self._record, self._state = candidate, state
        return correction

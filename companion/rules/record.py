"""The game record: players, game, options and the event list, as versioned JSON.

This is the project's PGN: what the service stores, exports and imports. Replaying a
record rebuilds the identical state. The event list is append-only; host corrections
(`undo`, `amend`) are events of their own, resolved here into the effective list the
game folds.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from typing import Any, Mapping, Sequence

from companion.rules.errors import BadRecord, IllegalAction, UnknownGame
from companion.rules.events import HIDDEN, Amend, EndGame, Event, Undo, from_dict
from companion.rules.game import Game, GameState
from companion.rules.registry import get_game

FORMAT = "game-table-companion/record"
VERSION = 1


@dataclass(frozen=True)
class GameRecord:
    game: str
    players: tuple[str, ...]
    options: Mapping[str, Any] = field(default_factory=dict)
    events: tuple[Event, ...] = ()
    meta: Mapping[str, Any] = field(default_factory=dict)

    def appended(self, event: Event) -> "GameRecord":
        return replace(self, events=self.events + (event,))

    # --- JSON ---------------------------------------------------------------------

    def to_dict(self, *, public: bool = False) -> dict[str, Any]:
        """The record as JSON data. `public=True` hides secret events not yet revealed."""
        pending = pending_secrets(self.events) if public else set()
        return {
            "format": FORMAT,
            "version": VERSION,
            "game": self.game,
            "players": list(self.players),
            "options": dict(self.options),
            "meta": dict(self.meta),
            "events": [e.redacted() if i in pending else e.to_dict() for i, e in enumerate(self.events)],
        }

    def to_json(self, *, public: bool = False, indent: int | None = 2) -> str:
        return json.dumps(self.to_dict(public=public), indent=indent)

    @classmethod
    def from_dict(cls, data: Any) -> "GameRecord":
        if not isinstance(data, dict):
            raise BadRecord("a game record must be a JSON object")
        if data.get("format", FORMAT) != FORMAT:
            raise BadRecord(f"not a game record (format {data.get('format')!r})", field="format")
        version = data.get("version")
        if not isinstance(version, int) or isinstance(version, bool):
            raise BadRecord("missing or non-numeric version", field="version")
        if version > VERSION:
            raise BadRecord(f"record version {version} is newer than this companion reads ({VERSION}); upgrade the companion", field="version")
        if version < 1:
            raise BadRecord(f"unknown record version {version}", field="version")
        game = data.get("game")
        if not isinstance(game, str):
            raise BadRecord("missing game name", field="game")
        try:
            get_game(game)  # registers the game's own event kinds before they are parsed
        except UnknownGame as exc:
            raise BadRecord(str(exc), field="game") from None
        players = data.get("players")
        if not isinstance(players, list) or not all(isinstance(p, str) for p in players):
            raise BadRecord("players must be a list of names", field="players")
        options = data.get("options", {})
        if not isinstance(options, dict):
            raise BadRecord("options must be an object", field="options")
        meta = data.get("meta", {})
        if not isinstance(meta, dict):
            raise BadRecord("meta must be an object", field="meta")
        raw_events = data.get("events", [])
        if not isinstance(raw_events, list):
            raise BadRecord("events must be a list", field="events")
        try:
            events = tuple(from_dict(e, index=i, hidden_ok=True) for i, e in enumerate(raw_events))
        except RecursionError:  # an amend of an amend of ... hundreds deep, which JSON allows
            raise BadRecord("not a readable record: an event is nested too deeply") from None
        _check_hidden(events)
        return cls(game=game, players=tuple(players), options=options, events=events, meta=meta)

    @classmethod
    def from_json(cls, text: str) -> "GameRecord":
        """The record in `text`; BadRecord for anything that is not one.

        A record comes from a file anyone can hand the host, so JSON that Python will
        not read is refused like broken JSON: arrays nested thousands deep make json.loads
        raise RecursionError, and a number of thousands of digits a plain ValueError
        (Python's limit on turning long digit strings into integers).
        """
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise BadRecord(f"not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})") from None
        except RecursionError:
            raise BadRecord("not a readable record: its JSON is nested too deeply") from None
        except ValueError:
            raise BadRecord("not a readable record: a number in it has too many digits") from None
        return cls.from_dict(data)


def effective_events(events: Sequence[Event]) -> list[tuple[int, Event]]:
    """The game events in force, as (record index, event), after undo and amend.

    An `amend` replaces the event at its target (which must be a game event still in
    force); an `undo` takes back the latest game event still in force; `end_game` is
    kept (it ends the game). Raises BadRecord for a correction that points nowhere.
    """
    live: list[tuple[int, Event]] = []
    for index, ev in enumerate(events):
        if isinstance(ev, Undo):
            if not live:
                raise BadRecord("undo with nothing to take back", index=index)
            live.pop()
        elif isinstance(ev, Amend):
            slot = next((k for k, (i, _) in enumerate(live) if i == ev.target), None)
            if slot is None:
                raise BadRecord(f"amend points at event {ev.target}, which is not in force", index=index, field="target")
            if isinstance(ev.event, (Undo, Amend, EndGame)):
                raise BadRecord("an amend must replace a game event", index=index, field="event")
            if type(ev.event) is not type(live[slot][1]):
                raise BadRecord(
                    f"amend replaces a {live[slot][1].kind!r} with a {ev.event.kind!r}", index=index, field="event"
                )
            live[slot] = (ev.target, ev.event)
        else:
            live.append((index, ev))
    return live


def pending_secrets(events: Sequence[Event]) -> set[int]:
    """Record indexes of secret events (chip calls) that no reveal has uncovered.

    A secret stays hidden until a reveal in force follows it. A secret taken back
    (undone) before a reveal counted it is never shown, nor is one replaced before the
    reveal (the same seat called again: only the call in force at the reveal was part of
    the game, issue 66), and an amend of a secret is as hidden as its target.
    """
    try:
        live = effective_events(events)
    except BadRecord:
        live = list(enumerate(events))
    in_force = {index for index, _ in live}
    pending: set[int] = set()
    replaced: set[int] = set()  # hidden for good
    latest: dict[tuple[str, object], int] = {}  # since the last reveal: each seat's call
    for index, ev in live:
        if ev.reveals:
            pending.clear()
            latest.clear()
        elif ev.secret:
            key = (ev.kind, getattr(ev, "seat", None))
            if key in latest:
                replaced.add(latest[key])
                pending.discard(latest[key])
            latest[key] = index
            pending.add(index)
    hidden = pending | replaced
    for index, ev in enumerate(events):
        if not ev.secret:
            continue
        if isinstance(ev, Amend):
            if ev.target in hidden or ev.target not in in_force:
                hidden.add(index)
        elif index not in in_force:
            hidden.add(index)
    return hidden


def _hidden(ev: Event) -> bool:
    """Whether the event (or the one an amend puts in) carries a secret a public export hid."""
    if isinstance(ev, Amend):
        return _hidden(ev.event)
    return ev.secret and any(getattr(ev, name) == HIDDEN for name in ev.hidden_fields)


def _check_hidden(events: Sequence[Event]) -> None:
    """A public export hides only calls that no reveal counted (taken back before one, or
    left pending when the game was ended): such a record replays to the same slate, since
    their colours never counted. A hidden call that a reveal would count is refused: the
    record cannot say what that reveal scored."""
    pending = pending_secrets(events)
    for index, ev in enumerate(events):
        if _hidden(ev) and index not in pending:
            raise BadRecord("a hidden call is counted by a later reveal: only the table's own record "
                            "can be replayed through that reveal", index=index)


def fold(game: Game, start: GameState, events: Sequence[tuple[int, Event]]) -> GameState:
    """Apply events in order; an illegal one becomes BadRecord naming its record index."""
    state = start
    for index, ev in events:
        if isinstance(ev, EndGame):
            state = replace(state, finished=True, history=state.history + (f"Game ended: {ev.reason}",))
            continue
        try:
            state = game.apply(state, ev)
        except IllegalAction as exc:
            raise BadRecord(f"{ev.kind} refused: {exc.message}", index=index) from None
    return state


def replay(record: GameRecord) -> GameState:
    """The state a record leads to. Raises BadRecord (with the event index) or UnknownGame."""
    game = get_game(record.game)
    try:
        start = game.start(record.players, record.options)
    except IllegalAction as exc:
        raise BadRecord(str(exc), field="options" if exc.rule == "options" else "players") from None
    return fold(game, start, effective_events(record.events))

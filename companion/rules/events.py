"""Events: everything that can happen at the table, as frozen value objects.

A dice roll is an event like any other (OpenSpiel's chance action): the rules never
care whether it came from the camera, the host's keyboard, a seeded simulator or a
test literal. Each event class has a `kind` used in game records; `to_dict`/`from_dict`
round-trip it, and `from_dict` names the field that is wrong.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from dataclasses import dataclass
from typing import Any, ClassVar

from companion.rules.errors import BadRecord

_KINDS: dict[str, type["Event"]] = {}


def event(kind: str):
    """Class decorator: a frozen dataclass registered under `kind` for records."""

    def wrap(cls):
        cls = dataclass(frozen=True)(cls)
        if kind in _KINDS and _KINDS[kind] is not cls:
            raise ValueError(f"event kind {kind!r} registered twice")
        cls.kind = kind
        _KINDS[kind] = cls
        return cls

    return wrap


class Event:
    """Base of all events. Subclasses are made with `@event("kind")`."""

    kind: ClassVar[str] = ""
    #: The content must not be shown before the next reveal (a chip call).
    secret: ClassVar[bool] = False
    #: This event is the reveal that uncovers earlier secret events.
    reveals: ClassVar[bool] = False

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind}
        for f in dataclasses.fields(self):
            out[f.name] = _plain(getattr(self, f.name))
        return out

    def redacted(self) -> dict[str, Any]:
        """The public form of a secret event: who acted, not what they chose."""
        out = self.to_dict()
        for name in getattr(self, "hidden_fields", ()):
            out[name] = HIDDEN
        return out


def _plain(value: Any) -> Any:
    if isinstance(value, Event):
        return value.to_dict()
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    return value


def kinds() -> dict[str, type[Event]]:
    return dict(_KINDS)


#: What a public export writes in place of a secret field not revealed (Event.redacted).
HIDDEN = "hidden"


def from_dict(data: Any, *, index: int | None = None, hidden_ok: bool = False) -> Event:
    """Build an event from its record form, or raise BadRecord naming the field.

    `hidden_ok`: a secret field may read HIDDEN, as a public export writes a call that no
    reveal uncovered (GameRecord.from_dict checks that none is ever counted). An event
    typed in by the host never may."""
    if not isinstance(data, dict):
        raise BadRecord(f"an event must be a JSON object, got {type(data).__name__}", index=index)
    kind = data.get("kind")
    if not isinstance(kind, str):
        raise BadRecord("missing or non-text event kind", index=index, field="kind")
    cls = _KINDS.get(kind)
    if cls is None:
        raise BadRecord(f"unknown event kind {kind!r}", index=index, field="kind")
    hints = typing.get_type_hints(cls)
    values: dict[str, Any] = {}
    names = set()
    for f in dataclasses.fields(cls):
        names.add(f.name)
        if f.name not in data:
            if f.default is not dataclasses.MISSING or f.default_factory is not dataclasses.MISSING:
                continue
            raise BadRecord("missing", index=index, field=f.name)
        if hidden_ok and cls.secret and f.name in getattr(cls, "hidden_fields", ()) and data[f.name] == HIDDEN:
            values[f.name] = HIDDEN
            continue
        values[f.name] = _coerce(data[f.name], hints[f.name], index=index, field=f.name, hidden_ok=hidden_ok)
    extra = set(data) - names - {"kind", "at", "note"}
    if extra:
        raise BadRecord(f"unexpected field for {kind!r}", index=index, field=sorted(extra)[0])
    try:
        return cls(**values)
    except (TypeError, ValueError) as exc:
        raise BadRecord(str(exc), index=index) from None


def _coerce(value: Any, hint: Any, *, index: int | None, field: str, hidden_ok: bool = False) -> Any:
    """Check `value` against a simple type hint; lists become tuples."""
    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    if hint is Any:
        return _freeze(value)
    if origin in (typing.Union, types.UnionType):
        for option in args:
            try:
                return _coerce(value, option, index=index, field=field)
            except BadRecord:
                continue
        raise BadRecord(f"expected {_name(hint)}, got {value!r}", index=index, field=field)
    if hint is type(None):
        if value is None:
            return None
    elif hint is bool:
        if isinstance(value, bool):
            return value
    elif hint is int:
        if isinstance(value, int) and not isinstance(value, bool):
            return value
    elif hint is str:
        if isinstance(value, str):
            return value
    elif origin is typing.Literal:
        if value in args:
            return value
    elif origin is tuple:
        if isinstance(value, list | tuple):
            if len(args) == 2 and args[1] is Ellipsis:
                return tuple(_coerce(v, args[0], index=index, field=field) for v in value)
            if len(args) == len(value):
                return tuple(_coerce(v, a, index=index, field=field) for v, a in zip(value, args))
    elif isinstance(hint, type) and issubclass(hint, Event):
        return from_dict(value, index=index, hidden_ok=hidden_ok)
    raise BadRecord(f"expected {_name(hint)}, got {value!r}", index=index, field=field)


def _freeze(value: Any) -> Any:
    if isinstance(value, list):
        return tuple(_freeze(v) for v in value)
    return value


def _name(hint: Any) -> str:
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        return " or ".join(_name(a) for a in typing.get_args(hint))
    if origin is typing.Literal:
        return " or ".join(repr(a) for a in typing.get_args(hint))
    if origin is tuple:
        return "a list"
    if hint is type(None):
        return "null"
    return {int: "an integer", str: "text", bool: "true/false"}.get(hint, getattr(hint, "__name__", str(hint)))


Face = int | str


# --- events shared by several games -------------------------------------------------


@event("dice")
class DiceObserved(Event):
    """The top faces of the dice in play, read by the camera or typed in.

    `seat` is whose throw it is where that matters (Gyvahrs); `source` says where the
    reading came from ("camera", "manual", "simulated") and never changes the rules.
    """

    values: tuple[Face, ...]
    seat: int | None = None
    source: str = "manual"

    reveals: ClassVar[bool] = True


@event("declaration")
class Declaration(Event):
    """Tregald: "I have `count` `face`" (a colour, or a spike face 1..6)."""

    seat: int
    count: int
    face: Face


@event("chip_call")
class ChipCall(Event):
    """Tregald: a secret chip, green = believes the declaration, yellow = doubts it."""

    seat: int
    chip: typing.Literal["green", "yellow"]

    secret: ClassVar[bool] = True
    hidden_fields: ClassVar[tuple[str, ...]] = ("chip",)


@event("colour_call")
class ColourCall(Event):
    """Val-Des: an open call of Val (red) or Des (blue)."""

    seat: int
    colour: typing.Literal["red", "blue"]


@event("stake")
class Stake(Event):
    """Gyvahrs: the caster sets the stake every player pays into the pot."""

    seat: int
    amount: int


@event("bid")
class Bid(Event):
    """A liar's-dice bid: at least `quantity` dice show `face`.

    In Leira's Dice end game (two players, one die each) `face` is None and
    `quantity` is the claimed total of both dice.
    """

    seat: int
    quantity: int
    face: int | None = None


@event("challenge")
class Challenge(Event):
    """"Liar!": the seat challenges the previous bid."""

    seat: int


# --- record-level events: host corrections, kept in the record as events ----------


@event("undo")
class Undo(Event):
    """The host takes back the latest game event still in force."""


@event("amend")
class Amend(Event):
    """The host replaces the event at `target` (e.g. a misread die) and the game is replayed."""

    target: int
    event: Event

    @property
    def secret(self) -> bool:  # type: ignore[override]
        """An amended chip call is as secret as the call it replaces."""
        return self.event.secret

    def redacted(self) -> dict[str, Any]:
        return {"kind": self.kind, "target": self.target, "event": self.event.redacted()}


@event("end_game")
class EndGame(Event):
    """The host ends the game early; the slate stays as it was."""

    reason: str = "ended by the host"


RECORD_LEVEL = (Undo, Amend, EndGame)

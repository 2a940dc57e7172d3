"""Typed errors with messages a player (or the host) can read."""

from __future__ import annotations


class RulesError(Exception):
    """Base of every error the referee raises."""


class IllegalAction(RulesError):
    """An event the rules forbid right now. `rule` names the rule that was broken.

    The state is never changed by a refused event: `apply` either returns a whole new
    state or raises this.
    """

    def __init__(self, rule: str, message: str):
        super().__init__(message)
        self.rule = rule
        self.message = message

    def __str__(self) -> str:
        return f"{self.message} [{self.rule}]"


class UnknownGame(RulesError):
    """No game is registered under that name or alias."""


class BadRecord(RulesError):
    """A game record that cannot be read or replayed.

    `index` is the position of the offending event in the record's event list (None
    when the problem is in the header), `field` the key that is wrong.
    """

    def __init__(self, message: str, *, index: int | None = None, field: str | None = None):
        where = []
        if index is not None:
            where.append(f"event {index}")
        if field is not None:
            where.append(f"field {field!r}")
        prefix = ", ".join(where)
        super().__init__(f"{prefix}: {message}" if prefix else message)
        self.index = index
        self.field = field
        self.reason = message

"""Trickster's Tavern class cards: the one-line card notation and the class file format.

The rule text has no class cards, so the companion ships its own
(companion/data/classes.toml) and reads more from a user's file. Everything here
takes TEXT; reading files is the caller's business (the rules stay free of I/O).

A card on one line (how a game record stores it, so a record never depends on a
file): ``Name (hand)`` or ``Name (hand): ability text``, e.g.
``Gambler (3d6+1d20): once per game ...``.

A class file is TOML with one ``[[class]]`` table per card::

    [[class]]
    name = "Gambler"
    hand = "3d6+1d20"
    ability = "Manual, once per game: ..."
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass

from companion.rules.errors import RulesError
from companion.rules.polyhedral import BadNotation, hand_text, parse_hand

_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9 '\-]{0,39}$")
_CARD = re.compile(r"^\s*([^():]+?)\s*\(([^()]*)\)\s*(?::\s*(.*))?$", re.S)
_KEYS = ("name", "hand", "ability")


class BadClassFile(RulesError):
    """A class card or class file that cannot be used, with a message saying why."""


@dataclass(frozen=True)
class ClassCard:
    """A Trickster's Tavern class: its name, starting hand (die sizes) and ability text.

    The engine does not run abilities: the host carries them out with the host actions
    (upgrade/downgrade/add/remove a die, declare a face wild), which the engine checks.
    """

    name: str
    hand: tuple[int, ...]
    ability: str = ""

    @property
    def line(self) -> str:
        """The one-line card, e.g. "Commoner (5d6)"."""
        base = f"{self.name} ({hand_text(self.hand)})"
        return f"{base}: {self.ability}" if self.ability else base


def make_card(name: object, hand: object, ability: object = "") -> ClassCard:
    if not isinstance(name, str) or not _NAME.match(name.strip()):
        raise BadClassFile(f"class name {name!r} must be 1-40 letters, digits, spaces, hyphens or apostrophes")
    if not isinstance(ability, str):
        raise BadClassFile(f"class {name}: the ability must be text")
    try:
        sizes = parse_hand(hand) if isinstance(hand, str) else parse_hand("")
    except BadNotation as exc:
        raise BadClassFile(f"class {name.strip()}: {exc}") from None
    return ClassCard(name.strip(), sizes, " ".join(ability.split()))


def parse_card(text: str) -> ClassCard:
    """One card from its one-line form ("Brute (2d8+2d6): ...")."""
    match = _CARD.match(text) if isinstance(text, str) else None
    if not match:
        raise BadClassFile(f"{text!r} is not a class card; write it as Name (dice), e.g. Brute (2d8+2d6)")
    return make_card(match.group(1), match.group(2), match.group(3) or "")


def parse_classes(text: str) -> tuple[ClassCard, ...]:
    """The cards in a class file's TEXT (TOML, one [[class]] table each)."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise BadClassFile(f"the class file is not valid TOML: {exc}") from None
    unknown = sorted(set(data) - {"class"})
    if unknown:
        raise BadClassFile(f"the class file has an unknown section {unknown[0]!r}; write each class as [[class]]")
    tables = data.get("class", [])
    if not isinstance(tables, list) or not all(isinstance(t, dict) for t in tables):
        raise BadClassFile("write each class as its own [[class]] table")
    cards: list[ClassCard] = []
    for number, table in enumerate(tables, start=1):
        extra = sorted(set(table) - set(_KEYS))
        if extra:
            raise BadClassFile(f"class {number} in the file has an unknown key {extra[0]!r} (keys: {', '.join(_KEYS)})")
        for key in ("name", "hand"):
            if key not in table:
                raise BadClassFile(f"class {number} in the file has no {key!r}")
        card = make_card(table["name"], table["hand"], table.get("ability", ""))
        if any(c.name.casefold() == card.name.casefold() for c in cards):
            raise BadClassFile(f"the class file names {card.name!r} twice")
        cards.append(card)
    return tuple(cards)


def find_card(wanted: str, catalogue: tuple[ClassCard, ...]) -> ClassCard:
    """A card by name (any case) from the catalogue, or an inline one-line card."""
    if not isinstance(wanted, str):
        raise BadClassFile(f"a class must be a name or a card like 'Brute (2d8+2d6)'; got {wanted!r}")
    if "(" in wanted:
        return parse_card(wanted)
    for card in catalogue:
        if card.name.casefold() == wanted.strip().casefold():
            return card
    names = ", ".join(c.name for c in catalogue)
    raise BadClassFile(f"there is no class called {wanted!r} (classes: {names})")


def merged(shipped: tuple[ClassCard, ...], extra: tuple[ClassCard, ...]) -> tuple[ClassCard, ...]:
    """The shipped cards plus a user's; a user's card with a shipped name replaces it."""
    names = {c.name.casefold() for c in extra}
    return tuple(c for c in shipped if c.name.casefold() not in names) + extra

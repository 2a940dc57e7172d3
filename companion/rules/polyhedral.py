"""Polyhedral dice for Trickster's Tavern: sizes, upgrades, score values, dice notation.

A die is named by its size (2, 4, 6, 8, 10, 12, 20). Its *face value* is the number
on top; its *score values* are what it counts as when a bid is checked (never more
than 6, or a wildcard that counts as every value).
"""

from __future__ import annotations

import re

from companion.rules.errors import RulesError

SIZES = (2, 4, 6, 8, 10, 12, 20)
WILDCARD = "*"
ScoreValue = int | str  # 1..6 or WILDCARD

_TERM = re.compile(r"^(\d*)\s*[dD]\s*(\d+)$")
MAX_HAND = 20  # a sanity bound for a starting hand written in notation


class BadNotation(RulesError):
    """Dice notation that cannot be read ("2d6+1d8" is fine, "2x6" is not)."""


def size_name(size: int) -> str:
    return f"d{size}"


def is_size(size: object) -> bool:
    return isinstance(size, int) and not isinstance(size, bool) and size in SIZES


def upgraded(size: int, steps: int) -> int:
    """The die `steps` sizes larger; past the d20 it stays a d20."""
    return SIZES[min(SIZES.index(size) + steps, len(SIZES) - 1)]


def downgraded(size: int, steps: int) -> int | None:
    """The die `steps` sizes smaller, or None when it would go below a d2 (the die is lost)."""
    index = SIZES.index(size) - steps
    return SIZES[index] if index >= 0 else None


def score_values(size: int, face: int, *, wild: bool = False) -> tuple[ScoreValue, ...]:
    """What a die showing `face` counts as when a bid is checked.

    d2: odd 1, even 2. d4, d6: the face. d8-d20: one 6 per whole six in the face plus
    one die of the remainder when there is one (7 -> 6,1; 12 -> 6,6); the rule text
    says "rounded" but its own table floors, and the table wins. d20: 1 counts as
    nothing and 20 as three wildcards. A face the host declared wild counts as one
    wildcard (a d20's 20 keeps its three).
    """
    if size == 20 and face == 20:
        return (WILDCARD,) * 3
    if wild:
        return (WILDCARD,)
    if size == 2:
        return (1,) if face % 2 else (2,)
    if size <= 6:
        return (face,)
    if size == 20 and face == 1:
        return ()
    sixes, rest = divmod(face, 6)
    return (6,) * sixes + ((rest,) if rest else ())


def most_of_one_value(size: int) -> int:
    """The most score values of one kind a die of this size can show (for bid caps)."""
    return {20: 3, 12: 2, 10: 2, 8: 2}.get(size, 1)


def counted(values: tuple[ScoreValue, ...], value: int) -> int:
    """How many of `values` count as `value` (wildcards count as every value)."""
    return sum(1 for v in values if v == value or v == WILDCARD)


def parse_hand(text: str) -> tuple[int, ...]:
    """Dice notation to die sizes, smallest first: "2d6+1d20" -> (6, 6, 20).

    Raises BadNotation with a message saying which part is wrong.
    """
    if not isinstance(text, str) or not text.strip():
        raise BadNotation("a starting hand must be written in dice notation, e.g. 5d6 or 2d6+1d8+1d20")
    sizes: list[int] = []
    for part in text.split("+"):
        term = part.strip()
        match = _TERM.match(term)
        if not match:
            raise BadNotation(f"{term or 'an empty part'!r} in {text!r} is not dice notation; write dice as NdX, e.g. 2d6+1d8")
        count = int(match.group(1)) if match.group(1) else 1
        size = int(match.group(2))
        if size not in SIZES:
            raise BadNotation(f"d{size} in {text!r} is not a Trickster's Tavern die (d2, d4, d6, d8, d10, d12, d20)")
        if count < 1:
            raise BadNotation(f"{term!r} in {text!r} has no dice; the count must be at least 1")
        sizes.extend([size] * count)
    if len(sizes) > MAX_HAND:
        raise BadNotation(f"{text!r} is {len(sizes)} dice; a starting hand holds at most {MAX_HAND}")
    return tuple(sorted(sizes))


def hand_text(sizes: tuple[int, ...]) -> str:
    """Die sizes back to notation, smallest die first: (6, 6, 20) -> "2d6+1d20"."""
    if not sizes:
        return "no dice"
    return "+".join(f"{sizes.count(s)}d{s}" for s in SIZES if s in sizes)

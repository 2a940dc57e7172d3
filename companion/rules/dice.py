"""Faces the referee understands: chance-cube colours and numbered faces."""

from __future__ import annotations

from typing import Union

RED = "red"
BLUE = "blue"
COLOURS = (RED, BLUE)

Face = Union[int, str]
"""A top face as read from the table: 1..N for numbered dice, "red"/"blue" for chance cubes."""


def is_colour(face: object) -> bool:
    return face in COLOURS


def is_pip(face: object, sides: int = 6) -> bool:
    return isinstance(face, int) and not isinstance(face, bool) and 1 <= face <= sides


def face_text(face: Face) -> str:
    """How a face is written on the slate: colours with a word (colour-blind players)."""
    if face == RED:
        return "red (Val)"
    if face == BLUE:
        return "blue (Des)"
    return str(face)

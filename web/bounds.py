"""What the host may send, checked where it comes in, and stored text shown safely.

Every route takes a body of at most `body_limit(path)` bytes. A player's name is plain text of at most `MAX_NAME` characters: no control characters
(a bell, a newline, a right-to-left override that turns the slate's line around) and
no lone surrogates. JSON may carry a lone surrogate ("\\ud800") that is no Unicode
character at all; stored, it could not be written out as UTF-8 and every page showing
it failed. So any text that is not Unicode is refused in a request or a record, and a
name stored before this check is shown with the bad part escaped (`Ann\\ud800`).
How many players a game takes is the game's own rule (`Game.max_players`).
"""

from __future__ import annotations

import json
import unicodedata
from typing import Any, Iterable

from markupsafe import Markup

#: The largest request body a route takes, in bytes: the PIN is a few digits, a game
#: record (/host/import) may be long, anything else is a small form or JSON object.
LOGIN_BODY = 4 * 1024
RECORD_BODY = 2 * 1024 * 1024
FORM_BODY = 64 * 1024
LARGEST_BODY = max(LOGIN_BODY, RECORD_BODY, FORM_BODY)

#: The longest player name, in characters: a slate line on a phone, a seat label.
MAX_NAME = 24
#: Unicode categories refused in a name: controls, lone surrogates, line and paragraph separators.
REFUSED_CATEGORIES = ("Cc", "Cs", "Zl", "Zp")
#: Bidirectional embeddings, overrides and isolates: they would reorder the slate's text.
BIDI_CONTROLS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


class BadInput(ValueError):
    """Text the table will not take; the message says what is wrong, for the host."""


def body_limit(path: str) -> int:
    """The largest body `path` takes. The HTTP server refuses a larger one before reading
    it (companion.appliance.http_guard); the app checks again for any other server."""
    if path == "/host/login":
        return LOGIN_BODY
    if path == "/host/import":
        return RECORD_BODY
    return FORM_BODY


def name_problem(name: str) -> str | None:
    """Why `name` cannot be a player's name, or None when it can."""
    for char in name:
        if unicodedata.category(char) in REFUSED_CATEGORIES or char in BIDI_CONTROLS:
            return f"has a control character ({char_code(char)}); write it as plain text"
    if len(name) > MAX_NAME:
        return f"is {len(name)} characters long; a name has at most {MAX_NAME}"
    return None


def check_names(names: Iterable[str]) -> None:
    """BadInput naming the first player whose name is not plain text of at most MAX_NAME."""
    for seat, name in enumerate(names):
        problem = name_problem(name)
        if problem is not None:
            raise BadInput(f"player {seat + 1}'s name {shown(name)!r} {problem}")


def check_unicode(data: Any) -> None:
    """BadInput when any text in `data` (JSON-like) holds a lone surrogate."""
    try:
        json.dumps(data, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        raise BadInput("the request holds text that is not valid Unicode (a lone surrogate such as \\ud800)") from None


def char_code(char: str) -> str:
    return f"U+{ord(char):04X}"


def shown(text: str) -> str:
    """`text` as it can be written out: a lone surrogate becomes its escape (`\\ud800`)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        escaped = text.encode("utf-8", "backslashreplace").decode("utf-8")
        return Markup(escaped) if isinstance(text, Markup) else escaped
    return text


def finalize(value: Any) -> Any:
    """Jinja's `finalize`: every value a page prints goes through `shown`."""
    return shown(value) if isinstance(value, str) else value

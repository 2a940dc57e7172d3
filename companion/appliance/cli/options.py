"""`--option NAME=VALUE` parsing shared by the commands that start games."""

from __future__ import annotations

import json
from typing import Any


def parse_options(pairs: list[str] | None) -> dict[str, Any]:
    """NAME=VALUE pairs; VALUE is read as JSON when it can be (3, true, ["a"]), else text."""
    out: dict[str, Any] = {}
    for pair in pairs or []:
        name, sep, raw = pair.partition("=")
        if not sep or not name:
            raise ValueError(f"option {pair!r} must look like NAME=VALUE")
        try:
            out[name.strip()] = json.loads(raw)
        except json.JSONDecodeError:
            out[name.strip()] = raw
    return out

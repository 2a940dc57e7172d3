"""Shared test set-up: the toy game (tests/toy_game.py) is registered for engine tests."""

from __future__ import annotations

import sys
from pathlib import Path

TESTS = Path(__file__).parent
if str(TESTS) not in sys.path:
    sys.path.insert(0, str(TESTS))

from companion.rules import registry  # noqa: E402

registry.register("toy", "toy_game")

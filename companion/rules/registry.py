"""Find a game by name or alias (python-chess's variant registry)."""

from __future__ import annotations

import importlib

from companion.rules.errors import UnknownGame
from companion.rules.game import Game

# canonical name -> module defining GAME
_MODULES = {
    "tregald": "companion.rules.tregald",
    "val-des": "companion.rules.val_des",
    "gyvahrs": "companion.rules.gyvahrs",
    "leiras-dice": "companion.rules.leiras_dice",
    "tricksters-tavern": "companion.rules.tricksters_tavern",
}


def _normalise(name: str) -> str:
    return name.strip().casefold().replace("_", "-").replace(" ", "-").replace("'", "")


def register(name: str, module: str) -> None:
    """Add a game module (defining GAME) under its canonical name."""
    _MODULES[name] = module


def all_games() -> list[Game]:
    return [importlib.import_module(m).GAME for m in _MODULES.values()]


def get_game(name: str) -> Game:
    """The game called `name` (its name, an alias, any case, _ or - or spaces)."""
    wanted = _normalise(name)
    if wanted in _MODULES:
        return importlib.import_module(_MODULES[wanted]).GAME
    for game in all_games():
        if wanted == game.name or wanted in (_normalise(a) for a in game.aliases):
            return game
    raise UnknownGame(f"no game called {name!r}; games: {', '.join(_MODULES)}")

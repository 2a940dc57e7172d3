"""Random play: a whole game with a seeded roller and players choosing random legal
actions (OpenSpiel's random playout). Randomness lives here, never in the rules."""

from __future__ import annotations

import random
from typing import Any, Callable, Mapping, Sequence

from companion.session import Session


class RunawayGame(RuntimeError):
    """A simulated game did not end within its event budget (a rules bug)."""


def simulate(game: str, players: Sequence[str], seed: int, options: Mapping[str, Any] | None = None,
             *, max_events: int = 20_000, watch: Callable[[Session], None] | None = None) -> Session:
    """Play a whole game; `watch(session)` (tests' invariant checks) runs after every event."""
    rng = random.Random(seed)
    session = Session.new(game, players, options, meta={"simulated": True, "seed": seed})
    rules = session.game
    for _ in range(max_events):
        if session.finished:
            return session
        if session.prompt().dice is not None:
            event = rules.sample_reading(session.state, rng)
        else:
            event = rng.choice(rules.legal_actions(session.state))
        session = session.submitted(event)
        if watch is not None:
            watch(session)
    if session.finished:
        return session
    raise RunawayGame(f"{rules.title} did not end within {max_events} events (seed {seed})")


def player_names(count: int) -> list[str]:
    names = ["Ann", "Ben", "Cara", "Dov", "Eli", "Fay", "Gus", "Hana", "Ivo", "Jo", "Kit", "Lev"]
    return [names[i] if i < len(names) else f"Player {i + 1}" for i in range(count)]

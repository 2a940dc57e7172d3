"""Statistics per player across games, for the slate's stats page.

Pure: each record is replayed and its game asked for its per-seat tally; players are
matched by name across games (the table's names, as typed on the host panel).
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping

from companion.rules import BadRecord, GameRecord, RulesError, get_game, replay

KEYS = ("games", "wins", "calls", "correct_calls", "bluffs", "bluffs_worked", "dice_lost")


def player_stats(entries: Iterable[tuple[GameRecord, Mapping[str, Any] | None]]) -> dict[str, dict[str, int]]:
    """{player name: {games, wins, calls, correct_calls, bluffs, bluffs_worked, dice_lost}}.

    A record that no longer replays (it should not happen) is skipped rather than
    breaking the page.
    """
    out: dict[str, dict[str, int]] = {}
    for record, _final in entries:
        try:
            game = get_game(record.game)
            state = replay(record)
        except (BadRecord, RulesError):
            continue
        counters = game.tally(state)
        for seat, name in enumerate(record.players):
            row = out.setdefault(name, dict.fromkeys(KEYS, 0))
            row["games"] += 1
            if state.finished and state.winner == seat:
                row["wins"] += 1
            for key, value in counters.get(seat, {}).items():
                if key in row:
                    row[key] += int(value)
    return out

"""Stored games as the history pages, the API and the downloads show them.

Everything here goes through the public form of a record (`to_dict(public=True)`),
so a chip call not yet revealed in the running game stays hidden everywhere.
"""

from __future__ import annotations

import csv
import io
import json
import logging
from typing import Any

from companion.history import ended_early
from companion.rules import BadRecord, GameRecord, RulesError, get_game

log = logging.getLogger("web.records")

CSV_FIELDS = ("index", "kind", "seat", "in_force", "details")


def game_summaries(table) -> list[dict[str, Any]]:
    """The history list, newest first."""
    games = list(table.store.list_games())
    games.reverse()
    for game in games:
        game["title"] = (game.get("slate") or {}).get("title") or game_title(game.get("game", ""))
        if game.get("id") == table.game_id and not game.get("finished"):
            game["current"] = True
        # a game with a winner was played out: only the others' records are read
        game["ended_early"] = bool(game.get("finished")) and not game.get("winner") and _ended_early(table, game["id"])
    return games


def _ended_early(table, game_id: str) -> bool:
    try:
        return ended_early(table.store.load(game_id))
    except (KeyError, LookupError, BadRecord):
        return False


def game_title(name: str) -> str:
    try:
        return get_game(name).title
    except RulesError:
        return name


def event_details(event: dict[str, Any]) -> str:
    """An event's fields other than kind and seat, in a short readable form."""
    rest = {k: v for k, v in event.items() if k not in ("kind", "seat", "index", "in_force", "correction")}
    return ", ".join(f"{k}={json.dumps(v) if not isinstance(v, str) else v}" for k, v in rest.items())


def record_csv(entry: dict[str, Any]) -> str:
    """The game's events as CSV: one line per event, corrections included."""
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(CSV_FIELDS)
    for event in entry["events"]:
        seat = event.get("seat")
        writer.writerow([event["index"], event["kind"], "" if seat is None else seat,
                         "correction" if event["correction"] else ("yes" if event["in_force"] else "no"),
                         event_details(event)])
    return out.getvalue()


def stats_entries(table, early: list[str] | None = None) -> list[tuple[GameRecord, dict[str, Any]]]:
    """Every game played to its end, with its final slate. The running game stays out
    (its unrevealed calls must not move anyone's numbers), and so does a game the host
    ended early: it was not played, and counting it would give its leader a win. Their
    ids go into `early` when given, for the page to say so."""
    entries = []
    for summary in table.store.list_games():
        if not summary.get("finished"):
            continue
        try:
            record = table.store.load(summary["id"])
        except (KeyError, LookupError):
            continue
        except BadRecord as exc:  # a damaged row: the other games still count
            log.warning("game %s is left out of the statistics: %s", summary["id"], exc)
            continue
        if ended_early(record):
            if early is not None:
                early.append(str(summary["id"]))
            continue
        entries.append((record, summary.get("slate")))
    return entries

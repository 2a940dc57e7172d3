"""Past games (`/games`), one game's turns and downloads, and player stats (`/stats`)."""

from __future__ import annotations

import calendar
import importlib
import json
import time
from typing import Any

from flask import Blueprint, Response, abort, render_template

from companion.history import ended_early
from companion.rules import BadRecord
from web.bounds import shown
from web.guard import csrf_token, is_host
from web.records import game_summaries, record_csv, stats_entries
from web.slate import companion

bp = Blueprint("history", __name__)

STAT_KEYS = ("games", "wins", "calls", "correct_calls", "bluffs", "bluffs_worked", "dice_lost")


def entry_or_404(game_id: str) -> dict[str, Any]:
    entry = companion()["table"].game_entry(game_id)
    if entry is None:
        abort(404, f"there is no game {game_id!r}")
    return entry


@bp.get("/games")
def games():
    host = is_host()
    return render_template("games.html", games=game_summaries(companion()["table"]), host=host,
                           csrf=csrf_token() if host else None)


@bp.get("/games/<game_id>")
def game(game_id: str):
    entry = entry_or_404(game_id)
    try:
        early = entry["summary"].get("finished") and ended_early(companion()["table"].store.load(entry["id"]))
    except (KeyError, LookupError, BadRecord):
        early = False
    return render_template("game.html", entry=dict(entry, ended_early=bool(early)))


@bp.get("/games/<game_id>.json")
def game_json(game_id: str):
    entry = entry_or_404(game_id)
    body = json.dumps(entry["record"], indent=2)
    return Response(body, mimetype="application/json",
                    headers={"Content-Disposition": f'attachment; filename="game-{entry["id"]}.json"'})


@bp.get("/games/<game_id>.csv")
def game_csv(game_id: str):
    entry = entry_or_404(game_id)
    return Response(shown(record_csv(entry)), mimetype="text/csv",
                    headers={"Content-Disposition": f'attachment; filename="game-{entry["id"]}.csv"'})


@bp.get("/stats")
def stats():
    early: list[str] = []
    rows, detailed = player_rows(stats_entries(companion()["table"], early))
    return render_template("stats.html", rows=rows, detailed=detailed, chart=chart(rows), early=early)


@bp.app_template_filter("local_time")
def local_time(stamp: Any) -> str:
    """A record's time stamp ("2026-11-26T01:29:07Z", UTC) in the table's own local time
    (the companion's clock and time zone: the room the table is in), as people read it;
    anything else as it is."""
    if not isinstance(stamp, str):
        return "" if stamp is None else str(stamp)
    try:
        moment = calendar.timegm(time.strptime(stamp, "%Y-%m-%dT%H:%M:%SZ"))
    except ValueError:
        return stamp
    return time.strftime("%a %d %b %Y, %H:%M", time.localtime(moment))


def player_rows(entries) -> tuple[list[dict[str, Any]], bool]:
    """Per player numbers, best first. The full set comes from `companion.stats`;
    without it, games played and wins are counted from the final slates."""
    try:
        player_stats = importlib.import_module("companion.stats").player_stats
    except (ImportError, AttributeError):
        player_stats = None
    if player_stats is not None:
        table = player_stats(entries)
        detailed = True
    else:
        table, detailed = {}, False
        for record, slate in entries:
            for name in record.players:
                row = table.setdefault(name, {"games": 0, "wins": 0})
                row["games"] += 1
                row["wins"] += int((slate or {}).get("winner") == name)
    rows = []
    for name, numbers in table.items():
        row = {"name": name, **{k: int(numbers.get(k, 0)) for k in STAT_KEYS}}
        row["accuracy"] = round(100 * row["correct_calls"] / row["calls"]) if row["calls"] else None
        rows.append(row)
    rows.sort(key=lambda r: (-r["wins"], -r["games"], r["name"].casefold()))
    return rows, detailed


def chart(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The bars, in percent of the track: games played and wins per player (of the most
    games anyone played), and the share of calls that were right. The names and numbers
    are page text, so they wrap and stay readable on a phone; only the bars are drawn."""
    top = max((r["games"] for r in rows), default=0) or 1
    bars = [{"name": row["name"], "games": row["games"], "wins": row["wins"], "accuracy": row["accuracy"],
             "games_pct": max(1, round(100 * row["games"] / top)), "wins_pct": round(100 * row["wins"] / top),
             "accuracy_pct": round(row["accuracy"] or 0)}
            for row in rows[:12]]
    return {"bars": bars}

"""The table's stored games as history: whether a record is one already stored, and
whether a game was ended early by the host rather than played out.

A record's identity is its content: the game, the players, the house rules, when it
started and its public events (what an exported record holds). Where and when it was
imported is not part of it, so the same record imported twice, or a game of this table
exported and imported back, is recognised.
"""

from __future__ import annotations

import hashlib
import json

from companion.rules import BadRecord, EndGame, GameRecord, effective_events
from companion.store import Store


def fingerprint(record: GameRecord) -> str:
    """A stable content hash of the record (sha256 of its canonical public JSON)."""
    public = record.to_dict(public=True)
    content = {"game": public["game"], "players": public["players"], "options": public["options"],
               "started": public["meta"].get("started"), "events": public["events"]}
    return hashlib.sha256(json.dumps(content, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def stored_as(store: Store, record: GameRecord) -> str | None:
    """The id of a stored game with the same content as `record`, or None. Only games of
    the same game, players and start are loaded to compare."""
    want = fingerprint(record)
    started = record.meta.get("started")
    for summary in store.list_games():
        if summary.get("game") != record.game or list(summary.get("players") or []) != list(record.players) \
                or summary.get("started") != started:
            continue
        try:
            if fingerprint(store.load(summary["id"])) == want:
                return str(summary["id"])
        except (KeyError, LookupError, BadRecord):
            continue
    return None


def ended_early(record: GameRecord) -> bool:
    """Whether the host ended the game (an `end_game` in force) before it was played out."""
    try:
        return any(isinstance(event, EndGame) for _, event in effective_events(record.events))
    except BadRecord:
        return False

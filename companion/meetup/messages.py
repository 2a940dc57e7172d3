"""What a table publishes to the meetup's broker, and how the leaderboard reads it.

Topics, all under `companion/tables/<table>/` (the broker's ACL lets a table write only
under its own name, docs/meetup.md):

    slate           retained: the table's public slate and prompt (what its slate shows)
    status          retained: {"state": "online"}; the broker's last will says "offline"
    games/<id>      QoS 1: a finished game's public record, under its stable id

Everything published is built from the table's public projection: the slate
(`Game.slate`, no chip colour before its reveal) and the public record (calls not yet
revealed are hidden), never the host's view, the devices or the PIN. The leaderboard
believes nothing it is sent: a game is counted only once its record replays with the
referee to a finished game (`read_game`), and anything else is `Refused` with a reason.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Mapping

from companion.history import ended_early
from companion.rules import GameRecord, RulesError, get_game, replay

PREFIX = "companion/tables"
GAME_FORMAT = "game-table-companion/meetup-game"
SLATE_FORMAT = "game-table-companion/meetup-slate"
VERSION = 1
#: The largest message the leaderboard reads (a long game's record is a few tens of KiB);
#: the broker's own limit (docs/meetup.md) is set above it, so a bigger one is refused here.
MAX_MESSAGE = 256 * 1024
#: A table's name is a topic level and the broker's user name: letters, digits, - and _.
TABLE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,31}")
GAME_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,63}")


class Refused(ValueError):
    """A message the leaderboard will not use; `reason` says why in a few words."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


def valid_table_name(name: Any) -> bool:
    return isinstance(name, str) and TABLE_NAME.fullmatch(name) is not None


def slate_topic(table: str) -> str:
    return f"{PREFIX}/{table}/slate"


def status_topic(table: str) -> str:
    return f"{PREFIX}/{table}/status"


def game_topic(table: str, game_id: str) -> str:
    return f"{PREFIX}/{table}/games/{game_id}"


def parse_topic(topic: str) -> tuple[str, str, str | None]:
    """("table-1", "games", "12-20261126T211400Z") from a topic; Refused for any other shape."""
    parts = topic.split("/")
    if len(parts) < 4 or "/".join(parts[:2]) != PREFIX or not valid_table_name(parts[2]):
        raise Refused("not a table's topic")
    table, kind, rest = parts[2], parts[3], parts[4:]
    if kind in ("slate", "status") and not rest:
        return table, kind, None
    if kind == "games" and len(rest) == 1 and GAME_ID.fullmatch(rest[0]):
        return table, kind, rest[0]
    raise Refused("not a table's topic")


def _dumps(data: Any) -> bytes:
    return json.dumps(data, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


# --- what a table sends ----------------------------------------------------------------

def stable_game_id(local_id: str, record: GameRecord) -> str:
    """The game's id for the evening: the table's own number and when it started, so a
    table whose database was replaced never sends a new game under an old game's id."""
    started = re.sub(r"[^0-9TZ]", "", str(record.meta.get("started", "")))
    return f"{local_id}-{started}" if started else str(local_id)


def game_message(table: str, local_id: str, record: GameRecord) -> tuple[str, bytes]:
    """(id, payload) of a finished game: its public record (calls no reveal counted stay hidden)."""
    game_id = stable_game_id(local_id, record)
    return game_id, _dumps({"format": GAME_FORMAT, "version": VERSION, "table": table, "id": game_id,
                            "record": record.to_dict(public=True)})


def slate_message(table: str, title: str, snapshot: Mapping[str, Any]) -> bytes:
    """The public slate and prompt of the table's snapshot; nothing else of it (no devices, no photo)."""
    prompt = snapshot.get("prompt") or None
    return _dumps({"format": SLATE_FORMAT, "version": VERSION, "table": table, "title": title,
                   "game_id": snapshot.get("game_id"), "slate": snapshot.get("slate"),
                   "prompt": None if prompt is None else {k: prompt.get(k) for k in ("phase", "text", "seats",
                                                                                      "waiting")}})


def status_message(online: bool) -> bytes:
    return _dumps({"state": "online" if online else "offline"})


# --- what the leaderboard reads --------------------------------------------------------

@dataclass(frozen=True)
class ArrivedGame:
    """A finished game that replayed: what the standings need, and the record itself."""

    table: str
    id: str
    game: str
    title: str
    players: tuple[str, ...]
    winner: int | None
    events: int
    tally: Mapping[int, Mapping[str, int]]
    record: GameRecord


def _json_object(payload: bytes, what: str) -> dict[str, Any]:
    if len(payload) > MAX_MESSAGE:
        raise Refused(f"oversized {what} ({len(payload)} bytes, at most {MAX_MESSAGE})")
    try:
        data = json.loads(payload.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        raise Refused(f"the {what} is not JSON") from None
    if not isinstance(data, dict):
        raise Refused(f"the {what} is not a JSON object")
    return data


def _claimed_table(data: Mapping[str, Any], table: str, what: str) -> None:
    if data.get("table") != table:
        raise Refused(f"a {what} naming table {str(data.get('table'))[:40]!r} published under {table!r}")


def read_game(table: str, game_id: str, payload: bytes) -> ArrivedGame:
    """The game published on `companion/tables/<table>/games/<game_id>`, once it replays to
    a finished game with the referee. Refused: not JSON, oversized, another table's name,
    an id that is not the record's, a record that does not replay or is not over, a game
    the host ended early (not played, as in the table's own stats)."""
    data = _json_object(payload, "game message")
    if data.get("format") != GAME_FORMAT or data.get("version") != VERSION:
        raise Refused("not a game message of this version")
    _claimed_table(data, table, "game")
    try:
        record = GameRecord.from_dict(data.get("record"))
        game = get_game(record.game)
        state = replay(record)
    except RulesError as exc:
        raise Refused(f"the record does not replay: {str(exc)[:200]}") from None
    if data.get("id") != game_id or stable_game_id(game_id.split("-", 1)[0], record) != game_id:
        raise Refused("the game's id is not its record's")
    if not state.finished:
        raise Refused("the game is not over")
    if ended_early(record):  # as the table's own stats: a game the host ended was not played
        raise Refused("the host ended the game early: it was not played out")
    winner = state.winner if isinstance(state.winner, int) and 0 <= state.winner < len(record.players) else None
    tally = {seat: {k: int(v) for k, v in counts.items()} for seat, counts in game.tally(state).items()}
    return ArrivedGame(table=table, id=game_id, game=game.name, title=game.title, players=tuple(record.players),
                       winner=winner, events=len(record.events), tally=tally, record=record)


def read_slate(table: str, payload: bytes) -> dict[str, Any]:
    """A table's public slate as the leaderboard's tile shows it (Refused: not one)."""
    data = _json_object(payload, "slate message")
    if data.get("format") != SLATE_FORMAT or data.get("version") != VERSION:
        raise Refused("not a slate message of this version")
    _claimed_table(data, table, "slate")
    title, slate, prompt = data.get("title"), data.get("slate"), data.get("prompt")
    if not isinstance(title, str) or not 0 < len(title) <= 60:
        raise Refused("the slate message has no table title")
    if slate is not None and not isinstance(slate, dict) or prompt is not None and not isinstance(prompt, dict):
        raise Refused("the slate message's slate is not an object")
    if slate is not None:
        _slate_shape(slate)
    return {"title": title, "slate": slate, "prompt": prompt}


def _text(value: Any, *, optional: bool = True) -> bool:
    return isinstance(value, str) and len(value) <= 200 or optional and value is None


def _number(value: Any) -> bool:
    return value is None or isinstance(value, (int, float)) and not isinstance(value, bool)


def _slate_shape(slate: Mapping[str, Any]) -> None:
    """The fields the leaderboard's tile shows (web/static/leaderboard.js `tile`), each of
    the kind a table's slate has; Refused naming the first that is not."""
    checks = [("title", _text(slate.get("title"), optional=False)), ("stage", _text(slate.get("stage"))),
              ("prompt", _text(slate.get("prompt"))), ("winner", _text(slate.get("winner"))),
              ("scoring", _text(slate.get("scoring"))), ("finished", isinstance(slate.get("finished"), bool))]
    players = slate.get("players")
    checks.append(("players", isinstance(players, list) and len(players) <= 12 and all(
        isinstance(p, dict) and _text(p.get("name"), optional=False) and _text(p.get("status"))
        and _number(p.get("score")) and _number(p.get("dice")) for p in players)))
    for key, good in checks:
        if not good:
            raise Refused(f"the slate message's slate.{key} is not what a table's slate has")


def read_status(payload: bytes) -> bool:
    """True: online, False: offline (Refused: neither)."""
    data = _json_object(payload, "status message")
    if data.get("state") not in ("online", "offline"):
        raise Refused("the status message is neither online nor offline")
    return data["state"] == "online"

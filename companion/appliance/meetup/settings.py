"""The table's `[meetup]` section and the leaderboard's config file (docs/config.md, docs/meetup.md).

    [meetup]  enabled = true, broker = "leaderboard.local", port = 1883, table = "table-1",
              username (only the table's name), password, tls = false, ca_file, keepalive = 15

Off by default: without `enabled = true` the table connects to nothing and behaves as a
table alone. Every mistake is a ValueError naming the key (the config loader adds the file).
"""

from __future__ import annotations

import ipaddress
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

from companion.meetup import Scoring, valid_table_name
from companion.rules import UnknownGame, get_game


class MeetupConfigError(ValueError):
    """A [meetup] or leaderboard setting that cannot be used; the message names the key."""


@dataclass(frozen=True)
class Broker:
    """Where the broker is and how to log in to it."""

    host: str = "127.0.0.1"
    port: int = 1883
    username: str | None = None
    password: str | None = None
    tls: bool = False
    ca_file: Path | None = None
    keepalive: int = 15

    def __repr__(self) -> str:  # the password never shows in a log or a traceback
        return f"Broker({self.host}:{self.port}, user={self.username}, tls={self.tls})"


@dataclass(frozen=True)
class MeetupSection:
    enabled: bool = False
    table: str | None = None
    broker: Broker = field(default_factory=Broker)

    @classmethod
    def from_mapping(cls, section: Mapping[str, Any], *, base_dir: Path | None = None) -> "MeetupSection":
        known = ("enabled", "broker", "port", "table", "username", "password", "tls", "ca_file", "keepalive")
        _known_keys(section, known, "meetup")
        enabled = section.get("enabled", False)
        if not isinstance(enabled, bool):
            raise MeetupConfigError("meetup.enabled must be true or false")
        if not enabled:
            return cls()
        table = section.get("table")
        if not valid_table_name(table):
            raise MeetupConfigError('meetup.table must be this table\'s name at the meetup, such as "table-1": '
                                    "1 to 32 letters, digits, - or _ (it is its broker user name and topic)")
        if section.get("username", table) != table:  # the ACL: a user writes only under its own name
            raise MeetupConfigError(f"meetup.username must be the table's name ({table!r}), or left out: the "
                                    "broker lets a table write only under its own user name, and would take "
                                    "and drop every game sent under another")
        if "broker" not in section:
            raise MeetupConfigError('meetup.broker must name the broker\'s machine, such as "leaderboard.local"')
        broker = parse_broker(section, "meetup", base_dir, host_key="broker", default_user=table)
        return cls(enabled=True, table=table, broker=broker)


def parse_broker(section: Mapping[str, Any], name: str, base_dir: Path | None, *, host_key: str = "host",
                 default_user: str | None = None) -> Broker:
    host = section.get(host_key, Broker.host)
    if not isinstance(host, str) or not host.strip() or any(c.isspace() or c == "/" for c in host.strip()):
        raise MeetupConfigError(f'{name}.{host_key} must be a host name or address, such as "leaderboard.local"')
    tls = section.get("tls", False)
    if not isinstance(tls, bool):
        raise MeetupConfigError(f"{name}.tls must be true or false")
    port = section.get("port", 8883 if tls else 1883)
    if isinstance(port, bool) or not isinstance(port, int) or not 1 <= port <= 65535:
        raise MeetupConfigError(f"{name}.port must be a whole number from 1 to 65535, not {port!r}")
    username = section.get("username", default_user)
    if username is not None and (not isinstance(username, str) or not username.strip()):
        raise MeetupConfigError(f"{name}.username must be text")
    password = section.get("password")
    if password is not None and (not isinstance(password, str) or not password):
        raise MeetupConfigError(f"{name}.password must be text in quotes")
    if password is not None and username is None:
        raise MeetupConfigError(f"{name}.password needs {name}.username")
    ca_file = section.get("ca_file")
    if ca_file is not None:
        if not isinstance(ca_file, str) or not tls:
            raise MeetupConfigError(f"{name}.ca_file must be a file name, with {name}.tls = true")
        ca_file = Path(ca_file).expanduser()
        if not ca_file.is_absolute() and base_dir is not None:
            ca_file = base_dir / ca_file
        if not ca_file.is_file():
            raise MeetupConfigError(f"{name}.ca_file: no file at {ca_file}")
    keepalive = section.get("keepalive", Broker.keepalive)
    if isinstance(keepalive, bool) or not isinstance(keepalive, int) or not 5 <= keepalive <= 600:
        raise MeetupConfigError(f"{name}.keepalive must be a whole number of seconds from 5 to 600")
    return Broker(host=host.strip(), port=port, username=username, password=password, tls=tls, ca_file=ca_file,
                  keepalive=keepalive)


def _known_keys(section: Mapping[str, Any], known: tuple[str, ...], name: str) -> None:
    if not isinstance(section, Mapping):
        raise MeetupConfigError(f"{name!r} must be a section ([{name}]), not a single value")
    for key in section:
        if key not in known:
            raise MeetupConfigError(f"[{name}] unknown key {key!r}; known keys: {', '.join(known)}")


# --- the leaderboard's own file ----------------------------------------------------------

@dataclass(frozen=True)
class LeaderboardConfig:
    """`companion leaderboard --config FILE`: [broker], [web], [scoring], [leaderboard]."""

    broker: Broker = field(default_factory=lambda: Broker(username="leaderboard"))
    host: str = "0.0.0.0"
    port: int = 8080
    title: str = "Leaderboard"
    tables: tuple[str, ...] = ()
    scoring: Scoring = field(default_factory=Scoring)
    client_id: str = "companion-leaderboard"
    #: Host names the page answers to (DNS rebinding, as the table's [web] allowed_hosts); empty: any.
    allowed_hosts: tuple[str, ...] = ()


LEADERBOARD_SECTIONS = {"broker": ("host", "port", "username", "password", "tls", "ca_file", "keepalive"),
                        "web": ("host", "port", "allowed_hosts"), "scoring": ("mode", "points"),
                        "leaderboard": ("title", "tables", "client_id")}


def load_leaderboard_config(path: Path | None) -> LeaderboardConfig:
    """The leaderboard's file; MeetupConfigError naming the file and the key."""
    if path is None:
        return LeaderboardConfig()
    where = str(path)
    try:
        data = tomllib.loads(Path(path).expanduser().read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise MeetupConfigError(f"no config file at {path}") from None
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise MeetupConfigError(f"cannot read {path}: {exc}") from None
    try:
        return parse_leaderboard(data, Path(path).expanduser().parent)
    except MeetupConfigError as exc:
        raise MeetupConfigError(f"{where}: {exc}") from None


def parse_leaderboard(data: Mapping[str, Any], base_dir: Path | None = None) -> LeaderboardConfig:
    for name, section in data.items():
        if name not in LEADERBOARD_SECTIONS:
            raise MeetupConfigError(f"unknown section {name!r}; known sections: {', '.join(LEADERBOARD_SECTIONS)}")
        _known_keys(section, LEADERBOARD_SECTIONS[name], name)
    broker = parse_broker(data.get("broker", {}), "broker", base_dir, default_user="leaderboard")
    web = data.get("web", {})
    host = web.get("host", LeaderboardConfig.host)
    try:
        ipaddress.ip_address(host)
    except (ValueError, TypeError):
        raise MeetupConfigError(f'web.host must be an IP address such as "0.0.0.0", not {host!r}') from None
    port = web.get("port", LeaderboardConfig.port)
    if isinstance(port, bool) or not isinstance(port, int) or not 0 <= port <= 65535:
        raise MeetupConfigError(f"web.port must be a whole number from 0 to 65535, not {port!r}")
    allowed = web.get("allowed_hosts", [])
    if not isinstance(allowed, list) or not all(isinstance(h, str) and h.strip() and " " not in h.strip()
                                                for h in allowed):
        raise MeetupConfigError('web.allowed_hosts must be a list of host names such as ["leaderboard.local"]')
    board = data.get("leaderboard", {})
    title = board.get("title", LeaderboardConfig.title)
    if not isinstance(title, str) or not 0 < len(title.strip()) <= 60:
        raise MeetupConfigError("leaderboard.title must be text of 1 to 60 characters")
    tables = board.get("tables", [])
    if not isinstance(tables, list) or not all(valid_table_name(t) for t in tables):
        raise MeetupConfigError('leaderboard.tables must be a list of table names such as ["table-1", "table-2"]')
    client_id = board.get("client_id", LeaderboardConfig.client_id)
    if not isinstance(client_id, str) or not 0 < len(client_id) <= 64:
        raise MeetupConfigError("leaderboard.client_id must be text of 1 to 64 characters")
    return LeaderboardConfig(broker=broker, host=host, port=port, title=title.strip(), tables=tuple(tables),
                             scoring=_scoring(data.get("scoring", {})), client_id=client_id,
                             allowed_hosts=tuple(h.strip() for h in allowed))


def _scoring(section: Mapping[str, Any]) -> Scoring:
    mode = section.get("mode", "wins")
    if mode not in ("wins", "points"):
        raise MeetupConfigError('scoring.mode must be "wins" (a point a game won) or "points" (points per game kind)')
    points = section.get("points", {})
    if not isinstance(points, Mapping):
        raise MeetupConfigError('scoring.points must be a table such as { "val-des" = 3, tregald = 2 }')
    named = {}
    for game, value in points.items():
        try:
            game = get_game(game).name
        except UnknownGame as exc:
            raise MeetupConfigError(f"scoring.points: {exc}") from None
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 100:
            raise MeetupConfigError(f"scoring.points.{game} must be a whole number from 0 to 100")
        named[game] = value
    if points and mode != "points":
        raise MeetupConfigError('scoring.points is used only with scoring.mode = "points"')
    return Scoring(mode=mode, points=named)

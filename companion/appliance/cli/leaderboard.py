"""companion leaderboard [--config FILE] [--data-dir DIR] [--port 8080] [--host ADDR] [--new-evening]

The meetup's leaderboard (docs/meetup.md): subscribes to every table's topics on the
broker, keeps the evening's games in its own SQLite and serves the full-screen page.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from companion.appliance.cli.serve import setup_logging
from companion.appliance.config import ConfigError, default_data_dir, prepare_data_dir


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--config", type=Path, help="the leaderboard's TOML file (docs/meetup.md)")
    parser.add_argument("--data-dir", type=Path,
                        help="where the evening's games are kept (default: $STATE_DIRECTORY, else a "
                             "'leaderboard' folder in the user data directory)")
    parser.add_argument("--port", type=int, help="HTTP port (default: [web] port, 8080); 0 picks a free one")
    parser.add_argument("--host", help="address to listen on (default: [web] host, 0.0.0.0)")
    parser.add_argument("--new-evening", action="store_true",
                        help="start a new evening: the last one's database is kept beside it under its date")
    parser.add_argument("--log-level", default="info", choices=("debug", "info", "warning", "error"))


def run(args: argparse.Namespace) -> int:
    from companion.appliance.meetup.leaderboard import LeaderboardService, leaderboard_url, run_until_signalled
    from companion.appliance.meetup.settings import MeetupConfigError, load_leaderboard_config
    from companion.meetup.board import FILE_NAME

    setup_logging(args.log_level)
    try:
        config = load_leaderboard_config(args.config)
        data_dir = prepare_data_dir(args.data_dir if args.data_dir is not None else _default_dir())
        if args.new_evening:
            _put_aside(data_dir / FILE_NAME)
        service = LeaderboardService(config, data_dir, host=args.host, port=args.port)
        service.start()
    except (ConfigError, MeetupConfigError, OSError) as exc:
        print(f"companion leaderboard: {exc}", file=sys.stderr)
        return 2
    print(f"Leaderboard: {leaderboard_url(service)}", flush=True)
    return run_until_signalled(service)


def _default_dir() -> Path:
    import os

    return Path(os.environ["STATE_DIRECTORY"].split(":")[0]) if os.environ.get("STATE_DIRECTORY") \
        else default_data_dir() / "leaderboard"


def _put_aside(path: Path) -> None:
    """The last evening's database, renamed leaderboard-YYYYmmdd-HHMM.sqlite3 (never deleted)."""
    if not path.exists():
        return
    stamp = time.strftime("%Y%m%d-%H%M", time.localtime(path.stat().st_mtime))
    path.rename(path.with_name(f"leaderboard-{stamp}.sqlite3"))
    for suffix in ("-wal", "-shm"):
        side = path.with_name(path.name + suffix)
        if side.exists():
            side.rename(path.with_name(f"leaderboard-{stamp}.sqlite3{suffix}"))

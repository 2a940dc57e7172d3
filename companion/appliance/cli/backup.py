"""companion backup --out FILE [--data-dir DIR] [--config FILE]: the whole table in one file.

On the Pi: `sudo /opt/game-companion/venv/bin/companion backup --out table.zip
--data-dir /var/lib/game-companion --config /etc/game-companion/config.toml` (the service
may keep running: the games database is copied with sqlite3's online backup).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from companion.appliance.backup import BackupError, create_backup
from companion.appliance.config import default_data_dir


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--out", type=Path, required=True, help="the archive to write (a .zip; mode 0600: it holds the host PIN)")
    parser.add_argument("--data-dir", type=Path, help="the table's data directory (default: $STATE_DIRECTORY, else the user data directory)")
    parser.add_argument("--config", type=Path, help="the config file to keep in the archive (on the Pi: /etc/game-companion/config.toml)")


def run(args: argparse.Namespace) -> int:
    data_dir = args.data_dir if args.data_dir is not None else default_data_dir()
    try:
        files = create_backup(data_dir, args.out, args.config)
    except (BackupError, OSError) as exc:
        print(f"companion backup: {exc}")
        return 1
    print(f"wrote {args.out}: {', '.join(Path(name).name for name in files)}")
    return 0

"""companion restore FILE [--data-dir DIR] [--config FILE]: put a backup's files back.

Stop the service first (`sudo systemctl stop game-companion`); restore refuses while it runs.
A damaged or foreign archive is refused with a message and nothing is changed.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from companion.appliance.backup import BackupError, restore_backup
from companion.appliance.config import default_data_dir


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("archive", type=Path, help="a file written by `companion backup`")
    parser.add_argument("--data-dir", type=Path, help="the table's data directory (default: $STATE_DIRECTORY, else the user data directory)")
    parser.add_argument("--config", type=Path, help="where to put the archive's config file (left out: the config is not restored)")


def run(args: argparse.Namespace) -> int:
    data_dir = args.data_dir if args.data_dir is not None else default_data_dir()
    try:
        written = restore_backup(args.archive, data_dir, args.config)
    except BackupError as exc:
        print(f"companion restore: {exc}; nothing was changed")
        return 1
    except OSError as exc:
        print(f"companion restore: {exc}")
        return 1
    for path in written:
        print(f"restored {path}")
    return 0

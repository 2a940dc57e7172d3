"""The `companion` command.

Each subcommand lives in its own module under `companion.appliance.cli` and exposes
`add_arguments(parser)` and `run(args) -> int`. Modules are imported only when their
command runs, so a missing optional dependency (picamera2, say) never breaks another
command.
"""

from __future__ import annotations

import argparse
import importlib
import sys

# command name -> (module, one-line help)
COMMANDS: dict[str, tuple[str, str]] = {
    "simulate": ("companion.appliance.cli.simulate", "play a whole game with random players and print the slate"),
    "replay": ("companion.appliance.cli.replay", "rebuild the slate from a game record"),
    "games": ("companion.appliance.cli.games", "list the games the companion referees and their options"),
    "read": ("companion.appliance.cli.read", "read dice from photos and print one JSON line per image"),
    "teach": ("companion.appliance.cli.teach", "teach the reader a die's faces (spike dice)"),
    "calibrate": ("companion.appliance.cli.calibrate", "set the table region (ROI) the camera reads"),
    "serve": ("companion.appliance.cli.serve", "run the table service: camera, buttons, engine and slate"),
    "demo": ("companion.appliance.cli.demo", "run the service on a laptop with virtual buttons and recorded photos"),
    "check-hardware": ("companion.appliance.cli.check_hardware", "interactive wiring test for buttons, lights and camera"),
    "backup": ("companion.appliance.cli.backup", "save games, config, calibration and spike profile in one file"),
    "leaderboard": ("companion.appliance.cli.leaderboard", "the meetup's leaderboard: every table's games on one screen"),
    "restore": ("companion.appliance.cli.restore", "put a backup's files back (the service stopped)"),
}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="companion", description="Game Table Companion: a referee for tabletop dice games.")
    from companion import __version__

    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, (_module, help_text) in COMMANDS.items():
        sub.add_parser(name, help=help_text, add_help=False)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    if not argv or argv[0] not in COMMANDS:
        if argv and not argv[0].startswith("-"):
            parser.error(f"unknown command {argv[0]!r}; choose one of: {', '.join(COMMANDS)}")
        parser.parse_args(argv)
        parser.print_help()
        return 2
    name, rest = argv[0], argv[1:]
    module_name, help_text = COMMANDS[name]
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name == module_name:
            print(f"companion {name}: not available in this build", file=sys.stderr)
            return 2
        raise
    sub = argparse.ArgumentParser(prog=f"companion {name}", description=help_text)
    module.add_arguments(sub)
    args = sub.parse_args(rest)
    try:
        return int(module.run(args) or 0)
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())

"""companion replay RECORD [--json]: the slate a game record leads to."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from companion.appliance.cli.slate_text import render
from companion.rules import GameRecord, RulesError, get_game, replay


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("record", type=Path, help="a game record (JSON), as written by simulate or exported by the slate")
    parser.add_argument("--json", action="store_true", help="print the slate as JSON")


def run(args: argparse.Namespace) -> int:
    try:
        text = args.record.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        print(f"companion replay: cannot read {args.record}: {exc}", file=sys.stderr)
        return 2
    try:
        record = GameRecord.from_json(text)
        slate = get_game(record.game).slate(replay(record))
    except RulesError as exc:  # BadRecord (JSON nested too deeply or numbers too long too), UnknownGame, IllegalAction
        print(f"companion replay: {args.record}: {exc}", file=sys.stderr)
        return 2
    _print(json.dumps(slate.to_json()) if args.json else render(slate))
    return 0


def _print(text: str) -> None:
    """Print what the console can show: a character it cannot encode (a lone surrogate in
    a hand-edited player name) is printed as its escape, not a traceback."""
    encoding = sys.stdout.encoding or "utf-8"
    print(text.encode(encoding, errors="backslashreplace").decode(encoding))

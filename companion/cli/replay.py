"""companion replay RECORD [--json]: the slate a game record leads to."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from companion.cli.slate_text import render
from companion.rules import BadRecord, GameRecord, RulesError, get_game, replay


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
    except BadRecord as exc:
        print(f"companion replay: {args.record}: {exc}", file=sys.stderr)
        return 2
    except RulesError as exc:
        print(f"companion replay: {args.record}: {exc}", file=sys.stderr)
        return 2
    print(json.dumps(slate.to_json()) if args.json else render(slate))
    return 0

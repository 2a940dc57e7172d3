"""companion simulate GAME --players N --seed S [--record FILE] [--json]"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from companion.appliance.cli.options import parse_options
from companion.appliance.cli.slate_text import render
from companion.rules import RulesError
from companion.simulate import RunawayGame, player_names, simulate


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("game", help="tregald, val-des, gyvahrs, leiras-dice or tricksters-tavern (or an alias)")
    parser.add_argument("--players", type=int, default=3, help="number of players (default 3)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the random roller and players")
    parser.add_argument("--option", action="append", metavar="NAME=VALUE", help="a house-rule option (repeatable)")
    parser.add_argument("--record", type=Path, help="write the game record (JSON) to this file")
    parser.add_argument("--json", action="store_true", help="print the final slate as JSON")


def run(args: argparse.Namespace) -> int:
    try:
        options = parse_options(args.option)
        session = simulate(args.game, player_names(args.players), args.seed, options)
    except (RulesError, ValueError) as exc:
        print(f"companion simulate: {exc}", file=sys.stderr)
        return 2
    except RunawayGame as exc:
        print(f"companion simulate: {exc}", file=sys.stderr)
        return 1
    if args.record:
        args.record.write_text(session.record.to_json() + "\n", encoding="utf-8")
    slate = session.slate()
    print(json.dumps(slate.to_json()) if args.json else render(slate))
    return 0

"""companion games: the games the companion referees, their aliases and options."""

from __future__ import annotations

import argparse

from companion.rules import all_games


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--options", action="store_true", help="list every house-rule option")


def run(args: argparse.Namespace) -> int:
    for game in all_games():
        aliases = f" (also: {', '.join(game.aliases)})" if game.aliases else ""
        players = f"{game.min_players}-{game.max_players}" if game.max_players else f"{game.min_players}+"
        print(f"{game.name}: {game.title}, {players} players{aliases}")
        if args.options:
            for option in game.options:
                allowed = f" [{' | '.join(map(str, option.choices))}]" if option.choices else ""
                print(f"    {option.name} = {option.default!r}{allowed}: {option.help}")
    return 0

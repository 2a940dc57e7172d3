"""Meetup mode: many tables, one leaderboard (docs/meetup.md).

The pure half, standard library only: what a table publishes (`messages`: topics, the
public slate message, the finished game message and its stable id), how the leaderboard
checks what arrives (`messages.read_game`: refused unless it replays with the referee),
the table's outbox of finished games not yet acknowledged by the broker (`outbox`), and
the leaderboard's evening (`board`: games counted once, tiles, standings). The MQTT
client (paho-mqtt) is wired in by the appliance (`companion.appliance.meetup`).
"""

from companion.meetup.board import Board, Scoring
from companion.meetup.messages import (ArrivedGame, Refused, game_message, game_topic, parse_topic, read_game,
                                       read_slate, read_status, slate_message, status_message, valid_table_name)
from companion.meetup.outbox import Outbox

__all__ = ["ArrivedGame", "Board", "Outbox", "Refused", "Scoring", "game_message", "game_topic", "parse_topic",
           "read_game", "read_slate", "read_status", "slate_message", "status_message", "valid_table_name"]

"""The referee: five games as a pure rules engine (standard library only).

No I/O, no clock, no randomness, no threads in here: events come in, states and
slates come out. Randomness for simulations is passed in by the caller.
"""

from companion.rules.dice import BLUE, RED
from companion.rules.errors import BadRecord, IllegalAction, RulesError, UnknownGame
from companion.rules.events import (
    Amend,
    Bid,
    Challenge,
    ChipCall,
    ColourCall,
    Declaration,
    DiceObserved,
    EndGame,
    Event,
    Stake,
    Undo,
)
from companion.rules.game import DiceRequest, Game, GameState, Option, Prompt, RevealView, SeatView, Slate
from companion.rules.record import GameRecord, effective_events, pending_secrets, replay
from companion.rules.registry import all_games, get_game

__all__ = [
    "BLUE", "RED", "BadRecord", "IllegalAction", "RulesError", "UnknownGame", "Amend", "Bid", "Challenge",
    "ChipCall", "ColourCall", "Declaration", "DiceObserved", "EndGame", "Event", "Stake", "Undo", "DiceRequest",
    "Game", "GameState", "Option", "Prompt", "RevealView", "SeatView", "Slate", "GameRecord", "effective_events",
    "pending_secrets", "replay", "all_games", "get_game",
]

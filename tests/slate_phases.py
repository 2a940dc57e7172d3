"""The five games brought to each phase the slate must show well: start, mid-turn, after
a reveal, a reading held for the host, and game over. Shared by the slate's browser test
(tests/test_browser_slate_fit.py) and the screenshot script (scripts/slate_screenshot.py).

Play is the engine's own legal moves from a seeded generator; the dice that end a turn
come in through the camera's door (`Table.offer_reading`) with a photo, as at a real
table, so the slate shows a reveal photo where a camera would have taken one.
"""

from __future__ import annotations

import random
from typing import Callable

import cv2
import numpy as np

from companion.readings import OfferedReading
from companion.rules import get_game
from companion.table import Table

#: Each game at a full table: the longest names and hands the slate is likely to meet.
GAMES = {
    "tregald": (["Annabel", "Ben", "Cara", "Devika", "Emil"], {"dice": "spike", "rounds": 1}),
    "val-des": (["Ann", "Benedikt", "Cara", "Devika"], {}),
    "gyvahrs": (["Ann", "Ben", "Cara", "Devika", "Emil", "Farah"], {}),
    "leiras-dice": (["Ann", "Ben", "Cara", "Devika", "Emil"], {}),
    "tricksters-tavern": (["Ann", "Ben", "Cara", "Devika", "Emil", "Farah", "Gus", "Hana"],
                          {"classes": ["Gambler", "Cutpurse", "Hedge Witch", "Innkeeper", "Brawler", "Commoner",
                                       "Commoner", "Gambler"]}),
}

PHASES = ("start", "mid-turn", "reveal", "held", "over")

#: The full table (issue 66): twelve ordinary names of 8-11 letters, and names of the
#: longest length accepted (24 characters, `web.bounds.MAX_NAME`), one of them a single word.
TWELVE = ("Alexander", "Benedikt", "Cassandra", "Dominika", "Evangeline", "Frederick", "Gwendolyn",
          "Hieronymus", "Isabella", "Jonathan", "Maximiliane", "Leopoldine")
LONGEST = ("Bartholomew Maximilian F", "Wolfeschlegelsteinhausen", "Anna-Katharina Oberhuber",
           "Guinevere Rosalind Adair", "Konstantinos Papadakis J", "Maria Fernanda Goncalves",
           "Oluwaseun Adebayo-Smithe", "Siobhan Ni Mhaolagain Ox", "Christopher Jonathan Bro",
           "Margarethe Lindqvist-Ahn", "Alexandrina Papadopoulou", "Maximiliane Wittelsbachs")
ROSTERS = ("usual", "four", "twelve", "longest", "twelve-longest")


def players_for(game: str, roster: str = "usual") -> tuple[list[str], dict]:
    """`game`'s players and options for a roster: the usual table (GAMES), its first four,
    the most seats the game takes with TWELVE's names, up to eight seats with LONGEST's, or
    the most seats (up to twelve) with LONGEST's."""
    players, options = GAMES[game]
    if roster == "usual":
        return list(players), dict(options)
    if roster not in ROSTERS:
        raise ValueError(f"no roster {roster!r}: one of {', '.join(ROSTERS)}")
    most = get_game(game).max_players
    names = list(players[:4] if roster == "four" else TWELVE if roster == "twelve"
                 else LONGEST if roster == "twelve-longest" else LONGEST[:8])
    names = names[:most]
    options = dict(options)
    if "classes" in options:  # Trickster's Tavern: a class for every seat
        options["classes"] = [options["classes"][i % len(options["classes"])] for i in range(len(names))]
    return names, options


class SpikeKey:
    """The camera page as far as the slate asks it: the spike faces taught at this table,
    here the demo's bundled spike dice (taught as `companion demo` teaches them)."""

    def __init__(self) -> None:
        from hardware.camera_setup import spike_key_pictures
        from hardware.demo_camera import demo_spike_profile

        self._key = spike_key_pictures(demo_spike_profile())

    def spike_key(self) -> dict[int, bytes]:
        return self._key


def dice_photo(values) -> tuple[bytes, list[tuple[int, int, int, int]]]:
    """A small JPEG of the dice as tiles on felt (colour or number), with their boxes."""
    count = len(values)
    per_row = min(count, 8)
    rows = (count + per_row - 1) // per_row
    image = np.full((120 + rows * 110, 80 + per_row * 100, 3), (40, 90, 40), np.uint8)
    boxes = []
    for i, value in enumerate(values):
        x, y = 40 + (i % per_row) * 100 + (i % 2) * 6, 60 + (i // per_row) * 110 + (i % 3) * 8
        colour = {"red": (40, 40, 215), "blue": (215, 110, 40)}.get(value, (235, 235, 235))
        cv2.rectangle(image, (x, y), (x + 70, y + 70), colour, -1)
        if value not in ("red", "blue"):
            cv2.putText(image, str(value), (x + 12, y + 50), cv2.FONT_HERSHEY_SIMPLEX, 1.4, (20, 20, 20), 3)
        boxes.append((x, y, x + 70, y + 70))
    ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 80])
    assert ok
    return data.tobytes(), boxes


def _step(table: Table, rng: random.Random, *, read_with_photo: bool = True) -> None:
    """One legal move: a reading when dice are wanted (half the time, or when nothing
    else is legal), else one of the game's legal actions."""
    session = table.session
    game = get_game(session.record.game)
    actions = game.legal_actions(session.state)
    if session.prompt().dice is not None and (not actions or rng.random() < 0.5):
        event = game.sample_reading(session.state, rng)
        if read_with_photo:
            photo, boxes = dice_photo(event.values)
            assert table.offer_reading(OfferedReading(event.values, boxes=boxes), photo=photo) == "applied"
        else:
            table.submit(event)
    else:
        table.submit(rng.choice(actions))


def _until(table: Table, rng: random.Random, done: Callable[[], bool], what: str, limit: int = 400) -> None:
    for _ in range(limit):
        if done():
            return
        _step(table, rng)
    raise AssertionError(f"{table.session.record.game}: never reached {what}")


def start(table: Table, game: str, seed: int = 7, roster: str = "usual") -> random.Random:
    if table.session is not None and not table.session.finished:
        table.end_game("next game")
    players, options = players_for(game, roster)
    table.start_game(game, players, options)
    return random.Random(seed)


def to_phase(table: Table, game: str, phase: str, seed: int = 7, roster: str = "usual") -> None:
    """A fresh game of `game` (players from `roster`, one of ROSTERS) brought to `phase`."""
    rng = start(table, game, seed, roster)
    if phase == "start":
        return
    if phase == "mid-turn":
        # the turn under way: its first action (a declaration, a bid, a stake; in Trickster's
        # Tavern a wild face declared first) and one more that is not the dice (a call, a raise)
        game_rules = get_game(game)
        for _ in range(400):
            session = table.session
            wilds = [a for a in game_rules.legal_actions(session.state) if a.kind == "wild_face"]
            if wilds and not session.state.wilds:
                table.submit(wilds[0])
            if session.slate().current is not None:
                break
            _step(table, rng)
        session = table.session
        more = [a for a in game_rules.legal_actions(session.state) if a.kind in ("chip_call", "colour_call", "bid")]
        if more and session.prompt().dice is None:
            table.submit(rng.choice(more))
        return
    if phase == "reveal":
        # a reveal, and the next turn begun after it: the last result beside the new turn
        _until(table, rng, lambda: table.session.slate().reveal is not None and table.session.prompt().dice is None,
               "a reveal")
        session = table.session
        actions = get_game(game).legal_actions(session.state)
        if actions and not session.finished:
            table.submit(rng.choice(actions))
        return
    if phase == "held":
        _until(table, rng, lambda: table.session.slate().reveal is not None, "a reveal")
        _until(table, rng, lambda: table.session.prompt().dice is not None, "dice wanted")
        event = get_game(game).sample_reading(table.session.state, rng)
        photo, boxes = dice_photo(event.values)
        reading = OfferedReading(event.values, boxes=boxes, flagged=True, reason="die 2 is blurred", unsure=[1])
        assert table.offer_reading(reading, photo=photo) == "held"
        return
    if phase == "over":
        _until(table, rng, lambda: table.session.finished, "the end", limit=2000)
        return
    raise ValueError(f"no phase {phase!r}: one of {', '.join(PHASES)}")

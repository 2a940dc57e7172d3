"""What the three point games (Tregald, Val-Des, Gyvahrs) share.

A role (Tregald, caster) passes to the left turn by turn; a reading from the table is
checked against the reading the game asked for; the game ends after a planned number
of turns, or, when the top score is shared then, after further blocks of turns
(a full round, one set) until it is not.
"""

from __future__ import annotations

import random
from typing import Any, Mapping, Sequence

from companion.rules.dice import COLOURS
from companion.rules.errors import IllegalAction
from companion.rules.events import DiceObserved, Face
from companion.rules.game import DiceRequest, Game, SeatView, Slate, dice_words


def left_of(seat: int, players: int, steps: int = 1) -> int:
    """The seat `steps` places to the left of `seat` (seats are numbered clockwise)."""
    return (seat + steps) % players


def check_reading(event: DiceObserved, request: DiceRequest | None, players: Sequence[str]) -> tuple[Face, ...]:
    """The faces of a reading that fits `request` (whose throw, then `DiceRequest.check`:
    how many dice, which faces), or IllegalAction saying what is wrong."""
    if request is None:
        raise IllegalAction("reading", "no dice reading is expected now")
    if event.seat is not None:
        if isinstance(event.seat, bool) or not isinstance(event.seat, int) or not 0 <= event.seat < len(players):
            raise IllegalAction("seats", f"there is no seat {event.seat!r} at this table (seats 0..{len(players) - 1})")
        if request.seat is not None and event.seat != request.seat:
            raise IllegalAction("turn order", f"it is {players[request.seat]}'s throw, not {players[event.seat]}'s")
    return request.check(event.values)


def random_reading(request: DiceRequest | None, rng: random.Random) -> DiceObserved:
    """A simulated reading fitting `request`, faces drawn from the caller's rng."""
    if request is None:
        raise IllegalAction("reading", "no dice reading is expected now")
    faces: Sequence[Face] = COLOURS if request.kind == "chance" else range(1, 7)
    values = tuple(rng.choice(faces) for _ in range(request.count))
    return DiceObserved(values, seat=request.seat, source="simulated")


def leader(scores: Sequence[int]) -> int | None:
    """The seat alone at the top, or None when the top score is shared."""
    best = max(scores)
    tops = [seat for seat, score in enumerate(scores) if score == best]
    return tops[0] if len(tops) == 1 else None


def is_over(done: int, planned: int, block: int, scores: Sequence[int]) -> bool:
    """True after `done` turns when the game ends: the planned turns are played, a
    whole block of extra turns is complete, and the top score is not shared."""
    return done >= planned and (done - planned) % block == 0 and leader(scores) is not None


def ranked(
    players: Sequence[str],
    scores: Sequence[int],
    *,
    roles: dict[int, str] | None = None,
    statuses: dict[int, str] | None = None,
) -> tuple[SeatView, ...]:
    """Slate lines, best score first (seat order between equal scores)."""
    roles = roles or {}
    statuses = statuses or {}
    order = sorted(range(len(players)), key=lambda s: (-scores[s], s))
    return tuple(
        SeatView(seat, players[seat], score=scores[seat], role=roles.get(seat), status=statuses.get(seat)) for seat in order
    )


def seat_list(players: Sequence[str], seats: Sequence[int]) -> str:
    """ "Ann", "Ann and Ben", "Ann, Ben and Cara"."""
    names = [players[s] for s in seats]
    if len(names) <= 1:
        return "".join(names)
    return ", ".join(names[:-1]) + " and " + names[-1]


def slate(game: Game, state: Any, *, roles: Mapping[int, str], statuses: Mapping[int, str],
          current: str | None, **extra: Any) -> Slate:
    """A point game's slate: ranked scores, whose turn, the last reveal, recent history.

    At the end the winner's line says so; `statuses` only needs the game's own words.
    """
    statuses = dict(statuses)
    if state.finished and state.winner is not None:
        statuses[state.winner] = "winner"
    return Slate(
        game=game.name,
        title=game.title,
        players=ranked(state.players, state.scores, roles=roles, statuses=statuses),
        finished=state.finished,
        winner=state.players[state.winner] if state.winner is not None else None,
        stage=game.stage(state),
        prompt=game.prompt(state).text,
        current=current,
        reveal=state.last_reveal,
        history=state.history[-8:],
        **extra,
    )

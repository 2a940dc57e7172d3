"""What every game is: the base class the five games fill in, and the value objects
the rest of the companion reads (Prompt, DiceRequest, Slate).

Modelled on python-chess and OpenSpiel: one home per rule question, state is
immutable, `apply(state, event)` returns a new state or raises `IllegalAction`.
"""

from __future__ import annotations

import dataclasses
import random
from dataclasses import dataclass, field
from typing import Any, ClassVar, Mapping, Sequence

from companion.rules.dice import COLOURS, is_pip
from companion.rules.errors import IllegalAction
from companion.rules.events import Event

#: What one die of each kind is called on the slate and in messages.
_DIE_NAMES = {"chance": ("chance cube", "chance cubes"), "spike": ("spike die", "spike dice")}


def dice_words(kind: str, count: int) -> str:
    """ "5 chance cubes", "1 spike die"."""
    one, many = _DIE_NAMES.get(kind, ("die", "dice"))
    return f"{count} {one if count == 1 else many}"


@dataclass(frozen=True)
class Option:
    """A house-rule option: its name, default and allowed values (or type)."""

    name: str
    default: Any
    help: str
    choices: tuple[Any, ...] | None = None
    minimum: int | None = None
    maximum: int | None = None

    def check(self, value: Any) -> Any:
        if self.choices is not None:
            if value not in self.choices:
                allowed = ", ".join(str(c) for c in self.choices)
                raise IllegalAction("options", f"option {self.name!r} must be one of {allowed}; got {value!r}")
            return value
        if isinstance(self.default, bool):
            if not isinstance(value, bool):
                raise IllegalAction("options", f"option {self.name!r} must be true or false; got {value!r}")
            return value
        if isinstance(self.default, int):
            if isinstance(value, bool) or not isinstance(value, int):
                raise IllegalAction("options", f"option {self.name!r} must be a whole number; got {value!r}")
            if self.minimum is not None and value < self.minimum:
                raise IllegalAction("options", f"option {self.name!r} must be at least {self.minimum}; got {value}")
            if self.maximum is not None and value > self.maximum:
                raise IllegalAction("options", f"option {self.name!r} must be at most {self.maximum}; got {value}")
            return value
        if isinstance(self.default, str) and not isinstance(value, str):
            raise IllegalAction("options", f"option {self.name!r} must be text; got {value!r}")
        return value


@dataclass(frozen=True)
class DiceRequest:
    """What reading the engine expects from the camera (or the keyboard) next.

    `kind` is "chance", "spike", "pips" or "polyhedral" (typed in: Trickster's Tavern);
    `count` how many dice must be seen; `seat` whose throw it is, when that matters.
    A reading of any other count is refused.
    """

    kind: str
    count: int
    seat: int | None = None
    purpose: str = ""
    #: Trickster's Tavern: the die sizes per seat the host must type in, e.g. ((0, (6, 6, 20)),).
    hands: tuple[tuple[int, tuple[int, ...]], ...] = ()

    def check(self, values: Sequence[Any]) -> tuple[Any, ...]:
        """The faces, when they are as many as `count` and each a face of `kind`; else
        IllegalAction saying what is wrong. The one home of the dice-count rule: the games
        judge a reading with it, and the camera asks it before offering one. Typed-in
        polyhedral dice are checked by their game, which knows each seat's die sizes.
        Spike dice are read as 1..6, so a pip d6 stands in for a spike die."""
        values = tuple(values)
        if len(values) != self.count:
            verb = "is" if self.count == 1 else "are"
            raise IllegalAction("dice in play",
                                f"{dice_words(self.kind, self.count)} {verb} in play but {len(values)} were read")
        for face in values:
            if self.kind == "chance" and face not in COLOURS:
                raise IllegalAction("faces", f"a chance cube shows red or blue, not {face!r}")
            if self.kind in ("spike", "pips") and not is_pip(face, 6):
                raise IllegalAction("faces", f"a {'spike die' if self.kind == 'spike' else 'die'} shows 1 to 6, "
                                             f"not {face!r}")
        return values

    def misfit(self, values: Sequence[Any]) -> str | None:
        """Why a reading of `values` cannot be this one (`check`'s message), or None."""
        try:
            self.check(values)
        except IllegalAction as exc:
            return exc.message
        return None


@dataclass(frozen=True)
class Prompt:
    """Whose turn it is and what may happen next, in table words.

    `seats` may act now (for calls: those still to call are listed in `waiting`);
    `wants` lists event kinds accepted now; `dice` is set when a reading is expected;
    `bid_faces`, while a bid is wanted, the faces it may name (None: a bid on the total).
    """

    phase: str
    text: str
    seats: tuple[int, ...] = ()
    wants: tuple[str, ...] = ()
    dice: DiceRequest | None = None
    waiting: tuple[int, ...] = ()
    bid_faces: tuple[int | None, ...] = ()


@dataclass(frozen=True)
class SeatView:
    """One line of the slate."""

    seat: int
    name: str
    score: int | None = None
    dice: int | None = None
    role: str | None = None  # "Tregald", "Caster", "to bid"...
    status: str | None = None  # "call in", "out", "winner"...
    hand: str | None = None  # public die sizes and class, Trickster's Tavern: "Gambler: 3d6+1d20"


@dataclass(frozen=True)
class RevealView:
    """What the slate shows at a reveal: the dice, the verdict and the points."""

    dice: tuple[Any, ...]
    verdict: str
    lines: tuple[str, ...] = ()
    awards: tuple[tuple[int, int], ...] = ()  # (seat, points or dice change)
    # Big reveals (the liar's dice games): how many each die counts toward the bid (0 for
    # none; a d12's 12 counts two), each die's size where sizes differ, and the hands the
    # dice come in, seat by seat, where the reading lists them so: (seat, how many dice).
    counted: tuple[int, ...] = ()
    sizes: tuple[int, ...] = ()
    hands: tuple[tuple[int, int], ...] = ()


@dataclass(frozen=True)
class Slate:
    """The public projection of a game: everything the table may see, no secret.

    Built only from the public state; a chip call's colour never gets here before
    its reveal.
    """

    game: str
    title: str
    players: tuple[SeatView, ...]
    finished: bool
    winner: str | None
    stage: str  # "Round 2 of 3, turn 5"
    prompt: str  # "Calls in: 3 of 5"
    current: str | None = None  # the declaration or bid on the table
    pot: int | None = None
    reveal: RevealView | None = None
    history: tuple[str, ...] = ()
    scoring: str = "points"  # "points" | "dice" | "winnings"
    dice: str | None = None  # the dice the table plays with: "chance", "spike", "pips", "polyhedral"
    notes: tuple[str, ...] = ()  # what holds for now and must stay in view: "1s are wild on Ann's dice this round"

    def to_json(self) -> dict[str, Any]:
        out = dataclasses.asdict(self)
        out["players"] = [
            {"name": p.name, "score": p.score, "dice": p.dice, "seat": p.seat, "role": p.role, "status": p.status,
             "hand": p.hand}
            for p in self.players
        ]
        return out


@dataclass(frozen=True)
class GameState:
    """Fields every game's state has. Games subclass it (frozen dataclasses)."""

    players: tuple[str, ...]
    options: tuple[tuple[str, Any], ...]
    finished: bool = False
    winner: int | None = None
    history: tuple[str, ...] = field(default=())

    def option(self, name: str) -> Any:
        return dict(self.options)[name]


class Game:
    """Base class of a game. Subclasses set the class attributes and the hooks."""

    name: ClassVar[str]
    title: ClassVar[str]
    aliases: ClassVar[tuple[str, ...]] = ()
    credit: ClassVar[str] = ""
    min_players: ClassVar[int] = 2
    #: Every game has a most: a table of thousands would push a slate of megabytes to
    #: every phone on every change. A game whose rules name none takes twelve.
    max_players: ClassVar[int] = 12
    options: ClassVar[tuple[Option, ...]] = ()
    #: What a seat's table buttons mean in this game, where the colour alone does not say
    #: ("green": "Val (red)"), for the host panel's virtual buttons.
    button_words: ClassVar[Mapping[str, str]] = {}

    # --- set-up -----------------------------------------------------------------

    def resolve_options(self, given: Mapping[str, Any] | None) -> tuple[tuple[str, Any], ...]:
        given = dict(given or {})
        known = {o.name: o for o in self.options}
        unknown = sorted(set(given) - set(known))
        if unknown:
            names = ", ".join(known) or "none"
            raise IllegalAction("options", f"{self.title} has no option {unknown[0]!r} (options: {names})")
        return tuple((o.name, o.check(given.get(o.name, o.default))) for o in self.options)

    def check_players(self, players: Sequence[str]) -> tuple[str, ...]:
        names = tuple(players)
        if any(not isinstance(n, str) or not n.strip() for n in names):
            raise IllegalAction("players", "every player needs a name")
        names = tuple(n.strip() for n in names)
        if len(set(n.casefold() for n in names)) != len(names):
            raise IllegalAction("players", "two players have the same name")
        if len(names) < self.min_players:
            raise IllegalAction("players", f"{self.title} needs at least {self.min_players} players")
        if self.max_players is not None and len(names) > self.max_players:
            raise IllegalAction("players", f"{self.title} takes at most {self.max_players} players")
        return names

    def start(self, players: Sequence[str], options: Mapping[str, Any] | None = None) -> GameState:
        """The state before the first event."""
        return self.new_state(self.check_players(players), self.resolve_options(options))

    def new_state(self, players: tuple[str, ...], options: tuple[tuple[str, Any], ...]) -> GameState:
        raise NotImplementedError

    # --- play -------------------------------------------------------------------

    def apply(self, state: GameState, event: Event) -> GameState:
        """The state after `event`, or IllegalAction naming the broken rule."""
        raise NotImplementedError

    def prompt(self, state: GameState) -> Prompt:
        """Whose turn, what may happen next, what reading is expected."""
        raise NotImplementedError

    def slate(self, state: GameState) -> Slate:
        """The public projection shown on the slate and the API."""
        raise NotImplementedError

    def on_button(self, state: GameState, seat: int | None, button: str) -> Event | None:
        """What a table button means now ("green", "yellow", "liar"), or None to ignore it.

        `seat` is None for the shared Liar! button.
        """
        return None

    def tally(self, state: GameState) -> dict[int, dict[str, int]]:
        """Per-seat counters for the statistics page, from the state alone.

        Keys (each optional): calls, correct_calls (chip or colour calls judged
        right), bluffs (false declarations or bids), bluffs_worked (a bluff that was
        not caught), dice_lost. Games fill in what they track.
        """
        return {}

    # --- simulation (randomness comes from outside) ----------------------------

    def legal_actions(self, state: GameState) -> list[Event]:
        """The player decisions possible now (not dice readings), for random play."""
        raise NotImplementedError

    def sample_reading(self, state: GameState, rng: random.Random) -> Event:
        """A random dice reading fitting `prompt(state).dice`, from the caller's rng."""
        raise NotImplementedError

    # --- shared checks ------------------------------------------------------------

    @staticmethod
    def check_seat(state: GameState, seat: int | None) -> int:
        if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < len(state.players):
            raise IllegalAction("seats", f"there is no seat {seat!r} at this table (seats 0..{len(state.players) - 1})")
        return seat

    @staticmethod
    def check_not_finished(state: GameState) -> None:
        if state.finished:
            raise IllegalAction("game over", "the game is over")

"""Gyvahrs (Corellian Throw): the caster sets a stake everyone pays into the pot, throws
two spike dice for the set, then the others throw; the best pair takes the pot.

Designed by IB-9D3 for the Games of the Galaxy project (www.gamesofthegalaxy.com/gyvahrs).
See docs/games/gyvahrs.md for the rulings and house rules the companion follows.
"""

from __future__ import annotations

import enum
import random
from dataclasses import dataclass, replace

from companion.rules import rotation
from companion.rules.errors import IllegalAction
from companion.rules.events import DiceObserved, Event, Stake
from companion.rules.game import DiceRequest, Game, GameState, Option, Prompt, RevealView, Slate

SIMULATED_STAKES = range(1, 6)
#: The highest stake: credits at a table, not a number to overflow the slate.
MAX_STAKE = 1_000_000


class ThrowClass(enum.Enum):
    """The four classes of throw, high to low."""

    ASPECT = "Aspect"
    DOUBLE = "Double"
    WILD = "Wild"
    SYLOP = "Sylop"


#: Aspects and Doubles, best first, by their Basic names.
ASPECTS = ((4, 4, "The World"), (2, 5, "The Watchman"), (1, 6, "Black Sun"), (5, 5, "Fate's Eyes"),
           (1, 3, "King Slayer"), (3, 6, "The Sun King"))
DOUBLES = ((6, 6, "Twin Suns"), (3, 3, "Twin Crowns"), (2, 2, "Flagon Pair"))
WILD_NAMES = {3: "Three", 4: "Four", 5: "Five", 6: "Six", 7: "Seven", 8: "Eight", 9: "Nine", 10: "Ten", 11: "Eleven"}


@dataclass(frozen=True)
class Throw:
    """A pair of spike dice, classified. A higher `strength` beats a lower one; Wilds
    with the same total (2/6 and 3/5) are equal."""

    dice: tuple[int, int]
    cls: ThrowClass
    name: str
    strength: int

    @property
    def text(self) -> str:
        """ "Aspect: The World (4/4)"."""
        return f"{self.cls.value}: {self.name} ({self.dice[0]}/{self.dice[1]})"


def classify(a: int, b: int) -> Throw:
    """The class, Basic name and strength of a pair (order of the dice does not matter)."""
    pair = (min(a, b), max(a, b))
    for rank, (x, y, name) in enumerate(ASPECTS):
        if pair == (x, y):
            return Throw(pair, ThrowClass.ASPECT, name, 200 - rank)
    for rank, (x, y, name) in enumerate(DOUBLES):
        if pair == (x, y):
            return Throw(pair, ThrowClass.DOUBLE, name, 100 - rank)
    if pair == (1, 1):
        return Throw(pair, ThrowClass.SYLOP, "The Idiot", 0)
    return Throw(pair, ThrowClass.WILD, WILD_NAMES[sum(pair)], sum(pair))


@dataclass(frozen=True)
class GyvahrsState(GameState):
    #: Net winnings per seat: stakes paid in are taken off, a pot won is added.
    scores: tuple[int, ...] = ()
    #: Rounds completed; the caster of the round being played is seat `rounds_played % players`.
    rounds_played: int = 0
    stake: int | None = None
    pot: int = 0
    #: This round's throws as (seat, (low die, high die)), caster first.
    throws: tuple[tuple[int, tuple[int, int]], ...] = ()
    #: Seats tied for the pot and rolling one die each; empty when no roll-off is on.
    rolloff: tuple[int, ...] = ()
    rolloff_dice: tuple[tuple[int, int], ...] = ()
    #: What happened this round so far, for the reveal panel.
    round_lines: tuple[str, ...] = ()
    last_reveal: RevealView | None = None


class GyvahrsGame(Game):
    name = "gyvahrs"
    title = "Gyvahrs"
    aliases = ("corellian-throw",)
    credit = "Gyvahrs by IB-9D3 (graphics Rick Scott), Games of the Galaxy project: www.gamesofthegalaxy.com/gyvahrs"
    options = (
        Option("mode", "highest", "everyone throws and the best throw takes the pot (highest), or the others throw "
               "until one beats the caster's set (beat_the_caster)", choices=("highest", "beat_the_caster")),
        Option("casts", 1, "how many times each player is the caster", minimum=1, maximum=100),
    )

    def new_state(self, players, options):
        return GyvahrsState(players=players, options=options, scores=(0,) * len(players))

    @staticmethod
    def caster(state: GyvahrsState) -> int:
        return state.rounds_played % len(state.players)

    def throw_order(self, state: GyvahrsState) -> tuple[int, ...]:
        """The caster throws the set, then everyone else in seat order from the caster's left."""
        n = len(state.players)
        return tuple(rotation.left_of(self.caster(state), n, k) for k in range(n))

    def expected(self, state: GyvahrsState) -> tuple[int, int] | None:
        """(seat, dice count) of the reading awaited, None when none is."""
        if state.finished or state.stake is None:
            return None
        if state.rolloff:
            rolled = dict(state.rolloff_dice)
            return next(s for s in state.rolloff if s not in rolled), 1
        return self.throw_order(state)[len(state.throws)], 2

    # --- play -----------------------------------------------------------------------

    def apply(self, state: GyvahrsState, event: Event) -> GyvahrsState:
        self.check_not_finished(state)
        if isinstance(event, Stake):
            return self._stake(state, event)
        if isinstance(event, DiceObserved):
            if state.stake is None:
                raise IllegalAction("stake first", f"{state.players[self.caster(state)]} sets the stake before anyone throws")
            values = rotation.check_reading(event, self.prompt(state).dice, state.players)
            return self._rolloff(state, values[0]) if state.rolloff else self._throw(state, values)
        raise IllegalAction("events", f"{event.kind} is not part of Gyvahrs")

    def _stake(self, state: GyvahrsState, event: Stake) -> GyvahrsState:
        seat = self.check_seat(state, event.seat)
        caster = self.caster(state)
        if seat != caster:
            raise IllegalAction("the caster sets the stake", f"{state.players[seat]} is not the caster: {state.players[caster]} sets the stake")
        if state.stake is not None:
            raise IllegalAction("one stake", f"the stake for this round is already {state.stake}")
        amount = event.amount
        if isinstance(amount, bool) or not isinstance(amount, int) or amount < 1:
            raise IllegalAction("stake", f"a stake is a whole number of at least 1, not {amount!r}")
        if amount > MAX_STAKE:
            raise IllegalAction("stake", f"a stake is at most {MAX_STAKE:,}")
        n = len(state.players)
        return replace(
            state,
            stake=amount,
            pot=amount * n,
            scores=tuple(s - amount for s in state.scores),
            round_lines=(f"{state.players[seat]} set the stake at {amount}; the pot holds {amount * n}",),
        )

    def _throw(self, state: GyvahrsState, values: tuple) -> GyvahrsState:
        seat = self.throw_order(state)[len(state.throws)]
        throw = classify(*values)
        who = f"{state.players[seat]}{' (caster)' if not state.throws else ''}"
        line = f"{who} threw {throw.text}"
        throws = state.throws + ((seat, throw.dice),)
        lines = state.round_lines + (line,)
        state = replace(state, throws=throws, round_lines=lines,
                        last_reveal=RevealView(dice=throw.dice, verdict=line, lines=lines))
        n = len(state.players)
        if state.option("mode") == "beat_the_caster":
            set_throw = classify(*throws[0][1])
            if len(throws) > 1 and throw.strength > set_throw.strength:
                return self._settle(state, seat, f"{state.players[seat]} beat the set")
            if len(throws) == n:
                return self._settle(state, throws[0][0], "nobody beat the set")
            return state
        if len(throws) < n:
            return state
        best = max(classify(*d).strength for _, d in throws)
        tied = tuple(s for s, d in throws if classify(*d).strength == best)
        if len(tied) == 1:
            return self._settle(state, tied[0], "best throw")
        names = rotation.seat_list(state.players, tied)
        return replace(state, rolloff=tied, round_lines=lines + (f"{names} tie for the best throw: roll-off",))

    def _rolloff(self, state: GyvahrsState, face: int) -> GyvahrsState:
        seat = self.expected(state)[0]
        rolled = state.rolloff_dice + ((seat, face),)
        line = f"{state.players[seat]} rolled {face} in the roll-off"
        lines = state.round_lines + (line,)
        state = replace(state, rolloff_dice=rolled, round_lines=lines,
                        last_reveal=RevealView(dice=(face,), verdict=line, lines=lines))
        if len(rolled) < len(state.rolloff):
            return state
        top = max(f for _, f in rolled)
        tied = tuple(s for s, f in rolled if f == top)
        if len(tied) == 1:
            return self._settle(state, tied[0], "roll-off")
        names = rotation.seat_list(state.players, tied)
        return replace(state, rolloff=tied, rolloff_dice=(), round_lines=lines + (f"{names} tie again: roll again",))

    def _settle(self, state: GyvahrsState, winner: int, why: str) -> GyvahrsState:
        """The pot goes to `winner`; the caster role passes left; maybe the game ends."""
        players = state.players
        scores = list(state.scores)
        scores[winner] += state.pot
        thrown = dict(state.throws)
        throw = classify(*thrown[winner])
        verdict = f"{players[winner]} takes the pot of {state.pot} ({why}: {throw.text})"
        awards = tuple((s, state.pot - state.stake if s == winner else -state.stake) for s in range(len(players)))
        reveal = RevealView(dice=throw.dice, verdict=verdict, lines=state.round_lines, awards=awards)
        done = state.rounds_played + 1
        n = len(players)
        finished = rotation.is_over(done, state.option("casts") * n, n, scores)
        return replace(
            state,
            scores=tuple(scores),
            rounds_played=done,
            stake=None,
            pot=0,
            throws=(),
            rolloff=(),
            rolloff_dice=(),
            round_lines=(),
            last_reveal=reveal,
            finished=finished,
            winner=rotation.leader(scores) if finished else None,
            history=state.history + (f"Round {done}: {verdict}",),
        )

    # --- what the table sees ----------------------------------------------------------

    def prompt(self, state: GyvahrsState) -> Prompt:
        players = state.players
        if state.finished:
            if state.winner is None:
                return Prompt("over", "The game is over")
            return Prompt("over", f"{players[state.winner]} wins with net winnings of {state.scores[state.winner]:+d}")
        caster = self.caster(state)
        if state.stake is None:
            return Prompt("stake", f"{players[caster]} sets the stake", (caster,), ("stake",))
        seat, count = self.expected(state)
        request = DiceRequest("spike", count, seat=seat, purpose="roll-off" if state.rolloff else "throw")
        if state.rolloff:
            return Prompt("roll-off", f"Roll-off for the pot: {players[seat]} rolls one die", (seat,), ("dice",), dice=request)
        if not state.throws:
            return Prompt("set", f"{players[seat]} throws the set", (seat,), ("dice",), dice=request)
        set_throw = classify(*state.throws[0][1])
        if state.option("mode") == "beat_the_caster":
            text = f"{players[seat]} throws to beat {set_throw.name}"
        else:
            text = f"{players[seat]} throws ({len(state.throws)} of {len(players)} have thrown)"
        return Prompt("throw", text, (seat,), ("dice",), dice=request)

    def stage(self, state: GyvahrsState) -> str:
        n = len(state.players)
        if state.finished:
            return f"Game over after {state.rounds_played} rounds"
        planned = state.option("casts") * n
        number = state.rounds_played + 1
        where = f"Round {number} of {planned}" if number <= planned else f"Extra round {number} (top winnings shared)"
        return f"{where} · Caster: {state.players[self.caster(state)]}"

    def slate(self, state: GyvahrsState) -> Slate:
        roles, statuses = {}, {}
        if not state.finished:
            roles[self.caster(state)] = "Caster"
            statuses = {s: classify(*d).text for s, d in state.throws}
        current = None
        if state.stake is not None:
            current = f"Stake {state.stake}"
            if state.throws:
                current += f" · Set: {classify(*state.throws[0][1]).text}"
        return rotation.slate(self, state, roles=roles, statuses=statuses, current=current, pot=state.pot, scoring="winnings", dice="spike")

    # --- simulation ---------------------------------------------------------------------

    def legal_actions(self, state: GyvahrsState) -> list[Event]:
        """Only the stake is a decision (kept to 1..5 for random play); throws are readings."""
        if state.finished or state.stake is not None:
            return []
        return [Stake(self.caster(state), amount) for amount in SIMULATED_STAKES]

    def sample_reading(self, state: GyvahrsState, rng: random.Random) -> DiceObserved:
        return rotation.random_reading(self.prompt(state).dice, rng)


GAME = GyvahrsGame()

"""What Leira's Dice and Trickster's Tavern share: a liar's-dice table.

Hidden dice, bids going round to the left, a challenge, a reveal that the camera or
the host reads, one die lost, the loser starting the next round, last player with
dice wins. The two games are small subclasses of `BiddingGame` that override hooks
(python-chess variants): how a bid must rise, how a reveal is counted, what happens
to the lost die.

The companion never knows hidden dice before the reveal, so the state holds die
*sizes* per seat (Leira's: all d6) and the faces arrive in the reveal's reading.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, replace
from typing import Callable

from companion.rules.dice import is_pip
from companion.rules.errors import IllegalAction
from companion.rules.events import Bid, Challenge, DiceObserved, Event
from companion.rules.game import DiceRequest, Game, GameState, Option, Prompt, RevealView, SeatView, Slate

ROLL_OFF, BIDDING, REVEAL = "roll-off", "bidding", "reveal"

START_OPTION = Option(
    "start", "roll_off", "who makes the first bid: roll_off (every player rolls two d6, highest total, ties roll again) or seat0",
    choices=("roll_off", "seat0"),
)

_WORDS = ("no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve")


def quantity_word(n: int) -> str:
    return _WORDS[n] if 0 <= n < len(_WORDS) else str(n)


@dataclass(frozen=True)
class TableState(GameState):
    """A liar's-dice table. Invariant per seat: in play + lost == dealt + given."""

    phase: str = ROLL_OFF
    round: int = 0
    turn: int | None = None  # who bids or challenges now
    starter: int | None = None  # who opened this round
    bid: Bid | None = None  # the bid on the table
    challenger: int | None = None
    loser: int | None = None  # who lost the latest challenge (starts the next round)
    hands: tuple[tuple[int, ...], ...] = ()  # die sizes per seat, smallest first
    dealt: tuple[int, ...] = ()
    lost: tuple[int, ...] = ()
    given: tuple[int, ...] = ()
    rolloff: tuple[int, ...] = ()  # seats still in the roll-off for the start
    rolls: tuple[tuple[int, int], ...] = ()  # (seat, total) in this pass of the roll-off
    reveal: RevealView | None = None  # the latest reveal, for the slate
    round_bids: tuple[Bid, ...] = ()  # this round's bids, checked at the reveal for the statistics
    tallies: tuple[tuple[int, int, int, int], ...] = ()  # per seat: calls, correct calls, bluffs, bluffs that worked

    def dice(self, seat: int) -> int:
        return len(self.hands[seat])

    @property
    def in_play(self) -> int:
        return sum(len(h) for h in self.hands)

    @property
    def alive(self) -> tuple[int, ...]:
        return tuple(s for s, h in enumerate(self.hands) if h)

    @property
    def out(self) -> tuple[int, ...]:
        """Seats with no dice left: out of the game."""
        return tuple(s for s, h in enumerate(self.hands) if not h)

    @property
    def waiting(self) -> tuple[int, ...]:
        """Seats of the roll-off that have not rolled yet in this pass."""
        done = {s for s, _ in self.rolls}
        return tuple(s for s in self.rolloff if s not in done)


class BiddingGame(Game):
    """The shared liar's-dice referee. Subclasses fill in the hooks below."""

    #: The seat's yellow button challenges on that seat's turn; the shared Liar! button
    #: challenges for whoever's turn it is (on_button). Green means nothing here.
    button_words = {"yellow": "challenges (on their turn)", "liar": "challenges the bid"}

    state_class: type[TableState] = TableState
    exact_gift = False  # Leira's: an exact bid wins the challenger's die

    # --- hooks --------------------------------------------------------------------

    def deal(self, players: tuple[str, ...], options: tuple[tuple[str, object], ...]) -> tuple[tuple[int, ...], ...]:
        raise NotImplementedError

    def check_bid(self, state: TableState, bid: Bid) -> None:
        """Raise IllegalAction when `bid` may not follow the bid on the table."""
        raise NotImplementedError

    def bid_text(self, state: TableState, bid: Bid) -> str:
        """ "five 4s" """
        raise NotImplementedError

    def reveal_request(self, state: TableState) -> DiceRequest:
        raise NotImplementedError

    def check_reading(self, state: TableState, reading: DiceObserved) -> tuple[str, ...]:
        """Refuse a reveal reading that does not fit the dice in play; return lines for the slate."""
        raise NotImplementedError

    def reveal_layout(self, state: TableState, reading: DiceObserved, bid: Bid) -> dict[str, tuple]:
        """How the slate lays out a reveal's dice (RevealView's counted, sizes, hands): here
        each die showing the bid's face counts one; a bid on the total marks none."""
        return {"counted": tuple(int(bid.face is not None and v == bid.face) for v in reading.values)}

    def count(self, state: TableState, reading: DiceObserved, bid: Bid) -> int:
        """How much of `bid` the (checked) reading shows: dice of its face, or the total."""
        raise NotImplementedError

    def found_text(self, state: TableState, bid: Bid, found: int) -> str:
        """ "two 4s on the table" """
        raise NotImplementedError

    def lose_die(self, state: TableState, loser: int, gainer: int | None) -> TableState:
        """The loser of a challenge gives up a die (Tavern: the loser picks, in a phase)."""
        return self.end_round(take_die(state, loser, state.hands[loser][0], to=gainer))

    def extra_handlers(self, state: TableState) -> dict[type, Callable[[TableState, Event], TableState]]:
        return {}

    def round_reset(self, state: TableState) -> TableState:
        """Anything a game clears when a new round starts."""
        return state

    def extra_prompt(self, state: TableState) -> Prompt | None:
        return None

    # --- set-up -------------------------------------------------------------------

    def new_state(self, players: tuple[str, ...], options: tuple[tuple[str, object], ...]) -> TableState:
        hands = self.deal(players, options)
        n = len(players)
        state = self.state_class(
            players=players, options=options, hands=hands, dealt=tuple(len(h) for h in hands),
            lost=(0,) * n, given=(0,) * n, rolloff=tuple(range(n)), tallies=((0, 0, 0, 0),) * n,
        )
        if dict(options).get("start") == "seat0":
            return self.new_round(state, 0)
        return state

    # --- play ---------------------------------------------------------------------

    def apply(self, state: TableState, event: Event) -> TableState:
        self.check_not_finished(state)
        handlers = {ROLL_OFF: {DiceObserved: self._roll}, BIDDING: {Bid: self._bid, Challenge: self._challenge},
                    REVEAL: {DiceObserved: self._reveal}}.get(state.phase, {})
        handlers = {**handlers, **self.extra_handlers(state)}
        handler = handlers.get(type(event))
        if handler is None:
            raise IllegalAction("turn order", f"{_article(event.kind)} is not expected now: {self.prompt(state).text}")
        return handler(state, event)

    def _roll(self, state: TableState, reading: DiceObserved) -> TableState:
        waiting = state.waiting
        seat = waiting[0] if reading.seat is None else self.check_seat(state, reading.seat)
        if seat not in waiting:
            raise IllegalAction("starting player", f"{state.players[seat]} is not rolling for the start now; waiting for {_names(state, waiting)}")
        check_pips(reading.values, 2, "the roll for the start is two six-sided dice")
        total = sum(reading.values)
        state = replace(state, rolls=state.rolls + ((seat, total),),
                        history=state.history + (f"{state.players[seat]} rolls {total} for the start",))
        if state.waiting:
            return state
        top = max(t for _, t in state.rolls)
        tied = tuple(s for s, t in state.rolls if t == top)
        if len(tied) > 1:
            note = f"{_names(state, tied)} tie on {top} and roll again"
            return replace(state, rolloff=tied, rolls=(), history=state.history + (note,))
        return self.new_round(replace(state, history=state.history + (f"{state.players[tied[0]]} starts",)), tied[0])

    def _bid(self, state: TableState, bid: Bid) -> TableState:
        seat = self.check_turn(state, bid.seat, "bid")
        self.check_bid(state, bid)
        line = f"{state.players[seat]} bids {self.bid_text(state, bid)}"
        return replace(state, bid=bid, turn=self.next_seat(state, seat), round_bids=state.round_bids + (bid,),
                       history=state.history + (line,))

    def _challenge(self, state: TableState, challenge: Challenge) -> TableState:
        seat = self.check_turn(state, challenge.seat, "challenge")
        if state.bid is None:
            raise IllegalAction("challenge", "there is no bid to challenge yet; the first player of a round must bid")
        line = f"{state.players[seat]} challenges {state.players[state.bid.seat]}'s bid of {self.bid_text(state, state.bid)}"
        return replace(state, phase=REVEAL, challenger=seat, turn=None, history=state.history + (line,))

    def _reveal(self, state: TableState, reading: DiceObserved) -> TableState:
        bid = state.bid
        lines = self.check_reading(state, reading)
        found = self.count(state, reading, bid)
        what = self.found_text(state, bid, found)
        holds = found >= bid.quantity
        bidder, challenger = bid.seat, state.challenger
        loser = challenger if holds else bidder
        gainer = bidder if holds and self.exact_gift and found == bid.quantity and state.hands[loser] else None
        claim = self.bid_text(state, bid)
        verdict = f"{what}: the bid of {claim} {'holds' if holds else 'fails'}"
        outcome = [f"{state.players[loser]} loses a die"]
        if gainer is not None:
            outcome = [f"exactly right: {state.players[loser]}'s die goes to {state.players[gainer]}"]
        if not state.hands[loser]:
            outcome = [f"{state.players[loser]} has no die left to lose"]
        awards = ((loser, -1),) + (((gainer, 1),) if gainer is not None else ()) if state.hands[loser] else ()
        view = RevealView(dice=tuple(reading.values), verdict=verdict, lines=tuple(lines) + tuple(outcome), awards=awards,
                          **self.reveal_layout(state, reading, bid))
        state = replace(state, reveal=view, loser=loser, tallies=self._tallied(state, reading, holds),
                        history=state.history + (verdict + "; " + outcome[0],))
        if not state.hands[loser]:
            return self.end_round(state)
        return self.lose_die(state, loser, gainer)

    def _tallied(self, state: TableState, reading: DiceObserved, holds: bool) -> tuple[tuple[int, int, int, int], ...]:
        """The statistics after a reveal: every bid of the round is checked against the dice shown."""
        rows = [list(row) for row in state.tallies]
        rows[state.challenger][0] += 1
        rows[state.challenger][1] += 0 if holds else 1
        for index, bid in enumerate(state.round_bids):
            if self.count(state, reading, bid) < bid.quantity:
                rows[bid.seat][2] += 1
                rows[bid.seat][3] += 1 if index < len(state.round_bids) - 1 else 0
        return tuple(tuple(row) for row in rows)

    def tally(self, state: TableState) -> dict[int, dict[str, int]]:
        """Challenges made and won, false bids (bluffs) and false bids nobody caught, dice lost."""
        keys = ("calls", "correct_calls", "bluffs", "bluffs_worked")
        return {seat: {**dict(zip(keys, row)), "dice_lost": state.lost[seat]} for seat, row in enumerate(state.tallies)}

    # --- rounds -------------------------------------------------------------------

    def end_round(self, state: TableState) -> TableState:
        """After the lost die: the game ends with one player left, or the loser starts anew."""
        alive = state.alive
        if len(alive) == 1:
            return self.finish(state, alive[0])
        starter = state.loser if state.hands[state.loser] else self.next_seat(state, state.loser)
        return self.new_round(state, starter)

    def finish(self, state: TableState, winner: int) -> TableState:
        line = f"{state.players[winner]} is the last player with dice and wins"
        return replace(state, finished=True, winner=winner, phase="finished", turn=None, bid=None,
                       history=state.history + (line,))

    def new_round(self, state: TableState, starter: int) -> TableState:
        state = replace(state, phase=BIDDING, round=state.round + 1, starter=starter, turn=starter, bid=None,
                        challenger=None, rolloff=(), rolls=(), round_bids=())
        return self.round_reset(state)

    def settle_outs(self, state: TableState) -> TableState:
        """After a die left the table outside a challenge: end the game or skip an out seat's turn."""
        alive = state.alive
        if len(alive) == 1:
            return self.finish(state, alive[0])
        if state.turn is not None and not state.hands[state.turn]:
            state = replace(state, turn=self.next_seat(state, state.turn))
        return state

    @staticmethod
    def next_seat(state: TableState, seat: int) -> int:
        """The next seat to the left that still has dice."""
        n = len(state.players)
        for step in range(1, n + 1):
            candidate = (seat + step) % n
            if state.hands[candidate]:
                return candidate
        return seat

    def check_turn(self, state: TableState, seat: int, what: str) -> int:
        seat = self.check_seat(state, seat)
        if seat != state.turn:
            raise IllegalAction("turn order", f"it is {state.players[state.turn]}'s turn, not {state.players[seat]}'s, to {what}")
        return seat

    # --- views --------------------------------------------------------------------

    def prompt(self, state: TableState) -> Prompt:
        if state.finished:
            if state.winner is None:
                return Prompt("finished", "The game was ended by the host")
            return Prompt("finished", f"Game over: {state.players[state.winner]} wins")
        if state.phase == ROLL_OFF:
            waiting = state.waiting
            text = f"Roll two dice for the start: {_names(state, waiting)}"
            return Prompt(ROLL_OFF, text, seats=waiting, wants=("dice",), waiting=waiting,
                          dice=DiceRequest(kind="pips", count=2, seat=waiting[0], purpose="roll for the start"))
        if state.phase == BIDDING:
            name = state.players[state.turn]
            faces = tuple(range(1, 7))  # a face from 1 to 6 (Leira's Dice: or the total, see there)
            if state.bid is None:
                return Prompt(BIDDING, f"{name} opens round {state.round} with a bid", seats=(state.turn,), wants=("bid",),
                              bid_faces=faces)
            text = f"{name}: raise {state.players[state.bid.seat]}'s bid of {self.bid_text(state, state.bid)} or challenge it"
            return Prompt(BIDDING, text, seats=(state.turn,), wants=("bid", "challenge"), bid_faces=faces)
        if state.phase == REVEAL:
            request = self.reveal_request(state)
            how = "the host types in the faces of" if request.kind == "polyhedral" else "show"
            return Prompt(REVEAL, f"Reveal: {how} all {request.count} dice", wants=("dice",), dice=request)
        extra = self.extra_prompt(state)
        if extra is None:
            raise IllegalAction("phase", f"unknown phase {state.phase!r}")
        return extra

    def slate(self, state: TableState) -> Slate:
        views = []
        for seat, name in enumerate(state.players):
            status = "out" if seat in state.out else None
            if state.winner == seat:
                status = "winner"
            role = "to bid" if seat == state.turn else ("starts" if seat == state.starter and state.phase == BIDDING else None)
            views.append(SeatView(seat, name, dice=len(state.hands[seat]), role=role, status=status))
        current = None
        if state.bid is not None and not state.finished:
            current = f"{state.players[state.bid.seat]} bids {self.bid_text(state, state.bid)}"
        stage = "Roll-off for the start" if state.phase == ROLL_OFF else f"Round {state.round}"
        return Slate(
            game=self.name, title=self.title, players=tuple(views), finished=state.finished,
            winner=state.players[state.winner] if state.finished and state.winner is not None else None,
            stage=stage, prompt=self.prompt(state).text, current=current, reveal=state.reveal,
            history=state.history, scoring="dice", dice="pips",
        )

    def on_button(self, state: TableState, seat: int | None, button: str) -> Event | None:
        if state.finished or state.phase != BIDDING or state.bid is None or state.turn is None:
            return None
        if button == "liar" and seat is None:
            return Challenge(state.turn)
        if button == "yellow" and seat == state.turn:
            return Challenge(seat)
        return None

    # --- simulation ---------------------------------------------------------------

    def bid_candidates(self, state: TableState) -> list[Bid]:
        """Every bid `check_bid` accepts now (for random play and the host panel)."""
        raise NotImplementedError

    def legal_actions(self, state: TableState) -> list[Event]:
        if state.finished or state.phase != BIDDING:
            return []
        actions: list[Event] = list(self.bid_candidates(state))
        if state.bid is not None:
            actions.append(Challenge(state.turn))
        return actions

    def sample_reading(self, state: TableState, rng: random.Random) -> Event:
        if state.phase == ROLL_OFF:
            return DiceObserved((rng.randint(1, 6), rng.randint(1, 6)), seat=state.waiting[0], source="simulated")
        if state.phase == REVEAL:
            faces = tuple(rng.randint(1, size) for hand in state.hands for size in hand)
            return DiceObserved(faces, source="simulated")
        raise IllegalAction("dice", "no dice reading is expected now")


# --- shared pieces ----------------------------------------------------------------


def take_die(state: TableState, seat: int, size: int, *, to: int | None = None) -> TableState:
    """`seat` loses one die of `size`; with `to`, that player receives it (Leira's exact bid)."""
    hands = list(state.hands)
    hand = list(hands[seat])
    hand.remove(size)
    hands[seat] = tuple(hand)
    lost = list(state.lost)
    lost[seat] += 1
    given = list(state.given)
    if to is not None:
        hands[to] = tuple(sorted(hands[to] + (size,)))
        given[to] += 1
    return replace(state, hands=tuple(hands), lost=tuple(lost), given=tuple(given))


def check_pips(values: tuple, count: int, what: str) -> None:
    if len(values) != count:
        raise IllegalAction("dice count", f"{what}: {count} dice expected but {len(values)} were read")
    for value in values:
        if not is_pip(value):
            raise IllegalAction("dice faces", f"a six-sided die cannot show {value!r}")


def _names(state: TableState, seats: tuple[int, ...]) -> str:
    names = [state.players[s] for s in seats]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _article(kind: str) -> str:
    return f"a {kind.replace('_', ' ')}" if kind else "that event"

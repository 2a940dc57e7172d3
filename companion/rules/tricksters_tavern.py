"""Trickster's Tavern: liar's dice with polyhedral hands, class abilities and wildcards.

Each seat holds the dice of its class card (companion/data/classes.toml, or a user's
class file). Bids name an amount and a score value 1..6; a later bid raises the amount
(any value) or keeps it and raises the value. At the reveal the host types in every
die's face; d8 and up count as several score values, a d20's 20 as three wildcards.
The loser picks the die to lose (a discard phase: no die named = the smallest), and
hands over six dice are cut to six at the end of the round the same way.

Abilities are text for the table; the host carries them out with the host actions
below (upgrade, downgrade, add, remove a die; declare a face wild), which the engine
checks against the dice actually held.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, replace

from companion.rules.bidding import BIDDING, REVEAL, START_OPTION, BiddingGame, TableState, take_die
from companion.rules.errors import IllegalAction, RulesError
from companion.rules.events import Bid, DiceObserved, Event
from companion.rules.game import DiceRequest, Option, Prompt
from companion.rules.polyhedral import (
    counted, downgraded, hand_text, is_size, most_of_one_value, score_values, size_name, upgraded,
)
from companion.rules.tavern_classes import ClassCard, find_card, merged, parse_card, parse_classes
from companion.rules.tavern_events import (  # noqa: F401  (re-exported: the game's events live with it)
    HOST_ACTIONS, AddDie, Discard, DowngradeDie, RemoveDie, UpgradeDie, WildFace,
)

DISCARD, CUT = "discard", "cut"
MAX_HAND = 6
VALUE_WORDS = ("", "one", "two", "three", "four", "five", "six")
PLURAL_WORDS = ("", "ones", "twos", "threes", "fours", "fives", "sixes")


@dataclass(frozen=True)
class TavernState(TableState):
    wilds: tuple[tuple[int, int | None, int | None], ...] = ()  # (face, seat, size) this round


class TrickstersTavernGame(BiddingGame):
    name = "tricksters-tavern"
    title = "Trickster's Tavern"
    aliases = ("tricksters", "trickster", "trickster's tavern")
    credit = (
        "Trickster's Tavern: the rule text the project received (shared/rules/tricksters-tavern.md) names no "
        "author; it presents itself as a liar's-dice variant (Perudo, Dudo) and leaves its class cards as a TODO. "
        "The classes shipped here are the companion's own. Rules described in our own words."
    )
    min_players = 2
    max_players = 8
    state_class = TavernState
    options = (
        START_OPTION,
        Option("classes", (), "class per seat: names or one-line cards like 'Brute (2d8+2d6)'; one entry = everyone; empty = all Commoner"),
        Option("class_file", "", "the TEXT of a class file (TOML, [[class]] tables) whose classes join the shipped ones"),
    )

    def __init__(self, shipped: tuple[ClassCard, ...] | None = None):
        self._shipped = shipped

    # --- classes --------------------------------------------------------------------

    def shipped(self) -> tuple[ClassCard, ...]:
        """The shipped class cards. companion/data/classes.toml is static package data,
        read once on first use (never at import, never table I/O)."""
        if self._shipped is None:
            from importlib import resources

            text = resources.files("companion").joinpath("data/classes.toml").read_text(encoding="utf-8")
            self._shipped = parse_classes(text)
        return self._shipped

    def resolve_options(self, given):
        """Class names become one-line cards, so the options alone rebuild every hand."""
        options = dict(super().resolve_options(given))
        try:
            extra = parse_classes(options["class_file"]) if options["class_file"] else ()
            wanted = options["classes"]
            if isinstance(wanted, str):
                wanted = (wanted,)
            if not isinstance(wanted, (list, tuple)):
                raise IllegalAction("options", f"option 'classes' must be a list of class names; got {wanted!r}")
            catalogue = merged(self.shipped(), extra)
            options["classes"] = tuple(find_card(w, catalogue).line for w in wanted)
        except RulesError as exc:
            raise IllegalAction("options", exc.message if isinstance(exc, IllegalAction) else str(exc)) from None
        options["class_file"] = ""
        return tuple(options.items())

    def new_state(self, players, options):
        options = dict(options)
        cards = options["classes"] or (find_card("Commoner", self.shipped()).line,)
        if len(cards) == 1:
            cards = cards * len(players)
        if len(cards) != len(players):
            raise IllegalAction("options", f"'classes' names {len(cards)} classes for {len(players)} players; give one per seat, or one for everyone")
        options["classes"] = tuple(cards)
        state = super().new_state(players, tuple(options.items()))
        lines = tuple(f"{p} plays {parse_card(c).line}" for p, c in zip(players, cards))
        return replace(state, history=lines + state.history)

    def deal(self, players, options):
        return tuple(parse_card(line).hand for line in dict(options)["classes"])

    # --- bids -----------------------------------------------------------------------

    def check_bid(self, state: TavernState, bid: Bid) -> None:
        if isinstance(bid.face, bool) or not isinstance(bid.face, int) or not 1 <= bid.face <= 6:
            raise IllegalAction("bid", f"a bid names a score value from 1 to 6, not {bid.face!r}")
        most = most_shown(state)
        if isinstance(bid.quantity, bool) or not isinstance(bid.quantity, int) or bid.quantity < 1:
            raise IllegalAction("bid", f"a bid claims an amount of at least 1, not {bid.quantity!r}")
        if bid.quantity > most:
            raise IllegalAction("bid", f"the dice in play can show at most {most} of one value, so {bid.quantity} can never be true")
        last = state.bid
        if last is None or raises(last, bid):
            return
        raise IllegalAction("bid order", f"a bid must raise the amount, or keep it and raise the value (the bid is {self.bid_text(state, last)})")

    def bid_text(self, state: TavernState, bid: Bid) -> str:
        return value_text(bid.quantity, bid.face)

    def bid_candidates(self, state: TavernState) -> list[Bid]:
        last = state.bid
        bids = (Bid(state.turn, q, f) for q in range(1, most_shown(state) + 1) for f in range(1, 7))
        return [bid for bid in bids if last is None or raises(last, bid)]

    # --- reveal ---------------------------------------------------------------------

    def reveal_request(self, state: TavernState) -> DiceRequest:
        hands = tuple((seat, hand) for seat, hand in enumerate(state.hands) if hand)
        return DiceRequest(kind="polyhedral", count=state.in_play, hands=hands, purpose="reveal")

    def check_reading(self, state: TavernState, reading: DiceObserved) -> tuple[str, ...]:
        """Faces in the order of the request: seat by seat, each hand smallest die first."""
        faces = tuple(reading.values)
        if len(faces) != state.in_play:
            raise IllegalAction("dice count", f"{state.in_play} dice are in play but {len(faces)} faces were given")
        lines = []
        for seat, size, face, values in self.scored(state, faces):
            if not lines or not lines[-1].startswith(f"{state.players[seat]}: "):
                lines.append(f"{state.players[seat]}: ")
            else:
                lines[-1] += ", "
            lines[-1] += f"{size_name(size)} {face}" + (f" {{{','.join(map(str, values))}}}" if values != (face,) else "")
        return tuple(lines)

    def scored(self, state: TavernState, faces: tuple):
        """(seat, size, face, score values) for each die, refusing a face its die does not have."""
        dice = [(seat, size) for seat, hand in enumerate(state.hands) for size in hand]
        for (seat, size), face in zip(dice, faces):
            if isinstance(face, bool) or not isinstance(face, int) or not 1 <= face <= size:
                raise IllegalAction("dice faces", f"{state.players[seat]}'s {size_name(size)} cannot show {face!r}")
            yield seat, size, face, score_values(size, face, wild=self.is_wild(state, seat, size, face))

    def reveal_layout(self, state: TavernState, reading: DiceObserved, bid: Bid) -> dict[str, tuple]:
        """Seat by seat, each die with its size and what it counts toward the bid."""
        scored = list(self.scored(state, tuple(reading.values)))
        return {"counted": tuple(counted(values, bid.face) for _, _, _, values in scored),
                "sizes": tuple(size for _, size, _, _ in scored),
                "hands": tuple((seat, len(hand)) for seat, hand in enumerate(state.hands) if hand)}

    def count(self, state: TavernState, reading: DiceObserved, bid: Bid) -> int:
        return sum(counted(values, bid.face) for _, _, _, values in self.scored(state, tuple(reading.values)))

    def found_text(self, state: TavernState, bid: Bid, found: int) -> str:
        return f"{value_text(found, bid.face)} counted"

    @staticmethod
    def is_wild(state: TavernState, seat: int, size: int, face: int) -> bool:
        return any(f == face and s in (None, seat) and z in (None, size) for f, s, z in state.wilds)

    # --- losing dice: the discard and the cut ----------------------------------------

    def lose_die(self, state: TavernState, loser: int, gainer: int | None) -> TavernState:
        if len(set(state.hands[loser])) == 1:  # every die alike: nothing to pick
            return self.end_round(take_die(state, loser, state.hands[loser][0]))
        return replace(state, phase=DISCARD, turn=None)

    def end_round(self, state: TavernState) -> TavernState:
        alive = state.alive
        if len(alive) == 1:
            return self.finish(state, alive[0])
        for seat in alive:  # hands of one size have no choice to make
            extra = len(state.hands[seat]) - MAX_HAND
            if extra > 0 and len(set(state.hands[seat])) == 1:
                state = self._drop(state, seat, state.hands[seat][:extra], "is cut to six dice")
        if self.cutter(state) is not None:
            return replace(state, phase=CUT, turn=None)
        return super().end_round(state)

    @staticmethod
    def cutter(state: TavernState) -> int | None:
        return next((s for s, h in enumerate(state.hands) if len(h) > MAX_HAND), None)

    def _discard(self, state: TavernState, discard: Discard) -> TavernState:
        seat = self.check_seat(state, discard.seat)
        if state.phase == DISCARD:
            owner, count, why = state.loser, 1, "loses"
        else:
            owner, count, why = self.cutter(state), len(state.hands[self.cutter(state)]) - MAX_HAND, "is cut to six dice"
        if seat != owner:
            raise IllegalAction("discard", f"{state.players[owner]} picks the dice to drop now, not {state.players[seat]}")
        hand = state.hands[seat]
        dice = tuple(discard.dice) or hand[:count]
        if len(dice) != count:
            raise IllegalAction("discard", f"{state.players[seat]} drops {count} {'die' if count == 1 else 'dice'}, not {len(dice)}")
        left = list(hand)
        for size in dice:
            if size not in left:
                raise IllegalAction("discard", f"{state.players[seat]} has no {size_name(size) if is_size(size) else repr(size)} to drop")
            left.remove(size)
        return self.end_round(self._drop(state, seat, dice, why))

    def _drop(self, state: TavernState, seat: int, dice: tuple[int, ...], why: str) -> TavernState:
        for size in dice:
            state = take_die(state, seat, size)
        line = f"{state.players[seat]} {why}: drops " + ", ".join(f"a {size_name(s)}" for s in sorted(dice))
        return replace(state, history=state.history + (line,))

    # --- host actions (abilities) ---------------------------------------------------

    def extra_handlers(self, state: TavernState):
        if state.phase in (DISCARD, CUT):
            return {Discard: self._discard}
        if state.phase in (BIDDING, REVEAL):
            return {UpgradeDie: self._resize, DowngradeDie: self._resize, AddDie: self._add,
                    RemoveDie: self._remove, WildFace: self._wild}
        return {}

    def _holder(self, state: TavernState, seat: int, size: int | None = None) -> int:
        seat = self.check_seat(state, seat)
        if not state.hands[seat]:
            raise IllegalAction("host action", f"{state.players[seat]} is out of the game")
        if size is not None and not is_size(size):
            raise IllegalAction("host action", f"d{size} is not a Trickster's Tavern die (d2, d4, d6, d8, d10, d12, d20)")
        return seat

    def _resize(self, state: TavernState, action: UpgradeDie | DowngradeDie) -> TavernState:
        seat = self._holder(state, action.seat, action.size)
        if action.size not in state.hands[seat]:
            raise IllegalAction("host action", f"{state.players[seat]} has no {size_name(action.size)}")
        if isinstance(action.steps, bool) or not isinstance(action.steps, int) or action.steps < 1:
            raise IllegalAction("host action", f"a die moves by at least one size, not {action.steps!r}")
        name = state.players[seat]
        if isinstance(action, UpgradeDie):
            new = upgraded(action.size, action.steps)
            line = f"{name}'s {size_name(action.size)} is upgraded to a {size_name(new)}"
        else:
            new = downgraded(action.size, action.steps)
            if new is None:
                state = take_die(state, seat, action.size)
                line = f"{name}'s {size_name(action.size)} is downgraded below a d2 and lost"
                return self.settle_outs(replace(state, history=state.history + (line,)))
            line = f"{name}'s {size_name(action.size)} is downgraded to a {size_name(new)}"
        hand = list(state.hands[seat])
        hand.remove(action.size)
        hands = state.hands[:seat] + (tuple(sorted(hand + [new])),) + state.hands[seat + 1:]
        return replace(state, hands=hands, history=state.history + (line,))

    def _add(self, state: TavernState, action: AddDie) -> TavernState:
        seat = self._holder(state, action.seat, action.size)
        hands = list(state.hands)
        hands[seat] = tuple(sorted(hands[seat] + (action.size,)))
        given = state.given[:seat] + (state.given[seat] + 1,) + state.given[seat + 1:]
        line = f"{state.players[seat]} takes a new {size_name(action.size)}"
        return replace(state, hands=tuple(hands), given=given, history=state.history + (line,))

    def _remove(self, state: TavernState, action: RemoveDie) -> TavernState:
        seat = self._holder(state, action.seat, action.size)
        if action.size not in state.hands[seat]:
            raise IllegalAction("host action", f"{state.players[seat]} has no {size_name(action.size)}")
        state = take_die(state, seat, action.size)
        line = f"{state.players[seat]} gives up a {size_name(action.size)}"
        return self.settle_outs(replace(state, history=state.history + (line,)))

    def _wild(self, state: TavernState, action: WildFace) -> TavernState:
        if action.seat is not None:
            self._holder(state, action.seat)
        if action.size is not None and not is_size(action.size):
            raise IllegalAction("host action", f"d{action.size} is not a Trickster's Tavern die (d2, d4, d6, d8, d10, d12, d20)")
        top = action.size or 20
        if isinstance(action.face, bool) or not isinstance(action.face, int) or not 1 <= action.face <= top:
            raise IllegalAction("host action", f"a {size_name(top)} has no face {action.face!r}")
        wild = (action.face, action.seat, action.size)
        if wild in state.wilds:
            raise IllegalAction("host action", "that face is already wild this round")
        return replace(state, wilds=state.wilds + (wild,), history=state.history + (wild_text(state, wild),))

    def round_reset(self, state: TavernState) -> TavernState:
        return replace(state, wilds=())

    # --- views and simulation ---------------------------------------------------------

    def extra_prompt(self, state: TavernState) -> Prompt | None:
        if state.phase == DISCARD:
            seat = state.loser
            text = f"{state.players[seat]} lost: pick the die to lose (green: the smallest, a {size_name(state.hands[seat][0])})"
            return Prompt(DISCARD, text, seats=(seat,), wants=("discard",))
        if state.phase == CUT:
            seat = self.cutter(state)
            extra = len(state.hands[seat]) - MAX_HAND
            text = (f"{state.players[seat]} holds {len(state.hands[seat])} dice: drop {extra} to keep six "
                    f"(green: the smallest, {hand_text(state.hands[seat][:extra])})")
            return Prompt(CUT, text, seats=(seat,), wants=("discard",))
        return None

    def prompt(self, state: TavernState) -> Prompt:
        prompt = super().prompt(state)
        if state.phase in (BIDDING, REVEAL) and not state.finished:
            return replace(prompt, wants=prompt.wants + tuple(a.kind for a in HOST_ACTIONS))
        return prompt

    def slate(self, state: TavernState):
        """Hands are public at the Tavern (sizes, never faces): each seat shows its class and dice."""
        slate = super().slate(state)
        classes = [parse_card(line).name for line in state.option("classes")]
        players = tuple(replace(view, hand=f"{classes[view.seat]}: {hand_text(state.hands[view.seat])}") for view in slate.players)
        return replace(slate, players=players, dice="polyhedral",
                       notes=() if state.finished else tuple(wild_text(state, w) for w in state.wilds))

    def on_button(self, state: TavernState, seat: int | None, button: str) -> Event | None:
        if button == "green" and not state.finished and state.phase in (DISCARD, CUT):
            owner = state.loser if state.phase == DISCARD else self.cutter(state)
            return Discard(seat) if seat == owner else None
        return super().on_button(state, seat, button)

    def legal_actions(self, state: TavernState) -> list[Event]:
        if state.finished:
            return []
        if state.phase in (DISCARD, CUT):
            owner = state.loser if state.phase == DISCARD else self.cutter(state)
            count = 1 if state.phase == DISCARD else len(state.hands[owner]) - MAX_HAND
            picks = sorted(set(itertools.combinations(state.hands[owner], count)))
            return [Discard(owner)] + [Discard(owner, pick) for pick in picks]
        actions = super().legal_actions(state)
        if state.phase == BIDDING and state.bid is None:  # abilities at a round's opening keep random games short
            seat, hand = state.turn, state.hands[state.turn]
            actions += [UpgradeDie(seat, hand[0]), DowngradeDie(seat, hand[-1])]
            if (1, seat, None) not in state.wilds:
                actions.append(WildFace(1, seat))
            if len(hand) < MAX_HAND:
                actions.append(AddDie(seat, 4))
        return actions


def wild_text(state: TavernState, wild: tuple[int, int | None, int | None]) -> str:
    """ "1s are wild on Ann's dice this round": the history's line, and the slate's while it holds."""
    face, seat, size = wild
    whose = "everyone's dice" if seat is None else f"{state.players[seat]}'s dice"
    return f"{face}s are wild on {whose}" + (f" ({size_name(size)} only)" if size else "") + " this round"


def raises(last: Bid, bid: Bid) -> bool:
    """The Tavern's order: a higher amount (any value), or the same amount of a higher value."""
    return bid.quantity > last.quantity or (bid.quantity == last.quantity and bid.face > last.face)


def most_shown(state: TavernState) -> int:
    """The most dice of one score value the hands in play could show (a d20 up to three)."""
    return sum(most_of_one_value(size) for hand in state.hands for size in hand)


def value_text(amount: int, value: int) -> str:
    """Bids as the rule text writes them: the amount in numerals, the value in words ("3 fours")."""
    return f"{amount} {VALUE_WORDS[value] if amount == 1 else PLURAL_WORDS[value]}"


GAME = TrickstersTavernGame()

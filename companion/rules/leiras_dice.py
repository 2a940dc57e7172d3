"""Leira's Dice: liar's dice with five d6 each, where an exactly right bid wins a die.

Bids claim at least `quantity` dice showing `face` among all dice on the table; a
later bid raises the quantity without lowering the face, or keeps the quantity and
raises the face. With two players left on one die each, bids are on the total of
both dice (2..12). The camera reads every die at the reveal.
"""

from __future__ import annotations

from dataclasses import replace

from companion.rules.bidding import START_OPTION, BiddingGame, TableState, check_pips, quantity_word
from companion.rules.errors import IllegalAction
from companion.rules.events import Bid, DiceObserved
from companion.rules.game import DiceRequest, Option, Prompt

TOTAL_LOW, TOTAL_HIGH = 2, 12


def face_plural(face: int, count: int) -> str:
    """"4s", or "4" after one."""
    return f"{face}" if count == 1 else f"{face}s"


class LeirasDiceGame(BiddingGame):
    name = "leiras-dice"
    title = "Leira's Dice"
    aliases = ("leiras", "leira", "leira's dice")
    credit = (
        "Leira's Dice: the rule text the project received (shared/rules/leiras-dice.md) names no designer "
        "or publisher; it closes with a 'Golden Goose Recommendation' for the pot. Rules described in our own words."
    )
    min_players = 2
    max_players = 5
    exact_gift = True
    options = (
        START_OPTION,
        Option("dice", 5, "dice each player starts with (the rules: 5)", minimum=1, maximum=20),
    )

    def deal(self, players, options):
        return tuple((6,) * dict(options)["dice"] for _ in players)

    @staticmethod
    def total_mode(state: TableState) -> bool:
        """Two players left on one die each: bids are on the total of both dice."""
        alive = state.alive
        return len(alive) == 2 and all(state.dice(s) == 1 for s in alive)

    def check_bid(self, state: TableState, bid: Bid) -> None:
        if self.total_mode(state):
            self._check_total(state, bid)
            return
        if bid.face is None:
            raise IllegalAction("bid", "a bid names a face from 1 to 6 (bids on the total are only for two players on one die each)")
        if isinstance(bid.face, bool) or not isinstance(bid.face, int) or not 1 <= bid.face <= 6:
            raise IllegalAction("bid", f"a bid names a face from 1 to 6, not {bid.face!r}")
        if isinstance(bid.quantity, bool) or not isinstance(bid.quantity, int) or bid.quantity < 1:
            raise IllegalAction("bid", f"a bid claims at least one die, not {bid.quantity!r}")
        if bid.quantity > state.in_play:
            raise IllegalAction("bid", f"only {state.in_play} dice are in play, so a bid of {bid.quantity} can never be true")
        last = state.bid
        if last is None or raises(last, bid):
            return
        if bid.quantity > last.quantity:
            raise IllegalAction("bid order", f"a higher quantity may not lower the face: after {self.bid_text(state, last)}, bid {quantity_word(bid.quantity)} {face_plural(last.face, bid.quantity)} or a higher face")
        raise IllegalAction("bid order", f"a bid must raise the quantity, or keep it and raise the face (the bid is {self.bid_text(state, last)})")

    def _check_total(self, state: TableState, bid: Bid) -> None:
        if bid.face is not None:
            raise IllegalAction("total bid", "two players on one die each bid on the total of both dice (2 to 12), not on a face")
        if isinstance(bid.quantity, bool) or not isinstance(bid.quantity, int) or not TOTAL_LOW <= bid.quantity <= TOTAL_HIGH:
            raise IllegalAction("total bid", f"a bid on the total of two dice is from 2 to 12, not {bid.quantity!r}")
        if state.bid is not None and bid.quantity <= state.bid.quantity:
            raise IllegalAction("total bid", f"a total bid must be higher than {state.bid.quantity}")

    def prompt(self, state: TableState) -> Prompt:
        prompt = super().prompt(state)
        if state.phase == "bidding" and self.total_mode(state):
            return replace(prompt, text=prompt.text + " (one die each: bid on the total of both dice, 2 to 12)",
                           bid_faces=(None,))
        return prompt

    def bid_text(self, state: TableState, bid: Bid) -> str:
        if bid.face is None:
            return f"a total of {bid.quantity}"
        return f"{quantity_word(bid.quantity)} {face_plural(bid.face, bid.quantity)}"

    def reveal_request(self, state: TableState) -> DiceRequest:
        return DiceRequest(kind="pips", count=state.in_play, purpose="reveal")

    def check_reading(self, state: TableState, reading: DiceObserved) -> tuple[str, ...]:
        values = tuple(reading.values)
        if len(values) != state.in_play:
            raise IllegalAction("dice count", f"{state.in_play} dice are in play but {len(values)} were read")
        check_pips(values, state.in_play, "the reveal")
        return ()

    def count(self, state: TableState, reading: DiceObserved, bid: Bid) -> int:
        return sum(reading.values) if bid.face is None else tuple(reading.values).count(bid.face)

    def found_text(self, state: TableState, bid: Bid, found: int) -> str:
        if bid.face is None:
            return f"the dice total {found}"
        return f"{quantity_word(found)} {face_plural(bid.face, found)} on the table"

    def bid_candidates(self, state: TableState) -> list[Bid]:
        seat, last = state.turn, state.bid
        if self.total_mode(state):
            low = TOTAL_LOW if last is None else last.quantity + 1
            return [Bid(seat, total) for total in range(low, TOTAL_HIGH + 1)]
        bids = (Bid(seat, q, f) for q in range(1, state.in_play + 1) for f in range(1, 7))
        return [bid for bid in bids if last is None or raises(last, bid)]


def raises(last: Bid, bid: Bid) -> bool:
    """Leira's order: more dice of the same or a higher face, or as many of a higher face."""
    return (bid.quantity > last.quantity and bid.face >= last.face) or (bid.quantity == last.quantity and bid.face > last.face)


GAME = LeirasDiceGame()

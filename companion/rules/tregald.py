"""Tregald: the Tregald declares a hidden roll of five dice, the others secretly believe
(green chip) or doubt (yellow chip) it, then the cup is lifted.

Designed by Kevin Van Ryswyck for the Games of the Galaxy project. The companion
keeps the score slate; see docs/games/tregald.md for the rulings it follows.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, replace

from companion.rules import rotation
from companion.rules.dice import COLOURS, is_pip
from companion.rules.errors import IllegalAction
from companion.rules.events import HIDDEN, ChipCall, Declaration, DiceObserved, Event, Face
from companion.rules.game import DiceRequest, Game, GameState, Option, Prompt, RevealView, Slate

DICE = 5
DECEIVED_POINTS = 3
ALL_DECEIVED_BONUS = 2
RIGHT_CALL_POINTS = 1
CHIPS = ("green", "yellow")


def count_words(count: int, face: Face) -> str:
    """ "3 red", "2 of face 6"."""
    return f"{count} {face}" if face in COLOURS else f"{count} of face {face}"


@dataclass(frozen=True)
class TregaldState(GameState):
    scores: tuple[int, ...] = ()
    #: Turns completed; the Tregald of the turn being played is seat `turn % players`.
    turn: int = 0
    #: (count, face) declared this turn, None before the declaration.
    declaration: tuple[int, Face] | None = None
    #: Secret chip calls this turn as (seat, chip), seat order; a later call replaces an earlier one.
    calls: tuple[tuple[int, str], ...] = ()
    last_reveal: RevealView | None = None
    #: Per seat (calls, correct calls, bluffs, bluffs that deceived every caller), for statistics.
    tallies: tuple[tuple[int, int, int, int], ...] = ()


class TregaldGame(Game):
    name = "tregald"
    title = "Tregald"
    button_words = {"green": "believes", "yellow": "doubts"}
    credit = "Tregald by Kevin Van Ryswyck (graphics Rick Scott), Games of the Galaxy project: www.gamesofthegalaxy.com"
    options = (
        Option("dice", "chance", "five chance cubes (declare N red or blue) or five spike dice (declare N of a face)",
               choices=("chance", "spike")),
        Option("declaration", "exact", "a declaration is true when exactly N (exact) or at least N (at_least) show",
               choices=("exact", "at_least")),
        Option("rounds", 3, "rounds to play; in a round every seat is the Tregald once", minimum=1, maximum=100),
    )

    def new_state(self, players, options):
        n = len(players)
        return TregaldState(players=players, options=options, scores=(0,) * n, tallies=((0, 0, 0, 0),) * n)

    # --- who does what --------------------------------------------------------------

    @staticmethod
    def tregald(state: TregaldState) -> int:
        return state.turn % len(state.players)

    def callers(self, state: TregaldState) -> tuple[int, ...]:
        n = len(state.players)
        return tuple(rotation.left_of(self.tregald(state), n, k) for k in range(1, n))

    def waiting(self, state: TregaldState) -> tuple[int, ...]:
        called = dict(state.calls)
        return tuple(s for s in self.callers(state) if s not in called)

    # --- play -----------------------------------------------------------------------

    def apply(self, state: TregaldState, event: Event) -> TregaldState:
        self.check_not_finished(state)
        if isinstance(event, Declaration):
            return self._declare(state, event)
        if isinstance(event, ChipCall):
            return self._call(state, event)
        if isinstance(event, DiceObserved):
            return self._reveal(state, event)
        raise IllegalAction("events", f"{event.kind} is not part of Tregald")

    def _declare(self, state: TregaldState, event: Declaration) -> TregaldState:
        seat = self.check_seat(state, event.seat)
        tregald = self.tregald(state)
        if seat != tregald:
            raise IllegalAction("the Tregald declares", f"{state.players[seat]} is not the Tregald: {state.players[tregald]} declares this turn")
        if state.declaration is not None:
            raise IllegalAction("one declaration", f"{state.players[seat]} has already declared {self._claim(state, state.declaration)}")
        count, face = event.count, event.face
        lowest = 1 if state.option("declaration") == "at_least" else 0
        if isinstance(count, bool) or not isinstance(count, int) or not lowest <= count <= DICE:
            raise IllegalAction("declaration", f"a declaration counts {lowest} to {DICE} dice, not {count!r}")
        if state.option("dice") == "chance" and face not in COLOURS:
            raise IllegalAction("declaration", f"with chance cubes the Tregald declares red or blue, not {face!r}")
        if state.option("dice") == "spike" and not is_pip(face, 6):
            raise IllegalAction("declaration", f"with spike dice the Tregald declares a face 1 to 6, not {face!r}")
        claim = (count, face)
        history = state.history + (f"{state.players[seat]} declared {self._claim(state, claim)}",)
        return replace(state, declaration=claim, history=history)

    def _call(self, state: TregaldState, event: ChipCall) -> TregaldState:
        seat = self.check_seat(state, event.seat)
        tregald = self.tregald(state)
        if seat == tregald:
            raise IllegalAction("callers", f"{state.players[seat]} is the Tregald and does not call")
        if state.declaration is None:
            raise IllegalAction("declare first", f"wait for {state.players[tregald]}'s declaration before calling")
        if event.chip not in CHIPS and event.chip != HIDDEN:  # hidden: a public record's call no reveal counted
            raise IllegalAction("chips", f"a call is a green or a yellow chip, not {event.chip!r}")
        calls = tuple(sorted({**dict(state.calls), seat: event.chip}.items()))
        return replace(state, calls=calls)

    def _reveal(self, state: TregaldState, event: DiceObserved) -> TregaldState:
        tregald = self.tregald(state)
        if state.declaration is None:
            raise IllegalAction("declare first", f"the cup stays down until {state.players[tregald]} has declared")
        if self.waiting(state):
            raise IllegalAction(
                "calls before the reveal",
                f"calls in: {len(state.calls)} of {len(self.callers(state))}; the cup stays down until every caller has called",
            )
        if any(chip == HIDDEN for _, chip in state.calls):
            raise IllegalAction("hidden call", "a call whose colour a public record hid cannot be scored")
        values = rotation.check_reading(event, self.prompt(state).dice, state.players)
        count, face = state.declaration
        rolled = sum(1 for v in values if v == face)
        true = rolled == count if state.option("declaration") == "exact" else rolled >= count
        scores = list(state.scores)
        lines, awards = [], []
        deceived = [s for s, chip in state.calls if (chip == "green") != true]
        right = [s for s, chip in state.calls if (chip == "green") == true]
        for s in deceived:
            lines.append(f"{state.players[s]} was deceived (+{DECEIVED_POINTS} to {state.players[tregald]})")
        gain = DECEIVED_POINTS * len(deceived)
        if len(deceived) == len(state.calls):
            gain += ALL_DECEIVED_BONUS
            lines.append(f"Everyone was deceived (+{ALL_DECEIVED_BONUS} bonus to {state.players[tregald]})")
        scores[tregald] += gain
        awards.append((tregald, gain))
        for s in right:
            scores[s] += RIGHT_CALL_POINTS
            awards.append((s, RIGHT_CALL_POINTS))
            lines.append(f"{state.players[s]} judged right (+{RIGHT_CALL_POINTS})")
        claim = self._claim(state, state.declaration)
        verdict = f"{'True' if true else 'False'}: {claim} declared, {count_words(rolled, face)} rolled"
        reveal = RevealView(dice=values, verdict=verdict, lines=tuple(lines), awards=tuple(awards))
        tallies = [list(t) for t in state.tallies]
        for s, _chip in state.calls:
            tallies[s][0] += 1
            tallies[s][1] += s in right
        tallies[tregald][2] += not true
        tallies[tregald][3] += not true and not right
        turn = state.turn + 1
        n = len(state.players)
        finished = rotation.is_over(turn, state.option("rounds") * n, n, scores)
        summary = f"Turn {turn}: {state.players[tregald]}'s {claim} was {'true' if true else 'false'}, " + (
            f"{rotation.seat_list(state.players, deceived)} deceived" if deceived else "nobody deceived"
        )
        return replace(
            state,
            scores=tuple(scores),
            turn=turn,
            declaration=None,
            calls=(),
            last_reveal=reveal,
            tallies=tuple(tuple(t) for t in tallies),
            finished=finished,
            winner=rotation.leader(scores) if finished else None,
            history=state.history + (summary,),
        )

    # --- what the table sees ----------------------------------------------------------

    @staticmethod
    def _claim(state: TregaldState, claim: tuple[int, Face]) -> str:
        words = count_words(*claim)
        return f"at least {words}" if state.option("declaration") == "at_least" else words

    def prompt(self, state: TregaldState) -> Prompt:
        players = state.players
        if state.finished:
            best = max(state.scores)
            text = f"{players[state.winner]} wins with {best} points" if state.winner is not None else "The game is over"
            return Prompt("over", text)
        tregald = self.tregald(state)
        if state.declaration is None:
            return Prompt("declare", f"{players[tregald]} declares", (tregald,), ("declaration",))
        callers = self.callers(state)
        waiting = self.waiting(state)
        if waiting:
            return Prompt("call", f"Calls in: {len(state.calls)} of {len(callers)}", callers, ("chip_call",), waiting=waiting)
        request = DiceRequest(state.option("dice"), DICE, seat=tregald, purpose="the Tregald's roll")
        text = f"All calls in: {players[tregald]} lifts the cup ({rotation.dice_words(request.kind, DICE)})"
        return Prompt("reveal", text, (tregald,) + callers, ("dice", "chip_call"), dice=request)

    def stage(self, state: TregaldState) -> str:
        n = len(state.players)
        rounds = state.option("rounds")
        if state.finished:
            played = state.turn // n
            return f"Game over after {played} round{'s' if played != 1 else ''}"
        number = state.turn // n + 1
        where = f"Round {number} of {rounds}" if number <= rounds else f"Extra round {number} (top score shared)"
        return f"{where} · Tregald: {state.players[self.tregald(state)]}"

    def slate(self, state: TregaldState) -> Slate:
        roles, statuses = {}, {}
        if not state.finished:
            roles[self.tregald(state)] = "Tregald"
            if state.declaration is not None:
                called = dict(state.calls)
                statuses = {s: ("call in" if s in called else "to call") for s in self.callers(state)}
        current = None
        if state.declaration is not None:
            current = f"{state.players[self.tregald(state)]} declares {self._claim(state, state.declaration)}"
        return rotation.slate(self, state, roles=roles, statuses=statuses, current=current, dice=state.option("dice"))

    def tally(self, state: TregaldState) -> dict[int, dict[str, int]]:
        keys = ("calls", "correct_calls", "bluffs", "bluffs_worked")
        return {seat: dict(zip(keys, counts)) for seat, counts in enumerate(state.tallies)}

    def on_button(self, state: TregaldState, seat: int | None, button: str) -> Event | None:
        if state.finished or seat is None or button not in CHIPS or state.declaration is None:
            return None
        if seat not in self.callers(state):
            return None
        return ChipCall(seat, button)

    # --- simulation ---------------------------------------------------------------------

    def legal_actions(self, state: TregaldState) -> list[Event]:
        """Decisions the game waits for. Once every call is in, changing a call is still
        allowed but not listed, so random play moves on to the reveal."""
        if state.finished:
            return []
        if state.declaration is None:
            lowest = 1 if state.option("declaration") == "at_least" else 0
            faces = COLOURS if state.option("dice") == "chance" else tuple(range(1, 7))
            seat = self.tregald(state)
            return [Declaration(seat, count, face) for count in range(lowest, DICE + 1) for face in faces]
        return [ChipCall(s, chip) for s in self.waiting(state) for chip in CHIPS]

    def sample_reading(self, state: TregaldState, rng: random.Random) -> DiceObserved:
        return rotation.random_reading(self.prompt(state).dice, rng)


GAME = TregaldGame()

"""Val-Des: the caster shakes one chance cube under the cup, every player (caster
included) calls Val (red) or Des (blue), the cup is lifted, right calls score.

Designed by Kevin Van Ryswyck for the Games of the Galaxy project. See
docs/games/val-des.md for the rulings and house rules the companion follows.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, replace

from companion.rules import rotation
from companion.rules.dice import BLUE, COLOURS, RED
from companion.rules.errors import IllegalAction
from companion.rules.events import ColourCall, DiceObserved, Event
from companion.rules.game import DiceRequest, Game, GameState, Option, Prompt, RevealView, Slate

RUN = 3
RUN_BONUS = 2
CALL_NAMES = {RED: "Val (red)", BLUE: "Des (blue)"}
BUTTONS = {"green": RED, "yellow": BLUE}


@dataclass(frozen=True)
class ValDesState(GameState):
    scores: tuple[int, ...] = ()
    #: Sets completed; the caster of the set being played is seat `sets_played % players`.
    sets_played: int = 0
    #: Open calls this set as (seat, colour), seat order; a later call replaces an earlier one.
    calls: tuple[tuple[int, str], ...] = ()
    #: Per seat, right (True) or wrong for each regular set: what the streak bonus reads.
    results: tuple[tuple[bool, ...], ...] = ()
    last_reveal: RevealView | None = None
    #: Per seat (calls, correct calls) over every set, extra sets included, for statistics.
    tallies: tuple[tuple[int, int], ...] = ()


def runs(results: tuple[bool, ...], length: int = RUN) -> int:
    """How many separate runs of `length` or more right calls in a row."""
    count = streak = 0
    for right in results + (False,):
        if right:
            streak += 1
            continue
        count += streak >= length
        streak = 0
    return count


class ValDesGame(Game):
    name = "val-des"
    title = "Val-Des"
    button_words = {button: f"calls {CALL_NAMES[colour]}" for button, colour in BUTTONS.items()}
    aliases = ("valdes", "val_des")
    credit = "Val-Des by Kevin Van Ryswyck (graphics Michael, Rick Scott), Games of the Galaxy project: www.gamesofthegalaxy.com"
    options = (
        Option("streak_bonus", "once", "+2 once for ever calling 3 right in a row (once), or +2 per separate run of 3+ (per_run)",
               choices=("once", "per_run")),
        Option("sets", 7, "sets to play before the streak bonus and the final count", minimum=1, maximum=100),
    )

    def new_state(self, players, options):
        n = len(players)
        return ValDesState(players=players, options=options, scores=(0,) * n, results=((),) * n, tallies=((0, 0),) * n)

    @staticmethod
    def caster(state: ValDesState) -> int:
        return state.sets_played % len(state.players)

    @staticmethod
    def call_order(state: ValDesState) -> tuple[int, ...]:
        """The caster's left first, the caster last (the order is shown, not enforced)."""
        n = len(state.players)
        return tuple(rotation.left_of(ValDesGame.caster(state), n, k) for k in range(1, n + 1))

    def waiting(self, state: ValDesState) -> tuple[int, ...]:
        called = dict(state.calls)
        return tuple(s for s in self.call_order(state) if s not in called)

    # --- play -----------------------------------------------------------------------

    def apply(self, state: ValDesState, event: Event) -> ValDesState:
        self.check_not_finished(state)
        if isinstance(event, ColourCall):
            seat = self.check_seat(state, event.seat)
            if event.colour not in COLOURS:
                raise IllegalAction("calls", f"a call is Val (red) or Des (blue), not {event.colour!r}")
            return replace(state, calls=tuple(sorted({**dict(state.calls), seat: event.colour}.items())))
        if isinstance(event, DiceObserved):
            return self._reveal(state, event)
        raise IllegalAction("events", f"{event.kind} is not part of Val-Des")

    def _reveal(self, state: ValDesState, event: DiceObserved) -> ValDesState:
        if self.waiting(state):
            raise IllegalAction(
                "calls before the reveal",
                f"calls in: {len(state.calls)} of {len(state.players)}; every player calls before the cup is lifted",
            )
        (face,) = rotation.check_reading(event, self.prompt(state).dice, state.players)
        players = state.players
        scores = list(state.scores)
        right = [s for s, colour in state.calls if colour == face]
        for s in right:
            scores[s] += 1
        lines = [f"{players[s]} called {CALL_NAMES[c]}: {'right (+1)' if c == face else 'wrong'}" for s, c in state.calls]
        awards = [(s, 1) for s in right]
        called = dict(state.calls)
        tallies = tuple((c + (s in called), r + (s in right)) for s, (c, r) in enumerate(state.tallies))
        planned = state.option("sets")
        done = state.sets_played + 1
        results = state.results
        if done <= planned:
            results = tuple(r + (s in right,) for s, r in enumerate(results))
        if done == planned:
            for s, r in enumerate(results):
                bonus = self._bonus(state, r)
                if bonus:
                    scores[s] += bonus
                    awards.append((s, bonus))
                    lines.append(f"{players[s]} called {RUN} or more right in a row (+{bonus} bonus)")
        verdict = f"{CALL_NAMES[face]}: " + (f"{rotation.seat_list(players, right)} called it" if right else "nobody called it")
        finished = rotation.is_over(done, planned, 1, scores)
        return replace(
            state,
            scores=tuple(scores),
            sets_played=done,
            calls=(),
            results=results,
            tallies=tallies,
            last_reveal=RevealView(dice=(face,), verdict=verdict, lines=tuple(lines), awards=tuple(awards)),
            finished=finished,
            winner=rotation.leader(scores) if finished else None,
            history=state.history + (f"Set {done}: {verdict}",),
        )

    @staticmethod
    def _bonus(state: ValDesState, results: tuple[bool, ...]) -> int:
        found = runs(results)
        if state.option("streak_bonus") == "once":
            found = min(found, 1)
        return RUN_BONUS * found

    # --- what the table sees ----------------------------------------------------------

    def prompt(self, state: ValDesState) -> Prompt:
        players = state.players
        if state.finished:
            text = f"{players[state.winner]} wins with {max(state.scores)} points" if state.winner is not None else "The game is over"
            return Prompt("over", text)
        order = self.call_order(state)
        waiting = self.waiting(state)
        if waiting:
            return Prompt("call", f"Calls in: {len(state.calls)} of {len(players)}", order, ("colour_call",), waiting=waiting)
        caster = self.caster(state)
        request = DiceRequest("chance", 1, seat=caster, purpose="the caster's cube")
        return Prompt("reveal", f"All calls in: {players[caster]} lifts the cup", order, ("dice", "colour_call"), dice=request)

    def stage(self, state: ValDesState) -> str:
        planned = state.option("sets")
        if state.finished:
            return f"Game over after {state.sets_played} sets"
        number = state.sets_played + 1
        where = f"Set {number} of {planned}" if number <= planned else f"Extra set {number} (top score shared)"
        return f"{where} · Caster: {state.players[self.caster(state)]}"

    def slate(self, state: ValDesState) -> Slate:
        roles, statuses = {}, {}
        if not state.finished:
            roles[self.caster(state)] = "Caster"
            statuses = {s: f"calls {CALL_NAMES[c]}" for s, c in state.calls}
        current = None
        if state.calls:
            current = "; ".join(f"{state.players[s]}: {CALL_NAMES[c]}" for s, c in state.calls)
        return rotation.slate(self, state, roles=roles, statuses=statuses, current=current, dice="chance")

    def tally(self, state: ValDesState) -> dict[int, dict[str, int]]:
        return {seat: {"calls": calls, "correct_calls": right} for seat, (calls, right) in enumerate(state.tallies)}

    def on_button(self, state: ValDesState, seat: int | None, button: str) -> Event | None:
        if state.finished or seat is None or button not in BUTTONS or not 0 <= seat < len(state.players):
            return None
        return ColourCall(seat, BUTTONS[button])

    # --- simulation ---------------------------------------------------------------------

    def legal_actions(self, state: ValDesState) -> list[Event]:
        """Calls still awaited. Changing an open call is allowed but not listed."""
        if state.finished:
            return []
        return [ColourCall(s, colour) for s in self.waiting(state) for colour in COLOURS]

    def sample_reading(self, state: ValDesState, rng: random.Random) -> DiceObserved:
        return rotation.random_reading(self.prompt(state).dice, rng)


GAME = ValDesGame()

"""A tiny game that exercises the engine contract without any real game's rules:
each seat in turn calls a chip, then one chance cube is read; green on red scores."""

from __future__ import annotations

import random
from dataclasses import dataclass, replace

from companion.rules import ChipCall, DiceObserved, DiceRequest, Game, GameState, IllegalAction, Option, Prompt, SeatView, Slate


@dataclass(frozen=True)
class ToyState(GameState):
    scores: tuple[int, ...] = ()
    calls: tuple[tuple[int, str], ...] = ()
    turns: int = 0


class ToyGame(Game):
    name = "toy"
    title = "Toy"
    options = (Option("turns", 2, "turns to play", minimum=1),)

    def new_state(self, players, options):
        return ToyState(players=players, options=options, scores=(0,) * len(players))

    def apply(self, state, event):
        self.check_not_finished(state)
        if isinstance(event, ChipCall):
            self.check_seat(state, event.seat)
            return replace(state, calls=tuple((s, c) for s, c in state.calls if s != event.seat) + ((event.seat, event.chip),))
        if isinstance(event, DiceObserved):
            if len(state.calls) < len(state.players):
                raise IllegalAction("calls first", "every seat must call before the reveal")
            if len(event.values) != 1 or event.values[0] not in ("red", "blue"):
                raise IllegalAction("one cube", "one chance cube is in play")
            scores = list(state.scores)
            for seat, chip in state.calls:
                scores[seat] += (chip == "green") == (event.values[0] == "red")
            turns = state.turns + 1
            done = turns >= state.option("turns")
            best = max(scores)
            winner = scores.index(best) if done and scores.count(best) == 1 else None
            return replace(state, scores=tuple(scores), calls=(), turns=turns, finished=done, winner=winner)
        raise IllegalAction("events", f"{event.kind} is not part of this game")

    def prompt(self, state):
        waiting = tuple(s for s in range(len(state.players)) if s not in dict(state.calls))
        if waiting:
            return Prompt("calls", f"Calls in: {len(state.calls)} of {len(state.players)}", waiting, ("chip_call",), waiting=waiting)
        return Prompt("reveal", "Lift the cup", (), ("dice",), dice=DiceRequest("chance", 1))

    def slate(self, state):
        players = tuple(SeatView(i, n, score=state.scores[i]) for i, n in enumerate(state.players))
        winner = state.players[state.winner] if state.winner is not None else None
        return Slate("toy", "Toy", players, state.finished, winner, f"turn {state.turns + 1}", self.prompt(state).text)

    def on_button(self, state, seat, button):
        if button in ("green", "yellow") and seat is not None:
            return ChipCall(seat, button)
        return None

    def legal_actions(self, state):
        return [ChipCall(s, c) for s in self.prompt(state).waiting for c in ("green", "yellow")]

    def sample_reading(self, state, rng: random.Random):
        return DiceObserved((rng.choice(["red", "blue"]),), source="simulated")


GAME = ToyGame()

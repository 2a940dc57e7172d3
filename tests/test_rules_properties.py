"""Random play for all five games (OpenSpiel-style playouts, driven by hypothesis):
every game ends, invariants hold at every step, and a record replays to the live state."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.rules import Challenge, ChipCall, DiceObserved, GameRecord, IllegalAction, all_games, replay
from companion.simulate import RunawayGame, player_names, simulate
from liars_dice_checks import dice_are_accounted_for

FIVE = ("tregald", "val-des", "gyvahrs", "leiras-dice", "tricksters-tavern")
GAMES = {g.name: g for g in all_games() if g.name in FIVE}


def option_values(game):
    """A strategy of option dicts: any listed choice; small whole numbers for counts."""
    fields = {}
    for option in game.options:
        if option.choices:
            fields[option.name] = st.sampled_from(option.choices)
        elif isinstance(option.default, bool):
            fields[option.name] = st.booleans()
        elif isinstance(option.default, int):
            low = option.minimum if option.minimum is not None else 1
            fields[option.name] = st.integers(min_value=low, max_value=max(low, min(option.default, 3)))
    return st.fixed_dictionaries(fields)


def player_counts(game):
    return st.integers(min_value=game.min_players, max_value=min(game.max_players or 6, 6))


def invariants(session):
    slate = session.slate()
    assert slate.finished or slate.winner is None
    for seat in slate.players:
        assert seat.dice is None or seat.dice >= 0
    if hasattr(session.state, "dealt"):  # the liar's-dice games
        dice_are_accounted_for(session)
    # a refused event changes nothing
    before = (session.record, session.state)
    for foreign in (DiceObserved(tuple("x" for _ in range(40))), ChipCall(99, "green"), Challenge(-1)):
        try:
            session.submitted(foreign)
        except IllegalAction:
            pass
        else:  # pragma: no cover - a failure message
            pytest.fail(f"{session.game.title} accepted {foreign}")
        assert (session.record, session.state) == before


@pytest.mark.parametrize("name", sorted(GAMES))
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_random_play_ends_with_one_winner_and_replays(name, data):
    game = GAMES[name]
    players = player_names(data.draw(player_counts(game), label="players"))
    options = data.draw(option_values(game), label="options")
    seed = data.draw(st.integers(min_value=0, max_value=2**32 - 1), label="seed")
    try:
        session = simulate(name, players, seed, options, max_events=5_000, watch=invariants)
    except RunawayGame as exc:
        pytest.fail(str(exc))

    slate = session.slate()
    assert slate.finished
    assert slate.winner in players
    assert sum(1 for p in slate.players if p.status == "winner") in (0, 1)

    record = GameRecord.from_json(session.record.to_json())
    assert replay(record) == session.state
    assert json.loads(json.dumps(slate.to_json()))["winner"] == slate.winner


@pytest.mark.parametrize("name", sorted(GAMES))
def test_every_game_takes_a_bounded_table_and_bounded_counts(name):
    """Issue 25: a 20,000-player table started, and its slate went to every phone on
    every change. Every game names its most players, and every count option a most."""
    game = GAMES[name]
    assert game.min_players <= game.max_players <= 12
    too_many = player_names(game.max_players + 1)
    with pytest.raises(IllegalAction, match=f"takes at most {game.max_players} players"):
        game.start(too_many)
    for option in game.options:
        if isinstance(option.default, int) and not isinstance(option.default, bool) and option.choices is None:
            assert option.maximum is not None and option.default <= option.maximum, option.name
            with pytest.raises(IllegalAction, match=f"must be at most {option.maximum}"):
                game.start(player_names(game.min_players), {option.name: option.maximum + 1})

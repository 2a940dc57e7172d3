"""Val-Des: one scenario per ruling (issue 2), bad input, golden records, random play."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from companion.rules import ChipCall, ColourCall, DiceObserved, GameRecord, IllegalAction, get_game, replay
from companion.rules.val_des import runs
from companion.simulate import simulate

GAME = get_game("val-des")
GOLDEN = Path(__file__).parent / "golden"
COLOUR = {"r": "red", "b": "blue"}


def start(players=("Ann", "Ben", "Cara"), **options):
    return GAME.start(list(players), options)


def set_(state, calls: str, cube: str):
    """One set: `calls` has one letter per seat ("rbr": Ann red, Ben blue, Cara red)."""
    for seat, c in enumerate(calls):
        state = GAME.apply(state, ColourCall(seat, COLOUR[c]))
    return GAME.apply(state, DiceObserved((COLOUR[cube],)))


def sets(state, *plays: str):
    """Several sets written "calls/cube", e.g. sets(state, "rb/r", "bb/b")."""
    for play in plays:
        calls, cube = play.split("/")
        state = set_(state, calls, cube)
    return state


def test_registry_finds_val_des_by_its_aliases():
    for name in ("val-des", "valdes", "val_des", "Val-Des"):
        assert get_game(name) is GAME
    assert "Kevin Van Ryswyck" in GAME.credit and "Games of the Galaxy" in GAME.credit
    assert dict(start().options) == {"streak_bonus": "once", "sets": 7}


def test_caster_rotates_left_each_set_starting_at_seat_0():
    state = start()
    casters = []
    for _ in range(4):
        casters.append(GAME.caster(state))
        state = set_(state, "rbr", "r")
    assert casters == [0, 1, 2, 0]
    assert GAME.slate(state).stage == "Set 5 of 7 · Caster: Ben"


def test_every_player_caster_included_calls_before_the_reveal_in_any_order():
    state = start()
    state = GAME.apply(state, ColourCall(0, "red"))  # the caster calls first: order not enforced
    state = GAME.apply(state, ColourCall(2, "blue"))
    p = GAME.prompt(state)
    assert p.text == "Calls in: 2 of 3" and p.waiting == (1,) and p.dice is None
    with pytest.raises(IllegalAction, match="calls in: 2 of 3"):
        GAME.apply(state, DiceObserved(("red",)))
    state = GAME.apply(state, ColourCall(1, "red"))
    p = GAME.prompt(state)
    assert p.phase == "reveal" and (p.dice.kind, p.dice.count, p.dice.seat) == ("chance", 1, 0)


def test_each_right_call_scores_one():
    state = set_(start(), "rbr", "r")
    assert state.scores == (1, 0, 1)
    assert state.last_reveal.verdict == "Val (red): Ann and Cara called it"
    state = set_(state, "rrr", "b")
    assert state.scores == (1, 0, 1) and state.last_reveal.verdict == "Des (blue): nobody called it"


def test_calls_are_open_and_a_changed_call_counts_as_last_made():
    state = start(("Ann", "Ben"))
    state = GAME.apply(state, ColourCall(1, "red"))
    assert GAME.slate(state).current == "Ben: Val (red)"
    state = GAME.apply(state, ColourCall(1, "blue"))
    state = GAME.apply(state, ColourCall(0, "blue"))
    state = GAME.apply(state, DiceObserved(("blue",)))
    assert state.scores == (1, 1)


def test_game_is_seven_sets_by_default():
    state = start(("Ann", "Ben"))
    state = sets(state, "rb/r", "rb/b", "rb/r", "rb/b", "rb/r", "rb/b")
    assert not state.finished and GAME.slate(state).stage == "Set 7 of 7 · Caster: Ann"
    state = set_(state, "rb", "r")
    assert state.finished and state.scores == (4, 3)
    assert GAME.slate(state).winner == "Ann" and GAME.prompt(state).text == "Ann wins with 4 points"


def test_sets_option_changes_the_length():
    state = set_(start(("Ann", "Ben"), sets=1), "rb", "b")
    assert state.finished and GAME.slate(state).winner == "Ben"


def test_val_des_streak_bonus_once_for_three_right_in_a_row():
    # Ann right in sets 1-3 and 5-7 (two runs); Ben right only in set 4.
    state = start(("Ann", "Ben"))
    state = sets(state, "rb/r", "rb/r", "rb/r", "rb/b")
    assert state.scores == (3, 1)  # no bonus before the last set
    state = sets(state, "rb/r", "rb/r", "rb/r")
    assert state.finished and state.scores == (6 + 2, 1)
    assert "Ann called 3 or more right in a row (+2 bonus)" in state.last_reveal.lines
    assert (0, 2) in state.last_reveal.awards


def test_val_des_streak_bonus_per_run_counts_separate_runs():
    state = start(("Ann", "Ben"), streak_bonus="per_run")
    state = sets(state, "rb/r", "rb/r", "rb/r", "rb/b", "rb/r", "rb/r", "rb/r")
    assert state.scores == (6 + 4, 1)


def test_a_run_longer_than_three_is_one_run():
    assert runs((True,) * 6) == 1
    assert runs((True, True, False, True, True, True, False, True, True, True)) == 2
    assert runs((True, True, False, True, True)) == 0
    state = start(("Ann", "Ben"), streak_bonus="per_run", sets=6)
    state = sets(state, *["rb/r"] * 6)
    assert state.scores == (6 + 2, 0)


def test_tie_at_the_top_plays_extra_sets_without_bonus_until_broken():
    state = start(("Ann", "Ben"), sets=3)
    # both right three times in a row: 3 + 2 bonus each
    state = sets(state, "rr/r", "bb/b", "rr/r")
    assert state.scores == (5, 5) and not state.finished
    assert GAME.slate(state).stage == "Extra set 4 (top score shared) · Caster: Ben"
    state = sets(state, "rr/r", "rr/r", "rr/r")  # three more right in a row: no bonus in extra sets
    assert state.scores == (8, 8) and not state.finished
    state = set_(state, "rb", "b")
    assert state.finished and state.scores == (8, 9) and GAME.slate(state).winner == "Ben"


def test_green_button_calls_val_red_and_yellow_calls_des_blue():
    state = start()
    assert GAME.on_button(state, 0, "green") == ColourCall(0, "red")
    assert GAME.on_button(state, 2, "yellow") == ColourCall(2, "blue")
    assert GAME.on_button(state, None, "liar") is None
    assert GAME.on_button(state, 1, "liar") is None
    assert GAME.on_button(state, 9, "green") is None


# --- bad input ----------------------------------------------------------------------------


def all_called():
    state = start()
    for seat in range(3):
        state = GAME.apply(state, ColourCall(seat, "red"))
    return state


BAD = [
    ("unknown seat", start, ColourCall(3, "red"), "there is no seat 3"),
    ("impossible call", start, ColourCall(0, "green"), "Val (red) or Des (blue), not 'green'"),
    ("reading before calls are in", start, DiceObserved(("red",)), "calls in: 0 of 3"),
    ("two cubes read", all_called, DiceObserved(("red", "blue")), "1 chance cube is in play but 2 were read"),
    ("no cube read", all_called, DiceObserved(()), "1 chance cube is in play but 0 were read"),
    ("impossible face", all_called, DiceObserved((4,)), "red or blue, not 4"),
    ("not the caster's cube", all_called, DiceObserved(("red",), seat=2), "it is Ann's throw, not Cara's"),
    ("a Tregald chip", start, ChipCall(1, "green"), "chip_call is not part of Val-Des"),
]


@pytest.mark.parametrize("name,make,event,message", BAD, ids=[b[0] for b in BAD])
def test_bad_input_is_refused_with_a_reason_and_the_state_unchanged(name, make, event, message):
    state = make()
    before = GAME.slate(state)
    with pytest.raises(IllegalAction) as info:
        GAME.apply(state, event)
    assert message in info.value.message
    assert state == make() and GAME.slate(state) == before


def test_nothing_is_accepted_after_the_game_is_over():
    state = set_(start(("Ann", "Ben"), sets=1), "rb", "r")
    with pytest.raises(IllegalAction, match="the game is over"):
        GAME.apply(state, ColourCall(0, "red"))
    assert GAME.legal_actions(state) == [] and GAME.on_button(state, 0, "green") is None


# --- records and random play ---------------------------------------------------------------


def test_record_round_trip_json_replays_to_the_live_state():
    state = start()
    record = GameRecord("valdes", state.players, dict(state.options))
    for ev in (ColourCall(1, "red"), ColourCall(0, "blue"), ColourCall(2, "red"), ColourCall(0, "red"),
               DiceObserved(("red",), source="camera"), ColourCall(0, "blue"), ColourCall(1, "blue"), ColourCall(2, "red")):
        state = GAME.apply(state, ev)
        record = record.appended(ev)
    again = replay(GameRecord.from_json(record.to_json()))
    assert again == state and GAME.slate(again) == GAME.slate(state)


@pytest.mark.parametrize("path", sorted(GOLDEN.glob("val-des-*.json")), ids=lambda p: p.stem)
def test_golden_records_replay_to_their_known_slates(path):
    record = GameRecord.from_json(path.read_text())
    expected = record.meta["expected"]
    slate = GAME.slate(replay(record)).to_json()
    assert {p["name"]: p["score"] for p in slate["players"]} == expected["scores"]
    for key in ("finished", "winner", "stage", "prompt"):
        assert slate[key] == expected[key], key


def test_golden_records_exist():
    assert len(list(GOLDEN.glob("val-des-*.json"))) >= 1


@settings(max_examples=25, deadline=None)
@given(players=st.integers(2, 7), seed=st.integers(0, 10**6), bonus=st.sampled_from(["once", "per_run"]),
       planned=st.integers(1, 7))
def test_random_play_ends_with_one_winner_and_replays(players, seed, bonus, planned):
    session = simulate("val-des", [f"P{i}" for i in range(players)], seed,
                       {"streak_bonus": bonus, "sets": planned}, max_events=10_000)
    state, record = session.state, session.record
    assert state.finished and state.winner is not None
    assert state.sets_played >= planned and state.scores.count(max(state.scores)) == 1
    assert replay(GameRecord.from_json(record.to_json())) == state


def test_tally_counts_calls_and_right_calls_in_every_set():
    state = sets(start(("Ann", "Ben"), sets=1), "rr/r", "rb/b")  # tied after set 1: an extra set
    assert state.finished
    assert GAME.tally(state) == {0: {"calls": 2, "correct_calls": 1}, 1: {"calls": 2, "correct_calls": 2}}

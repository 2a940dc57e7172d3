"""Tregald: one scenario per ruling (issue 2), bad input, secrets, golden records."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from companion.rules import (
    ChipCall,
    ColourCall,
    Declaration,
    DiceObserved,
    GameRecord,
    IllegalAction,
    get_game,
    replay,
)
from companion.simulate import simulate

GAME = get_game("tregald")
GOLDEN = Path(__file__).parent / "golden"
COLOUR = {"r": "red", "b": "blue"}


def start(players=("Ann", "Ben", "Cara"), **options):
    return GAME.start(list(players), options)


def roll(text: str) -> DiceObserved:
    """ "rrbbb" -> five chance cubes, "11523" -> five spike dice."""
    return DiceObserved(tuple(COLOUR[c] if c in COLOUR else int(c) for c in text))


def turn(state, count, face, calls: dict[int, str], dice: str):
    """One whole turn: the Tregald declares, the callers call, the cup is lifted."""
    state = GAME.apply(state, Declaration(GAME.tregald(state), count, face))
    for seat, chip in calls.items():
        state = GAME.apply(state, ChipCall(seat, chip))
    return GAME.apply(state, roll(dice))


def everyone_right(state, dice="rrrbb"):
    """A turn where the Tregald declares the truth (3 red) and every caller believes."""
    t = GAME.tregald(state)
    calls = {s: "green" for s in range(len(state.players)) if s != t}
    return turn(state, 3, "red", calls, dice)


# --- set-up and roles ---------------------------------------------------------------


def test_registry_finds_tregald_with_its_credit_and_options():
    assert GAME.name == "tregald" and GAME.title == "Tregald"
    assert "Kevin Van Ryswyck" in GAME.credit and "Games of the Galaxy" in GAME.credit
    assert dict(start().options) == {"dice": "chance", "declaration": "exact", "rounds": 3}


def test_seat_0_is_tregald_first_and_the_role_passes_left():
    state = start()
    seen = []
    for _ in range(4):
        seen.append(GAME.tregald(state))
        state = everyone_right(state)
    assert seen == [0, 1, 2, 0]


def test_prompt_asks_the_tregald_to_declare_then_the_others_to_call_then_for_five_cubes():
    state = start()
    p = GAME.prompt(state)
    assert (p.phase, p.text, p.seats, p.wants, p.dice) == ("declare", "Ann declares", (0,), ("declaration",), None)
    state = GAME.apply(state, Declaration(0, 2, "blue"))
    p = GAME.prompt(state)
    assert (p.phase, p.text, p.waiting, p.dice) == ("call", "Calls in: 0 of 2", (1, 2), None)
    state = GAME.apply(state, ChipCall(2, "green"))
    assert GAME.prompt(state).text == "Calls in: 1 of 2"
    state = GAME.apply(state, ChipCall(1, "yellow"))
    p = GAME.prompt(state)
    assert p.phase == "reveal" and p.dice.kind == "chance" and p.dice.count == 5 and p.dice.seat == 0


# --- scoring --------------------------------------------------------------------------


def test_tregald_scores_three_per_deceived_caller_and_two_bonus_when_all_deceived():
    state = start(("Ann", "Ben", "Cara", "Dov"))
    # Ann bluffs 4 red; only 1 red rolled; everyone believes her.
    state = turn(state, 4, "red", {1: "green", 2: "green", 3: "green"}, "rbbbb")
    assert state.scores == (3 * 3 + 2, 0, 0, 0)
    assert state.last_reveal.verdict == "False: 4 red declared, 1 red rolled"
    assert "Cara was deceived (+3 to Ann)" in state.last_reveal.lines
    assert "Everyone was deceived (+2 bonus to Ann)" in state.last_reveal.lines


def test_truthful_declaration_deceives_the_doubters():
    state = start()
    state = turn(state, 2, "blue", {1: "yellow", 2: "yellow"}, "rrrbb")
    assert state.scores == (3 + 3 + 2, 0, 0)
    assert state.last_reveal.verdict.startswith("True: 2 blue declared, 2 blue rolled")


def test_each_caller_who_judged_right_scores_one_and_there_is_no_bonus_unless_all_deceived():
    state = start(("Ann", "Ben", "Cara", "Dov"))
    state = turn(state, 3, "red", {1: "green", 2: "yellow", 3: "green"}, "rrrbb")
    assert state.scores == (3, 1, 0, 1)
    assert dict(state.last_reveal.awards) == {0: 3, 1: 1, 3: 1}
    assert "Ben judged right (+1)" in state.last_reveal.lines


def test_declaration_is_true_only_on_the_exact_count_by_default():
    state = turn(start(), 2, "red", {1: "green", 2: "green"}, "rrrbb")
    assert state.last_reveal.verdict.startswith("False")
    assert state.scores == (8, 0, 0)


def test_declaration_at_least_option_is_true_on_more():
    state = turn(start(declaration="at_least"), 2, "red", {1: "green", 2: "green"}, "rrrbb")
    assert state.last_reveal.verdict == "True: at least 2 red declared, 3 red rolled"
    assert state.scores == (0, 1, 1)


def test_spike_dice_option_declares_n_of_a_face_and_reads_five_spike_dice():
    state = start(dice="spike")
    state = GAME.apply(state, Declaration(0, 2, 6))
    state = GAME.apply(state, ChipCall(1, "yellow"))
    state = GAME.apply(state, ChipCall(2, "green"))
    assert GAME.prompt(state).dice.kind == "spike"
    state = GAME.apply(state, roll("66125"))
    assert state.last_reveal.verdict == "True: 2 of face 6 declared, 2 of face 6 rolled"
    assert state.scores == (3, 0, 1)


def test_changing_a_call_before_the_reveal_last_call_counts():
    state = start()
    state = GAME.apply(state, Declaration(0, 3, "red"))
    for chip in ("yellow", "green", "yellow"):
        state = GAME.apply(state, ChipCall(1, chip))
    state = GAME.apply(state, ChipCall(2, "yellow"))
    state = GAME.apply(state, ChipCall(2, "green"))  # all calls in, still changeable
    state = GAME.apply(state, roll("rrrbb"))
    assert state.scores == (3, 0, 1)


# --- rounds and the end ---------------------------------------------------------------


def test_game_is_three_rounds_of_every_seat_being_tregald_once():
    state = start()
    # Ann scores 8 in her first turn, then everyone judges right.
    state = turn(state, 4, "red", {1: "green", 2: "green"}, "rbbbb")
    for _ in range(7):
        assert not state.finished
        state = everyone_right(state)
    assert GAME.slate(state).stage.startswith("Round 3 of 3 · Tregald: Cara")
    state = everyone_right(state)
    assert state.finished and state.turn == 9
    assert state.scores == (8 + 6, 5, 5)  # Ben and Cara were deceived in turn 1
    slate = GAME.slate(state)
    assert slate.winner == "Ann" and slate.players[0].name == "Ann" and slate.players[0].status == "winner"


def test_rounds_option_sets_the_number_of_rounds():
    state = start(("Ann", "Ben"), rounds=1)
    state = turn(state, 4, "red", {1: "green"}, "rbbbb")  # Ann +5
    state = everyone_right(state)  # Ann +1
    assert state.finished and GAME.slate(state).winner == "Ann"


def test_tie_at_the_top_plays_further_full_rounds():
    state = start(("Ann", "Ben"), rounds=1)
    state = everyone_right(state)  # Ben +1
    state = everyone_right(state)  # Ann +1: 1-1 after the planned round
    assert not state.finished and state.winner is None
    assert GAME.slate(state).stage == "Extra round 2 (top score shared) · Tregald: Ann"
    state = turn(state, 4, "red", {1: "green"}, "rbbbb")  # Ann +5 mid-round: no early end
    assert not state.finished
    state = everyone_right(state)  # Ann +1: the full extra round is over, Ann ahead
    assert state.finished and state.scores == (7, 1) and GAME.slate(state).winner == "Ann"


def test_tied_extra_round_is_followed_by_another():
    state = start(("Ann", "Ben"), rounds=1)
    for _ in range(4):
        state = everyone_right(state)
    assert not state.finished and state.scores == (2, 2)
    state = everyone_right(state)
    state = everyone_right(state)
    assert not state.finished and state.scores == (3, 3)


# --- buttons ----------------------------------------------------------------------------


def test_green_and_yellow_buttons_are_chip_calls_only_from_callers_during_the_calls():
    state = start()
    assert GAME.on_button(state, 1, "green") is None  # nothing declared yet
    state = GAME.apply(state, Declaration(0, 1, "red"))
    assert GAME.on_button(state, 1, "green") == ChipCall(1, "green")
    assert GAME.on_button(state, 2, "yellow") == ChipCall(2, "yellow")
    assert GAME.on_button(state, 0, "green") is None  # the Tregald does not call
    assert GAME.on_button(state, None, "liar") is None
    assert GAME.on_button(state, 1, "liar") is None
    state = GAME.apply(state, ChipCall(1, "green"))
    state = GAME.apply(state, ChipCall(2, "green"))
    assert GAME.on_button(state, 1, "yellow") == ChipCall(1, "yellow")  # changing before the reveal


# --- bad input: refused, state unchanged ---------------------------------------------------


def declared():
    return GAME.apply(start(), Declaration(0, 3, "red"))


def all_called():
    state = declared()
    state = GAME.apply(state, ChipCall(1, "green"))
    return GAME.apply(state, ChipCall(2, "yellow"))


BAD = [
    ("declaration out of turn", start, Declaration(1, 3, "red"), "Ben is not the Tregald: Ann declares this turn"),
    ("unknown seat", start, Declaration(7, 3, "red"), "there is no seat 7"),
    ("unknown seat calling", declared, ChipCall(-1, "green"), "there is no seat -1"),
    ("impossible colour", start, Declaration(0, 3, "green"), "red or blue, not 'green'"),
    ("spike face with cubes", start, Declaration(0, 3, 6), "red or blue, not 6"),
    ("six of five dice", start, Declaration(0, 6, "red"), "0 to 5 dice, not 6"),
    ("double declaration", declared, Declaration(0, 2, "blue"), "Ann has already declared 3 red"),
    ("call by the Tregald", declared, ChipCall(0, "green"), "Ann is the Tregald and does not call"),
    ("call before the declaration", start, ChipCall(1, "green"), "wait for Ann's declaration"),
    ("reading before the declaration", start, roll("rrrbb"), "until Ann has declared"),
    ("reading before calls are in", declared, roll("rrrbb"), "calls in: 0 of 2"),
    ("wrong dice count", all_called, roll("rrrb"), "5 chance cubes are in play but 4 were read"),
    ("too many dice", all_called, roll("rrrbbb"), "5 chance cubes are in play but 6 were read"),
    ("impossible face", all_called, DiceObserved(("red", "red", "red", "blue", "green")), "not 'green'"),
    ("spike faces for cubes", all_called, roll("12345"), "red or blue, not 1"),
    ("someone else's roll", all_called, DiceObserved(("red",) * 5, seat=2), "it is Ann's throw, not Cara's"),
    ("another game's event", declared, ColourCall(1, "red"), "colour_call is not part of Tregald"),
]


@pytest.mark.parametrize("name,make,event,message", BAD, ids=[b[0] for b in BAD])
def test_bad_input_is_refused_with_a_reason_and_the_state_unchanged(name, make, event, message):
    state = make()
    before = GAME.slate(state)
    with pytest.raises(IllegalAction) as info:
        GAME.apply(state, event)
    assert message in info.value.message
    assert state == make() and GAME.slate(state) == before


def test_at_least_refuses_declaring_zero_and_spike_refuses_face_seven():
    with pytest.raises(IllegalAction, match="1 to 5 dice, not 0"):
        GAME.apply(start(declaration="at_least"), Declaration(0, 0, "red"))
    with pytest.raises(IllegalAction, match="face 1 to 6, not 7"):
        GAME.apply(start(dice="spike"), Declaration(0, 2, 7))
    state = start(dice="spike")
    state = GAME.apply(state, Declaration(0, 2, 3))
    state = GAME.apply(state, ChipCall(1, "green"))
    state = GAME.apply(state, ChipCall(2, "green"))
    with pytest.raises(IllegalAction, match="1 to 6, not 'red'"):
        GAME.apply(state, roll("rrrbb"))


def test_nothing_is_accepted_after_the_game_is_over():
    state = start(("Ann", "Ben"), rounds=1)
    state = turn(state, 4, "red", {1: "green"}, "rbbbb")
    state = everyone_right(state)
    assert state.finished
    with pytest.raises(IllegalAction, match="the game is over"):
        GAME.apply(state, Declaration(0, 1, "red"))
    assert GAME.legal_actions(state) == [] and GAME.on_button(state, 1, "green") is None


def test_bad_options_are_refused():
    with pytest.raises(IllegalAction, match="'dice' must be one of chance, spike"):
        start(dice="d20")
    with pytest.raises(IllegalAction, match="'rounds' must be at least 1"):
        start(rounds=0)


# --- secrets ------------------------------------------------------------------------------


def test_slate_shows_only_how_many_calls_are_in_never_their_colour():
    base = declared()
    slates = []
    for chip in ("green", "yellow"):
        state = GAME.apply(base, ChipCall(1, chip))
        slate = GAME.slate(state)
        text = json.dumps(slate.to_json())
        assert "green" not in text and "yellow" not in text
        assert slate.prompt == "Calls in: 1 of 2"
        slates.append(slate)
    assert slates[0] == slates[1]


def test_public_record_hides_pending_chip_calls_until_the_reveal():
    record = GameRecord("tregald", ("Ann", "Ben", "Cara"))
    for ev in (Declaration(0, 3, "red"), ChipCall(1, "green"), ChipCall(2, "yellow")):
        record = record.appended(ev)
    public = json.dumps(record.to_dict(public=True))
    assert "green" not in public and "yellow" not in public
    assert "green" in json.dumps(record.to_dict())
    revealed = record.appended(roll("rrrbb"))
    assert "yellow" in json.dumps(revealed.to_dict(public=True))


# --- records, golden games, random play ------------------------------------------------------


def test_record_round_trip_json_replays_to_the_live_state():
    state = start()
    record = GameRecord("tregald", state.players, dict(state.options))
    events = [Declaration(0, 4, "blue"), ChipCall(1, "yellow"), ChipCall(2, "green"), ChipCall(1, "green"), roll("bbbbr"),
              Declaration(1, 0, "red"), ChipCall(2, "green"), ChipCall(0, "yellow"), roll("bbbbb")]
    for ev in events:
        state = GAME.apply(state, ev)
        record = record.appended(ev)
    again = replay(GameRecord.from_json(record.to_json()))
    assert again == state and GAME.slate(again) == GAME.slate(state)


@pytest.mark.parametrize("path", sorted(GOLDEN.glob("tregald-*.json")), ids=lambda p: p.stem)
def test_golden_records_replay_to_their_known_slates(path):
    record = GameRecord.from_json(path.read_text())
    expected = record.meta["expected"]
    slate = GAME.slate(replay(record)).to_json()
    assert {p["name"]: p["score"] for p in slate["players"]} == expected["scores"]
    for key in ("finished", "winner", "stage", "prompt"):
        assert slate[key] == expected[key], key
    if "verdict" in expected:
        assert slate["reveal"]["verdict"] == expected["verdict"]


@settings(max_examples=25, deadline=None)
@given(
    players=st.integers(2, 6),
    seed=st.integers(0, 10**6),
    dice=st.sampled_from(["chance", "spike"]),
    declaration=st.sampled_from(["exact", "at_least"]),
    rounds=st.integers(1, 3),
)
def test_random_play_ends_with_one_winner_and_replays(players, seed, dice, declaration, rounds):
    names = [f"P{i}" for i in range(players)]
    session = simulate("tregald", names, seed, {"dice": dice, "declaration": declaration, "rounds": rounds})
    final, record = session.state, session.record
    assert final.winner is not None and final.scores.count(max(final.scores)) == 1
    assert final.turn % players == 0 and final.turn >= rounds * players
    assert replay(GameRecord.from_json(record.to_json())) == final


def test_tally_counts_calls_right_calls_bluffs_and_bluffs_that_deceived_everyone():
    state = turn(start(), 4, "red", {1: "green", 2: "green"}, "rbbbb")  # Ann's bluff deceives everyone
    state = turn(state, 1, "blue", {0: "green", 2: "yellow"}, "rrrrr")  # Ben's bluff: Cara catches it
    state = turn(state, 5, "red", {0: "green", 1: "yellow"}, "rrrrr")  # Cara tells the truth
    tally = GAME.tally(state)
    assert tally[0] == {"calls": 2, "correct_calls": 1, "bluffs": 1, "bluffs_worked": 1}
    assert tally[1] == {"calls": 2, "correct_calls": 0, "bluffs": 1, "bluffs_worked": 0}
    assert tally[2] == {"calls": 2, "correct_calls": 1, "bluffs": 0, "bluffs_worked": 0}

"""Gyvahrs: one scenario per ruling (issue 2), bad input, golden records, random play."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from companion.rules import ChipCall, DiceObserved, GameRecord, IllegalAction, Stake, get_game, replay
from companion.rules.gyvahrs import ThrowClass, classify
from companion.simulate import simulate

GAME = get_game("gyvahrs")
GOLDEN = Path(__file__).parent / "golden"


def start(players=("Ann", "Ben", "Cara"), **options):
    return GAME.start(list(players), options)


def throws(state, *pairs: str):
    """Throws written "45" (two dice) or "6" (one roll-off die), in the order the game asks."""
    for text in pairs:
        state = GAME.apply(state, DiceObserved(tuple(int(c) for c in text)))
    return state


def round_(state, stake: int, *pairs: str):
    state = GAME.apply(state, Stake(GAME.caster(state), stake))
    return throws(state, *pairs)


# --- the throws ---------------------------------------------------------------------------

# The ruling's table, high to low; pairs in one inner tuple are equal.
RANKING = [
    ("44",), ("25",), ("16",), ("55",), ("13",), ("36",),  # Aspects
    ("66",), ("33",), ("22",),  # Doubles
    ("56",), ("46",), ("45",), ("26", "35"), ("34",), ("15", "24"), ("14", "23"), ("12",),  # Wilds 11..3
    ("11",),  # Sylop, the Idiot
]


def test_gyvahrs_all_21_pairs_fall_into_exactly_one_class():
    pairs = {(a, b) for a, b in itertools.combinations_with_replacement(range(1, 7), 2)}
    assert len(pairs) == 21
    listed = [tuple(int(c) for c in p) for group in RANKING for p in group]
    assert sorted(listed) == sorted(pairs)  # every pair once in the ranking
    classes = {p: classify(*p).cls for p in pairs}
    assert sum(c is ThrowClass.ASPECT for c in classes.values()) == 6
    assert sum(c is ThrowClass.DOUBLE for c in classes.values()) == 3
    assert sum(c is ThrowClass.WILD for c in classes.values()) == 11
    assert [p for p, c in classes.items() if c is ThrowClass.SYLOP] == [(1, 1)]


def test_throws_rank_aspects_then_doubles_then_wilds_by_total_then_the_idiot():
    strengths = [{classify(int(p[0]), int(p[1])).strength for p in group} for group in RANKING]
    assert all(len(s) == 1 for s in strengths)  # 2/6 and 3/5 (and the other equal totals) tie
    values = [s.pop() for s in strengths]
    assert values == sorted(values, reverse=True) and len(set(values)) == len(values)


def test_throw_shows_its_class_and_basic_name_in_either_order():
    assert classify(4, 4).text == "Aspect: The World (4/4)"
    assert classify(6, 3).text == "Aspect: The Sun King (3/6)"
    assert classify(6, 6).text == "Double: Twin Suns (6/6)"
    assert classify(6, 2).text == "Wild: Eight (2/6)"
    assert classify(2, 1).text == "Wild: Three (1/2)"
    assert classify(1, 1).text == "Sylop: The Idiot (1/1)"


# --- a round ------------------------------------------------------------------------------


def test_caster_sets_the_stake_every_player_pays_it_and_the_best_throw_takes_the_pot():
    state = start()
    p = GAME.prompt(state)
    assert (p.phase, p.text, p.seats, p.wants, p.dice) == ("stake", "Ann sets the stake", (0,), ("stake",), None)
    state = GAME.apply(state, Stake(0, 3))
    assert state.pot == 9 and state.scores == (-3, -3, -3)
    p = GAME.prompt(state)
    assert p.text == "Ann throws the set" and (p.dice.kind, p.dice.count, p.dice.seat) == ("spike", 2, 0)
    state = throws(state, "26")
    assert GAME.prompt(state).dice.seat == 1
    state = throws(state, "55")
    assert GAME.prompt(state).dice.seat == 2
    state = throws(state, "66")
    assert state.scores == (-3, 6, -3) and state.pot == 0
    assert state.last_reveal.verdict == "Ben takes the pot of 9 (best throw: Aspect: Fate's Eyes (5/5))"
    assert state.last_reveal.awards == ((0, -3), (1, 6), (2, -3))
    assert "Cara threw Double: Twin Suns (6/6)" in state.last_reveal.lines


def test_others_throw_in_seat_order_from_the_casters_left():
    state = round_(start(), 1, "12", "12", "66")  # Cara wins round 1
    assert GAME.caster(state) == 1
    state = GAME.apply(state, Stake(1, 1))
    order = []
    for pair in ("12", "13", "14"):
        order.append(GAME.prompt(state).dice.seat)
        state = throws(state, pair)
    assert order == [1, 2, 0]


def test_slate_shows_pot_stake_set_and_throw_names_and_scores_winnings():
    state = GAME.apply(start(), Stake(0, 2))
    state = throws(state, "44")
    slate = GAME.slate(state)
    assert slate.pot == 6 and slate.scoring == "winnings"
    assert slate.current == "Stake 2 · Set: Aspect: The World (4/4)"
    assert slate.reveal.verdict == "Ann (caster) threw Aspect: The World (4/4)"
    ann = next(p for p in slate.players if p.name == "Ann")
    assert ann.role == "Caster" and ann.status == "Aspect: The World (4/4)" and ann.score == -2
    assert slate.stage == "Round 1 of 3 · Caster: Ann"


def test_gyvahrs_ties_roll_off_one_die_until_broken():
    state = GAME.apply(start(), Stake(0, 1))
    state = throws(state, "35", "12", "26")  # Ann and Cara both Eight
    p = GAME.prompt(state)
    assert p.phase == "roll-off" and (p.dice.count, p.dice.seat) == (1, 0)
    with pytest.raises(IllegalAction, match="it is Ann's throw, not Ben's"):
        GAME.apply(state, DiceObserved((6,), seat=1))
    with pytest.raises(IllegalAction, match="1 spike die is in play but 2 were read"):
        throws(state, "66")
    state = throws(state, "4", "4")  # tied again
    assert GAME.prompt(state).phase == "roll-off" and state.rolloff == (0, 2) and state.pot == 3
    state = throws(state, "2", "5")
    assert state.scores == (-1, -1, 2)
    assert state.last_reveal.verdict == "Cara takes the pot of 3 (roll-off: Wild: Eight (2/6))"


def test_only_the_tied_best_throwers_roll_off():
    state = GAME.apply(start(("Ann", "Ben", "Cara", "Dov")), Stake(0, 1))
    state = throws(state, "12", "44", "33", "44")  # Ben and Dov: The World
    assert state.rolloff == (1, 3)
    state = throws(state, "6", "1")
    assert state.scores == (-1, 3, -1, -1)


def test_beat_the_caster_first_thrower_to_beat_the_set_wins_and_the_rest_do_not_throw():
    state = round_(start(mode="beat_the_caster"), 3, "45", "66")  # Ben's Twin Suns beat Nine
    assert state.scores == (-3, 6, -3) and state.rounds_played == 1
    assert GAME.prompt(state).text == "Ben sets the stake"
    assert state.last_reveal.verdict == "Ben takes the pot of 9 (Ben beat the set: Double: Twin Suns (6/6))"


def test_beat_the_caster_caster_wins_when_nobody_beats_the_set_and_equal_does_not_beat():
    state = GAME.apply(start(mode="beat_the_caster"), Stake(0, 2))
    state = throws(state, "44")
    assert GAME.prompt(state).text == "Ben throws to beat The World"
    state = throws(state, "44", "66")
    assert state.scores == (4, -2, -2)
    assert state.last_reveal.verdict == "Ann takes the pot of 6 (nobody beat the set: Aspect: The World (4/4))"


def test_caster_rotates_left_and_each_player_casts_once_by_default():
    state = start(("Ann", "Ben"))
    state = round_(state, 2, "12", "34")  # Ben: Seven beats Three
    assert not state.finished and GAME.caster(state) == 1
    state = round_(state, 5, "11", "12")  # Ann: Three beats the Idiot
    assert state.finished and state.scores == (3, -3)
    slate = GAME.slate(state)
    assert slate.winner == "Ann" and slate.prompt == "Ann wins with net winnings of +3"
    assert slate.stage == "Game over after 2 rounds"


def test_casts_option_sets_how_often_each_player_casts():
    state = start(("Ann", "Ben"), casts=2)
    for _ in range(3):
        state = round_(state, 1, "12", "66")  # the second thrower wins every round
        assert not state.finished
    state = round_(state, 1, "66", "12")
    assert state.finished and state.rounds_played == 4


def test_shared_top_winnings_play_another_full_rotation_of_casters():
    state = start(("Ann", "Ben"))
    state = round_(state, 2, "12", "34")  # Ben
    state = round_(state, 2, "12", "34")  # Ann: 0-0
    assert not state.finished and GAME.slate(state).stage == "Extra round 3 (top winnings shared) · Caster: Ann"
    state = round_(state, 1, "66", "12")  # Ann ahead, but Ben has not cast again yet
    assert not state.finished
    state = round_(state, 1, "12", "66")  # Ann
    assert state.finished and state.scores == (2, -2) and GAME.slate(state).winner == "Ann"


def test_net_winnings_always_sum_to_zero_with_the_pot():
    state = GAME.apply(start(), Stake(0, 4))
    assert sum(state.scores) + state.pot == 0
    state = throws(state, "12", "13")
    assert sum(state.scores) + state.pot == 0


def test_buttons_do_nothing_in_gyvahrs():
    state = start()
    assert GAME.on_button(state, 0, "green") is None
    assert GAME.on_button(GAME.apply(state, Stake(0, 1)), 1, "yellow") is None


# --- bad input ------------------------------------------------------------------------------


def staked():
    return GAME.apply(start(), Stake(0, 2))


BAD = [
    ("stake by another seat", start, Stake(1, 2), "Ben is not the caster: Ann sets the stake"),
    ("stake of nothing", start, Stake(0, 0), "at least 1, not 0"),
    ("negative stake", start, Stake(0, -3), "at least 1, not -3"),
    ("a stake of 10^300", start, Stake(0, 10 ** 300), "a stake is at most 1,000,000"),
    ("second stake", staked, Stake(0, 5), "the stake for this round is already 2"),
    ("unknown seat", start, Stake(5, 1), "there is no seat 5"),
    ("throw before the stake", start, DiceObserved((4, 4)), "Ann sets the stake before anyone throws"),
    ("three dice", staked, DiceObserved((1, 2, 3)), "2 spike dice are in play but 3 were read"),
    ("impossible face", staked, DiceObserved((4, 7)), "1 to 6, not 7"),
    ("chance cube faces", staked, DiceObserved(("red", "blue")), "1 to 6, not 'red'"),
    ("out of turn throw", staked, DiceObserved((4, 4), seat=2), "it is Ann's throw, not Cara's"),
    ("unknown thrower", staked, DiceObserved((4, 4), seat=8), "there is no seat 8"),
    ("a chip call", staked, ChipCall(1, "green"), "chip_call is not part of Gyvahrs"),
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
    state = round_(start(("Ann", "Ben")), 2, "12", "34")
    state = round_(state, 5, "11", "12")
    with pytest.raises(IllegalAction, match="the game is over"):
        GAME.apply(state, Stake(0, 1))
    assert GAME.legal_actions(state) == []


# --- records and random play ---------------------------------------------------------------------


def test_record_round_trip_json_replays_to_the_live_state():
    state = start()
    record = GameRecord("corellian-throw", state.players, dict(state.options))
    for ev in (Stake(0, 2), DiceObserved((3, 5), seat=0, source="camera"), DiceObserved((2, 6)), DiceObserved((1, 2)),
               DiceObserved((5,)), DiceObserved((2,))):
        state = GAME.apply(state, ev)
        record = record.appended(ev)
    again = replay(GameRecord.from_json(record.to_json()))
    assert again == state and GAME.slate(again) == GAME.slate(state)
    assert state.rounds_played == 1 and state.scores == (4, -2, -2)


@pytest.mark.parametrize("path", sorted(GOLDEN.glob("gyvahrs-*.json")), ids=lambda p: p.stem)
def test_golden_records_replay_to_their_known_slates(path):
    record = GameRecord.from_json(path.read_text())
    expected = record.meta["expected"]
    slate = GAME.slate(replay(record)).to_json()
    assert {p["name"]: p["score"] for p in slate["players"]} == expected["scores"]
    for key in ("finished", "winner", "stage", "prompt", "scoring"):
        assert slate[key] == expected[key], key
    assert slate["reveal"]["verdict"] == expected["verdict"]


def test_golden_records_exist():
    assert len(list(GOLDEN.glob("gyvahrs-*.json"))) >= 2


@settings(max_examples=25, deadline=None)
@given(players=st.integers(2, 7), seed=st.integers(0, 10**6), mode=st.sampled_from(["highest", "beat_the_caster"]),
       casts=st.integers(1, 2))
def test_random_play_ends_with_one_winner_and_replays(players, seed, mode, casts):
    def winnings_and_pot_balance(session):
        assert sum(session.state.scores) + session.state.pot == 0

    session = simulate("gyvahrs", [f"P{i}" for i in range(players)], seed, {"mode": mode, "casts": casts},
                       watch=winnings_and_pot_balance)
    state, record = session.state, session.record
    assert state.finished and state.winner is not None
    assert state.rounds_played % players == 0 and state.rounds_played >= casts * players
    assert replay(GameRecord.from_json(record.to_json())) == state

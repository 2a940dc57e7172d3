"""Leira's Dice: one scenario per ruling, bad input refused, golden records, replay."""

from __future__ import annotations

import functools
from pathlib import Path

import pytest

from companion.rules import Bid, Challenge, DiceObserved, EndGame, GameRecord, IllegalAction, get_game, replay
from companion.rules.leiras_dice import GAME
from companion.simulate import simulate
from liars_dice_checks import dice_are_accounted_for, golden_record_matches_its_slate, refused_by

GOLDEN = Path(__file__).parent / "golden"
ANN, BOB, CY = 0, 1, 2


def table(players=("Ann", "Bob", "Cy"), **options):
    """A game with seat 0 to open (no roll-off) unless the options say otherwise."""
    options.setdefault("start", "seat0")
    return GAME.start(list(players), options)


def play(state, *events):
    for ev in events:
        state = GAME.apply(state, ev)
    return state


def reveal(*faces):
    return DiceObserved(tuple(faces))


def dice_left(state):
    return [len(h) for h in state.hands]


refused = functools.partial(refused_by, GAME)


# --- the game -------------------------------------------------------------------------


def test_registry_finds_leiras_dice_by_name_and_aliases():
    for name in ("leiras-dice", "leiras", "leira", "Leira's Dice"):
        assert get_game(name) is GAME
    assert "no designer" in GAME.credit


def test_two_to_five_players():
    with pytest.raises(IllegalAction):
        GAME.start(["Ann"])
    with pytest.raises(IllegalAction):
        GAME.start([f"P{i}" for i in range(6)])
    assert dice_left(GAME.start([f"P{i}" for i in range(5)])) == [5] * 5


# --- the start -------------------------------------------------------------------------


def test_start_roll_off_highest_total_starts():
    state = GAME.start(["Ann", "Bob", "Cy"])
    prompt = GAME.prompt(state)
    assert prompt.phase == "roll-off" and prompt.dice.kind == "pips" and prompt.dice.count == 2
    state = play(state, DiceObserved((3, 4), seat=ANN), DiceObserved((6, 5), seat=BOB), DiceObserved((1, 1), seat=CY))
    assert state.phase == "bidding" and state.turn == BOB and state.starter == BOB


def test_tied_highest_re_roll_among_the_tied_only():
    state = GAME.start(["Ann", "Bob", "Cy"])
    state = play(state, DiceObserved((6, 4), seat=ANN), DiceObserved((2, 2), seat=BOB), DiceObserved((5, 5), seat=CY))
    assert state.phase == "roll-off" and GAME.prompt(state).seats == (ANN, CY)
    refused(state, DiceObserved((6, 6), seat=BOB), "starting player", "Bob is not rolling")
    # a reading without a seat belongs to the seat the prompt names
    state = play(state, DiceObserved((1, 2)), DiceObserved((3, 3)))
    assert state.turn == CY


def test_roll_off_needs_two_dice():
    state = GAME.start(["Ann", "Bob"])
    refused(state, DiceObserved((6,), seat=ANN), "dice count")


# --- bids --------------------------------------------------------------------------------


def test_opening_bid_is_free():
    state = play(table(), Bid(ANN, 1, 6))
    assert state.bid == Bid(ANN, 1, 6) and state.turn == BOB


@pytest.mark.parametrize(
    "later, ok",
    [((4, 2), True), ((3, 4), True), ((5, 5), True), ((4, 3), True), ((3, 2), False), ((2, 6), False), ((4, 1), False)],
)
def test_bid_raises_quantity_with_same_or_higher_face_or_keeps_quantity_and_raises_face(later, ok):
    state = play(table(), Bid(ANN, 3, 2))
    bid = Bid(BOB, *later)
    if ok:
        assert GAME.apply(state, bid).bid == bid
    else:
        refused(state, bid, "bid order")


def test_higher_quantity_may_not_lower_the_face():
    state = play(table(), Bid(ANN, 3, 5))
    error = refused(state, Bid(BOB, 4, 2), "bid order")
    assert "may not lower the face" in error.message


def test_lower_bid_refused_with_a_readable_message():
    state = play(table(), Bid(ANN, 3, 4))
    refused(state, Bid(BOB, 2, 4), "bid order", "a bid must raise the quantity, or keep it and raise the face")


def test_bid_out_of_turn_refused():
    state = play(table(), Bid(ANN, 2, 3))
    refused(state, Bid(CY, 3, 3), "turn order", "it is Bob's turn")


@pytest.mark.parametrize("bid", [Bid(ANN, 2, 7), Bid(ANN, 0, 3), Bid(ANN, 16, 3), Bid(ANN, 3, None)])
def test_impossible_bids_refused(bid):
    refused(table(), bid, "bid")


def test_challenge_with_no_bid_refused():
    refused(table(), Challenge(ANN), "challenge", "no bid to challenge")


def test_challenge_out_of_turn_refused():
    state = play(table(), Bid(ANN, 2, 3))
    refused(state, Challenge(CY), "turn order")


# --- the reveal ----------------------------------------------------------------------------


def challenged(bid=Bid(ANN, 4, 3), **options):
    state = play(table(**options), bid, Challenge(BOB))
    return state


def test_reveal_expects_every_die_in_play():
    state = challenged()
    request = GAME.prompt(state).dice
    assert request.kind == "pips" and request.count == 15
    refused(state, reveal(*[1] * 14), "dice count", "15 dice are in play but 14 were read")


def test_face_seven_on_a_d6_refused():
    state = challenged()
    refused(state, reveal(*([7] + [1] * 14)), "dice faces", "cannot show 7")


def test_reading_when_none_expected_refused():
    refused(table(), reveal(*[1] * 15), "turn order")


def test_false_bid_costs_the_bidder_a_die():
    state = play(challenged(), reveal(3, 3, 3, *[1] * 12))
    assert dice_left(state) == [4, 5, 5]
    assert state.reveal.awards == ((ANN, -1),)


def test_true_bid_costs_the_challenger_a_die():
    state = play(challenged(), reveal(3, 3, 3, 3, 3, *[1] * 10))
    assert dice_left(state) == [5, 4, 5]
    assert state.given == (0, 0, 0)


def test_exact_bid_gives_the_challengers_die_to_the_bidder():
    state = play(challenged(), reveal(3, 3, 3, 3, *[1] * 11))
    assert dice_left(state) == [6, 4, 5]
    assert state.given == (1, 0, 0) and state.lost == (0, 1, 0)
    assert state.reveal.awards == ((BOB, -1), (ANN, 1))
    assert "goes to Ann" in state.history[-1]


def test_loser_starts_the_next_round():
    state = play(challenged(), reveal(*[1] * 15))
    assert state.round == 2 and state.turn == ANN and state.bid is None
    state = play(challenged(), reveal(*[3] * 15))
    assert state.turn == BOB


def test_loser_out_next_to_left_starts():
    state = play(table(dice=1), Bid(ANN, 1, 6), Bid(BOB, 2, 6), Bid(CY, 3, 6), Challenge(ANN), reveal(6, 6, 1))
    assert dice_left(state) == [1, 1, 0]
    assert state.turn == ANN  # Cy is out: Ann, to Cy's left, opens
    state = play(table(dice=1), Bid(ANN, 1, 6), Challenge(BOB), reveal(1, 2, 3))
    assert dice_left(state) == [0, 1, 1] and state.turn == BOB


# --- the end game --------------------------------------------------------------------------


def test_two_players_one_die_each_bid_on_the_total():
    state = table(("Ann", "Bob"), dice=1)
    assert "bid on the total of both dice, 2 to 12" in GAME.prompt(state).text
    refused(state, Bid(ANN, 1, 6), "total bid", "total of both dice")
    refused(state, Bid(ANN, 13), "total bid", "2 to 12")
    state = play(state, Bid(ANN, 7))
    refused(state, Bid(BOB, 7), "total bid", "higher than 7")
    state = play(state, Bid(BOB, 9), Challenge(ANN))
    assert GAME.prompt(state).dice.count == 2
    assert GAME.slate(state).current == "Bob bids a total of 9"
    after = play(state, reveal(6, 4))  # 10 >= 9: the challenger loses
    assert after.finished and after.winner == BOB


def test_total_bid_fails_when_the_sum_is_lower():
    state = play(table(("Ann", "Bob"), dice=1), Bid(ANN, 8), Challenge(BOB), reveal(3, 4))
    assert state.finished and GAME.slate(state).winner == "Bob"


def test_exact_total_gives_the_die_to_the_bidder():
    state = play(table(("Ann", "Bob"), dice=1), Bid(ANN, 8), Challenge(BOB), reveal(3, 5))
    assert dice_left(state) == [2, 0] and state.finished and state.winner == ANN
    assert state.given == (1, 0)


def test_total_bids_only_with_exactly_two_players_on_one_die():
    state = table(("Ann", "Bob", "Cy"), dice=1)
    refused(state, Bid(ANN, 7), "bid")


def test_the_prompt_names_the_faces_a_bid_may_take_now():
    assert GAME.prompt(table(("Ann", "Bob", "Cy"), dice=1)).bid_faces == (1, 2, 3, 4, 5, 6)
    assert GAME.prompt(table(("Ann", "Bob"), dice=1)).bid_faces == (None,)  # the total only
    assert GAME.prompt(play(table(("Ann", "Bob"), dice=2), Bid(ANN, 2, 3), Challenge(BOB))).bid_faces == ()


def test_last_player_with_dice_wins_and_the_slate_says_so():
    state = play(table(("Ann", "Bob"), dice=1), Bid(ANN, 12), Challenge(BOB), reveal(6, 5))
    slate = GAME.slate(state)
    assert slate.finished and slate.winner == "Bob" and slate.scoring == "dice"
    assert [p.dice for p in slate.players] == [0, 1]
    assert [p.status for p in slate.players] == ["out", "winner"]
    refused(state, Bid(BOB, 3), "game over")


# --- buttons, prompt, slate ------------------------------------------------------------------


def test_buttons_challenge_only_for_the_seat_to_play():
    state = table()
    assert GAME.on_button(state, ANN, "yellow") is None  # nothing to challenge yet
    assert GAME.on_button(state, None, "liar") is None
    state = play(state, Bid(ANN, 2, 2))
    assert GAME.on_button(state, BOB, "yellow") == Challenge(BOB)
    assert GAME.on_button(state, CY, "yellow") is None
    assert GAME.on_button(state, None, "liar") == Challenge(BOB)
    assert GAME.on_button(state, BOB, "green") is None


def test_slate_shows_the_bid_and_the_reveal():
    state = play(table(), Bid(ANN, 5, 4))
    slate = GAME.slate(state)
    assert slate.current == "Ann bids five 4s" and slate.winner is None
    assert [p.role for p in slate.players] == ["starts", "to bid", None]
    state = play(state, Challenge(BOB), reveal(4, 4, *[2] * 13))
    slate = GAME.slate(state)
    assert slate.reveal.verdict == "two 4s on the table: the bid of five 4s fails"
    assert "Ann loses a die" in slate.reveal.lines
    assert [p.dice for p in slate.players] == [4, 5, 5]
    assert slate.current is None and slate.stage == "Round 2"
    assert slate.reveal.counted == (1, 1) + (0,) * 13  # the bid's face marked on the slate


def test_legal_actions_are_all_accepted_and_include_the_challenge():
    state = play(table(dice=1), Bid(ANN, 2, 4))
    actions = GAME.legal_actions(state)
    assert Challenge(BOB) in actions
    assert Bid(BOB, 2, 5) in actions and Bid(BOB, 3, 4) in actions and Bid(BOB, 3, 3) not in actions
    for action in actions:
        GAME.apply(state, action)


# --- whole games: invariants, replay, golden -------------------------------------------------


def random_game(seed, players):
    session = simulate(GAME.name, players, seed, max_events=2000, watch=dice_are_accounted_for)
    return session.state, session.record


@pytest.mark.parametrize("seed, count", [(1, 2), (2, 3), (3, 5)])
def test_random_game_ends_with_one_winner_and_replays_from_json(seed, count):
    state, record = random_game(seed, [f"P{i}" for i in range(count)])
    assert state.finished and len(state.alive) == 1 and state.winner == state.alive[0]
    assert replay(GameRecord.from_json(record.to_json())) == state


@pytest.mark.parametrize("path", sorted(GOLDEN.glob("leiras-dice-*.json")), ids=lambda p: p.stem)
def test_golden_record_replays_to_its_slate(path):
    golden_record_matches_its_slate(GAME, path)


def test_tally_counts_challenges_and_bluffs():
    state = play(table(), Bid(ANN, 2, 3), Bid(BOB, 3, 3), Challenge(CY), reveal(3, 3, *[1] * 13))
    tally = GAME.tally(state)
    assert tally[CY] == {"calls": 1, "correct_calls": 1, "bluffs": 0, "bluffs_worked": 0, "dice_lost": 0}
    assert tally[BOB] == {"calls": 0, "correct_calls": 0, "bluffs": 1, "bluffs_worked": 0, "dice_lost": 1}
    assert tally[ANN]["bluffs"] == 0


def test_game_ended_by_the_host_names_no_winner():
    record = GameRecord(GAME.name, ("Ann", "Bob"), {"start": "seat0"}, (Bid(ANN, 2, 3), EndGame()))
    state = replay(record)
    slate = GAME.slate(state)
    assert slate.finished and slate.winner is None and slate.prompt == "The game was ended by the host"

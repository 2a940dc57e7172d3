"""Trickster's Tavern: one scenario per ruling, bad input refused, classes, golden records."""

from __future__ import annotations

import functools
import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from companion.rules import Bid, Challenge, DiceObserved, GameRecord, IllegalAction, get_game, replay
from companion.rules.polyhedral import WILDCARD, BadNotation, hand_text, parse_hand, score_values
from companion.rules.tavern_classes import BadClassFile, parse_card, parse_classes
from companion.rules.tricksters_tavern import (
    GAME, AddDie, Discard, DowngradeDie, RemoveDie, UpgradeDie, WildFace,
)
from companion.simulate import simulate
from liars_dice_checks import dice_are_accounted_for, golden_record_matches_its_slate, refused_by

GOLDEN = Path(__file__).parent / "golden"
ANN, BOB, CY = 0, 1, 2
W = WILDCARD


def tavern(classes=("Commoner",), players=("Ann", "Bob", "Cy"), **options):
    options.setdefault("start", "seat0")
    return GAME.start(list(players), {"classes": list(classes), **options})


def play(state, *events):
    for ev in events:
        state = GAME.apply(state, ev)
    return state


def reveal(*faces):
    return DiceObserved(tuple(faces))


refused = functools.partial(refused_by, GAME)


def options_refused(words, **options):
    with pytest.raises(IllegalAction) as err:
        GAME.start(["Ann", "Bob"], options)
    assert err.value.rule == "options" and words in err.value.message


# --- the game and its classes ------------------------------------------------------------


def test_registry_finds_tricksters_tavern_by_name_and_aliases():
    for name in ("tricksters-tavern", "tricksters", "trickster", "Trickster's Tavern"):
        assert get_game(name) is GAME
    assert "names no author" in GAME.credit


def test_shipped_classes_include_a_plain_commoner():
    commoner = next(c for c in GAME.shipped() if c.name == "Commoner")
    assert commoner.hand == (6,) * 5 and commoner.ability == ""
    assert len(GAME.shipped()) >= 4


def test_everyone_is_a_commoner_by_default():
    state = GAME.start(["Ann", "Bob"], {"start": "seat0"})
    assert state.hands == ((6,) * 5, (6,) * 5)
    assert state.option("classes") == ("Commoner (5d6)", "Commoner (5d6)")


def test_class_per_seat_by_name_or_inline_card():
    state = tavern(["gambler", "Brute (2d8+2d6): hits hard", "Commoner"])
    assert state.hands == ((6, 6, 6, 20), (6, 6, 8, 8), (6,) * 5)
    assert state.option("classes")[1] == "Brute (2d6+2d8): hits hard"


def test_unknown_class_refused():
    options_refused("there is no class called 'Wizard'", classes=["Wizard", "Commoner"])


def test_wrong_number_of_classes_refused():
    with pytest.raises(IllegalAction, match="names 2 classes for 3 players"):
        tavern(["Commoner", "Gambler"])


@pytest.mark.parametrize(
    "hand, words",
    [("2x6", "'2x6' in '2x6' is not dice notation"), ("2d6+1d3", "d3 in '2d6+1d3' is not a Trickster's Tavern die"),
     ("2d6+1", "'1' in '2d6+1' is not dice notation"), ("0d6", "has no dice"), ("", "dice notation")],
)
def test_bad_dice_notation_refused_with_a_clear_message(hand, words):
    with pytest.raises(BadNotation, match=re.escape(words)):
        parse_hand(hand)
    if hand:
        options_refused(words, classes=[f"Odd ({hand})"])


def test_dice_notation_reads_and_writes_hands():
    assert parse_hand("2d6+1d8+1d20") == (6, 6, 8, 20)
    assert parse_hand(" d20 + 3D4 ") == (4, 4, 4, 20)
    assert hand_text((4, 6, 6, 20)) == "1d4+2d6+1d20"


CLASS_FILE = '''
[[class]]
name = "Lamplighter"
hand = "2d4+2d10"
ability = "Manual, once per game: declare 1s wild on your dice this round."
'''


def test_class_file_text_adds_classes_and_the_record_needs_no_file():
    state = tavern(["Lamplighter", "Commoner"], players=("Ann", "Bob"), class_file=CLASS_FILE)
    assert state.hands[0] == (4, 4, 10, 10)
    # the resolved options alone rebuild the same game (the record is self-contained)
    again = GAME.start(["Ann", "Bob"], dict(state.options))
    assert again == state and state.option("class_file") == ""


@pytest.mark.parametrize(
    "text, words",
    [("[[class]]\nname = 'X'\n", "has no 'hand'"), ("[[class]]\nname='X'\nhand='5d6'\npower='fly'\n", "unknown key 'power'"),
     ("[[class]\nname='X'", "not valid TOML"), ("[[class]]\nname='X'\nhand='5q6'\n", "class X: '5q6'"),
     ("[[class]]\nname='X'\nhand='5d6'\n[[class]]\nname='x'\nhand='4d6'\n", "names 'x' twice")],
)
def test_bad_class_file_refused_with_a_clear_message(text, words):
    with pytest.raises(BadClassFile, match=re.escape(words)):
        parse_classes(text)
    options_refused(words, class_file=text)


def test_one_line_card_round_trips():
    card = parse_card("Hedge Witch (3d6+1d8+1d4): name a face; it is wild (this round)")
    assert parse_card(card.line) == card and card.hand == (4, 6, 6, 6, 8)


# --- score values -------------------------------------------------------------------------


def test_d2_odd_counts_one_even_counts_two():
    assert score_values(2, 1) == (1,) and score_values(2, 2) == (2,)


@pytest.mark.parametrize("size", [4, 6])
def test_d4_and_d6_count_their_face(size):
    assert [score_values(size, f) for f in range(1, size + 1)] == [(f,) for f in range(1, size + 1)]


@pytest.mark.parametrize(
    "face, values",
    [(7, (6, 1)), (8, (6, 2)), (9, (6, 3)), (10, (6, 4)), (11, (6, 5)), (12, (6, 6)), (6, (6,)), (1, (1,))],
)
def test_d8_to_d12_count_sixes_plus_the_remainder(face, values):
    for size in (8, 10, 12):
        if face <= size:
            assert score_values(size, face) == values


@pytest.mark.parametrize(
    "face, values",
    [(13, (6, 6, 1)), (14, (6, 6, 2)), (15, (6, 6, 3)), (16, (6, 6, 4)), (17, (6, 6, 5)), (18, (6, 6, 6)), (19, (6, 6, 6, 1))],
)
def test_d13_to_d19_floor_as_the_table_says(face, values):
    assert score_values(20, face) == values


def test_d20_one_counts_nothing():
    assert score_values(20, 1) == ()


def test_d20_twenty_counts_three_wildcards():
    assert score_values(20, 20) == (W, W, W)
    state = play(tavern(["Gambler", "Commoner"], players=("Ann", "Bob")), Bid(ANN, 4, 2), Challenge(BOB))
    # Ann: d6 d6 d6 d20, Bob: five d6. One real 2 plus three wildcards = 4 twos.
    after = play(state, reveal(2, 5, 5, 20, 1, 1, 1, 1, 1))
    assert [len(h) for h in after.hands] == [4, 4]
    assert after.reveal.verdict == "4 twos counted: the bid of 4 twos holds"


# --- bids ----------------------------------------------------------------------------------


@pytest.mark.parametrize("later, ok", [((4, 1), True), ((3, 5), True), ((9, 6), True), ((3, 3), False), ((3, 2), False), ((2, 6), False)])
def test_bid_raises_the_amount_with_any_value_or_keeps_it_and_raises_the_value(later, ok):
    state = play(tavern(), Bid(ANN, 3, 4))
    bid = Bid(BOB, *later)
    if ok:
        assert GAME.apply(state, bid).bid == bid
    else:
        refused(state, bid, "bid order", "a bid must raise the amount, or keep it and raise the value")


@pytest.mark.parametrize("bid, rule", [(Bid(ANN, 2, 7), "bid"), (Bid(ANN, 2, None), "bid"), (Bid(ANN, 0, 2), "bid"), (Bid(BOB, 2, 2), "turn order")])
def test_bad_bids_refused(bid, rule):
    refused(tavern(), bid, rule)


def test_bid_cap_counts_big_dice_as_several():
    state = tavern(["Gambler", "Commoner"], players=("Ann", "Bob"))  # 3d6+1d20 and 5d6: at most 3+3+5 = 11
    assert GAME.apply(state, Bid(ANN, 11, 6)).bid.quantity == 11
    refused(state, Bid(ANN, 12, 6), "bid", "at most 11")


def test_challenge_with_no_bid_refused():
    refused(tavern(), Challenge(ANN), "challenge", "no bid to challenge")


# --- the reveal ----------------------------------------------------------------------------


def test_reveal_asks_the_host_for_every_hand_by_size():
    state = play(tavern(["Gambler", "Brute (2d8)", "Commoner"]), Bid(ANN, 2, 3), Challenge(BOB))
    request = GAME.prompt(state).dice
    assert request.kind == "polyhedral" and request.count == 11
    assert request.hands == ((ANN, (6, 6, 6, 20)), (BOB, (8, 8)), (CY, (6,) * 5))
    refused(state, reveal(*[1] * 10), "dice count", "11 dice are in play but 10 faces were given")
    refused(state, reveal(7, *[1] * 10), "dice faces", "Ann's d6 cannot show 7")
    refused(state, reveal(*[1] * 4, 9, *[1] * 6), "dice faces", "Bob's d8 cannot show 9")


def test_enough_dice_the_challenger_loses_no_exact_gift():
    state = play(tavern(), Bid(ANN, 2, 3), Challenge(BOB), reveal(3, 3, *[1] * 13))
    assert [len(h) for h in state.hands] == [5, 4, 5] and state.given == (0, 0, 0)
    assert state.turn == BOB


def test_too_few_the_bidder_loses():
    state = play(tavern(), Bid(ANN, 3, 3), Challenge(BOB), reveal(3, 3, *[1] * 13))
    assert [len(h) for h in state.hands] == [4, 5, 5] and state.turn == ANN


def test_loser_picks_which_die_to_lose_default_smallest():
    state = play(tavern(["Cutpurse", "Commoner"], players=("Ann", "Bob")), Bid(ANN, 9, 6), Challenge(BOB))
    state = play(state, reveal(*[1] * 10))
    prompt = GAME.prompt(state)
    assert prompt.phase == "discard" and prompt.seats == (ANN,) and "green: the smallest, a d4" in prompt.text
    refused(state, Discard(BOB), "discard", "Ann picks")
    refused(state, Discard(ANN, (8,)), "discard", "Ann has no d8")
    refused(state, Discard(ANN, (6, 6)), "discard", "drops 1 die, not 2")
    picked = GAME.apply(state, Discard(ANN, (6,)))
    assert picked.hands[ANN] == (4, 6, 6, 6)
    assert GAME.on_button(state, ANN, "green") == Discard(ANN)
    assert GAME.on_button(state, BOB, "green") is None
    default = GAME.apply(state, GAME.on_button(state, ANN, "green"))
    assert default.hands[ANN] == (6, 6, 6, 6) and default.phase == "bidding" and default.turn == ANN


def test_hand_cut_to_six_at_end_of_round():
    state = tavern(["Hoarder (3d4+5d6)", "Commoner"], players=("Ann", "Bob"))
    state = play(state, Bid(ANN, 1, 6), Challenge(BOB), reveal(1, 1, 1, *[6] * 10))  # Bob loses; five d6 alike
    prompt = GAME.prompt(state)
    assert state.phase == "cut" and prompt.seats == (ANN,) and "drop 2" in prompt.text
    assert [len(h) for h in state.hands] == [8, 4]
    assert GAME.apply(state, GAME.on_button(state, ANN, "green")).hands[ANN] == (4, 6, 6, 6, 6, 6)
    refused(state, Discard(ANN, (6,)), "discard", "drops 2 dice, not 1")
    kept = GAME.apply(state, Discard(ANN, (6, 6)))
    assert kept.hands[ANN] == (4, 4, 4, 6, 6, 6) and kept.lost == (2, 1) and kept.phase == "bidding"


def test_hand_of_one_size_is_cut_without_asking():
    state = tavern(["Crowd (8d6)", "Commoner"], players=("Ann", "Bob"))
    state = play(state, Bid(ANN, 1, 6), Challenge(BOB), reveal(*[6] * 13))
    assert state.phase == "bidding" and state.hands[ANN] == (6,) * 6 and "cut to six" in state.history[-1]


def test_loser_out_next_to_left_starts():
    state = tavern(["Solo (1d6)"])
    state = play(state, Bid(ANN, 1, 2), Bid(BOB, 2, 2), Bid(CY, 3, 2), Challenge(ANN), reveal(2, 2, 5))
    assert [len(h) for h in state.hands] == [1, 1, 0] and state.out == (CY,) and state.turn == ANN


def test_last_with_dice_wins():
    state = play(tavern(["Solo (1d6)"], players=("Ann", "Bob")), Bid(ANN, 2, 6), Challenge(BOB), reveal(6, 1))
    slate = GAME.slate(state)
    assert slate.finished and slate.winner == "Bob" and [p.dice for p in slate.players] == [0, 1]


# --- host actions: abilities -----------------------------------------------------------------


def test_upgrade_past_d20_stays_d20():
    state = tavern(["Gambler", "Commoner"], players=("Ann", "Bob"))
    assert GAME.apply(state, UpgradeDie(ANN, 20)).hands[ANN] == (6, 6, 6, 20)
    assert GAME.apply(state, UpgradeDie(ANN, 6, steps=9)).hands[ANN] == (6, 6, 20, 20)
    assert GAME.apply(state, UpgradeDie(ANN, 6, steps=2)).hands[ANN] == (6, 6, 10, 20)


def test_downgrade_below_d2_loses_the_die():
    state = tavern(["Cutpurse", "Commoner"], players=("Ann", "Bob"))
    assert GAME.apply(state, DowngradeDie(ANN, 4)).hands[ANN] == (2, 6, 6, 6, 6)
    lost = GAME.apply(state, DowngradeDie(ANN, 4, steps=2))
    assert lost.hands[ANN] == (6, 6, 6, 6) and lost.lost == (1, 0)


def test_add_and_remove_a_die_keep_the_count_honest():
    state = tavern(["Commoner"], players=("Ann", "Bob"))
    state = play(state, AddDie(BOB, 12), RemoveDie(ANN, 6))
    assert state.hands == ((6,) * 4, (6,) * 5 + (12,))
    assert state.given == (0, 1) and state.lost == (1, 0)


def test_host_actions_on_dice_not_held_refused():
    state = tavern(["Commoner"], players=("Ann", "Bob"))
    refused(state, UpgradeDie(ANN, 8), "host action", "Ann has no d8")
    refused(state, RemoveDie(BOB, 20), "host action", "Bob has no d20")
    refused(state, AddDie(ANN, 3), "host action", "d3 is not")
    refused(state, UpgradeDie(ANN, 6, steps=0), "host action", "at least one size")
    refused(state, WildFace(7, seat=ANN, size=6), "host action", "a d6 has no face 7")


def test_taking_the_last_die_of_a_player_to_move_passes_the_turn_or_ends_the_game():
    state = play(tavern(["Solo (1d6)"]), Bid(ANN, 1, 3), RemoveDie(BOB, 6))
    assert state.turn == CY and not state.finished
    state = play(state, RemoveDie(ANN, 6))
    assert state.finished and state.winner == CY


def test_wild_face_counts_as_every_value_this_round_only():
    state = play(tavern(["Commoner"], players=("Ann", "Bob")), WildFace(1, seat=ANN), Bid(ANN, 6, 4), Challenge(BOB))
    # Ann's three 1s are wild and she has one 4; Bob's 1 is not wild and he has one 4: 5 fours
    state = play(state, reveal(1, 1, 1, 4, 5, 4, 1, 2, 3, 3))
    assert state.reveal.verdict == "5 fours counted: the bid of 6 fours fails"
    assert state.wilds == ()  # a new round: the wild face is gone


def test_a_wild_face_stays_on_the_slate_while_it_holds():
    state = play(tavern(["Commoner"], players=("Ann", "Bob")), WildFace(1, seat=ANN), Bid(ANN, 6, 4))
    assert GAME.slate(state).notes == ("1s are wild on Ann's dice this round",)
    state = play(state, Challenge(BOB), reveal(1, 1, 1, 4, 5, 4, 1, 2, 3, 3))
    assert GAME.slate(state).notes == ()  # the next round: no longer wild
    assert GAME.slate(state).dice == "polyhedral"


def test_repeated_wild_declaration_refused():
    state = play(tavern(["Commoner"], players=("Ann", "Bob")), WildFace(1))
    refused(state, WildFace(1), "host action", "already wild")


def test_host_actions_refused_during_the_roll_off():
    state = GAME.start(["Ann", "Bob"])
    refused(state, AddDie(ANN, 6), "turn order")


# --- start, buttons, slate ----------------------------------------------------------------------


def test_start_roll_off_by_default_or_seat_zero_by_option():
    state = GAME.start(["Ann", "Bob"])
    assert GAME.prompt(state).dice.kind == "pips"
    state = play(state, DiceObserved((2, 2)), DiceObserved((6, 1)))
    assert state.turn == BOB
    assert tavern().turn == ANN


def test_buttons():
    state = play(tavern(), Bid(ANN, 2, 2))
    assert GAME.on_button(state, BOB, "yellow") == Challenge(BOB)
    assert GAME.on_button(state, None, "liar") == Challenge(BOB)
    assert GAME.on_button(state, ANN, "yellow") is None and GAME.on_button(state, BOB, "green") is None


def test_slate_shows_bids_as_the_rule_text_writes_them():
    state = play(tavern(), Bid(ANN, 1, 5), Bid(BOB, 3, 4))
    slate = GAME.slate(state)
    assert slate.current == "Bob bids 3 fours" and slate.scoring == "dice"
    assert slate.players[0].hand == "Commoner: 5d6"
    assert "upgrade_die" in GAME.prompt(state).wants and "discard" not in GAME.prompt(state).wants
    assert "Ann bids 1 five" in slate.history
    state = play(state, Challenge(CY), reveal(*[4] * 15))
    assert state.reveal.lines[0] == "Ann: d6 4, d6 4, d6 4, d6 4, d6 4"


def test_reveal_lines_show_big_dice_score_values():
    state = play(tavern(["Gambler", "Commoner"], players=("Ann", "Bob")), Bid(ANN, 1, 6), Challenge(BOB))
    state = play(state, reveal(1, 2, 3, 19, 1, 1, 1, 1, 1))
    assert state.reveal.lines[0] == "Ann: d6 1, d6 2, d6 3, d20 19 {6,6,6,1}"


def test_a_reveal_lays_its_dice_out_by_hand_with_sizes_and_what_each_counts():
    """Issue 66: the slate groups a big reveal by player, shows die sizes and marks what
    counts toward the bid (a d20's 19 is three sixes and a one: three)."""
    state = play(tavern(["Gambler", "Commoner"], players=("Ann", "Bob")), Bid(ANN, 1, 6), Challenge(BOB))
    state = play(state, reveal(6, 2, 3, 19, 1, 6, 1, 1, 1))
    assert state.reveal.hands == ((ANN, 4), (BOB, 5))
    assert state.reveal.sizes == (6, 6, 6, 20, 6, 6, 6, 6, 6)
    assert state.reveal.counted == (1, 0, 0, 3, 0, 1, 0, 0, 0)


def test_tally_counts_challenges_and_bluffs_checked_at_the_reveal():
    state = play(tavern(), Bid(ANN, 3, 5), Bid(BOB, 4, 5), Bid(CY, 5, 2), Challenge(ANN))
    state = play(state, reveal(5, 5, 5, 1, 1, *[3] * 10))  # three 5s, no 2s: Bob's and Cy's bids were false
    tally = GAME.tally(state)
    assert tally[ANN] == {"calls": 1, "correct_calls": 1, "bluffs": 0, "bluffs_worked": 0, "dice_lost": 0}
    assert tally[BOB] == {"calls": 0, "correct_calls": 0, "bluffs": 1, "bluffs_worked": 1, "dice_lost": 0}
    assert tally[CY] == {"calls": 0, "correct_calls": 0, "bluffs": 1, "bluffs_worked": 0, "dice_lost": 1}


def test_legal_actions_are_all_accepted():
    state = tavern(["Cutpurse", "Gambler", "Commoner"])
    for action in GAME.legal_actions(state):
        GAME.apply(state, action)
    state = play(state, Bid(ANN, 9, 6), Challenge(BOB), reveal(*[1] * 14))
    actions = GAME.legal_actions(state)
    assert Discard(ANN) in actions and Discard(ANN, (4,)) in actions and Discard(ANN, (6,)) in actions
    for action in actions:
        GAME.apply(state, action)


# --- whole games -----------------------------------------------------------------------------------


def random_game(seed, players, classes):
    session = simulate(GAME.name, players, seed, {"classes": classes}, max_events=3000, watch=dice_are_accounted_for)
    return session.state, session.record


@pytest.mark.parametrize(
    "seed, classes",
    [(1, ["Commoner", "Gambler"]), (2, ["Cutpurse", "Hedge Witch", "Brawler"]), (3, ["Big (4d20+4d2)", "Innkeeper", "Commoner", "Gambler"])],
)
def test_random_game_ends_with_one_winner_and_replays_from_json(seed, classes):
    state, record = random_game(seed, [f"P{i}" for i in range(len(classes))], classes)
    assert state.finished and len(state.alive) == 1 and state.winner == state.alive[0]
    assert replay(GameRecord.from_json(record.to_json())) == state


@pytest.mark.parametrize("path", sorted(GOLDEN.glob("tricksters-tavern-*.json")), ids=lambda p: p.stem)
def test_golden_record_replays_to_its_slate(path):
    golden_record_matches_its_slate(GAME, path)


def test_the_class_file_example_in_the_docs_parses():
    doc = (Path(__file__).parent.parent / "docs" / "games" / "tricksters-tavern.md").read_text(encoding="utf-8")
    example = doc.split("```toml\n", 1)[1].split("```", 1)[0]
    cards = parse_classes(example)
    assert [c.name for c in cards] == ["Lamplighter", "Dice Hoarder"]
    assert cards[1].hand == (2, 2, 6, 6, 6, 20)


@given(st.sampled_from([8, 10, 12, 20]).flatmap(lambda size: st.tuples(st.just(size), st.integers(2, min(size, 19)))))
def test_big_dice_score_values_add_up_to_the_face_with_at_most_one_non_six(die):
    size, face = die
    values = score_values(size, face)
    assert sum(values) == face and all(1 <= v <= 6 for v in values)
    assert sum(1 for v in values if v != 6) <= 1

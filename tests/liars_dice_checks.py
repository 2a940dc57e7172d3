"""Checks shared by the two liar's-dice games' tests."""

from __future__ import annotations

import json

import pytest

from companion.rules import GameRecord, IllegalAction, replay


def dice_are_accounted_for(session) -> None:
    """Dice in play + dice lost = dice dealt + dice given, for every seat, never negative."""
    state = session.state
    for seat in range(len(state.players)):
        assert len(state.hands[seat]) + state.lost[seat] == state.dealt[seat] + state.given[seat]
        assert len(state.hands[seat]) >= 0


def golden_record_matches_its_slate(game, path) -> None:
    """A golden record (tests/golden/) replays to the slate stored in its meta.expected:
    players as name and dice left, the reveal by the keys given."""
    record = GameRecord.from_json(path.read_text(encoding="utf-8"))
    expected = record.meta["expected"]
    slate = game.slate(replay(record)).to_json()
    for key, value in expected.items():
        got = slate[key]
        if key == "players":
            got = [{"name": p["name"], "dice": p["dice"]} for p in got]
        if key == "reveal":
            got = {k: got[k] for k in value}
        assert json.loads(json.dumps(got)) == value, key


def refused_by(game, state, event, rule=None, words=""):
    """The event is refused with a readable message (naming `rule`) and the state is untouched."""
    before = state
    with pytest.raises(IllegalAction) as err:
        game.apply(state, event)
    assert state == before
    if rule:
        assert err.value.rule == rule
    assert words in err.value.message
    return err.value

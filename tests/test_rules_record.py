"""The game record: JSON round trip, corrections as events, secrecy, bad records."""

from __future__ import annotations

import json

import pytest

from companion.rules import (
    Amend,
    BadRecord,
    ChipCall,
    DiceObserved,
    GameRecord,
    Undo,
    effective_events,
    pending_secrets,
    replay,
)
from companion.rules.events import from_dict


def toy_record(*events):
    return GameRecord(game="toy", players=("Ann", "Ben"), options={"turns": 2}, events=tuple(events))


def test_every_event_round_trips_through_its_record_form():
    for ev in [ChipCall(1, "yellow"), DiceObserved(("red", 3), seat=2, source="camera"), Undo(),
               Amend(target=4, event=DiceObserved((1, 2)))]:
        assert from_dict(json.loads(json.dumps(ev.to_dict()))) == ev


def test_replaying_a_record_rebuilds_the_identical_state():
    record = toy_record(ChipCall(0, "green"), ChipCall(1, "yellow"), DiceObserved(("red",)))
    again = GameRecord.from_json(record.to_json())
    assert again == record
    assert replay(again) == replay(record)
    assert replay(record).scores == (1, 0)


def test_undo_takes_back_the_latest_event_in_force():
    record = toy_record(ChipCall(0, "green"), ChipCall(1, "yellow"), DiceObserved(("red",)), Undo(), Undo())
    assert [i for i, _ in effective_events(record.events)] == [0]


def test_amend_replaces_the_target_and_the_game_is_replayed():
    record = toy_record(ChipCall(0, "green"), ChipCall(1, "yellow"), DiceObserved(("red",)),
                        Amend(target=2, event=DiceObserved(("blue",))))
    assert replay(record).scores == (0, 1)


def test_amend_must_keep_the_event_kind():
    record = toy_record(ChipCall(0, "green"), Amend(target=0, event=DiceObserved(("blue",))))
    with pytest.raises(BadRecord) as err:
        replay(record)
    assert err.value.index == 1 and err.value.field == "event"


def test_chip_calls_stay_hidden_in_the_public_record_until_the_reveal():
    before = toy_record(ChipCall(0, "green"), ChipCall(1, "yellow"))
    public = before.to_dict(public=True)
    assert [e["chip"] for e in public["events"]] == ["hidden", "hidden"]
    assert "green" not in json.dumps(public) and "yellow" not in json.dumps(public)
    after = before.appended(DiceObserved(("red",)))
    assert [e["chip"] for e in after.to_dict(public=True)["events"][:2]] == ["green", "yellow"]


def test_a_call_replaced_before_the_reveal_stays_hidden_for_good():
    """Issue 66 ruling: a call its seat changed before the reveal was never part of the
    game; only the call in force at the reveal is revealed, in every public export."""
    record = toy_record(ChipCall(0, "yellow"), ChipCall(1, "green"), ChipCall(0, "green"), DiceObserved(("red",)),
                        ChipCall(0, "yellow"), ChipCall(1, "yellow"), DiceObserved(("blue",)))
    public = record.to_dict(public=True)["events"]
    assert [e.get("chip") for e in public] == ["hidden", "green", "green", None, "yellow", "yellow", None]
    assert pending_secrets(record.events) == {0}
    again = GameRecord.from_dict(record.to_dict(public=True))  # the export still replays to the same game
    assert replay(again).scores == replay(record).scores


def test_an_amended_secret_call_is_hidden_too():
    record = toy_record(ChipCall(0, "green"), Amend(target=0, event=ChipCall(0, "yellow")))
    assert pending_secrets(record.events) == {0, 1}
    assert "yellow" not in json.dumps(record.to_dict(public=True))


@pytest.mark.parametrize(
    "events, index, field",
    [
        ([{"kind": "chip_call", "seat": "one", "chip": "green"}], 0, "seat"),
        ([{"kind": "chip_call", "seat": 0, "chip": "green"}, {"kind": "chip_call", "seat": 1, "chip": "purple"}], 1, "chip"),
        ([{"kind": "teleport"}], 0, "kind"),
        ([{"kind": "dice"}], 0, "values"),
        ([{"kind": "chip_call", "seat": 0, "chip": "green", "colour": "red"}], 0, "colour"),
    ],
)
def test_a_malformed_event_is_named_by_index_and_field(events, index, field):
    data = toy_record().to_dict()
    data["events"] = events
    with pytest.raises(BadRecord) as err:
        GameRecord.from_dict(data)
    assert (err.value.index, err.value.field) == (index, field)
    assert f"event {index}" in str(err.value)


def test_an_illegal_event_in_a_record_is_named_by_index():
    record = toy_record(ChipCall(0, "green"), DiceObserved(("red",)))
    with pytest.raises(BadRecord) as err:
        replay(record)
    assert err.value.index == 1
    assert "before the reveal" in str(err.value)


def test_a_record_from_a_newer_companion_is_refused_clearly():
    data = toy_record().to_dict()
    data["version"] = 99
    with pytest.raises(BadRecord, match="newer"):
        GameRecord.from_dict(data)


def test_not_json_is_reported_with_its_position():
    with pytest.raises(BadRecord, match="line 1"):
        GameRecord.from_json("{not json")


def test_json_nested_thousands_deep_is_refused_as_a_bad_record():
    """json.loads gives up on deep nesting with RecursionError, not a JSON error."""
    deep = '{"version": 1, "game": "toy", "players": ["A"], "events": ' + "[" * 5000 + "]" * 5000 + "}"
    with pytest.raises(BadRecord, match="nested too deeply"):
        GameRecord.from_json(deep)


def test_a_number_of_thousands_of_digits_is_refused_as_a_bad_record():
    """Python refuses to read an integer of more than 4300 digits with a plain ValueError."""
    with pytest.raises(BadRecord, match="too many digits"):
        GameRecord.from_json('{"version": ' + "1" * 5000 + "}")


def test_a_record_of_an_unknown_game_names_the_game_field():
    data = toy_record().to_dict()
    data["game"] = "chess"
    with pytest.raises(BadRecord) as err:
        GameRecord.from_dict(data)
    assert err.value.field == "game" and "chess" in str(err.value)


def test_game_specific_event_kinds_parse_in_a_fresh_interpreter(tmp_path):
    """A record's own event kinds are known before its events are read (Tavern's add_die)."""
    import subprocess
    import sys

    from companion.simulate import simulate

    path = tmp_path / "tavern.json"
    path.write_text(simulate("tricksters-tavern", ["Ann", "Ben", "Cy"], seed=7).record.to_json())
    code = "import sys; from companion.rules import GameRecord, replay; replay(GameRecord.from_json(open(sys.argv[1]).read()))"
    result = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


def test_a_call_taken_back_before_the_reveal_is_never_shown():
    record = toy_record(ChipCall(0, "green"), Undo(), ChipCall(0, "yellow"), ChipCall(1, "yellow"),
                        DiceObserved(("red",)))
    public = record.to_dict(public=True)["events"]
    assert public[0]["chip"] == "hidden"
    assert public[2]["chip"] == "yellow"  # the call in force was revealed


def test_an_amend_of_a_call_is_secret_until_the_reveal():
    amend = Amend(target=0, event=ChipCall(0, "yellow"))
    assert amend.secret and not Amend(target=0, event=DiceObserved(("red",))).secret
    assert "yellow" not in json.dumps(amend.redacted())


def test_amends_nested_hundreds_deep_are_a_bad_record_not_a_crash():
    event: dict = {"kind": "chip_call", "seat": 1, "chip": "green"}
    for _ in range(900):  # JSON reads this deep; building the events from it would not
        event = {"kind": "amend", "target": 0, "event": event}
    text = json.dumps({"version": 1, "game": "tregald", "players": ["Ann", "Ben"], "events": [event]})
    with pytest.raises(BadRecord, match="nested too deeply"):
        GameRecord.from_json(text)


def _public_export_replays_to_the_same_slate(events):
    from companion.rules import get_game, replay

    record = GameRecord(game="tregald", players=("Ann", "Ben", "Cara"), options={"rounds": 1}, events=tuple(events))
    public = json.dumps(record.to_dict(public=True))
    assert '"hidden"' in public  # the export hides a call no reveal counted
    again = GameRecord.from_json(public)
    game = get_game("tregald")
    assert game.slate(replay(again)).to_json() == game.slate(replay(record)).to_json()
    return again


def test_a_public_export_with_a_call_taken_back_before_the_reveal_replays():
    from companion.rules import ChipCall, Declaration, DiceObserved, Undo

    again = _public_export_replays_to_the_same_slate([
        Declaration(0, 3, "red"), ChipCall(1, "yellow"), Undo(), ChipCall(1, "green"), ChipCall(2, "green"),
        DiceObserved(("red", "red", "red", "blue", "blue")),
    ])
    assert again.events[1].chip == "hidden" and again.events[3].chip == "green"


def test_a_public_export_of_a_game_ended_with_calls_pending_replays():
    from companion.rules import ChipCall, Declaration, EndGame

    _public_export_replays_to_the_same_slate([Declaration(0, 3, "red"), ChipCall(1, "yellow"), EndGame("time to go")])


def test_a_hidden_call_that_a_reveal_would_count_is_refused():
    text = json.dumps({"version": 1, "game": "tregald", "players": ["Ann", "Ben", "Cara"], "events": [
        {"kind": "declaration", "seat": 0, "count": 3, "face": "red"},
        {"kind": "chip_call", "seat": 1, "chip": "hidden"},
        {"kind": "chip_call", "seat": 2, "chip": "green"},
        {"kind": "dice", "values": ["red", "red", "red", "blue", "blue"]},
    ]})
    with pytest.raises(BadRecord, match="hidden call is counted"):
        GameRecord.from_json(text)


def test_the_host_cannot_type_in_a_hidden_call():
    with pytest.raises(BadRecord):
        from_dict({"kind": "chip_call", "seat": 1, "chip": "hidden"})

"""`companion simulate` and `companion replay` as a user runs them."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from companion.appliance.cli import main

FIVE = ["tregald", "val-des", "gyvahrs", "leiras-dice", "tricksters-tavern"]


@pytest.mark.parametrize("game", FIVE)
def test_simulate_writes_a_record_that_replays_to_the_same_slate(game, tmp_path, capsys):
    record = tmp_path / "game.json"
    assert main(["simulate", game, "--players", "3", "--seed", "11", "--record", str(record), "--json"]) == 0
    live = json.loads(capsys.readouterr().out)
    assert main(["replay", str(record), "--json"]) == 0
    replayed = json.loads(capsys.readouterr().out)
    assert replayed == live
    assert live["game"] == game and live["finished"] is True
    assert live["winner"] in {p["name"] for p in live["players"]}
    for player in live["players"]:
        assert set(player) >= {"name", "score", "dice"}
        if game in ("leiras-dice", "tricksters-tavern"):
            assert isinstance(player["dice"], int) and player["score"] is None
        else:
            assert isinstance(player["score"], int) and player["dice"] is None


def test_the_same_seed_plays_the_same_game(capsys):
    main(["simulate", "tregald", "--players", "4", "--seed", "3", "--json"])
    first = capsys.readouterr().out
    main(["simulate", "tregald", "--players", "4", "--seed", "3", "--json"])
    assert capsys.readouterr().out == first


def test_simulate_takes_house_rule_options(tmp_path, capsys):
    record = tmp_path / "r.json"
    assert main(["simulate", "tregald", "--players", "2", "--seed", "1", "--option", "rounds=1",
                 "--option", "declaration=at_least", "--record", str(record)]) == 0
    assert json.loads(record.read_text())["options"]["declaration"] == "at_least"


def test_simulate_refuses_an_unknown_game_or_option(capsys):
    assert main(["simulate", "chess", "--players", "2"]) == 2
    assert "no game called 'chess'" in capsys.readouterr().err
    assert main(["simulate", "tregald", "--option", "rounds=zero"]) == 2
    assert "rounds" in capsys.readouterr().err


def test_replay_names_the_event_index_and_field_of_a_bad_record(tmp_path, capsys):
    record = tmp_path / "r.json"
    main(["simulate", "val-des", "--players", "2", "--seed", "5", "--record", str(record)])
    data = json.loads(record.read_text())
    data["events"][3]["seat"] = "Ann"
    record.write_text(json.dumps(data))
    capsys.readouterr()
    assert main(["replay", str(record)]) == 2
    err = capsys.readouterr().err
    assert "event 3" in err and "'seat'" in err


def test_replay_names_an_illegal_event(tmp_path, capsys):
    record = tmp_path / "r.json"
    main(["simulate", "tregald", "--players", "3", "--seed", "5", "--record", str(record)])
    data = json.loads(record.read_text())
    data["events"].insert(0, data["events"][0])  # the same declaration twice
    record.write_text(json.dumps(data))
    capsys.readouterr()
    assert main(["replay", str(record)]) == 2
    assert "event 1" in capsys.readouterr().err


def test_replay_of_a_broken_file_exits_2_without_a_traceback(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "game-table-companion/record", "version": 1, "game": "tregald", "players": ["A", "B"], "events": [')
    result = subprocess.run([sys.executable, "-m", "companion", "replay", str(bad)], capture_output=True, text=True)
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    assert "not valid JSON" in result.stderr
    missing = subprocess.run([sys.executable, "-m", "companion", "replay", str(tmp_path / "none.json")],
                             capture_output=True, text=True)
    assert missing.returncode == 2 and "cannot read" in missing.stderr


def _hand_edited(tmp_path, edit):
    record = tmp_path / "r.json"
    main(["simulate", "tregald", "--players", "3", "--seed", "5", "--record", str(record)])
    record.write_text(edit(record.read_text()), encoding="utf-8")
    return record


@pytest.mark.parametrize("edit, says", [
    (lambda text: text.replace('"version": 1', '"version": ' + "9" * 5000, 1), "digits"),
    (lambda text: text.replace('"events": [', '"events": [' + "[" * 5000 + "]" * 5000 + ",", 1), "nested too deeply"),
], ids=["a 5000-digit number", "arrays nested 5000 deep"])
def test_replay_of_a_record_the_json_reader_gives_up_on_exits_2_without_a_traceback(tmp_path, capsys, edit, says):
    record = _hand_edited(tmp_path, edit)
    capsys.readouterr()
    for extra in ([], ["--json"]):
        result = subprocess.run([sys.executable, "-m", "companion", "replay", str(record), *extra],
                                capture_output=True, text=True)
        assert result.returncode == 2
        assert "Traceback" not in result.stderr
        assert f"{record}: not a readable" in result.stderr and says in result.stderr


def test_replay_prints_a_name_the_console_cannot_encode_as_its_escape(tmp_path, capsys):
    record = _hand_edited(tmp_path, lambda text: text.replace(json.dumps(json.loads(text)["players"][0]), '"\\ud800nn"', 1))
    capsys.readouterr()
    result = subprocess.run([sys.executable, "-m", "companion", "replay", str(record)],
                            capture_output=True, env={**os.environ, "PYTHONIOENCODING": "utf-8"})
    assert result.returncode == 0, result.stderr.decode()
    assert b"\\ud800nn" in result.stdout


def test_every_listed_command_exists_and_answers_help():
    import importlib

    from companion.appliance.cli import COMMANDS

    for name, (module, _help) in COMMANDS.items():
        command = importlib.import_module(module)
        assert callable(command.add_arguments) and callable(command.run), name


def test_an_unknown_command_is_refused_with_the_list(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["frobnicate"])
    assert exit_.value.code == 2
    assert "unknown command 'frobnicate'" in capsys.readouterr().err

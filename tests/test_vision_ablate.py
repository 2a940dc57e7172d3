"""scripts/vision/ablate.py (issue 65, ruling 3) names real steps of the reader: a step
renamed or gone must fail here, not leave the tool patching a name nothing calls."""

import importlib.util
import json
from pathlib import Path

import pytest

from hardware.vision import faces, reader

SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "vision" / "ablate.py"


@pytest.fixture
def ablate():
    spec = importlib.util.spec_from_file_location("ablate", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    saved = {m: dict(vars(m)) for m in (reader, faces)}
    yield module
    for m, before in saved.items():  # every step put back for the other tests
        vars(m).clear()
        vars(m).update(before)


def test_every_step_it_takes_out_is_one_the_reader_has(ablate):
    for name in ablate.NAMES:
        before = {m: dict(vars(m)) for m in (reader, faces)}
        ablate._take_out(name)
        changed = [k for m, old in before.items() for k, v in vars(m).items() if old.get(k, object()) is not v]
        added = [k for m, old in before.items() for k in vars(m) if k not in old]
        assert changed and not added, f"{name}: changed {changed}, added {added}"
        for m, old in before.items():
            vars(m).update(old)


def test_every_step_it_spies_on_is_one_the_reader_has(ablate):
    for name in ablate.SPIED:
        assert callable(getattr(reader, ablate.ATTRS.get(name, name)))


def test_a_name_it_does_not_know_is_refused(ablate):
    with pytest.raises(SystemExit, match="no rule named 'without_parts'"):
        ablate._take_out("without_parts")


def test_reread_reads_again_only_what_the_spy_saw_a_step_change(ablate, tmp_path, capsys):
    """Two reads in the details, the spy saw `surest_throw` change the second: that one alone
    is read again (a fixture photo of two fives), and a right read staying right is counted."""
    image = str(Path(__file__).resolve().parent / "fixtures" / "matteop" / "images" / "train_five_13.jpg")
    line = {"image": image, "kind": "pip", "shift": None, "truth": [5, 5], "flagged": False, "exact": True}
    details, spy = tmp_path / "details.jsonl", tmp_path / "spy.jsonl"
    details.write_text(json.dumps({**line, "image": "/nowhere.jpg"}) + "\n" + json.dumps(line) + "\n")
    spy.write_text(json.dumps({"read": 1, "rule": "surest_throw"}) + "\n"
                   + json.dumps({"read": 0, "rule": "read_whole"}))
    ablate.reread([f"{details}:{spy}"], {"surest_throw"})
    assert capsys.readouterr().out.strip() == "right -> right: 1"

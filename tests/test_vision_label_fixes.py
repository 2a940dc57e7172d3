"""The benchmark's and training's label fixes: only the listed die is relabelled, and a fix
that no longer matches its manifest is refused rather than applied to the wrong die."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts" / "vision"))
import dataset  # noqa: E402

FIXES = json.loads(dataset.FIXES.read_text())
FIX = next(f for f in FIXES if f["label"] is not None)
ADD = next(f for f in FIXES if f["label"] is None)
OTHER = [10.0, 10.0, 40.0, 40.0, 3]  # a labelled die elsewhere in the photo


def manifest(label):
    return [{"image": FIX["image"], "dice": [3, label], "boxes": [list(OTHER), FIX["box"] + [label]]},
            {"image": "images/another.jpg", "dice": [label], "boxes": [FIX["box"] + [label]]}]


def test_only_the_listed_die_of_the_listed_photo_is_relabelled():
    out = dataset.fixed(FIX["set"], manifest(FIX["label"]))
    assert out[0]["dice"] == [3, FIX["shows"]] and out[0]["boxes"][1][4] == FIX["shows"]
    assert out[1]["dice"] == [FIX["label"]]  # the same box in another photo is left alone
    assert dataset.fixed("some-other-set", manifest(FIX["label"]))[0]["dice"] == [3, FIX["label"]]


def test_a_fix_whose_label_has_changed_is_refused():
    changed = next(v for v in range(1, 7) if v != FIX["label"])
    with pytest.raises(ValueError, match="expects label"):
        dataset.fixed(FIX["set"], manifest(changed))


def test_every_fix_says_what_the_die_shows_and_changes_it():
    for fix in FIXES:
        assert fix["seen"] and fix["shows"] != fix["label"] and len(fix["box"]) == 4


def test_a_die_the_manifest_left_out_is_added_to_its_photo_only():
    entries = [{"image": ADD["image"], "dice": [3], "boxes": [list(OTHER)]},
               {"image": "images/another.jpg", "dice": [3], "boxes": [list(OTHER)]}]
    out = dataset.fixed(ADD["set"], entries)
    assert out[0]["boxes"] == [OTHER, ADD["box"] + [ADD["shows"]]] and out[0]["dice"] == [3, ADD["shows"]]
    assert out[1]["dice"] == [3]
    assert entries[0]["boxes"] == [OTHER]  # the manifest given is not changed


def test_adding_a_die_where_the_manifest_now_has_one_is_refused():
    x1, y1, x2, y2 = ADD["box"]
    there = [x1 + 2, y1 + 2, x2 - 2, y2 - 2, ADD["shows"]]
    with pytest.raises(ValueError, match="now has one there"):
        dataset.fixed(ADD["set"], [{"image": ADD["image"], "dice": [ADD["shows"]], "boxes": [there]}])

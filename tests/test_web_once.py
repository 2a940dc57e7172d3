"""A double tap is one action (web/once.py): a repeated key gets the first answer."""

from __future__ import annotations

import threading
import time

import pytest

from companion.rules import ChipCall, Declaration
from web.once import MAX_KEY, Once
from web_app import login, make_app


def test_a_repeated_key_gets_the_first_answer_and_runs_nothing():
    once, runs = Once(), []
    assert once.run("host", "k1", lambda: runs.append(1) or "first") == "first"
    assert once.run("host", "k1", lambda: runs.append(2) or "second") == "first"
    assert once.run("other host", "k1", lambda: runs.append(3) or "theirs") == "theirs"  # another session's key
    assert once.run("host", None, lambda: runs.append(4) or "unkeyed") == "unkeyed"
    assert once.run("host", "x" * (MAX_KEY + 1), lambda: runs.append(5) or "long") == "long"
    assert runs == [1, 3, 4, 5]


def test_a_refusal_is_not_kept_so_the_same_tap_is_asked_again():
    once = Once()
    with pytest.raises(ValueError, match="no"):
        once.run("host", "k", lambda: (_ for _ in ()).throw(ValueError("no")))
    assert once.run("host", "k", lambda: "asked again") == "asked again"


def test_a_repeat_that_comes_while_the_first_runs_waits_for_its_answer():
    once, started, answers = Once(), threading.Event(), []

    def slow():
        started.set()
        time.sleep(0.2)
        return "done once"

    first = threading.Thread(target=lambda: answers.append(once.run("host", "k", slow)))
    first.start()
    started.wait(5)
    answers.append(once.run("host", "k", lambda: "ran twice"))
    first.join(5)
    assert answers == ["done once", "done once"]


def test_only_the_latest_keys_are_kept():
    once = Once(keep=2)
    for key in ("a", "b", "c"):
        once.run("host", key, lambda: key)
    assert once.run("host", "a", lambda: "again") == "again"  # forgotten: taken as new


def test_a_chip_call_posted_twice_with_one_key_is_stored_once():
    app, table = make_app()
    client = app.test_client()
    headers = login(client)
    client.post("/host/start", json={"game": "tregald", "players": ["Ann", "Ben", "Cara"], "options": {"rounds": 1}},
                headers=headers)
    table.submit(Declaration(0, 2, "red"))
    tap = {**headers, "X-Once": "tap-1"}
    first = client.post("/host/event", json={"kind": "chip_call", "seat": 1, "chip": "green"}, headers=tap)
    again = client.post("/host/event", json={"kind": "chip_call", "seat": 1, "chip": "green"}, headers=tap)
    assert first.status_code == again.status_code == 200 and first.get_json() == again.get_json()
    assert [e for e in table.session.record.events if isinstance(e, ChipCall)] == [ChipCall(1, "green")]


def test_a_refused_tap_tried_again_once_the_table_allows_it_goes_through():
    """A chip call before the declaration is refused; the same tap, once Ann has declared,
    is taken: a refusal changed nothing, so it is not remembered."""
    app, table = make_app()
    client = app.test_client()
    headers = login(client)
    client.post("/host/start", json={"game": "tregald", "players": ["Ann", "Ben"], "options": {"rounds": 1}},
                headers=headers)
    tap = {**headers, "X-Once": "tap-2"}
    assert client.post("/host/event", json={"kind": "chip_call", "seat": 1, "chip": "green"}, headers=tap).status_code == 409
    table.submit(Declaration(0, 2, "red"))
    assert client.post("/host/event", json={"kind": "chip_call", "seat": 1, "chip": "green"}, headers=tap).status_code == 200
    assert [e for e in table.session.record.events if isinstance(e, ChipCall)] == [ChipCall(1, "green")]

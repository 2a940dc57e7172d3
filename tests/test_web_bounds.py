"""Issue 25's input bounds at the web's seam: player names are plain text of at most 24
characters, no request or record carries text that is not Unicode, and a damaged name
stored before these checks is shown escaped instead of breaking the history."""

from __future__ import annotations

import io
import json

import pytest

from companion.rules import GameRecord
from web_app import login, make_app, play_out

SURROGATE = "Ann\ud800"


@pytest.fixture
def host():
    app, table = make_app()
    client = app.test_client()
    return client, login(client), table


def start(client, headers, players, game="tregald", **options):
    return client.post("/host/start", json={"game": game, "players": players, "options": options}, headers=headers)


@pytest.mark.parametrize("name,words", [
    (SURROGATE, "not valid Unicode"),
    ("Ann\x07", "control character (U+0007)"),
    ("Ann\u202eneB", "control character (U+202E)"),
    ("Ann\u2028Ben", "control character (U+2028)"),
    ("A" * 25, "25 characters long; a name has at most 24"),
])
def test_a_name_that_is_not_plain_text_of_24_characters_is_refused_at_start(host, name, words):
    client, headers, table = host
    response = start(client, headers, [name, "Ben"])
    assert response.status_code == 400 and words in response.get_json()["error"]
    assert table.session is None and table.store.list_games() == []


def test_names_of_24_characters_in_any_script_start_a_game(host):
    client, headers, table = host
    names = ["Ä" * 24, "Zoë 🎲", "李小龍"]
    assert start(client, headers, names).status_code == 200
    assert table.session.record.players == tuple(names)


def test_a_form_start_with_a_control_character_is_refused_on_the_page(host):
    client, headers, table = host
    response = client.post("/host/start", data={"csrf_token": headers["X-CSRF-Token"], "game": "tregald",
                                                "players": "Ann\x1b[31m\nBen"})
    assert response.status_code == 400 and "control character (U+001B)" in response.get_data(as_text=True)
    assert table.session is None


def test_more_players_than_the_game_takes_is_refused_with_the_games_words(host):
    client, headers, table = host
    response = start(client, headers, [f"P{i}" for i in range(13)])
    assert response.status_code == 409 and "Tregald takes at most 12 players" in response.get_json()["error"]
    assert start(client, headers, [f"P{i}" for i in range(20_000)]).status_code == 413  # 169 KB: past a form's size
    response = start(client, headers, ["Ann", "Ben"], game="leiras-dice", dice=10 ** 6)
    assert response.status_code == 409 and "'dice' must be at most 20" in response.get_json()["error"]


def test_a_stake_of_ten_to_the_300_is_refused(host):
    client, headers, table = host
    assert start(client, headers, ["Ann", "Ben"], game="gyvahrs").status_code == 200
    response = client.post("/host/event", json={"kind": "stake", "seat": 0, "amount": 10 ** 300}, headers=headers)
    assert response.status_code == 409 and "at most 1,000,000" in response.get_json()["error"]
    assert table.session.record.events == ()


def test_any_text_that_is_not_unicode_in_a_request_is_refused(host):
    client, headers, table = host
    assert start(client, headers, ["Ann", "Ben"]).status_code == 200
    response = client.post("/host/end", json={"reason": "bye\udfff"}, headers=headers)
    assert response.status_code == 400 and "not valid Unicode" in response.get_json()["error"]
    assert not table.session.finished


def record_with(players) -> str:
    _, source = make_app()
    source.start_game("tregald", ["Ann", "Ben"], {"rounds": 1})
    play_out(source)
    data = json.loads(source.store.load(source.game_id).to_json())
    data["players"] = players
    return json.dumps(data)  # ensure_ascii: a lone surrogate travels as the escape \ud800


@pytest.mark.parametrize("players,words", [
    ([SURROGATE, "Ben"], "not valid Unicode"),
    (["Ann\x00", "Ben"], "control character (U+0000)"),
    (["A" * 30, "Ben"], "at most 24"),
])
def test_an_import_with_a_bad_name_is_refused_and_stores_nothing(host, players, words):
    client, headers, table = host
    text = record_with(players)
    response = client.post("/host/import", data={"record": (io.BytesIO(text.encode()), "g.json")},
                           headers=headers, content_type="multipart/form-data")
    assert response.status_code == 400 and words in response.get_json()["error"], response.get_json()
    assert table.store.list_games() == []
    json_response = client.post("/host/import", data=text, headers={**headers, "Content-Type": "application/json"})
    assert json_response.status_code == 400 and table.store.list_games() == []


def test_a_damaged_name_stored_before_the_checks_is_shown_escaped_everywhere():
    app, table = make_app()
    table.start_game("tregald", [SURROGATE, "Ben"], {"rounds": 1})  # the referee alone never checked this
    game_id = table.game_id
    play_out(table)
    client = app.test_client()
    for path in ("/games", f"/games/{game_id}", "/stats", f"/games/{game_id}.csv", "/", f"/games/{game_id}.json",
                 "/api/games", f"/api/games/{game_id}", "/api/state"):
        response = client.get(path)
        assert response.status_code == 200, path
        body = response.get_data(as_text=True)
        assert path.endswith(".csv") or "Ann\\ud800" in body or "Ann\\\\ud800" in body, path
    assert GameRecord.from_json(client.get(f"/games/{game_id}.json").get_data(as_text=True)).players[0] == SURROGATE


def test_each_route_takes_a_body_of_its_own_size():
    """The app's own check, behind the server's: a login of 5 KB is refused, a start
    of 5 KB is read (and refused for want of a login), a record of 3 MB is refused."""
    app, table = make_app()
    client = app.test_client()
    padding = " " * 5000
    assert client.post("/host/login", data=f'{{"pin": "1"{padding}}}', content_type="application/json").status_code == 413
    assert client.post("/host/start", data=f'{{"game": "x"{padding}}}', content_type="application/json").status_code == 401
    headers = login(client)
    response = client.post("/host/import", data=b"{" + b" " * (3 * 1024 * 1024) + b"}", headers=headers,
                           content_type="application/json")
    assert response.status_code == 413 and table.store.list_games() == []

"""Past games, downloads, importing a record, and the players' stats page."""

from __future__ import annotations

import csv
import io
import json
import re

from companion.rules import ChipCall, Declaration, GameRecord
from web_app import login, make_app, play_out


def finished_tregald(table, players=("Ann", "Ben", "Cara"), seed=3):
    table.start_game("tregald", list(players), {"rounds": 1})
    play_out(table, seed)
    return table.game_id


def test_games_page_lists_finished_games_with_their_final_slate():
    app, table = make_app()
    game_id = finished_tregald(table)
    winner = table.snapshot()["slate"]["winner"]
    html = app.test_client().get("/games").get_data(as_text=True)
    assert f'href="/games/{game_id}"' in html
    assert re.search(rf'class="chip win">{winner}', html)
    assert f"/games/{game_id}.json" in html and f"/games/{game_id}.csv" in html


def test_game_page_shows_its_turns():
    app, table = make_app()
    table.start_game("tregald", ["Ann", "Ben"], {"rounds": 1})
    table.submit(Declaration(0, 3, "red"))
    table.undo()
    table.submit(Declaration(0, 1, "blue"))
    html = app.test_client().get(f"/games/{table.game_id}").get_data(as_text=True)
    assert html.count("<tr class=\"out\">") == 1  # the undone declaration
    assert "count: 1; face: blue" in html and "undo" in html


def test_a_correction_on_the_game_page_reads_as_words_not_a_dict():
    """Issue 66: "event: {'kind': 'dice', ...}" on a game's page."""
    app, table = make_app()
    table.start_game("tregald", ["Ann", "Ben"], {"rounds": 1})
    table.submit(Declaration(0, 3, "red"))
    table.amend(0, Declaration(0, 2, "blue"))
    html = app.test_client().get(f"/games/{table.game_id}").get_data(as_text=True)
    assert "{&#39;" not in html and "{'" not in html
    assert "replaces event: 0; with: declaration for Ann (count: 2; face: blue)" in html


def test_json_download_is_the_public_record_and_replays():
    app, table = make_app()
    game_id = finished_tregald(table)
    response = app.test_client().get(f"/games/{game_id}.json")
    assert response.mimetype == "application/json"
    assert response.headers["Content-Disposition"] == f'attachment; filename="game-{game_id}.json"'
    record = GameRecord.from_json(response.get_data(as_text=True))
    assert record == table.store.load(game_id)


def test_csv_download_has_one_line_per_event():
    app, table = make_app()
    table.start_game("tregald", ["Ann", "Ben"], {"rounds": 1})
    table.submit(Declaration(0, 2, "red"))
    table.submit(ChipCall(1, "green"))
    table.undo()
    response = app.test_client().get(f"/games/{table.game_id}.csv")
    assert response.mimetype == "text/csv"
    rows = list(csv.DictReader(io.StringIO(response.get_data(as_text=True))))
    assert [r["kind"] for r in rows] == ["declaration", "chip_call", "undo"]
    assert [r["in_force"] for r in rows] == ["yes", "no", "correction"]
    assert rows[0]["seat"] == "0" and rows[0]["details"] == "count=2, face=red"


def test_an_undone_call_stays_secret_in_the_downloads():
    app, table = make_app()
    table.start_game("tregald", ["Ann", "Ben"], {"rounds": 1})
    table.submit(Declaration(0, 2, "red"))
    table.submit(ChipCall(1, "green"))
    table.undo()
    text = app.test_client().get(f"/games/{table.game_id}.csv").get_data(as_text=True)
    assert "green" not in text


def test_api_games_and_one_game():
    app, table = make_app()
    first = finished_tregald(table)
    table.start_game("tregald", ["X", "Y"])
    client = app.test_client()
    games = client.get("/api/games").get_json()["games"]
    assert [g["id"] for g in games] == [table.game_id, first]  # newest first
    assert games[0]["current"] is True and games[1]["finished"] is True
    one = client.get(f"/api/games/{first}").get_json()
    assert one["id"] == first and one["slate"]["finished"] is True
    assert one["record"]["format"] == "game-table-companion/record"
    current = client.get(f"/api/games/{table.game_id}").get_json()
    assert current["slate"]["stage"].startswith("Round 1")


def record_text(table) -> str:
    game_id = finished_tregald(table)
    return table.store.load(game_id).to_json()


def test_import_a_record_stores_it_as_history():
    source_app, source = make_app()
    text = record_text(source)
    app, table = make_app()
    client = app.test_client()
    headers = login(client)
    response = client.post("/host/import", data={"record": (io.BytesIO(text.encode()), "game.json")},
                           headers=headers, content_type="multipart/form-data")
    assert response.status_code == 200, response.get_json()
    game_id = response.get_json()["game_id"]
    games = client.get("/api/games").get_json()["games"]
    assert games[0]["id"] == game_id and games[0]["finished"] is True
    assert games[0]["winner"] == source.snapshot()["slate"]["winner"]
    assert table.store.load(game_id).events == GameRecord.from_json(text).events
    assert table.session is None  # history only: the table's game is not touched


def test_import_by_form_post_redirects():
    _, source = make_app()
    text = record_text(source)
    app, table = make_app()
    client = app.test_client()
    token = login(client)["X-CSRF-Token"]
    response = client.post("/host/import", data={"csrf_token": token, "record": (io.BytesIO(text.encode()), "g.json")},
                           content_type="multipart/form-data")
    assert response.status_code == 303
    assert len(table.store.list_games()) == 1


def test_import_refuses_unreadable_and_unplayable_records_and_stores_nothing():
    _, source = make_app()
    data = json.loads(record_text(source))
    app, table = make_app()
    client = app.test_client()
    headers = login(client)

    def send(text):
        return client.post("/host/import", data={"record": (io.BytesIO(text.encode()), "g.json")}, headers=headers,
                           content_type="multipart/form-data")

    response = send("{broken")
    assert response.status_code == 400 and "not valid JSON" in response.get_json()["error"]
    response = send(json.dumps(dict(data, version=99)))
    assert response.status_code == 400 and "newer" in response.get_json()["error"]
    bad = dict(data, events=[{"kind": "chip_call", "seat": 1, "chip": "green"}] + data["events"])
    response = send(json.dumps(bad))
    assert response.status_code == 422 and "event 0" in response.get_json()["error"]
    response = send(json.dumps(dict(data, game="chess")))
    assert response.status_code in (400, 422) and "chess" in response.get_json()["error"]
    assert client.post("/host/import", headers=headers, data={}).status_code == 400
    assert table.store.list_games() == []


def test_import_of_json_nested_thousands_deep_or_a_huge_number_is_400_and_stores_nothing():
    app, table = make_app()
    client = app.test_client()
    headers = login(client)
    deep = '{"version": 1, "game": "tregald", "players": ["A", "B"], "events": ' + "[" * 5000 + "]" * 5000 + "}"
    huge = '{"version": ' + "1" * 5000 + ', "game": "tregald", "players": ["A", "B"]}'
    for text in (deep, huge):
        response = client.post("/host/import", data={"record": (io.BytesIO(text.encode()), "g.json")},
                               headers=headers, content_type="multipart/form-data")
        assert response.status_code == 400, response.get_json()
        assert response.get_json()["error"].startswith("that file is not a game record")
    assert table.store.list_games() == []


def test_import_needs_the_host():
    app, table = make_app()
    client = app.test_client()
    response = client.post("/host/import", data={"record": (io.BytesIO(b"{}"), "g.json")},
                           content_type="multipart/form-data")
    assert response.status_code == 401
    login(client)
    response = client.post("/host/import", data={"record": (io.BytesIO(b"{}"), "g.json")},
                           content_type="multipart/form-data")
    assert response.status_code == 403
    assert table.store.list_games() == []


def test_stats_count_games_and_wins_per_player_with_a_chart():
    app, table = make_app()
    winners = []
    for seed in (3, 4, 5):
        finished_tregald(table, seed=seed)
        winners.append(table.snapshot()["slate"]["winner"])
    table.start_game("tregald", ["Ann", "Dan"])  # running: not counted
    html = app.test_client().get("/stats").get_data(as_text=True)
    assert '<ol class="bars"' in html
    for name in ("Ann", "Ben", "Cara"):
        wins = winners.count(name)
        assert re.search(rf'<tr><td class="row-head">{name}</td><td data-label="Games">3</td>'
                         rf'<td data-label="Wins">{wins}</td>', html), name
        assert re.search(rf'<span class="bar-name">{name}</span>\s*<svg[^>]*>.*?</svg>\s*'
                         rf'<span class="bar-value">{wins} / 3</span>', html, re.S), name
    assert "Dan" not in html
    assert "Calls right" in html  # from companion.stats


def test_stats_without_games():
    app, _ = make_app()
    html = app.test_client().get("/stats").get_data(as_text=True)
    assert "No games played to the end yet" in html


def test_an_oversized_upload_is_refused_with_a_message():
    app, table = make_app()
    client = app.test_client()
    headers = login(client)
    big = io.BytesIO(b" " * (3 * 1024 * 1024))
    response = client.post("/host/import", data={"record": (big, "huge.json")}, headers=headers,
                           content_type="multipart/form-data")
    assert response.status_code == 413 and response.get_json() == {"error": "that upload is too large"}
    assert table.store.list_games() == []


def test_a_browser_gets_an_error_page_not_json():
    app, _ = make_app()
    response = app.test_client().get("/games/404", headers={"Accept": "text/html"})
    assert response.status_code == 404 and response.mimetype == "text/html"
    assert "there is no game &#39;404&#39;" in response.get_data(as_text=True)


def test_a_game_whose_stored_final_slate_is_damaged_does_not_break_the_history_pages(tmp_path):
    from companion.store import SqliteStore
    from companion.table import Table

    with SqliteStore.in_dir(tmp_path) as store:
        app, table = make_app(Table(store))
        finished_tregald(table)
        finished_tregald(table, ("Cy", "Di"))
        store._db.execute("UPDATE games SET final_slate = '{oops' WHERE id = 1")
        client = app.test_client()
        for path in ("/api/games", "/games", "/stats", "/games/1", "/api/games/1"):
            assert client.get(path).status_code == 200, path
        games = client.get("/api/games").get_json()["games"]
        assert {g["id"]: g["finished"] for g in games} == {"1": True, "2": True}
        assert "Cy" in client.get("/stats").get_data(as_text=True)


def test_a_game_whose_stored_players_or_meta_are_damaged_does_not_break_the_history_pages(tmp_path):
    from companion.store import SqliteStore
    from companion.table import Table

    with SqliteStore.in_dir(tmp_path) as store:
        app, table = make_app(Table(store))
        finished_tregald(table)
        finished_tregald(table, ("Cy", "Di"))
        finished_tregald(table, ("Ed", "Flo"))
        store._db.execute("UPDATE games SET players = '[oops' WHERE id = 1")
        store._db.execute("UPDATE games SET meta = 'nope' WHERE id = 2")
        client = app.test_client()
        for path in ("/api/games", "/games", "/stats"):
            assert client.get(path).status_code == 200, path
        games = {g["id"]: g for g in client.get("/api/games").get_json()["games"]}
        assert games["1"]["players"] == [] and games["3"]["players"] == ["Ed", "Flo"]
        assert "Ed" in client.get("/stats").get_data(as_text=True)  # the readable games still count
        damaged = client.get("/api/games/1")
        assert damaged.status_code == 422 and "game 1" in damaged.get_json()["error"]  # said, not a crash


def import_file(client, headers, text):
    return client.post("/host/import", data={"record": (io.BytesIO(text.encode()), "game.json")},
                       headers=headers, content_type="multipart/form-data")


def test_a_record_already_stored_is_recognised_and_not_imported_again():
    app, table = make_app()
    client = app.test_client()
    headers = login(client)
    game_id = finished_tregald(table)
    exported = client.get(f"/games/{game_id}.json").get_data(as_text=True)
    again = import_file(client, headers, exported)  # this table's own game, exported and brought back
    assert again.status_code == 409
    assert again.get_json()["error"] == f"that record is already stored here as game {game_id}: nothing was imported"
    _, source = make_app()
    text = source.store.load(finished_tregald(source, players=("Ann", "Ben", "Dov"), seed=4)).to_json()
    first = import_file(client, headers, text)
    assert first.status_code == 200
    twice = import_file(client, headers, text)
    assert twice.status_code == 409 and first.get_json()["game_id"] in twice.get_json()["error"]
    assert len(table.store.list_games()) == 2
    html = client.get("/stats").get_data(as_text=True)
    assert re.search(r'<tr><td class="row-head">Ann</td><td data-label="Games">2</td>', html)  # each game counted once
    changed = json.loads(text)
    changed["events"] = changed["events"][:-1]  # another game (one turn short): not the same record
    assert import_file(client, headers, json.dumps(changed)).status_code == 200


def test_a_game_ended_early_is_shown_as_such_and_not_counted_in_the_stats():
    app, table = make_app()
    finished_tregald(table, seed=3)
    table.start_game("tregald", ["Ann", "Ben", "Cara"], {"rounds": 3})
    table.submit(Declaration(0, 2, "red"))
    table.end_game("pizza arrived")
    early = table.game_id
    client = app.test_client()
    games = client.get("/games").get_data(as_text=True)
    row = games[games.index(f'href="/games/{early}"'):]
    assert "ended early" in row[:row.index("</tr>")]
    assert games.count("ended early</span>") == 1  # the game played out is not marked
    assert "ended early" in client.get(f"/games/{early}").get_data(as_text=True)
    html = client.get("/stats").get_data(as_text=True)
    assert re.search(r'<tr><td class="row-head">Ann</td><td data-label="Games">1</td>', html)  # the ended game is not a game played
    assert "(1 game here)" in html


def test_start_times_are_shown_in_the_tables_local_time(monkeypatch):
    import time

    monkeypatch.setenv("TZ", "America/New_York")
    time.tzset()
    try:
        app, table = make_app()
        game_id = finished_tregald(table)
        record = table.store.load(game_id)
        stamp = record.meta["started"]
        html = app.test_client().get("/games").get_data(as_text=True)
        local = time.strftime("%a %d %b %Y, %H:%M", time.localtime(
            __import__("calendar").timegm(time.strptime(stamp, "%Y-%m-%dT%H:%M:%SZ"))))
        assert f'<time datetime="{stamp}">{local}</time>' in html and stamp.replace("T", " ") not in html
        page = app.test_client().get(f"/games/{game_id}").get_data(as_text=True)
        assert f">{local}</time>" in page
    finally:
        monkeypatch.delenv("TZ")
        time.tzset()


def test_every_stat_is_explained_on_the_page():
    app, table = make_app()
    finished_tregald(table)
    html = app.test_client().get("/stats").get_data(as_text=True)
    terms = re.findall(r"<dt>([^<]+)</dt><dd>", html)
    headers = re.findall(r"<th>([^<]+)</th>", html.split('<table class="list stats stacked">')[1].split("</thead>")[0])
    assert [h for h in headers if h != "Player"] == terms  # each column has its explanation
    assert "Bluffs that worked" in terms and "no caller doubted" in html

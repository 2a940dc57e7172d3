"""The leaderboard's rulings on what arrives, its counting and its page, without a broker:
every message goes through `LeaderboardService.receive` as paho would hand it over."""

from __future__ import annotations

import json
import logging

import pytest

from companion.appliance.config import ConfigError, parse_config
from companion.appliance.meetup.leaderboard import LeaderboardService
from companion.appliance.meetup.settings import MeetupConfigError, parse_leaderboard
from companion.meetup import Board, Scoring, game_message, game_topic, slate_message
from companion.meetup.messages import MAX_MESSAGE, slate_topic, status_topic
from companion.rules import GameRecord
from companion.rules.events import EndGame, Undo
from companion.simulate import simulate
from companion.table import Table
from web.leaderboard import create_leaderboard_app

PLAYERS = ["Ann", "Ben", "Cara"]


@pytest.fixture
def service(tmp_path):
    service = LeaderboardService(parse_leaderboard({"scoring": {"mode": "points", "points": {"gyvahrs": 3}}}),
                                 tmp_path)
    service.board = Board.in_dir(tmp_path)
    yield service
    service.board.close()


def finished(game: str = "gyvahrs", seed: int = 0, started: str = "2026-11-26T21:14:00Z") -> GameRecord:
    record = simulate(game, PLAYERS, seed=seed).record
    return GameRecord(game=record.game, players=record.players, options=record.options, events=record.events,
                      meta={"started": started})


def send_game(service, table: str, local_id: str, record: GameRecord, *, topic_table: str | None = None) -> str:
    game_id, payload = game_message(table, local_id, record)
    return service.receive(game_topic(topic_table or table, game_id), payload)


# --- the table's [meetup] section --------------------------------------------------------

def test_a_table_alone_has_meetup_mode_off():
    assert parse_config({}).meetup.enabled is False
    assert parse_config({"meetup": {"enabled": False, "broker": "x"}}).meetup.enabled is False


@pytest.mark.parametrize("section, words", [
    ({"enabled": "yes"}, "meetup.enabled must be true or false"),
    ({"enabled": True, "broker": "h"}, "meetup.table must be"),
    ({"enabled": True, "broker": "h", "table": "table/2"}, "meetup.table must be"),
    ({"enabled": True, "table": "t1"}, "meetup.broker must name"),
    ({"enabled": True, "table": "t1", "broker": "h", "port": 70000}, "meetup.port must be"),
    ({"enabled": True, "table": "t1", "broker": "h", "ca_file": "ca.pem"}, "with meetup.tls = true"),
    ({"enabled": True, "table": "t1", "broker": "h", "tls": True, "ca_file": "missing.pem"}, "no file at"),
    ({"enabled": True, "table": "t1", "broker": "h", "prot": 1}, "unknown key 'prot'"),
    # The ACL lets a user write only under its own name, and the broker acknowledges a denied
    # publish (MQTT 3.1.1): under another user every game would be marked sent and lost.
    ({"enabled": True, "table": "t1", "broker": "h", "username": "t2"}, "meetup.username must be the table's name"),
])
def test_a_bad_meetup_section_stops_the_start_naming_the_key(section, words):
    with pytest.raises(ConfigError, match="config.toml: .*" + words.replace(".", r"\.").replace("(", r"\(")):
        parse_config({"meetup": section}, where="config.toml")


def test_the_table_logs_in_under_its_own_name_and_tls_moves_the_port():
    meetup = parse_config({"meetup": {"enabled": True, "table": "table-4", "broker": "pi.local",
                                      "password": "s3cret", "tls": True}}).meetup
    assert (meetup.table, meetup.broker.username, meetup.broker.port, meetup.broker.tls) == \
        ("table-4", "table-4", 8883, True)
    assert "s3cret" not in repr(meetup)
    same = parse_config({"meetup": {"enabled": True, "table": "table-4", "broker": "pi.local",
                                    "username": "table-4"}}).meetup
    assert same.broker.username == "table-4"


def test_a_bad_leaderboard_file_names_the_key():
    with pytest.raises(MeetupConfigError, match="scoring.mode"):
        parse_leaderboard({"scoring": {"mode": "elo"}})
    with pytest.raises(MeetupConfigError, match="no game called 'chess'"):
        parse_leaderboard({"scoring": {"mode": "points", "points": {"chess": 2}}})
    with pytest.raises(MeetupConfigError, match="leaderboard.tables"):
        parse_leaderboard({"leaderboard": {"tables": ["table one"]}})


# --- what the leaderboard counts ----------------------------------------------------------

def test_a_game_is_counted_once_however_often_it_arrives(service):
    record = finished()
    assert send_game(service, "table-1", "1", record) == "game"
    assert [send_game(service, "table-1", "1", record) for _ in range(3)] == ["again"] * 3
    assert service.board.game_count() == 1
    assert send_game(service, "table-2", "1", record) == "game"  # another table's game 1 is another game
    assert service.board.game_count() == 2


def test_a_game_reopened_and_finished_again_replaces_the_first_version(service):
    record = finished()
    replayed = GameRecord(game=record.game, players=record.players, options=record.options,
                          events=record.events + (Undo(), record.events[-1]), meta=record.meta)
    assert send_game(service, "table-1", "1", record) == "game"
    assert send_game(service, "table-1", "1", replayed) == "game"  # the host took the last move back, played it again
    assert send_game(service, "table-1", "1", record) == "again"  # the old version, late: not counted
    assert service.board.game_count() == 1
    rows = service.board.standings(Scoring())
    assert sum(r["games"] for r in rows) == len(PLAYERS)
    assert [r["player"] for r in rows if r["wins"]] == [simulate("gyvahrs", PLAYERS, seed=0).slate().winner]


def test_a_game_the_host_ended_early_is_not_counted(service):
    """As the table's own stats (web/records.py): a game ended early was not played."""
    record = finished()
    ended_early = GameRecord(game=record.game, players=record.players, options=record.options,
                             events=record.events[:4] + (EndGame(reason="ended by the host"),), meta=record.meta)
    assert send_game(service, "table-1", "1", ended_early) == "refused"
    assert service.board.game_count() == 0 and service.board.standings(Scoring()) == []
    assert send_game(service, "table-1", "1", record) == "game"  # the host took the end back and play went on
    assert service.board.game_count() == 1


@pytest.mark.parametrize("make, reason", [
    (lambda r: (game_topic("table-1", "1-20261126T211400Z"), b"not json"), "not JSON"),
    (lambda r: (game_topic("table-1", "1-20261126T211400Z"), b"[1]"), "not a JSON object"),
    (lambda r: (game_topic("table-1", "1-20261126T211400Z"), b" " * (MAX_MESSAGE + 1)), "oversized"),
    (lambda r: ("companion/tables/table-1/games/a/b", b"{}"), "not a table's topic"),
])
def test_a_message_that_is_not_a_record_is_refused_and_logged_once(service, caplog, make, reason):
    topic, payload = make(finished())
    with caplog.at_level(logging.WARNING, "companion.leaderboard"):
        assert service.receive(topic, payload) == "refused"
        assert service.receive(topic, payload) == "refused"
    assert [r.getMessage() for r in caplog.records if reason in r.getMessage()] and len(caplog.records) == 1
    assert service.board.game_count() == 0


def test_a_record_that_does_not_replay_is_refused(service, caplog):
    record = finished()
    game_id, payload = game_message("table-1", "1", record)
    data = json.loads(payload)
    data["record"]["events"][1]["values"] = [9, 9]  # no spike die shows a 9
    with caplog.at_level(logging.WARNING, "companion.leaderboard"):
        assert service.receive(game_topic("table-1", game_id), json.dumps(data).encode()) == "refused"
    assert "does not replay" in caplog.text and service.board.game_count() == 0


def test_an_unfinished_game_and_a_forged_id_are_refused(service):
    record = finished()
    unfinished = GameRecord(game=record.game, players=record.players, options=record.options,
                            events=record.events[:3], meta=record.meta)
    assert send_game(service, "table-1", "1", unfinished) == "refused"
    game_id, payload = game_message("table-1", "1", record)
    forged = "1-20250101T000000Z"  # not when the record says the game started
    assert service.receive(game_topic("table-1", forged), payload.replace(game_id.encode(), forged.encode())) \
        == "refused"
    assert service.board.game_count() == 0


def test_a_table_publishing_under_another_tables_name_is_refused(service, caplog):
    with caplog.at_level(logging.WARNING, "companion.leaderboard"):
        assert send_game(service, "table-1", "1", finished(), topic_table="table-2") == "refused"
    assert "naming table 'table-1' published under 'table-2'" in caplog.text
    assert service.board.game_count() == 0
    table = Table()
    assert service.receive(slate_topic("table-2"), slate_message("table-1", "One", table.snapshot())) == "refused"
    assert service.board.tiles() == []


def test_standings_follow_the_chosen_scoring(service):
    for n, seed in enumerate((0, 1, 2)):
        assert send_game(service, "table-1", str(n + 1), finished(seed=seed)) == "game"
    assert send_game(service, "table-2", "1", finished("val-des", seed=0)) == "game"
    winners = [simulate(g, PLAYERS, seed=s).slate().winner for g, s in
               (("gyvahrs", 0), ("gyvahrs", 1), ("gyvahrs", 2), ("val-des", 0))]
    points = {p: 3 * winners[:3].count(p) + winners[3:].count(p) for p in PLAYERS}
    rows = service.board.standings(service.config.scoring)
    assert {r["player"]: r["points"] for r in rows} == points
    assert [r["points"] for r in rows] == sorted(points.values(), reverse=True)
    assert {r["player"]: r["wins"] for r in rows} == {p: winners.count(p) for p in PLAYERS}
    wins_only = service.board.standings(Scoring())
    assert {r["player"]: r["points"] for r in wins_only} == {p: winners.count(p) for p in PLAYERS}
    by_game = service.board.view(service.config.scoring)["by_game"]
    assert [(g["game"], g["games"]) for g in by_game] == [("gyvahrs", 3), ("val-des", 1)]


def test_tiles_show_the_public_slate_and_when_a_table_went_offline(tmp_path):
    clock = iter([1000.0, 2000.0, 3000.0, 4000.0]).__next__
    board = Board.in_dir(tmp_path, clock=clock)
    service = LeaderboardService(parse_leaderboard({}), tmp_path)
    service.board = board
    table = Table()
    table.start_game("val-des", PLAYERS)
    assert service.receive(status_topic("table-1"), b'{"state":"online"}') == "status"
    assert service.receive(slate_topic("table-1"), slate_message("table-1", "Back room", table.snapshot())) == "slate"
    assert service.receive(status_topic("table-1"), b'{"state":"offline"}') == "status"
    assert service.receive(status_topic("table-1"), b'{"state":"offline"}') == "status"  # still since the first
    [tile] = board.tiles(("table-2",))[:1]
    assert (tile["title"], tile["online"], tile["since"]) == ("Back room", False, 2000.0)
    assert tile["slate"]["title"] == table.snapshot()["slate"]["title"]
    assert [t["table"] for t in board.tiles(("table-2",))] == ["table-1", "table-2"]
    board.close()


def test_the_page_shows_tables_and_standings_with_the_slates_headers(service):
    send_game(service, "table-1", "1", finished())
    app = create_leaderboard_app(service.board, {"title": "Friday <club>", "scoring": service.config.scoring,
                                                 "tables": ("table-1", "table-9")})
    client = app.test_client()
    page = client.get("/")
    assert page.status_code == 200 and "Content-Security-Policy" in page.headers
    html = page.get_data(as_text=True)
    assert "Friday &lt;club&gt;" in html and "<club>" not in html and "leaderboard.js" in html
    data = client.get("/api/leaderboard").get_json()
    assert data["games"] == 1 and [t["table"] for t in data["tables"]] == ["table-1", "table-9"]
    assert data["overall"][0]["points"] == 3 and data["scoring"]["mode"] == "points"


def test_the_page_answers_only_to_its_own_names_when_told():
    config = parse_leaderboard({"web": {"allowed_hosts": ["leaderboard.local"]}})
    app = create_leaderboard_app(Board(":memory:"), {"scoring": config.scoring,
                                                     "allowed_hosts": list(config.allowed_hosts)})
    client = app.test_client()
    assert client.get("/api/leaderboard", headers={"Host": "leaderboard.local:8080"}).status_code == 200
    assert client.get("/api/leaderboard", headers={"Host": "evil.example"}).status_code == 400
    with pytest.raises(MeetupConfigError, match="web.allowed_hosts"):
        parse_leaderboard({"web": {"allowed_hosts": "leaderboard.local"}})


def test_every_games_slate_is_read_as_it_is_sent():
    from companion.meetup import read_slate
    from companion.rules.registry import all_games

    for game in all_games():
        players = [f"P{n}" for n in range(game.min_players)]
        table = Table()
        table.start_game(game.name, players)
        sent = table.snapshot()
        assert read_slate("table-1", slate_message("table-1", "One", sent))["slate"] == sent["slate"], game.name
        for event in simulate(game.name, players, seed=1).record.events:
            table.submit(event)
        done = table.snapshot()
        assert done["slate"]["finished"], game.name
        assert read_slate("table-1", slate_message("table-1", "One", done))["slate"] == done["slate"], game.name


@pytest.mark.parametrize("change, key", [
    (lambda s: s.update(players="Ann, Ben"), "players"),
    (lambda s: s.update(players=[None]), "players"),
    (lambda s: s["players"][0].update(name=["Ann"]), "players"),
    (lambda s: s["players"][0].update(score={"n": 1}), "players"),
    (lambda s: s["players"][0].update(status=7), "players"),
    (lambda s: s.update(title=None), "title"),
    (lambda s: s.update(stage=["Round 1"]), "stage"),
    (lambda s: s.update(finished="no"), "finished"),
    (lambda s: s.update(winner={"name": "Ann"}), "winner"),
])
def test_a_slate_the_tile_could_not_show_is_refused_and_keeps_the_last_one(service, change, key):
    table = Table()
    table.start_game("val-des", PLAYERS)
    good = slate_message("table-1", "Back room", table.snapshot())
    assert service.receive(slate_topic("table-1"), good) == "slate"
    bad = json.loads(good)
    change(bad["slate"])
    assert service.receive(slate_topic("table-1"), json.dumps(bad).encode()) == "refused"
    [tile] = service.board.tiles(())
    assert tile["slate"] == table.snapshot()["slate"]
    from companion.meetup import Refused, read_slate
    with pytest.raises(Refused, match=f"slate.{key} "):
        read_slate("table-1", json.dumps(bad).encode())


def test_the_leaderboards_web_server_has_the_venue_network_defences(tmp_path):
    import socket

    from meetup_broker import free_port

    config = parse_leaderboard({"broker": {"port": free_port()}})  # no broker: the page serves anyway
    service = LeaderboardService(config, tmp_path, host="127.0.0.1", port=0)
    service.start()
    held = []
    try:
        with socket.create_connection(("127.0.0.1", service.port), timeout=5) as conn:
            conn.sendall(b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 50000000\r\n\r\n")  # no body follows
            assert conn.recv(200).startswith(b"HTTP/1.1 413"), "refused before any of the body is read"
        for _ in range(17):  # one client address: 16 connections at most
            held.append(socket.create_connection(("127.0.0.1", service.port), timeout=5))
        try:
            held[-1].sendall(b"GET /api/leaderboard HTTP/1.1\r\nHost: x\r\n\r\n")
            answer = held[-1].recv(100)
        except ConnectionResetError:
            answer = b""
        assert answer == b"", "the 17th connection is closed at once"
        held[0].sendall(b"GET /api/leaderboard HTTP/1.1\r\nHost: x\r\n\r\n")
        assert held[0].recv(100).startswith(b"HTTP/1.1 200")
    finally:
        for conn in held:
            conn.close()
        service.stop()

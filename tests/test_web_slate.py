"""The slate page, its live stream, the reveal photos and the public JSON API."""

from __future__ import annotations

import json
import re
import threading
import time
from pathlib import Path

import pytest

from companion.rules import ChipCall, Declaration, DiceObserved
from companion.table import Table
from companion.readings import OfferedReading
from web import create_app
from web.slate import state_stream
from web_app import PIN, login, make_app

STATIC = Path(__file__).resolve().parent.parent / "web" / "static"
TEMPLATES = STATIC.parent / "templates"


def tregald_with_secret_call(table: Table) -> None:
    table.start_game("tregald", ["Ann", "Ben", "Cara"], {"rounds": 1})
    table.submit(Declaration(0, 3, "red"))
    table.press(1, "yellow")


def read_stream(response, chunks: int) -> list[str]:
    out = []
    for chunk in response.response:
        out.append(chunk.decode() if isinstance(chunk, bytes) else chunk)
        if len(out) >= chunks:
            break
    return out


def test_each_app_is_fresh_and_nothing_is_made_at_import():
    import web

    assert not any(hasattr(web, name) for name in ("app", "application", "table"))
    first = create_app(Table(), {"host_pin": "1"})
    second = create_app(Table(), {"host_pin": "1"})
    assert first is not second
    assert first.secret_key != second.secret_key  # generated per app when not configured


def test_slate_page_embeds_the_public_state_and_a_qr_code_for_the_slate_url():
    app, table = make_app(slate_url="http://table.local:8000/", title="Thursday table")
    table.start_game("tregald", ["Ann", "Ben"], {"rounds": 1})
    html = app.test_client().get("/").get_data(as_text=True)
    state = json.loads(re.search(r'<script type="application/json" id="initial-state">(.*?)</script>', html, re.S).group(1))
    assert state == table.snapshot()
    assert '<svg viewBox="0 0' in html and 'class="segno"' in html
    assert "http://table.local:8000/" in html
    assert "Thursday table" in html


def test_qr_code_defaults_to_the_address_the_slate_was_opened_at():
    app, _ = make_app()
    html = app.test_client().get("/", base_url="http://192.168.4.20:8000").get_data(as_text=True)
    assert "http://192.168.4.20:8000/" in html


@pytest.mark.parametrize("base", ["http://localhost:8000", "http://127.0.0.1:8000", "http://[::1]:8000"])
def test_a_loopback_request_gets_a_qr_code_and_url_phones_can_reach(base):
    """Issue 24: the kiosk asks on localhost; its QR code must name the LAN address."""
    from web.slate import qr_svg

    calls = []
    app, _ = make_app(lan_url=lambda: calls.append(1) or "http://192.168.1.50:8000/")
    html = app.test_client().get("/", base_url=base).get_data(as_text=True)
    assert "http://192.168.1.50:8000/" in html
    assert str(qr_svg("http://192.168.1.50:8000/")) in html
    for loopback in ("localhost", "127.0.0.1", "[::1]"):
        assert loopback not in html
    assert calls  # asked per request: the address may change (Wi-Fi joined after boot)


def test_a_lan_request_keeps_its_own_address_and_public_url_wins_everywhere():
    app, _ = make_app(lan_url="http://192.168.1.50:8000/")
    html = app.test_client().get("/", base_url="http://gametable.local:8000").get_data(as_text=True)
    assert "http://gametable.local:8000/" in html and "192.168.1.50" not in html
    app, _ = make_app(lan_url="http://192.168.1.50:8000/", slate_url="https://table.club.example/")
    html = app.test_client().get("/", base_url="http://localhost:8000").get_data(as_text=True)
    assert "https://table.club.example/" in html and "192.168.1.50" not in html


def test_everything_is_served_locally_no_cdn_no_outside_fonts():
    app, _ = make_app()
    html = app.test_client().get("/").get_data(as_text=True)
    for ref in re.findall(r'(?:src|href)="([^"]+)"', html):
        assert ref.startswith("/"), ref
    for path in list(STATIC.iterdir()) + list(TEMPLATES.iterdir()):
        text = path.read_text()
        for url in re.findall(r"https?://[^\s\"'<>)]+", text):
            assert url.startswith("http://www.w3.org/"), f"{path.name} loads {url}"
        assert "@import" not in text and "@font-face" not in text


def test_api_state_is_the_snapshot():
    app, table = make_app()
    client = app.test_client()
    assert client.get("/api/state").get_json() == table.snapshot()
    table.start_game("tregald", ["Ann", "Ben"])
    data = client.get("/api/state").get_json()
    assert data["slate"]["title"] == "Tregald" and data["seq"] == table.seq


def test_a_secret_call_is_nowhere_public_before_the_reveal():
    app, table = make_app()
    tregald_with_secret_call(table)
    client = app.test_client()
    game_id = table.game_id
    stream = read_stream(client.get("/events"), 2)
    public = {
        "/": client.get("/").get_data(as_text=True),
        "/api/state": client.get("/api/state").get_data(as_text=True),
        "/events": "".join(stream),
        "/api/games": client.get("/api/games").get_data(as_text=True),
        "/api/games/id": client.get(f"/api/games/{game_id}").get_data(as_text=True),
        "/games/id": client.get(f"/games/{game_id}").get_data(as_text=True),
        "/games/id.json": client.get(f"/games/{game_id}.json").get_data(as_text=True),
        "/games/id.csv": client.get(f"/games/{game_id}.csv").get_data(as_text=True),
    }
    for route, body in public.items():
        assert "yellow" not in body, route
    record = client.get(f"/api/games/{game_id}").get_json()["record"]
    assert {"kind": "chip_call", "seat": 1, "chip": "hidden"} in record["events"]


def test_stream_sends_retry_then_the_current_state_with_its_seq():
    app, table = make_app(sse_max_seconds=0.2)
    table.start_game("tregald", ["Ann", "Ben"])
    response = app.test_client().get("/events")
    assert response.mimetype == "text/event-stream"
    assert response.headers["Cache-Control"] == "no-cache"
    chunks = read_stream(response, 2)
    assert chunks[0] == "retry: 1000\n\n"
    seq, data = table.snapshot_json()
    assert chunks[1] == f"id: {seq}\nevent: state\ndata: {data}\n\n"


def test_stream_waits_when_the_client_already_has_this_state_then_pushes_the_change():
    app, table = make_app(sse_max_seconds=5)
    table.start_game("tregald", ["Ann", "Ben"])
    seq, _ = table.snapshot_json()
    # The change is made once the stream waits for one: made earlier, it would be the
    # state the stream starts with, sent whether or not the client already had its seq.
    waiting = threading.Event()
    wait_for_change = table.wait_for_change
    table.wait_for_change = lambda *args: (waiting.set(), wait_for_change(*args))[1]
    response = app.test_client().get("/events", headers={"Last-Event-ID": str(seq)})
    chunks = iter(response.response)
    assert next(chunks).decode() == "retry: 1000\n\n"
    started = time.monotonic()
    threading.Thread(target=lambda: waiting.wait(5) and table.submit(Declaration(0, 2, "blue"))).start()
    pushed = next(chunks).decode()
    response.close()
    assert time.monotonic() - started < 2
    assert pushed.startswith(f"id: {seq + 1}\nevent: state\n")
    assert json.loads(pushed.split("data: ", 1)[1])["slate"]["current"] == "Ann declares 2 blue"


def test_stream_resynchronises_a_client_from_before_a_server_restart():
    app, table = make_app(sse_max_seconds=0.2)
    seq, data = table.snapshot_json()
    chunks = read_stream(app.test_client().get("/events", headers={"Last-Event-ID": str(seq + 500)}), 2)
    assert chunks[1] == f"id: {seq}\nevent: state\ndata: {data}\n\n"


def test_stream_sends_heartbeats_when_quiet_and_ends_after_its_limit():
    app, table = make_app(sse_heartbeat=0.05, sse_max_seconds=0.3)
    chunks = list(app.test_client().get("/events").response)
    text = "".join(c.decode() for c in chunks)
    assert text.count(": keep-alive\n\n") >= 2
    assert text.count("event: state") == 1


def test_a_closed_stream_is_counted_out():
    app, table = make_app(sse_max_seconds=30)
    streams = app.extensions["companion"]["streams"]
    response = app.test_client().get("/events")
    read_stream(response, 2)
    assert streams.open == 1
    response.close()  # what the server does when the client goes away
    assert streams.open == 0


def test_state_stream_generator_stops_on_close():
    table = Table()
    stream = state_stream(table, None, heartbeat=10, max_seconds=None)
    assert next(stream).startswith("retry")
    assert next(stream).startswith("id: ")
    stream.close()
    with pytest.raises(StopIteration):
        next(stream)


def test_reveal_photo_is_served_as_jpeg_and_unknown_photos_are_404():
    app, table = make_app()
    table.start_game("tregald", ["Ann", "Ben"])
    table.submit(Declaration(0, 2, "red"))
    table.submit(ChipCall(1, "green"))
    jpeg = b"\xff\xd8\xff\xe0 not really a photo \xff\xd9"
    assert table.offer_reading(OfferedReading(["red", "red", "blue", "blue", "blue"], boxes=[(1, 2, 30, 40)] * 5), photo=jpeg) == "applied"
    photo = table.snapshot()["photo"]
    client = app.test_client()
    response = client.get(f"/photo/{photo['id']}")
    assert response.status_code == 200 and response.mimetype == "image/jpeg" and response.data == jpeg
    assert client.get("/photo/999").status_code == 404
    assert client.get("/photo/abc").status_code == 404


def test_a_held_readings_photo_is_the_hosts_until_the_dice_are_in_force():
    app, table = make_app()
    table.start_game("tregald", ["Ann", "Ben", "Cara"])
    table.submit(Declaration(0, 3, "red"))
    table.submit(ChipCall(1, "green"))
    table.submit(ChipCall(2, "green"))
    jpeg = b"\xff\xd8 the dice, half under a hand \xff\xd9"
    assert table.offer_reading(OfferedReading(["red", "blue", "blue", "blue", "red"], flagged=True, reason="a hand?"), photo=jpeg) == "held"
    held = table.host_view()["held_reading"]["photo"]
    anyone, host = app.test_client(), app.test_client()
    headers = login(host)
    assert anyone.get(f"/photo/{held}").status_code == 404  # a caller could still change their call
    assert host.get(f"/photo/{held}").data == jpeg  # the host checks the dice against it
    host.post("/host/dice", json={"values": ["red", "blue", "blue", "blue", "red"], "readings": 0}, headers=headers)
    assert table.snapshot()["photo"]["id"] == held
    assert anyone.get(f"/photo/{held}").data == jpeg  # in force: the slate shows it


def test_unknown_pages_and_games_are_404_without_a_stack_trace():
    app, _ = make_app()
    client = app.test_client()
    for path in ("/nowhere", "/api/games/42", "/games/42", "/games/42.json", "/games/42.csv"):
        response = client.get(path)
        assert response.status_code == 404, path
        assert "Traceback" not in response.get_data(as_text=True)
    assert client.get("/api/games/42").get_json() == {"error": "there is no game '42'"}


def test_wrong_method_is_405_json_on_the_api():
    app, _ = make_app()
    response = app.test_client().post("/api/state")
    assert response.status_code == 405 and "error" in response.get_json()


def test_player_names_are_text_never_markup():
    app, table = make_app()
    name = '</script><img src=x onerror="alert(1)"><!--'
    table.start_game("tregald", [name, "Ben"], {"rounds": 1})
    client = app.test_client()
    for path in ("/", "/games", f"/games/{table.game_id}"):
        html = client.get(path).get_data(as_text=True)
        assert "<img src=x" not in html and "</script><img" not in html, path
    html = client.get("/").get_data(as_text=True)
    embedded = re.search(r'<script type="application/json" id="initial-state">(.*?)</script>', html, re.S).group(1)
    assert json.loads(embedded)["slate"]["players"][0]["name"] == name


def revealed_with_photo(table):
    table.start_game("tregald", ["Ann", "Ben"], {"rounds": 2})
    table.submit(Declaration(0, 2, "red"))
    table.submit(ChipCall(1, "green"))
    table.offer_reading(OfferedReading(["red", "red", "blue", "blue", "blue"], boxes=[(0, 0, 5, 5)] * 5), photo=b"\xff\xd8x\xff\xd9")
    return table.snapshot()["photo"]


def test_the_reveal_photo_follows_a_fixed_die():
    app, table = make_app()
    photo = revealed_with_photo(table)
    table.amend(photo["event"], DiceObserved(("red", "red", "red", "blue", "blue"), seat=0, source="host"))
    assert [d["value"] for d in table.snapshot()["photo"]["dice"]] == ["red", "red", "red", "blue", "blue"]
    assert app.test_client().get("/api/state").get_json()["photo"]["id"] == photo["id"]


def test_the_reveal_photo_goes_when_its_reading_is_undone_or_a_typed_reading_follows():
    app, table = make_app()
    revealed_with_photo(table)
    table.undo()
    assert table.snapshot()["photo"] is None
    table.submit(DiceObserved(("red",) * 5, seat=0))
    table.submit(Declaration(1, 1, "blue"))
    table.submit(ChipCall(0, "yellow"))
    table.confirm_reading(["blue"] * 5)  # typed in: there is no photo of this one
    assert table.snapshot()["photo"] is None


def test_a_client_gets_six_feeds_and_then_a_503_that_says_when_to_try_again():
    """Issue 25: each feed holds a server thread; one address cannot take them all."""
    app, table = make_app(sse_max_seconds=30)
    streams = app.extensions["companion"]["streams"]
    client = app.test_client()
    held = [client.get("/events") for _ in range(6)]
    refused = client.get("/events")
    assert refused.status_code == 503 and refused.headers["Retry-After"] == "5"
    assert "tries again" in refused.get_data(as_text=True)
    other = app.test_client().get("/events", environ_base={"REMOTE_ADDR": "10.0.0.2"})
    assert other.status_code == 200 and streams.open == 7
    held[0].close()
    again = client.get("/events")
    assert again.status_code == 200
    for response in held[1:] + [other, again]:
        response.close()
    assert streams.open == 0


def test_feeds_in_all_stop_at_max_streams_and_come_back_as_they_close():
    app, table = make_app(sse_max_seconds=30, max_streams=3)
    held = [app.test_client().get("/events", environ_base={"REMOTE_ADDR": f"10.0.0.{i}"}) for i in range(3)]
    assert all(r.status_code == 200 for r in held)
    assert app.test_client().get("/events", environ_base={"REMOTE_ADDR": "10.0.0.9"}).status_code == 503
    held[1].close()
    assert app.test_client().get("/events", environ_base={"REMOTE_ADDR": "10.0.0.9"}).status_code == 200


def test_a_feed_whose_client_has_gone_ends_within_a_second_without_a_write():
    table = Table()
    gone = [False]
    stream = state_stream(table, None, heartbeat=60, max_seconds=None, gone=lambda: gone[0])
    next(stream), next(stream)
    gone[0] = True
    started = time.monotonic()
    with pytest.raises(StopIteration):
        next(stream)
    assert time.monotonic() - started < 1.5


def test_a_configured_network_gets_a_wifi_qr_code_on_the_slate():
    """Issue 24: the Pi's own hotspot: phones scan one code to join, one to open the slate."""
    import segno.helpers

    from web.slate import wifi_qr_svg

    app, _ = make_app(wifi=("GameTable", "dice-night-42"))
    html = app.test_client().get("/").get_data(as_text=True)
    assert str(wifi_qr_svg("GameTable", "dice-night-42")) in html and "GameTable" in html
    assert "dice-night-42" not in html.replace(str(wifi_qr_svg("GameTable", "dice-night-42")), "")
    assert segno.helpers.make_wifi_data("GameTable", "dice-night-42", "WPA") == "WIFI:T:WPA;S:GameTable;P:dice-night-42;;"
    app, _ = make_app()
    assert "qr-wifi" not in app.test_client().get("/").get_data(as_text=True)


class TaughtFaces:
    """The camera page as far as the slate asks it: two spike faces taught."""

    def spike_key(self):
        return {3: b"\x89PNG three", 5: b"\x89PNG five"}


def test_the_slate_keys_the_spike_symbols_the_table_taught():
    app = create_app(Table(), {"host_pin": PIN, "secret_key": "k"}, camera=TaughtFaces())
    client = app.test_client()
    page = client.get("/").get_data(as_text=True)
    assert 'src="/spike-face/3.png"' in page and 'src="/spike-face/5.png"' in page
    assert "/spike-face/1.png" not in page  # untaught: no picture to show
    answer = client.get("/spike-face/3.png")
    assert answer.status_code == 200 and answer.mimetype == "image/png" and answer.data == b"\x89PNG three"
    assert client.get("/spike-face/1.png").status_code == 404
    assert make_app()[0].test_client().get("/spike-face/3.png").status_code == 404  # no camera: no key


def test_the_snapshot_marks_whose_turn_and_whether_the_photo_is_the_reveals():
    table = Table()
    table.start_game("tregald", ["Ann", "Ben", "Cara"], {"rounds": 1})
    assert table.snapshot()["turn"] == [0]  # Ann declares
    table.submit(Declaration(0, 2, "red"))
    table.press(2, "green")
    assert table.snapshot()["turn"] == [1]  # Ben is still to call; Cara has
    table.press(1, "yellow")
    assert table.snapshot()["turn"] == [0]  # all calls in: Ann, the Tregald, lifts the cup
    assert table.offer_reading(OfferedReading(["red", "red", "blue", "blue", "blue"], boxes=[(0, 0, 9, 9)] * 5),
                               photo=b"jpeg") == "applied"
    snap = table.snapshot()
    assert snap["reveal_photo"] is True and snap["slate"]["reveal"]["dice"] == ["red", "red", "blue", "blue", "blue"]
    table.submit(Declaration(1, 1, "blue"))
    table.press(0, "green")
    table.press(2, "green")
    reading = OfferedReading(["red"] * 5, flagged=True, reason="die 2 is blurred", unsure=[1])
    assert table.offer_reading(reading, photo=b"jpeg2") == "held"
    snap = table.snapshot()
    assert snap["held"] is True and snap["turn"] == []  # the host has the dice now
    assert snap["reveal_photo"] is True  # still the last reveal's own photo


def test_a_photo_of_other_dice_is_not_the_reveals():
    from companion.projection import photo_shows_reveal
    from companion.rules import RevealView

    reveal = RevealView(dice=(3, 3), verdict="Farah takes the pot")
    assert photo_shows_reveal({"id": 1, "dice": [{"value": 3}, {"value": 3}]}, reveal)
    assert not photo_shows_reveal({"id": 2, "dice": [{"value": 5}]}, reveal)  # a roll-off's die
    assert not photo_shows_reveal(None, reveal) and not photo_shows_reveal({"id": 1, "dice": []}, None)

"""The table service in one process: mock pins, a fake camera and reader, real HTTP."""

from __future__ import annotations

import json
import logging
import socket
import sqlite3
import threading
import time
import urllib.request
from functools import partial
from types import SimpleNamespace

import cv2
import numpy as np
import pytest
from gpiozero.pins.mock import MockFactory

from companion.appliance.config import parse_config
from companion.appliance.service import ServiceError, TableService, light_states
from companion.projection import SeatCue, SeatsView
from companion.rules import ChipCall, DiceObserved, DiceRequest
from companion.store import CorruptStore
from companion.table import Table
from hardware.faults import CameraUnavailable
from hardware.gpio import LightState
from hardware.reveal import Sight

# Default wiring (hardware/data/default-wiring.toml), seats as the engine counts them:
# seat 0 green 17 / yellow 27, seat 1 green 23 / yellow 24, seat 3 green 12, reveal 4, liar 18.
SEAT_PINS = {0: {"green": 17, "yellow": 27}, 1: {"green": 23, "yellow": 24}}
REVEAL_PIN = 4


def eventually(check, timeout=5.0, message="condition not met"):
    """Poll `check` (the seat lights, which follow the table on their own thread)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.01)
    raise AssertionError(message)


def table_shows(table, check, timeout=5.0, message="the table never showed it"):
    """Wait until `check()` holds, woken by the table's own change notices (every stored
    event, reading and device status is published): no polling."""
    deadline = time.monotonic() + timeout
    while True:
        seq = table.seq  # before the check: a change after it wakes the wait at once
        if check():
            return
        left = deadline - time.monotonic()
        if left <= 0 or table.wait_for_change(seq, left) is None and not check():
            raise AssertionError(message)


def queued(desk):
    """Wait until a job is queued for the camera thread (queuing one wakes the thread)."""
    assert desk._wake.wait(5), "the job was not queued"
    desk._wake.clear()


def tap(factory, pin):
    factory.pin(pin).drive_low()
    time.sleep(0.002)
    factory.pin(pin).drive_high()
    time.sleep(0.06)  # past the bounce time: the next tap counts


class FakeCamera:
    def __init__(self):
        self.frame = np.full((60, 80, 3), 90, np.uint8)
        self.unplugged = threading.Event()
        self.opened = 0
        self.closed = 0

    def read(self):
        if self.unplugged.is_set():
            raise CameraUnavailable("the USB camera stopped sending pictures (unplugged?)")
        return self.frame

    def close(self):
        self.closed += 1


class FakeReader:
    def __init__(self, sight):
        self.sight = sight
        self.reads = 0
        self.fault = None  # an exception to raise instead of reading

    def read(self, frame, kind, expect=None):
        self.reads += 1
        if self.fault is not None:
            raise self.fault
        return self.sight


class FakeReady:
    """Says "ready" once each time `lift()` is called (the cup came off)."""

    def __init__(self):
        self._lifted = threading.Event()

    def lift(self):
        self._lifted.set()

    def __call__(self):
        return self

    def feed(self, frame, t):
        if self._lifted.is_set():
            self._lifted.clear()
            return "ready"
        return "waiting"


@pytest.fixture
def rig(tmp_path):
    """A started service with mock pins, a fake camera and a reader reading one red cube."""
    factory = MockFactory()
    camera = FakeCamera()
    reader = FakeReader(Sight(("red",), ((10, 10, 30, 30),), (0.99,)))
    ready = FakeReady()

    def open_camera():
        camera.opened += 1
        if camera.unplugged.is_set():
            raise CameraUnavailable("no USB camera at 0: is it plugged in?")
        return camera

    config = parse_config({"web": {"host": "127.0.0.1", "threads": 16}, "host": {"pin": "246813"}})
    service = TableService(config, tmp_path, port=0, pin_factory=factory, open_camera=open_camera,
                           make_reader=lambda: reader, ready=ready)
    service.start()
    service.desk._retry_seconds = 0.1
    service.factory, service.camera, service.reader, service.ready = factory, camera, reader, ready
    yield service
    service.stop()
    factory.close()


def _get(service, path):
    with urllib.request.urlopen(f"http://127.0.0.1:{service.port}{path}", timeout=5) as response:
        return response.status, response.read()


def test_a_press_on_a_seat_button_becomes_a_stored_event(rig):
    rig.table.start_game("toy", ["Ann", "Ben"])
    tap(rig.factory, SEAT_PINS[0]["green"])
    # The press is in the session's record a moment before it is in the store: wait for the store.
    table_shows(rig.table, lambda: rig.store.load(rig.table.game_id).events == (ChipCall(0, "green"),),
                message="the press was not stored")
    assert rig.table.session.record.events == (ChipCall(0, "green"),)


def test_a_press_at_an_empty_seat_or_out_of_phase_changes_nothing(rig):
    rig.table.start_game("toy", ["Ann", "Ben"])
    tap(rig.factory, 12)  # seat 3 green: nobody sits there
    tap(rig.factory, 18)  # shared Liar!: means nothing in this game
    tap(rig.factory, SEAT_PINS[1]["yellow"])
    table_shows(rig.table, lambda: len(rig.table.session.record.events) == 1)
    time.sleep(0.1)
    assert rig.table.session.record.events == (ChipCall(1, "yellow"),)


def test_seat_lights_blink_for_seats_to_call_and_stay_on_once_called(rig):
    rig.table.start_game("toy", ["Ann", "Ben"])
    eventually(lambda: rig.lights.shown().get(0) is LightState.TURN and rig.lights.shown().get(1) is LightState.TURN)
    tap(rig.factory, SEAT_PINS[0]["yellow"])
    eventually(lambda: rig.lights.shown().get(0) is LightState.CALL_IN)
    assert rig.lights.shown().get(1) is LightState.TURN
    assert rig.lights.shown().get(2) is LightState.OFF  # nobody at seat 2


def test_the_reveal_button_reads_the_camera_and_the_reading_is_applied(rig):
    rig.table.start_game("toy", ["Ann", "Ben"])
    tap(rig.factory, SEAT_PINS[0]["green"])
    tap(rig.factory, SEAT_PINS[1]["green"])
    table_shows(rig.table, lambda: rig.table.expected_dice() is not None)
    tap(rig.factory, REVEAL_PIN)
    table_shows(rig.table, lambda: len(rig.table.session.record.events) == 3)
    last = rig.table.session.record.events[-1]
    assert last == DiceObserved(("red",), source="camera")
    snapshot = rig.table.snapshot()
    assert snapshot["photo"]["dice"][0]["value"] == "red"
    status, photo = _get(rig, f"/photo/{snapshot['photo']['id']}")
    assert status == 200 and photo[:2] == b"\xff\xd8"  # a JPEG


def test_the_cup_lifted_signal_reads_without_any_button(rig):
    rig.table.start_game("toy", ["Ann", "Ben"])
    rig.table.press(0, "green")
    rig.table.press(1, "yellow")
    rig.ready.lift()
    table_shows(rig.table, lambda: isinstance(rig.table.session.record.events[-1], DiceObserved))
    assert rig.reader.reads == 1


def test_a_reading_with_the_wrong_number_of_dice_is_held_for_the_host(rig):
    rig.reader.sight = Sight(("red", "blue"), ((1, 1, 5, 5), (9, 9, 15, 15)), (0.99, 0.99))
    rig.table.start_game("toy", ["Ann", "Ben"])
    rig.table.press(0, "green")
    rig.table.press(1, "yellow")
    answer = rig.desk.reveal_now()
    assert answer.startswith("held")
    view = rig.table.host_view()
    assert view["held"] is True
    assert "1 chance cube is in play but 2 were read" in view["held_reading"]["reason"]
    assert len(rig.table.session.record.events) == 2  # nothing applied
    rig.table.confirm_reading(["blue"])  # the host's one-tap fix
    assert rig.table.session.record.events[-1].values == ("blue",)


def test_a_flagged_reading_is_held_and_never_applied(rig):
    rig.reader.sight = Sight(("red", "blue"), ((1, 1, 5, 5), (8, 1, 12, 5)), (0.4, 0.99), True,
                             "a hand is over the dice", unsure=(0,))
    rig.table.start_game("toy", ["Ann", "Ben"])
    rig.table.press(0, "green")
    rig.table.press(1, "yellow")
    assert rig.desk.reveal_now().startswith("held for the host: a hand is over the dice")
    held = rig.table.host_view()["held_reading"]
    assert held["values"] == ["red", "blue"] and [d["unsure"] for d in held["dice"]] == [True, False]
    assert len(rig.table.session.record.events) == 2


def test_a_reader_that_raises_is_a_camera_fault_in_words_and_play_goes_on_once_it_is_gone(rig, caplog):
    """Issue 64: not "camera: ok" while every reveal is held with "the reader failed"."""
    rig.reader.fault = ValueError("vision model die_faces_second.onnx has no ReLU layer")
    rig.table.start_game("toy", ["Ann", "Ben"], {"turns": 3})
    for _ in range(2):  # two reveals, two failures: told once, the traceback logged once
        rig.table.press(0, "green")
        rig.table.press(1, "yellow")
        assert rig.desk.reveal_now().startswith("held for the host: the reader failed: vision model")
        for view in (rig.table.snapshot(), rig.table.host_view()):  # the slate's and the panel's
            camera = view["devices"]["camera"]
            assert camera["status"] == "reader failing"
            assert "has no ReLU layer" in camera["message"] and "enter the dice" in camera["message"]
        rig.table.confirm_reading(["blue"])  # typed in, as with an unsure reading
        table_shows(rig.table, lambda: rig.store.load(rig.table.game_id).events[-1] == DiceObserved(("blue",), source="host"))
    tracebacks = [r for r in caplog.records if r.exc_info and "dice reader failed" in r.getMessage()]
    assert len(tracebacks) == 1
    assert len(rig.store.load(rig.table.game_id).events) == 6  # every acknowledged action kept
    rig.reader.fault = None  # the fault is gone: the camera reads, the status is ok again
    rig.table.press(0, "green")
    rig.table.press(1, "yellow")
    assert rig.desk.reveal_now() == "read 1 die"
    assert rig.table.snapshot()["devices"]["camera"]["status"] == "ok"
    assert rig.table.session.record.events[-1] == DiceObserved(("red",), source="camera")


def test_a_reveal_when_no_dice_are_expected_changes_nothing(rig):
    rig.table.start_game("toy", ["Ann", "Ben"])
    assert rig.desk.reveal_now() == "no dice are expected now"
    assert rig.table.session.record.events == ()


def test_an_unplugged_camera_is_reported_manual_entry_works_and_it_comes_back(rig):
    rig.table.start_game("toy", ["Ann", "Ben"], {"turns": 2})
    table_shows(rig.table, lambda: rig.table.snapshot()["devices"].get("camera", {}).get("status") == "ok")
    rig.camera.unplugged.set()
    table_shows(rig.table, lambda: rig.table.snapshot()["devices"]["camera"]["status"] == "unavailable")
    assert "unplugged" in rig.table.snapshot()["devices"]["camera"]["message"] or "plugged" in rig.table.snapshot()["devices"]["camera"]["message"]
    assert "no camera" in rig.desk.reveal_now() or "not available" in rig.desk.reveal_now()
    rig.table.press(0, "green")
    rig.table.press(1, "green")
    rig.table.confirm_reading(["red"])  # typed in on the host panel
    assert rig.table.session.record.events[-1] == DiceObserved(("red",), source="host")
    rig.camera.unplugged.clear()
    table_shows(rig.table, lambda: rig.table.snapshot()["devices"]["camera"]["status"] == "ok")
    assert rig.camera.opened >= 2


def test_the_slate_is_served_over_http_and_streams_a_press(rig):
    rig.table.start_game("toy", ["Ann", "Ben"])
    status, body = _get(rig, "/api/state")
    assert status == 200 and json.loads(body)["slate"]["game"] == "toy"
    with socket.create_connection(("127.0.0.1", rig.port), timeout=5) as conn:
        conn.sendall(b"GET /events HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\n\r\n")
        events = state_events(conn.makefile("rb"))
        # The press only once the stream has sent the state it opened with: a stream that
        # opened after the press would show it without pushing anything.
        opened_seq, opened = next(events)
        assert opened["prompt"]["waiting"] == [0, 1]
        tap(rig.factory, SEAT_PINS[0]["green"])
        deadline = time.monotonic() + 5
        for seq, state in events:  # a device's status may come first
            if state["prompt"]["waiting"] == [1]:
                assert seq > opened_seq
                break
            assert time.monotonic() < deadline, "no state event with the press"


def state_events(stream):
    """(seq, state) of each `event: state` read from an /events response, as they come
    (a read waits at most the socket's timeout)."""
    seq = None
    while True:
        try:
            line = stream.readline().decode()
        except TimeoutError:
            raise AssertionError("no state event came on the stream") from None
        assert line, "the stream ended"
        if line.startswith("id: "):
            seq = int(line[4:])
        elif line.startswith("data: ") and seq is not None:
            yield seq, json.loads(line[6:])
            seq = None


def test_secret_calls_never_reach_the_log_above_debug(rig, caplog):
    caplog.set_level(logging.INFO)
    rig.table.start_game("toy", ["Ann", "Ben"])
    tap(rig.factory, SEAT_PINS[0]["yellow"])

    def logged():
        return [r.getMessage() for r in caplog.records if r.levelno >= logging.INFO]

    # the event is logged (once stored: a moment after it is in the session's record) ...
    table_shows(rig.table, lambda: any("chip_call" in m for m in logged()), message="the call was not logged")
    assert len(rig.table.session.record.events) == 1
    infos = logged()
    assert not any("yellow" in m for m in infos)  # ... without its colour
    assert not any("246813" in m for m in infos)  # nor the PIN


def test_a_second_service_on_the_same_data_dir_is_refused(rig, tmp_path):
    config = parse_config({"web": {"host": "127.0.0.1"}})
    other = TableService(config, tmp_path, port=0, pin_factory=MockFactory(), open_camera=lambda: None,
                         make_reader=lambda: None)
    with pytest.raises(ServiceError, match="already running"):
        other.start()


def test_a_corrupt_database_stops_the_start_and_leaves_nothing_open(tmp_path):
    (tmp_path / "games.sqlite3").write_bytes(b"garbage" * 1000)
    config = parse_config({"web": {"host": "127.0.0.1"}})
    service = TableService(config, tmp_path, port=0, pin_factory=MockFactory(), open_camera=lambda: None,
                           make_reader=lambda: None)
    with pytest.raises(CorruptStore):
        service.start()
    again = TableService(config, tmp_path, port=0, pin_factory=MockFactory(), open_camera=lambda: None,
                         make_reader=lambda: None)
    with pytest.raises(CorruptStore):  # the data-dir lock was released
        again.start()


def test_without_gpio_the_table_runs_on_the_host_panel(tmp_path):
    config = parse_config({"web": {"host": "127.0.0.1"}, "gpio": {"pin_factory": "lgpio"}})
    service = TableService(config, tmp_path, port=0, open_camera=lambda: None, make_reader=lambda: None)
    service.start()
    try:
        buttons = service.table.snapshot()["devices"]["buttons"]
        assert buttons["status"] == "unavailable" and "host panel" in buttons["message"]
        service.table.start_game("toy", ["Ann", "Ben"])
        assert service.table.press(0, "green")  # the virtual buttons' path
        assert _get(service, "/api/state")[0] == 200
        table_shows(service.table, lambda: service.table.snapshot()["devices"].get("camera", {}).get("status") == "off")
    finally:
        service.stop()


def test_stop_closes_the_port_and_the_database(rig):
    port = rig.port
    rig.stop()
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
    with pytest.raises(sqlite3.ProgrammingError, match="closed database"):
        rig.store.list_games()


def test_light_states_say_that_a_seat_called_never_what():
    calls = SeatsView(players=3, acting=frozenset({2}), waiting=frozenset({2}), calling=True)
    assert light_states(calls, [0, 1, 2, 3]) == {0: LightState.CALL_IN, 1: LightState.CALL_IN, 2: LightState.TURN}
    turn = SeatsView(players=2, acting=frozenset({1}))
    assert light_states(turn, [0, 1]) == {1: LightState.TURN}
    over = SeatsView(players=2, finished=True)
    assert light_states(over, [0, 1]) == {}
    assert light_states(SeatsView.of(None), [0, 1]) == {}


def test_the_seats_view_is_read_from_the_same_session_as_the_snapshot():
    table = Table()
    table.start_game("tregald", ["Ann", "Ben", "Cid"])
    snapshot, view = table.snapshot(), table.seats_view()
    prompt = snapshot["prompt"]
    assert view == SeatsView(players=len(snapshot["slate"]["players"]), finished=snapshot["slate"]["finished"],
                             acting=frozenset(prompt["seats"]), waiting=frozenset(prompt["waiting"]),
                             calling="chip_call" in prompt["wants"] or bool(prompt["waiting"]))
    assert view.cues([0, 1, 2]) == {0: SeatCue.TURN}  # Ann declares


def test_an_amended_call_is_not_logged_above_debug(rig, caplog):
    caplog.set_level(logging.INFO)
    rig.table.start_game("toy", ["Ann", "Ben"])
    rig.table.press(0, "green")
    rig.table.amend(0, ChipCall(0, "yellow"))
    infos = [r.getMessage() for r in caplog.records if r.levelno >= logging.INFO]
    assert any("amend" in m for m in infos)
    assert not any("yellow" in m or "green" in m for m in infos)


def test_the_reveal_photo_is_cropped_around_the_dice_with_boxes_in_its_pixels():
    import cv2
    import numpy as np

    from hardware.reveal import PHOTO_WIDTH, Sight, encode_photo

    frame = np.zeros((1296, 2304, 3), np.uint8)
    frame[648:792, 1152:1296] = (0, 0, 255)  # one red die
    sight = Sight(("red",), ((1152, 648, 1296, 792),), (0.9,))
    photo, moved = encode_photo(frame, sight)
    image = cv2.imdecode(np.frombuffer(photo, np.uint8), cv2.IMREAD_COLOR)
    assert image.shape[1] <= PHOTO_WIDTH and image.shape[1] < 2304
    x1, y1, x2, y2 = moved.boxes[0]
    inside = image[y1 + 5:y2 - 5, x1 + 5:x2 - 5]
    assert inside[..., 2].mean() > 200 and inside[..., 0].mean() < 40  # the box is on the die
    assert moved.values == ("red",) and moved.confidences == (0.9,)


def test_a_place_that_may_be_a_missed_die_is_kept_in_the_photo_and_moved_into_its_pixels():
    import cv2
    import numpy as np

    from hardware.reveal import Sight, encode_photo

    frame = np.zeros((1296, 2304, 3), np.uint8)
    frame[100:244, 100:244] = (0, 0, 255)  # a die read, top left
    frame[1000:1144, 2000:2144] = (255, 0, 0)  # something the reader could not read, far right
    sight = Sight(("red",), ((100, 100, 244, 244),), (0.9,), True, "something at (2072,1072) may be a die",
                  suspects=((2000, 1000, 2144, 1144),))
    photo, moved = encode_photo(frame, sight)
    image = cv2.imdecode(np.frombuffer(photo, np.uint8), cv2.IMREAD_COLOR)
    x1, y1, x2, y2 = moved.suspects[0]
    assert 0 <= x1 < x2 <= image.shape[1] and 0 <= y1 < y2 <= image.shape[0]  # not cropped away
    inside = image[y1 + 5:y2 - 5, x1 + 5:x2 - 5]
    assert inside[..., 0].mean() > 200 and inside[..., 2].mean() < 40  # the mark lands on it
    assert sight.offered().suspects == ((2000, 1000, 2144, 1144),) and moved.offered().suspects == (moved.suspects[0],)


def test_a_wide_frame_without_dice_is_shrunk_whole():
    import cv2
    import numpy as np

    from hardware.reveal import PHOTO_WIDTH, encode_photo

    photo, _ = encode_photo(np.zeros((1296, 2304, 3), np.uint8))
    image = cv2.imdecode(np.frombuffer(photo, np.uint8), cv2.IMREAD_COLOR)
    assert image.shape[:2] == (round(1296 * PHOTO_WIDTH / 2304), PHOTO_WIDTH)


_Request = partial(DiceRequest, "pips", 1, 0)


class _AlwaysWaiting:
    """A table that always waits for one pip die and takes every reading."""

    def __init__(self):
        self.offers = []

    def expected_dice(self):
        return _Request()

    def readings_in_force(self):
        return len(self.offers)

    def offer_reading(self, reading, **_):
        self.offers.append(reading.values)
        return "applied"

    def set_device_status(self, *_):
        pass


def _tray(*dice):
    frame = np.full((480, 640, 3), 90, np.uint8)
    for x, y in dice:
        frame[y:y + 40, x:x + 40] = 250
    return frame


def _one_four():
    """A reader that sees a 4 where _tray((320, 200)) puts its die."""
    return SimpleNamespace(read=lambda frame, kind, expect=None: Sight((4,), ((320, 200, 360, 240),), (0.99,)))


def _dim_room(seed):
    """(a camera showing _tray((320, 200)) with new sensor noise on every frame, the frames it gave)."""
    rng = np.random.default_rng(seed)
    given = []

    def read():
        given.append(np.clip(_tray((320, 200)) + rng.normal(0, 6, (480, 640, 3)), 0, 255).astype(np.uint8))
        return given[-1]

    return SimpleNamespace(read=read, close=lambda: None), given


def _mean(frames):
    """The frames averaged as ReadyToRead.still_picture does: rounded to the nearest level."""
    return (np.sum(frames, axis=0, dtype=np.uint16) + len(frames) // 2) // len(frames)


class _TurnedDesk:
    """A RevealDesk on a clock turned by hand: step() is one turn of the camera loop, 0.1 s on."""

    def __init__(self, table, camera, make_reader, ready, **options):
        from hardware.reveal import RevealDesk

        self.now = 0.0
        self.desk = RevealDesk(table, lambda: camera, make_reader, ready=ready, clock=lambda: self.now, **options)
        self.desk._load_reader()

    def step(self, turns=1):
        for _ in range(turns):
            self.now += 0.1
            self.desk.turn()


def test_dice_already_read_are_not_read_again_as_a_new_throw():
    from hardware.vision import ReadyToRead

    class Reader:  # a 4 for every bright square
        def read(self, frame, kind, expect=None):
            n, _, stats, _ = cv2.connectedComponentsWithStats((frame[:, :, 0] == 250).astype(np.uint8))
            boxes = tuple((x, y, x + w, y + h) for x, y, w, h, _ in stats[1:])
            return Sight((4,) * (n - 1), boxes, (0.99,) * (n - 1))

    shown = {"frame": _tray()}
    camera = SimpleNamespace(read=lambda: shown["frame"], close=lambda: None)
    table = _AlwaysWaiting()
    turned = _TurnedDesk(table, camera, Reader, lambda: ReadyToRead(still_seconds=0.5))
    desk, frames = turned.desk, turned.step
    frames(10)
    assert table.offers == []  # the empty tray at rest is not a reading
    for y in (0, 60, 120):  # the cup comes off
        shown["frame"] = _tray((300, y))
        frames(1)
    shown["frame"] = _tray((320, 200))
    frames(1)
    desk.request_reveal()  # pressed before the die has rested half a second
    frames(1)
    frames(10)  # ... and then it rests
    assert table.offers == [(4,)]
    desk.reconfigure(Reader, lambda: ReadyToRead(still_seconds=0.5))  # new calibration: a new watcher
    frames(10)
    assert table.offers == [(4,)]
    for y in (0, 100):  # the next throw is read
        shown["frame"] = _tray((100, y))
        frames(1)
    shown["frame"] = _tray((120, 200), (400, 300))
    frames(10)
    assert table.offers == [(4,), (4, 4)]
    shown["frame"] = _tray((126, 204), (396, 309))  # the table is bumped: the dice shift a little
    frames(10)
    assert table.offers == [(4,), (4, 4)]  # not a new throw
    desk.request_reveal()  # but a press reads whatever lies there
    frames(1)
    assert table.offers == [(4,), (4, 4), (4, 4)]
    shown["frame"] = _tray((300, 100), (500, 380))  # a new throw with the same faces
    frames(10)
    assert table.offers == [(4,), (4, 4), (4, 4), (4, 4)]


def test_measuring_the_light_again_does_not_read_the_dice_lying_there_again():
    from hardware.reveal import CameraJobFailed
    from hardware.vision import ReadyToRead

    shown = {"frame": _tray((320, 200))}

    def measure_light(settle_seconds):
        shown["frame"] = np.clip(_tray((320, 200)).astype(int) + 60, 0, 255).astype(np.uint8)  # exposed afresh
        return {"ExposureTime": 8000}

    camera = SimpleNamespace(read=lambda: shown["frame"], close=lambda: None, measure_light=measure_light)
    table = _AlwaysWaiting()
    turned = _TurnedDesk(table, camera, _one_four, lambda: ReadyToRead(still_seconds=0.5))
    desk, frames = turned.desk, turned.step
    frames(10)
    assert table.offers == [(4,)] and desk.can_measure_light()
    answers = []
    asker = threading.Thread(target=lambda: answers.append(desk.measure_light(timeout=5)))
    asker.start()
    queued(desk)
    frames(1)
    asker.join(5)
    assert answers == [{"ExposureTime": 8000}]
    frames(10)  # the picture is brighter now, and still: the same die, not a new throw
    assert table.offers == [(4,)]

    del camera.measure_light  # a webcam: it adjusts itself
    assert not desk.can_measure_light()
    failures = []

    def ask():
        try:
            desk.measure_light(timeout=5)
        except CameraJobFailed as exc:
            failures.append(str(exc))

    asker = threading.Thread(target=ask)
    asker.start()
    queued(desk)
    frames(1)
    asker.join(5)
    assert failures and "sets its own exposure" in failures[0]


def test_a_table_region_outside_the_cameras_picture_is_told_not_a_crash_loop():
    """A region set for a bigger picture (another camera, another resolution): the watcher
    cannot look, which the camera status says once, and the camera stays open."""
    from hardware.vision import ReadyToRead

    statuses = []
    table = _AlwaysWaiting()
    table.set_device_status = lambda *status: statuses.append(status)
    camera = SimpleNamespace(read=lambda: _tray((320, 200)), close=lambda: statuses.append("closed"))
    region = {"roi": (700, 500, 1200, 900)}  # the tray is 640x480
    turned = _TurnedDesk(table, camera, lambda: None, lambda: ReadyToRead(roi=region["roi"]))
    desk = turned.desk
    turned.step(5)
    problems = [s for s in statuses if s != ("camera", "ok", "")]
    assert len(problems) == 1 and "closed" not in statuses
    assert problems[0][:2] == ("camera", "error")
    assert "the table region 700,500,1200,900 lies outside the camera's 640x480 picture: set it again" in problems[0][2]
    assert desk.latest_frame() is not None  # the camera page still shows the picture to set it by
    region["roi"] = (0, 0, 640, 480)
    desk.reconfigure(lambda: None, lambda: ReadyToRead(roi=region["roi"]))
    turned.step()
    assert statuses[-1] == ("camera", "ok", "")


def test_same_throw_is_the_same_dice_in_nearly_the_same_places():
    from hardware.reveal import same_throw

    before = Sight((3, 5), ((100, 100, 140, 140), (300, 100, 340, 140)), (0.9, 0.9))
    assert same_throw(Sight((5, 3), ((305, 104, 345, 144), (96, 98, 136, 138)), (0.9, 0.9)), before)
    assert not same_throw(Sight((3, 6), ((100, 100, 140, 140), (300, 100, 340, 140)), (0.9, 0.9)), before)
    assert not same_throw(Sight((3, 5), ((100, 100, 140, 140), (330, 100, 370, 140)), (0.9, 0.9)), before)
    assert not same_throw(Sight((3,), ((100, 100, 140, 140),), (0.9,)), before)
    assert not same_throw(Sight((), (), ()), Sight((), (), ()))


def test_after_a_restart_the_dice_lying_there_are_not_taken_for_a_new_throw():
    from hardware.vision import ReadyToRead

    def run(resumed):
        shown = {"frame": _tray((320, 200))}  # read before the restart, still lying there
        camera = SimpleNamespace(read=lambda: shown["frame"], close=lambda: None)
        table = _AlwaysWaiting()
        _TurnedDesk(table, camera, _one_four, lambda: ReadyToRead(still_seconds=0.5), resumed=resumed).step(10)
        return table.offers

    assert run(resumed=True) == []  # the game picked up after a restart: not a new throw
    assert run(resumed=False) == [(4,)]  # a fresh start: dice at rest when the game asks are read


def test_a_service_that_resumes_a_game_tells_its_camera_loop(tmp_path):
    config = parse_config({"web": {"host": "127.0.0.1"}, "host": {"pin": "246813"}})

    def started():
        service = TableService(config, tmp_path, port=0, pin_factory=MockFactory(), open_camera=lambda: FakeCamera(),
                               make_reader=lambda: FakeReader(Sight((), (), ())), ready=FakeReady())
        service.start()
        return service

    first = started()
    assert first.desk.resumed is False
    first.table.start_game("toy", ["Ann", "Ben"])
    first.stop()
    second = started()
    try:
        assert second.table.game_id == first.table.game_id and second.desk.resumed is True
    finally:
        second.stop()


def test_dice_typed_in_while_the_camera_reads_them_are_not_followed_by_the_cameras_reading(rig):
    rig.table.start_game("leiras-dice", ["Ann", "Ben"])  # the roll-off: Ann's two dice, then Ben's
    typed = threading.Event()

    class SlowReader:  # the host enters Ann's dice while the camera is still reading her throw
        reads = 0

        def read(self, frame, kind, expect=None):
            SlowReader.reads += 1
            rig.table.confirm_reading([6, 6])
            typed.set()
            return Sight((6, 6), ((1, 1, 5, 5), (8, 1, 12, 5)), (0.99, 0.99))

    rig.desk.decisions.reader = SlowReader()
    answer = rig.desk.reveal_now()
    assert typed.is_set() and answer == "the dice were entered while the camera read them: nothing more was applied"
    assert [e.values for e in rig.table.session.record.events] == [(6, 6)]  # Ben's throw is still to come
    assert rig.table.expected_dice().seat == 1 and rig.table.host_view()["held_reading"] is None


def test_a_settled_scene_is_read_from_its_still_frames_averaged_and_so_is_a_press_while_still():
    from hardware.vision import ReadyToRead

    camera, given = _dim_room(3)
    seen = []

    class Reader:
        def read(self, frame, kind, expect=None):
            seen.append((frame, len(given)))
            return Sight((4,), ((320, 200, 360, 240),), (0.99,))

    table = _AlwaysWaiting()
    turned = _TurnedDesk(table, camera, Reader, lambda: ReadyToRead(still_seconds=0.5, still_frames=4))
    turned.step(10)
    assert table.offers == [(4,)] and len(seen) == 1
    frame, taken = seen[0]
    assert np.array_equal(frame, _mean(given[taken - 4:taken]))
    turned.desk.request_reveal()
    turned.step()
    frame, taken = seen[1]  # the frame taken after the press is the newest of the four
    assert taken == len(given) and np.array_equal(frame, _mean(given[-4:]))
    camera.read = lambda: given.append(_tray((100, 100))) or given[-1]  # the dice swept aside
    turned.desk.request_reveal()
    turned.step()
    assert len(seen) == 3 and seen[2][0] is given[-1]  # pressed while things move: that frame alone


def test_a_camera_page_job_while_the_table_is_still_gets_the_still_frames_averaged():
    # A trial read or the empty-table photo sees what a reveal would read.
    from hardware.vision import ReadyToRead

    camera, given = _dim_room(4)
    turned = _TurnedDesk(_AlwaysWaiting(), camera, _one_four, lambda: ReadyToRead(still_seconds=0.5))
    desk = turned.desk

    def job_sees():
        answers = []
        asker = threading.Thread(target=lambda: answers.append(
            desk.on_camera_thread(lambda frame, _: (frame, len(given)), timeout=5)))
        asker.start()
        queued(desk)
        turned.step()
        asker.join(5)
        return answers[0]

    turned.step(10)
    frame, taken = job_sees()
    assert np.array_equal(frame, _mean(given[taken - 4:taken]))
    camera.read = lambda: given.append(_tray((100, 100))) or given[-1]  # a hand sweeps the dice aside
    frame, taken = job_sees()
    assert frame is given[taken - 1]  # things moved: that frame alone

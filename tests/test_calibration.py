"""The host panel's camera page: the table region and the empty-table photo, set from the
camera's own picture, kept in the data directory and used by the reader at once."""

from __future__ import annotations

import json
import re
from pathlib import Path

import cv2
import numpy as np
import pytest
from gpiozero.pins.mock import MockFactory

from companion.appliance.config import parse_config
from companion.appliance.service import TableService
from hardware.calibration import (
    CALIBRATION_FILE,
    Calibration,
    CalibrationError,
    CalibrationInputError,
    CalibrationStore,
    RegionDoesNotFit,
    check_region,
)
from hardware.faults import CameraUnavailable
from hardware.reveal import Sight
from test_service import FakeCamera, FakeReader, FakeReady
from test_vision_covered import COVERED, table, with_hand  # noqa: F401 (a fixture)

PIN = "246813"
SPIKES = Path(__file__).parent / "fixtures" / "rendered"
NO_DICE = Sight((), (), ())
ONE_DIE = Sight((3,), ((10, 10, 30, 30),), (0.99,))


def a_picture(desk, timeout=5.0):
    """Wait, turn by turn of the camera loop (each one a notice, not a poll), until it has a picture."""
    for _ in range(3):
        if desk.latest_frame() is not None:
            return
        desk.wait_for_turns(1, timeout)
    assert desk.latest_frame() is not None, "no picture from the camera"


def later_turns(desk):
    """Wait until the camera loop has taken up what was asked of it before this call (a new
    calibration, an unplugged camera): the turn under way, then a whole one."""
    assert desk.wait_for_turns(2), "the camera loop stopped"


def start(tmp_path, camera, make_reader, vision=None):
    config = parse_config({"web": {"host": "127.0.0.1"}, "host": {"pin": PIN}, "vision": vision or {}})
    service = TableService(config, tmp_path, port=0, pin_factory=MockFactory(), open_camera=lambda: camera,
                           make_reader=make_reader, ready=FakeReady())
    service.start()
    return service


@pytest.fixture
def rig(tmp_path):
    camera = FakeCamera()
    reader = FakeReader(NO_DICE)
    builds = []

    def make_reader():
        builds.append(1)
        return reader

    service = start(tmp_path, camera, make_reader)
    service.camera, service.reader, service.builds = camera, reader, builds
    a_picture(service.desk)
    yield service
    service.stop()


def host_client(service):
    client = service.app.test_client()
    html = client.get("/host").get_data(as_text=True)
    token = re.search(r'name="csrf_token" value="([^"]+)"', html).group(1)
    assert client.post("/host/login", data={"pin": PIN, "csrf_token": token}).status_code == 303
    token = re.search(r'data-csrf="([^"]+)"', client.get("/host/camera").get_data(as_text=True)).group(1)
    return client, {"X-CSRF-Token": token}


def saved(service):
    path = service.data_dir / CALIBRATION_FILE
    return json.loads(path.read_text()) if path.exists() else None


def test_the_page_shows_the_cameras_picture_to_the_host_only(rig):
    anonymous = rig.app.test_client()
    assert anonymous.get("/host/camera/picture.jpg").status_code == 401
    assert anonymous.get("/host/camera/state").status_code == 401
    client, _ = host_client(rig)
    page = client.get("/host/camera").get_data(as_text=True)
    assert "Camera set-up" in page and "the whole picture" in page
    panel = client.get("/host").get_data(as_text=True)
    assert "/host/camera" in panel and "no empty-table photo yet" in panel  # the panel links to it, and says why
    shot = client.get("/host/camera/picture.jpg")
    assert shot.status_code == 200 and shot.headers["Cache-Control"] == "no-store"
    assert shot.headers["X-Camera-Size"] == "80x60"
    picture = cv2.imdecode(np.frombuffer(shot.data, np.uint8), cv2.IMREAD_COLOR)
    assert picture.shape == (60, 80, 3) and abs(int(picture.mean()) - 90) <= 2
    assert client.get("/host/camera/state").get_json() == {
        "picture": {"width": 80, "height": 60}, "roi": None, "roi_from": None,
        "empty_table": False, "empty_table_from": None, "problem": None, "read_only": None, "withheld": None,
        "spike": {"examples": {}, "untaught": [1, 2, 3, 4, 5, 6], "problem": None, "from": None, "undo_face": None},
        "trial": None, "light": {"can_measure": False, "measured": None}}
    assert "Measure the light again" not in page  # a webcam or recorded pictures: nothing to measure


def test_a_region_is_checked_against_the_picture_saved_and_used_at_once(rig):
    client, headers = host_client(rig)
    builds = len(rig.builds)
    for roi, status, words in (([0, 0, 81, 60], 422, "outside the camera's 80x60"),
                               ([10, 10, 20, 20], 422, "too small"),
                               ([0, 0, "wide", 60], 400, "four numbers"),
                               ([0, 0, 60], 400, "four numbers")):
        answer = client.post("/host/camera/region", json={"roi": roi}, headers=headers)
        assert answer.status_code == status and words in answer.get_json()["error"]
    assert saved(rig) is None and rig.camera_setup.vision.roi is None  # refused: nothing changed

    answer = client.post("/host/camera/region", json={"roi": [4, 2.4, 70, "58"]}, headers=headers)
    assert answer.status_code == 200 and answer.get_json()["roi"] == [4, 2, 70, 58]
    assert saved(rig) == {"roi": [4, 2, 70, 58], "empty_table": None, "spike_profile": None, "die_size": None}
    assert rig.camera_setup.vision.roi == (4, 2, 70, 58)
    later_turns(rig.desk)
    assert len(rig.builds) > builds, "the desk did not set up its reader again"

    form = client.post("/host/camera/region", data={"x1": "0", "y1": "0", "x2": "80", "y2": "60",
                                                         "csrf_token": headers["X-CSRF-Token"]},
                       headers={"Accept": "text/html"}, follow_redirects=True)  # the page's own form
    assert form.status_code == 200 and "table region set to 0,0,80,60" in form.get_data(as_text=True)


def test_changes_need_the_host_and_the_pages_token(rig):
    anonymous = rig.app.test_client()
    assert anonymous.post("/host/camera/region", json={"roi": [0, 0, 80, 60]}).status_code == 401
    client, _ = host_client(rig)
    assert client.post("/host/camera/empty-table", json={}).status_code == 403
    assert saved(rig) is None


def test_the_empty_table_photo_is_refused_while_dice_are_in_view(rig):
    client, headers = host_client(rig)
    rig.reader.sight = ONE_DIE
    answer = client.post("/host/camera/empty-table", headers=headers)
    assert answer.status_code == 409 and "sees 1 die" in answer.get_json()["error"]
    assert saved(rig) is None and not list(rig.data_dir.glob("empty-table*"))


def test_a_failing_reader_is_said_in_words_on_the_camera_page_not_answered_500(rig):
    """Issue 64: with the reader raising, the empty-table photo answered 500."""
    client, headers = host_client(rig)
    rig.reader.fault = ValueError("vision model die_faces_second.onnx has no ReLU layer")
    for path, body in (("/host/camera/empty-table", None), ("/host/camera/try-read", {"kind": "pips"})):
        answer = client.post(path, json=body, headers=headers) if body else client.post(path, headers=headers)
        assert answer.status_code == 409, answer.get_data(as_text=True)
        error = answer.get_json()["error"]
        assert error.startswith("the dice reader is failing (ValueError: vision model") and "check-hardware" in error
    assert saved(rig) is None and not list(rig.data_dir.glob("empty-table*"))


def test_the_empty_table_photo_is_the_cameras_picture_and_survives_a_restart(rig, tmp_path):
    client, headers = host_client(rig)
    rig.camera.frame = np.dstack([np.full((60, 80), v, np.uint8) for v in (40, 120, 200)])
    answer = client.post("/host/camera/empty-table", headers=headers)
    assert answer.status_code == 200, answer.get_data(as_text=True)
    assert answer.get_json()["empty_table_from"] == "panel"
    assert "no empty-table photo yet" not in client.get("/host").get_data(as_text=True)
    name = saved(rig)["empty_table"]
    photo = cv2.imread(str(rig.data_dir / name))
    assert np.array_equal(photo, rig.camera.frame)  # lossless, the camera's own pixels
    assert rig.camera_setup.vision.empty_table == str(rig.data_dir / name)

    again = client.post("/host/camera/empty-table", headers=headers)  # taken again: the old one goes
    assert again.status_code == 200
    assert [p.name for p in rig.data_dir.glob("empty-table*")] == [saved(rig)["empty_table"]]
    client.post("/host/camera/region", json={"roi": [0, 0, 40, 40]}, headers=headers)
    rig.stop()

    second = start(tmp_path, FakeCamera(), lambda: FakeReader(NO_DICE))
    try:
        assert second.camera_setup.vision.roi == (0, 0, 40, 40)
        assert second.camera_setup.vision.empty_table == str(tmp_path / saved(second)["empty_table"])
        client, headers = host_client(second)
        forgot = client.post("/host/camera/forget", headers=headers).get_json()
        assert forgot["roi"] is None and forgot["empty_table"] is False
        assert not list(tmp_path.glob("empty-table*"))
    finally:
        second.stop()


def test_the_panels_settings_win_over_the_config_files_until_forgotten(tmp_path):
    service = start(tmp_path, FakeCamera(), lambda: FakeReader(NO_DICE), vision={"roi": [0, 0, 50, 50]})
    try:
        a_picture(service.desk)
        client, headers = host_client(service)
        assert client.get("/host/camera/state").get_json()["roi_from"] == "config"
        client.post("/host/camera/region", json={"roi": [10, 10, 70, 50]}, headers=headers)
        state = client.get("/host/camera/state").get_json()
        assert state["roi"] == [10, 10, 70, 50] and state["roi_from"] == "panel"
        state = client.post("/host/camera/forget", headers=headers).get_json()
        assert state["roi"] == [0, 0, 50, 50] and state["roi_from"] == "config"
    finally:
        service.stop()


def test_without_a_camera_picture_nothing_is_set(rig):
    client, headers = host_client(rig)
    rig.camera.unplugged.set()
    later_turns(rig.desk)
    assert rig.desk.latest_frame() is None, "the old picture should go stale"
    answer = client.post("/host/camera/empty-table", headers=headers)
    assert answer.status_code == 409 and "camera" in answer.get_json()["error"]
    assert client.get("/host/camera/picture.jpg").status_code == 404
    answer = client.post("/host/camera/region", json={"roi": [0, 0, 80, 60]}, headers=headers)
    assert answer.status_code == 409 and "no picture" in answer.get_json()["error"]
    assert saved(rig) is None


def test_a_broken_calibration_file_is_kept_aside_and_the_config_applies(tmp_path):
    (tmp_path / CALIBRATION_FILE).write_text('{"roi": [1, 2, "x"')
    store = CalibrationStore(tmp_path)
    assert store.load() == Calibration()
    assert "could not be used" in store.problem
    aside = list(tmp_path.glob(f"{CALIBRATION_FILE}.bad-*"))
    assert len(aside) == 1 and aside[0].read_text() == '{"roi": [1, 2, "x"'  # nothing lost

    (tmp_path / CALIBRATION_FILE).write_text('{"roi": [0, 0, 40, 40], "empty_table": "../etc/passwd"}')
    assert CalibrationStore(tmp_path).load() == Calibration()  # a name outside the data dir is refused

    (tmp_path / CALIBRATION_FILE).write_text('{"roi": [0, 0, 40, 40], "empty_table": "empty-table-1.png"}')
    store = CalibrationStore(tmp_path)
    assert store.load() == Calibration(roi=(0, 0, 40, 40))  # the region stays; the missing photo does not
    assert "missing" in store.problem


def test_a_broken_calibration_is_shown_on_the_slate_and_the_service_still_starts(tmp_path):
    (tmp_path / CALIBRATION_FILE).write_text("not json")
    service = start(tmp_path, FakeCamera(), lambda: FakeReader(NO_DICE))
    try:
        devices = service.table.snapshot()["devices"]
        assert devices["calibration"]["status"] == "warning"
        assert "could not be used" in devices["calibration"]["message"]
        a_picture(service.desk)
        client, headers = host_client(service)
        assert client.post("/host/camera/region", json={"roi": [0, 0, 80, 60]}, headers=headers).status_code == 200
        assert service.table.snapshot()["devices"]["calibration"]["status"] == "ok"  # answered by the new one
    finally:
        service.stop()


def test_check_region_rounds_and_refuses():
    assert check_region(["1", 2.6, 40.2, 40], 80, 60) == (1, 3, 40, 40)
    with pytest.raises(CalibrationInputError, match="four"):
        check_region([0, 0, True, 40], 80, 60)
    with pytest.raises(RegionDoesNotFit, match="outside"):
        check_region([-1, 0, 40, 40], 80, 60)
    with pytest.raises(RegionDoesNotFit, match="too small"):
        check_region([0, 0, 20, 20], 80, 60)
    with pytest.raises(CalibrationInputError, match="finite"):
        check_region([0, 0, float("inf"), 40], 80, 60)


def test_with_the_real_reader_the_photo_taken_on_the_page_tells_a_hand_from_the_table(table, tmp_path):  # noqa: F811
    frame, empty, boxes = table
    camera = FakeCamera()
    camera.frame = frame  # dice on the table: the photo is refused
    service = start(tmp_path, camera, None)
    try:
        a_picture(service.desk)
        client, headers = host_client(service)
        answer = client.post("/host/camera/empty-table", headers=headers)
        # refused for the dice on it (how many the reader counts without the game's count is its own matter)
        assert answer.status_code == 409 and re.search(r"sees \d+ dice on the table: clear the tray",
                                                       answer.get_json()["error"])

        def hand_read(frame_, reader):
            return reader.read(with_hand(frame, boxes), "pips")

        assert COVERED not in (service.desk.on_camera_thread(hand_read).reason or "")
        camera.frame = empty
        assert client.post("/host/camera/empty-table", headers=headers).status_code == 200
        later_turns(service.desk)
        assert COVERED in (service.desk.on_camera_thread(hand_read).reason or ""), "the new photo is not in use"
    finally:
        service.stop()


def test_the_demo_shows_its_pictures_but_sets_nothing(tmp_path):
    config = parse_config({"web": {"host": "127.0.0.1"}, "host": {"pin": PIN}})
    service = TableService(config, tmp_path, demo=True, port=0)
    service.start()
    try:
        a_picture(service.desk, timeout=20)
        client, headers = host_client(service)
        assert client.get("/host/camera/picture.jpg").status_code == 200
        page = client.get("/host/camera").get_data(as_text=True)
        assert "several cameras" in page and "Take the empty-table photo" not in page
        slate = client.get("/").get_data(as_text=True)  # the slate's key shows the bundled spike dice
        assert all(f'src="/spike-face/{face}.png"' in slate for face in range(1, 7))
        key = cv2.imdecode(np.frombuffer(client.get("/spike-face/4.png").data, np.uint8), cv2.IMREAD_COLOR)
        assert key.shape == (96, 96, 3)
        for path, body in (("/host/camera/empty-table", None), ("/host/camera/region", {"roi": [0, 0, 100, 100]}),
                           ("/host/camera/forget", None), ("/host/camera/measure-light", None)):
            answer = client.post(path, json=body or {}, headers=headers)
            assert answer.status_code == 409 and "several cameras" in answer.get_json()["error"]
        assert saved(service) is None
        trial = client.post("/host/camera/try-read", json={"kind": "pips"}, headers=headers)  # reading changes nothing
        assert trial.status_code == 200 and trial.get_json()["message"].startswith("read 0 dice; it would be held")
    finally:
        service.stop()


def spike_entries():
    manifest = json.loads((SPIKES / "manifest.json").read_text())
    return {e["image"]: e for e in manifest if e["image"].startswith("images/spikeA")}


def test_spike_faces_taught_from_the_camera_read_the_table_s_dice(tmp_path):
    entries = spike_entries()
    camera = FakeCamera()
    camera.frame = np.full((480, 640, 3), 90, np.uint8)  # an empty tray
    service = start(tmp_path, camera, None)
    try:
        a_picture(service.desk)
        client, headers = host_client(service)
        state = client.get("/host/camera/state").get_json()["spike"]
        assert state == {"examples": {}, "untaught": [1, 2, 3, 4, 5, 6], "problem": None, "from": None, "undo_face": None}

        answer = client.post("/host/camera/teach-spike", json={"face": 2}, headers=headers)
        assert answer.status_code == 409 and "no die found" in answer.get_json()["error"]
        for face, words in ((7, "1 to 6"), ("two", "1 to 6"), (True, "1 to 6")):
            answer = client.post("/host/camera/teach-spike", json={"face": face}, headers=headers)
            assert answer.status_code == 400 and words in answer.get_json()["error"]
        assert saved(service) is None  # nothing taught, nothing written
        assert client.get("/spike-face/2.png").status_code == 404  # the slate has no key yet

        for name, entry in entries.items():
            if entry["fixture_role"] != "enrol":
                continue
            camera.frame = cv2.imread(str(SPIKES / name))
            face = int(entry["dice"][0])
            answer = client.post("/host/camera/teach-spike", data={"face": str(face),
                                 "csrf_token": headers["X-CSRF-Token"]}, headers={"Accept": "application/json"})
            assert answer.status_code == 200, answer.get_data(as_text=True)
            assert f"taught face {face} from {len(entry['dice'])} di" in answer.get_json()["message"]
            assert "pips are counted" not in answer.get_json()["message"]  # symbols: no pip face
        page = client.post("/host/camera/teach-spike", data={"face": "6", "csrf_token": headers["X-CSRF-Token"]},
                           headers={"Accept": "text/html"}, follow_redirects=True).get_data(as_text=True)
        assert page.count("taught face 6 from 2 dice") == 1 and "the boxed dice were taken" in page  # by its picture
        lesson = cv2.imdecode(np.frombuffer(client.get("/host/camera/trial.jpg").data, np.uint8), cv2.IMREAD_COLOR)
        assert lesson.shape == camera.frame.shape and not np.array_equal(lesson, camera.frame)
        state = client.get("/host/camera/state").get_json()["spike"]
        assert state["untaught"] == [] and state["from"] == "panel" and state["undo_face"] == 6
        before = state["examples"]
        camera.frame = cv2.imread(str(SPIKES / "images/spikeA_enrol_0002.jpg"))  # face 1 shown, taught as 3 by mistake
        assert client.post("/host/camera/teach-spike", json={"face": 3}, headers=headers).status_code == 200
        assert client.get("/host/camera/state").get_json()["spike"]["examples"]["3"] == before["3"] + 1
        undone = client.post("/host/camera/undo-lesson", headers=headers).get_json()
        assert undone["message"] == "the last lesson (face 3) is taken back"
        state = undone["spike"]
        assert state["examples"] == before and state["undo_face"] is None
        again = client.post("/host/camera/undo-lesson", headers=headers)
        assert again.status_code == 409 and "no lesson" in again.get_json()["error"]
        taught = sum(len(e["dice"]) for e in entries.values() if e["fixture_role"] == "enrol")
        assert sum(state["examples"].values()) == taught + 2  # face 6's photo taught twice, once by the form
        assert saved(service)["spike_profile"] == "spike-profile.npz"
        key = cv2.imdecode(np.frombuffer(client.get("/spike-face/2.png").data, np.uint8), cv2.IMREAD_COLOR)
        assert key.shape == (96, 96, 3)  # a die taught as 2, for the slate's key

        scene = entries["images/spikeA_0031.jpg"]
        frame = cv2.imread(str(SPIKES / scene["image"]))
        later_turns(service.desk)
        sight = service.desk.on_camera_thread(lambda f, reader: reader.read(frame, "spike"))
        assert not sight.flagged and sorted(sight.values) == sorted(scene["dice"])

        camera.frame = frame
        trial = client.post("/host/camera/try-read", json={"kind": "spike"}, headers=headers).get_json()
        said = "read 5 dice: " + ", ".join(map(str, sight.values))
        assert trial["message"].startswith(said + "; dice are ") and not trial["trial"]["flagged"]
        assert saved(service)["die_size"] > 0  # a clean trial read: the die size is learned
        shot = cv2.imdecode(np.frombuffer(client.get("/host/camera/trial.jpg").data, np.uint8), cv2.IMREAD_COLOR)
        assert shot.shape == frame.shape and not np.array_equal(shot, frame)  # the dice boxed on it

        fresh = client.post("/host/camera/new-spike-profile", headers=headers).get_json()
        assert fresh["spike"]["untaught"] == [1, 2, 3, 4, 5, 6] and "kept as spike-profile-replaced-" in fresh["message"]
        assert len(list(tmp_path.glob("spike-profile-replaced-*.npz"))) == 1  # the taught faces are not lost
        assert client.get("/spike-face/2.png").status_code == 404  # the key follows the profile in force
        later_turns(service.desk)
        sight = service.desk.on_camera_thread(lambda f, reader: reader.read(frame, "spike"))
        assert sight.flagged and "taught profile" in sight.reason
    finally:
        service.stop()


def test_a_trial_read_shows_what_a_reveal_would_read_and_offers_nothing(rig):
    client, headers = host_client(rig)
    assert client.get("/host/camera/trial.jpg").status_code == 404
    rig.reader.sight = Sight((3, 5), ((10, 10, 30, 30), (40, 10, 60, 30)), (0.99, 0.6), True, "die 2 is unclear")
    answer = client.post("/host/camera/try-read", json={"kind": "pips"}, headers=headers)
    assert answer.status_code == 200
    assert answer.get_json()["message"] == "read 2 dice: 3, 5; it would be held for the host: die 2 is unclear"
    assert rig.desk.readings == 0 and rig.table.host_view().get("held_reading") is None  # nothing offered
    assert client.get("/host/camera/trial.jpg").headers["Content-Type"] == "image/jpeg"
    form = client.post("/host/camera/try-read", data={"kind": "pips", "csrf_token": headers["X-CSRF-Token"]},
                       headers={"Accept": "text/html"}, follow_redirects=True)
    page = form.get_data(as_text=True)
    assert page.count("die 2 is unclear") == 1 and "/host/camera/trial.jpg" in page  # said once, by the picture
    answer = client.post("/host/camera/try-read", json={"kind": "d20"}, headers=headers)
    assert answer.status_code == 400 and "pips, chance, spike" in answer.get_json()["error"]


def test_a_clean_trial_read_teaches_the_reader_the_die_size_and_forget_unlearns_it(rig):
    client, headers = host_client(rig)
    rig.reader.sight = Sight((3, 5), ((10, 10, 30, 30), (40, 10, 64, 34)), (0.99, 0.6), True, "die 2 is unclear")
    client.post("/host/camera/try-read", json={"kind": "pips"}, headers=headers)
    assert (saved(rig) or {}).get("die_size") is None  # a held reading teaches nothing
    rig.reader.sight = Sight((3, 5, 6), ((10, 10, 30, 30), (40, 10, 64, 34), (70, 10, 92, 32)), (0.99, 0.97, 0.98))
    answer = client.post("/host/camera/try-read", json={"kind": "pips"}, headers=headers).get_json()
    assert "dice are 22 px across here" in answer["message"]
    assert saved(rig)["die_size"] == 22.0 and rig.camera_setup.vision.die_size == 22.0
    assert "die size" in client.post("/host/camera/forget", headers=headers).get_json()["message"]
    assert saved(rig)["die_size"] is None and rig.camera_setup.vision.die_size is None


def test_a_damaged_die_size_in_the_calibration_file_is_refused():
    with pytest.raises(CalibrationError, match="die_size"):
        Calibration.from_json({"roi": None, "die_size": "big"})
    assert Calibration.from_json({"die_size": 40}).die_size == 40.0


def test_during_a_game_the_camera_page_shows_no_picture_and_reads_no_dice(rig):
    client, headers = host_client(rig)
    rig.reader.sight = NO_DICE
    rig.table.start_game("toy", ["Ann", "Ben"])  # the dice under the cups are secret now
    shot = client.get("/host/camera/picture.jpg", headers={"Accept": "application/json"})
    assert shot.status_code == 409 and "secret" in shot.get_json()["error"]
    page = client.get("/host/camera").get_data(as_text=True)
    assert "The picture is hidden" in page and "cam-picture" not in page and "Read the dice in view now" not in page
    assert client.get("/host/camera/state").get_json()["withheld"]
    for path, body in (("/host/camera/try-read", {"kind": "pips"}), ("/host/camera/teach-spike", {"face": 1})):
        answer = client.post(path, json=body, headers=headers)
        assert answer.status_code == 409 and "secret" in answer.get_json()["error"]
    assert client.post("/host/camera/empty-table", headers=headers).status_code == 200  # shows nothing secret
    assert client.post("/host/camera/region", json={"roi": [0, 0, 80, 60]}, headers=headers).status_code == 200
    rig.table.end_game("ended by the host")
    assert client.get("/host/camera/picture.jpg").status_code == 200
    assert client.get("/host/camera/state").get_json()["withheld"] is None


class PiLikeCamera(FakeCamera):
    """A camera that, like the Pi camera, holds its exposure until asked to measure the light again."""

    def __init__(self):
        super().__init__()
        self.measured: list[float | None] = []
        self.broken = False

    def measure_light(self, settle_seconds=None):
        if self.broken:
            raise CameraUnavailable("the Raspberry Pi camera could not measure the light (timed out)")
        self.measured.append(settle_seconds)
        self.frame = np.full((60, 80, 3), 140, np.uint8)  # the lamp went on; now exposed for it
        return {"ExposureTime": 12345, "AnalogueGain": 2.5, "ColourGains": (1.8, 1.4)}


def test_the_light_is_measured_again_from_the_page_even_during_a_game(tmp_path):
    camera = PiLikeCamera()
    service = start(tmp_path, camera, lambda: FakeReader(NO_DICE))
    try:
        a_picture(service.desk)
        client, headers = host_client(service)
        page = client.get("/host/camera").get_data(as_text=True)
        assert "Measure the light again" in page and "Measured again on this page" not in page
        assert client.get("/host/camera/state").get_json()["light"] == {"can_measure": True, "measured": None}
        assert rig_refuses_without_token(client)

        service.table.start_game("toy", ["Ann", "Ben"])  # nothing secret is shown by measuring
        answer = client.post("/host/camera/measure-light", headers=headers)
        assert answer.status_code == 200, answer.get_json()
        body = answer.get_json()
        assert body["message"] == "the light was measured again and locked (exposure 12.3 ms, gain 2.5)"
        assert body["light"]["measured"]["exposure_ms"] == 12.3 and body["light"]["measured"]["gain"] == 2.5
        assert camera.measured == [None]  # the camera's own warm-up time
        service.table.end_game("ended by the host")
        later_turns(service.desk)
        assert int(service.desk.latest_frame().mean()) == 140, "the new exposure is not in use"
        assert "exposure 12.3 ms, gain 2.5" in client.get("/host/camera").get_data(as_text=True)

        assert client.post("/host/camera/empty-table", headers=headers).status_code == 200
        said = client.post("/host/camera/measure-light", headers=headers).get_json()["message"]
        assert said.endswith("if the clear table then shows as covered, take the empty-table photo again")

        camera.broken = True
        before = client.get("/host/camera/state").get_json()["light"]
        answer = client.post("/host/camera/measure-light", headers=headers)
        assert answer.status_code == 409 and "could not measure the light" in answer.get_json()["error"]
        assert client.get("/host/camera/state").get_json()["light"] == before  # the last good measure stands
    finally:
        service.stop()


def rig_refuses_without_token(client) -> bool:
    return client.post("/host/camera/measure-light", json={}).status_code == 403


def test_a_camera_that_sets_its_own_exposure_has_no_light_to_measure(rig):
    client, headers = host_client(rig)
    answer = client.post("/host/camera/measure-light", headers=headers)
    assert answer.status_code == 409 and "sets its own exposure" in answer.get_json()["error"]
    assert rig.app.test_client().post("/host/camera/measure-light").status_code == 401

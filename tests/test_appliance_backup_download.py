"""Issue 24: the host panel's backup download (GET /host/backup), the archive `companion backup` writes."""

from __future__ import annotations

import io
import json
import re
import zipfile
from functools import partial

from companion.appliance.backup import DEMO_REFUSAL, archive_bytes, restore_backup
from companion.appliance.config import parse_config
from companion.appliance.service import TableService
from companion.sqlite_store import SqliteStore
from companion.table import Table
from test_appliance_backup import CONFIG, downloads, table_with_games
from web_app import login, make_app

NAME = re.compile(r'attachment; filename="game-companion-backup-\d{8}-\d{4}\.zip"')


def test_a_visitor_is_refused_the_backup_and_the_host_gets_the_archive(tmp_path):
    data_dir = tmp_path / "old"
    ids, before = table_with_games(data_dir)
    config = tmp_path / "config.toml"
    config.write_text(CONFIG)
    app, _ = make_app(backup=partial(archive_bytes, data_dir, config))
    client = app.test_client()
    refused = client.get("/host/backup")
    assert refused.status_code == 401 and refused.mimetype != "application/zip"

    login(client)
    assert 'href="/host/backup"' in client.get("/host").get_data(as_text=True)  # the panel's link
    response = client.get("/host/backup")
    assert response.status_code == 200 and response.mimetype == "application/zip"
    assert NAME.fullmatch(response.headers["Content-Disposition"])
    assert "no-store" in response.headers["Cache-Control"]
    with zipfile.ZipFile(io.BytesIO(response.get_data())) as archive:
        manifest = json.loads(archive.read("manifest.json"))
    assert "data/games.sqlite3" in manifest["files"] and "config/config.toml" in manifest["files"]

    archive_file = tmp_path / "downloaded.zip"
    archive_file.write_bytes(response.get_data())
    restore_backup(archive_file, tmp_path / "new")  # the restore command's own code
    store = SqliteStore.in_dir(tmp_path / "new")
    try:
        assert downloads(Table(store), ids) == before  # the finished game, byte for byte
    finally:
        store.close()


def test_without_a_backup_wired_in_there_is_no_link_and_no_download(tmp_path):
    client = make_app()[0].test_client()
    login(client)
    assert "/host/backup" not in client.get("/host").get_data(as_text=True)
    assert client.get("/host/backup").status_code == 404


def test_an_empty_data_directory_answers_409_with_the_reason(tmp_path):
    client = make_app(backup=partial(archive_bytes, tmp_path))[0].test_client()
    login(client)
    response = client.get("/host/backup", headers={"Accept": "application/json"})
    assert response.status_code == 409 and "nothing to back up" in response.get_data(as_text=True)


def _service_client(tmp_path, demo: bool):
    config = parse_config({"web": {"host": "127.0.0.1"}})
    service = TableService(config, tmp_path, demo=demo, port=0, open_camera=lambda: None, make_reader=lambda: None)
    service.start()
    client = service.app.test_client()
    login(client, service.credentials.pin)
    return service, client


def test_the_service_serves_its_own_data_directory_and_the_demo_refuses(tmp_path):
    service, client = _service_client(tmp_path / "real", demo=False)
    try:
        service.table.start_game("toy", ["Ann", "Ben"])
        response = client.get("/host/backup")
        assert response.status_code == 200
        with zipfile.ZipFile(io.BytesIO(response.get_data())) as archive:
            assert "data/games.sqlite3" in json.loads(archive.read("manifest.json"))["files"]
    finally:
        service.stop()
    service, client = _service_client(tmp_path / "demo", demo=True)
    try:
        response = client.get("/host/backup", headers={"Accept": "application/json"})
        assert response.status_code == 409 and response.get_json()["error"] == DEMO_REFUSAL
    finally:
        service.stop()

"""Issue 24: `companion backup` / `companion restore`: the whole table in one file."""

from __future__ import annotations

import hashlib
import json
import stat
import zipfile
from pathlib import Path

import pytest

from companion.appliance.backup import BackupError, create_backup, read_backup, restore_backup
from companion.appliance.cli import main
from companion.sqlite_store import SqliteStore
from companion.table import Table
from web_app import make_app, play_out

CONFIG = '[host]\npin = "482913"\n\n[camera]\nsource = "picamera"\n'


def table_with_games(data_dir: Path) -> tuple[list[str], dict[str, bytes]]:
    """A data directory with a finished and an unfinished game, calibration and a spike
    profile; returns the games' ids and their downloads (the history page's export)."""
    data_dir.mkdir(parents=True, exist_ok=True)
    store = SqliteStore.in_dir(data_dir)
    table = Table(store)
    table.start_game("toy", ["Ann", "Ben"])
    play_out(table, seed=3)
    table.start_game("toy", ["Cat", "Dan", "Eve"])
    table.press(0, "green")
    ids = [game["id"] for game in store.list_games()]
    exports = downloads(table, ids)
    store.close()
    (data_dir / "calibration.json").write_text('{"roi": [1, 2, 300, 200]}')
    (data_dir / "empty-table-20261126-040000-000001.png").write_bytes(b"\x89PNG fake photo")
    (data_dir / "spike-profile.npz").write_bytes(b"PK spike profile")
    (data_dir / "pin-budget.json").write_text("{}")
    return ids, exports


def downloads(table: Table, ids: list[str]) -> dict[str, bytes]:
    client = make_app(table)[0].test_client()
    out = {}
    for game_id in ids:
        response = client.get(f"/games/{game_id}.json")
        assert response.status_code == 200
        out[game_id] = response.get_data()
    return out


def listing(folder: Path) -> dict[str, str]:
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def test_backup_then_restore_on_a_fresh_card_gives_the_same_games_byte_for_byte(tmp_path):
    ids, before = table_with_games(tmp_path / "old")
    config = tmp_path / "config.toml"
    config.write_text(CONFIG)
    archive = tmp_path / "table.zip"
    files = create_backup(tmp_path / "old", archive, config)
    assert stat.S_IMODE(archive.stat().st_mode) == 0o600  # it holds the host PIN
    assert "data/pin-budget.json" not in files and "data/service.lock" not in files
    new_config = tmp_path / "etc" / "config.toml"
    new_config.parent.mkdir()
    restore_backup(archive, tmp_path / "new", new_config)
    assert new_config.read_text() == CONFIG
    for name in ("calibration.json", "empty-table-20261126-040000-000001.png", "spike-profile.npz"):
        assert (tmp_path / "new" / name).read_bytes() == (tmp_path / "old" / name).read_bytes()
    store = SqliteStore.in_dir(tmp_path / "new")
    try:
        table = Table(store)
        assert table.resume()  # the unfinished game goes on
        assert downloads(table, ids) == before
    finally:
        store.close()


@pytest.mark.parametrize("damage", ["truncated", "flipped", "foreign", "not a zip", "bad database", "stray member"])
def test_a_damaged_or_foreign_archive_is_refused_and_nothing_changes(tmp_path, damage):
    table_with_games(tmp_path / "data")
    archive = tmp_path / "table.zip"
    create_backup(tmp_path / "data", archive)
    (tmp_path / "target").mkdir()
    table_with_games(tmp_path / "target")
    before = listing(tmp_path / "target")
    raw = archive.read_bytes()
    if damage == "truncated":
        archive.write_bytes(raw[: len(raw) // 2])
    elif damage == "flipped":
        rewrite(archive, lambda name, data: data[:-1] + bytes([data[-1] ^ 1]) if name.endswith(".sqlite3") else data)
    elif damage == "foreign":
        rewrite(archive, lambda name, data: json.dumps({"format": "something-else", "version": 1}).encode()
                if name == "manifest.json" else data)
    elif damage == "not a zip":
        archive.write_text("hello")
    elif damage == "bad database":
        rewrite(archive, lambda name, data: b"not sqlite" * 100 if name.endswith(".sqlite3") else data, rehash=True)
    elif damage == "stray member":
        rewrite(archive, lambda name, data: data, extra=("../../etc/passwd", b"x"), rehash=True)
    with pytest.raises(BackupError):
        restore_backup(archive, tmp_path / "target")
    assert listing(tmp_path / "target") == before


def rewrite(archive: Path, change, *, extra=None, rehash=False) -> None:
    with zipfile.ZipFile(archive) as old:
        members = {name: change(name, old.read(name)) for name in old.namelist()}
    if extra:
        members[extra[0]] = extra[1]
    if rehash:
        manifest = json.loads(members["manifest.json"])
        manifest["files"] = {name: hashlib.sha256(data).hexdigest() for name, data in members.items() if name != "manifest.json"}
        members["manifest.json"] = json.dumps(manifest).encode()
    with zipfile.ZipFile(archive, "w") as new:
        for name, data in members.items():
            new.writestr(name, data)


def test_restore_refuses_while_the_service_holds_the_data_directory(tmp_path):
    import fcntl

    table_with_games(tmp_path / "data")
    archive = tmp_path / "table.zip"
    create_backup(tmp_path / "data", archive)
    with open(tmp_path / "data" / "service.lock", "a+") as held:
        fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)
        with pytest.raises(BackupError, match="stop it first"):
            restore_backup(archive, tmp_path / "data")
    assert read_backup(archive)  # and the archive itself is sound


def test_the_commands_round_trip_and_say_what_they_did(tmp_path, capsys):
    ids, before = table_with_games(tmp_path / "data")
    archive = tmp_path / "table.zip"
    assert main(["backup", "--out", str(archive), "--data-dir", str(tmp_path / "data")]) == 0
    assert "games.sqlite3" in capsys.readouterr().out
    assert main(["restore", str(archive), "--data-dir", str(tmp_path / "again")]) == 0
    assert "restored" in capsys.readouterr().out
    archive.write_text("junk")
    assert main(["restore", str(archive), "--data-dir", str(tmp_path / "again")]) == 1
    assert "nothing was changed" in capsys.readouterr().out

"""One file that holds the whole table: games, config, calibration, spike profile.

`companion backup --out FILE` and `companion restore FILE` (a card swap, a second Pi). The
archive is a zip with a manifest (`manifest.json`: its format name and version, and the
SHA-256 of every member). The games database is copied with sqlite3's online backup API,
so a running service keeps playing while it is taken and the copy is consistent. Also kept:
from the data directory the calibration (`calibration.json` and its empty-table photos), the
spike profile, the host PIN and cookie key files; the config file when one is named.
Left out: the lock, the PIN-guess budget and SQLite's side files.

Restore checks everything first (format, version, each member's hash, the database's own
integrity check) and refuses a damaged or foreign archive with a message, touching
nothing. It refuses while a service holds the data directory. Files then go in by
rename, one at a time, each written beside its target first.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import sqlite3
import tempfile
import time
import zipfile
from pathlib import Path, PurePosixPath

FORMAT = "game-table-companion-backup"
VERSION = 1
MANIFEST = "manifest.json"
DATABASE = "games.sqlite3"
#: Data-directory files kept besides the database (names, or prefixes ending in "*").
DATA_FILES = ("calibration.json", "spike-profile.npz", "host-pin", "secret-key", "empty-table-*")
CONFIG_MEMBER = "config/config.toml"
LOCK_FILE = "service.lock"


class BackupError(Exception):
    """The backup or restore cannot be done; the message says why. Nothing was changed."""


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _data_files(data_dir: Path) -> list[Path]:
    found = []
    for pattern in DATA_FILES:
        found += sorted(path for path in data_dir.glob(pattern) if path.is_file())
    return found


def _database_copy(source: Path) -> bytes:
    """The database as of now, through sqlite3's online backup (the service may be writing)."""
    with tempfile.TemporaryDirectory() as scratch:
        copy = Path(scratch) / DATABASE
        src = sqlite3.connect(f"file:{source}?mode=ro", uri=True)
        dest = sqlite3.connect(copy)
        try:
            src.backup(dest)
        finally:
            dest.close()
            src.close()
        return copy.read_bytes()


def create_backup(data_dir: Path, out: Path, config: Path | None = None) -> dict[str, str]:
    """Write the archive to `out` (mode 0600: it holds the host PIN); returns its manifest's files."""
    data_dir = Path(data_dir)
    members: dict[str, bytes] = {}
    database = data_dir / DATABASE
    if database.is_file():
        members[f"data/{DATABASE}"] = _database_copy(database)
    for path in _data_files(data_dir):
        members[f"data/{path.name}"] = path.read_bytes()
    if config is not None:
        members[CONFIG_MEMBER] = Path(config).read_bytes()
    if not members:
        raise BackupError(f"nothing to back up in {data_dir}: no games, calibration or config there")
    manifest = {"format": FORMAT, "version": VERSION, "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
                "files": {name: _sha256(data) for name, data in sorted(members.items())}}
    out = Path(out)
    partial = out.with_name(out.name + ".partial")
    fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as handle, zipfile.ZipFile(handle, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(MANIFEST, json.dumps(manifest, indent=2))
        for name, data in sorted(members.items()):
            archive.writestr(name, data)
    os.replace(partial, out)
    return manifest["files"]


def archive_bytes(data_dir: Path, config: Path | None = None) -> bytes | str:
    """The archive `create_backup` writes, as bytes (the host panel's download), or a str
    saying why there is none."""
    with tempfile.TemporaryDirectory() as scratch:
        out = Path(scratch) / "backup.zip"
        try:
            create_backup(data_dir, out, config)
        except (BackupError, OSError) as exc:
            return f"no backup: {exc}"
        return out.read_bytes()


#: The demo's answer to the host panel's download: its games are not the table's.
DEMO_REFUSAL = ("the demo keeps its games apart from the table's: back up the real table "
                "(`companion backup`, or the host panel of `companion serve`)")


def read_backup(path: Path) -> dict[str, bytes]:
    """Every member of a sound archive by name; BackupError for anything else."""
    try:
        with zipfile.ZipFile(path) as archive:
            names = archive.namelist()
            if MANIFEST not in names:
                raise BackupError(f"{path} is not a Game Table Companion backup (no manifest)")
            manifest = json.loads(archive.read(MANIFEST))
            if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
                raise BackupError(f"{path} is not a Game Table Companion backup")
            if manifest.get("version") != VERSION:
                raise BackupError(f"{path} is a backup of version {manifest.get('version')!r}; this companion reads {VERSION}")
            files = manifest.get("files")
            if not isinstance(files, dict) or set(files) != set(names) - {MANIFEST}:
                raise BackupError(f"{path} is damaged: its members do not match its manifest")
            members = {}
            for name, digest in files.items():
                _check_member_name(path, name)
                data = archive.read(name)
                if _sha256(data) != digest:
                    raise BackupError(f"{path} is damaged: {name} does not match its checksum")
                members[name] = data
    except (zipfile.BadZipFile, OSError, ValueError, KeyError, EOFError) as exc:
        raise BackupError(f"{path} cannot be read as a backup ({exc})") from exc
    if f"data/{DATABASE}" in members:
        _check_database(path, members[f"data/{DATABASE}"])
    return members


def _check_member_name(path: Path, name: str) -> None:
    member = PurePosixPath(name)
    allowed = name == CONFIG_MEMBER or (
        len(member.parts) == 2 and member.parts[0] == "data"
        and any(PurePosixPath(member.name).match(pattern) for pattern in (DATABASE, *DATA_FILES)))
    if not allowed:
        raise BackupError(f"{path} holds {name!r}, which no backup of this companion holds")


def _check_database(path: Path, data: bytes) -> None:
    with tempfile.TemporaryDirectory() as scratch:
        copy = Path(scratch) / DATABASE
        copy.write_bytes(data)
        try:
            db = sqlite3.connect(copy)
            try:
                verdict = db.execute("PRAGMA integrity_check").fetchone()[0]
                tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
            finally:
                db.close()
        except sqlite3.DatabaseError as exc:
            raise BackupError(f"{path} is damaged: its games database cannot be read ({exc})") from exc
    if verdict != "ok" or "games" not in tables:
        raise BackupError(f"{path} is damaged: its games database fails its check ({verdict})")


def restore_backup(path: Path, data_dir: Path, config: Path | None = None) -> list[str]:
    """Put the archive's files in place; returns what was written. Checks first, then writes."""
    members = read_backup(path)
    data_dir = Path(data_dir)
    data_dir.mkdir(parents=True, exist_ok=True)
    with _data_dir_free(data_dir):
        targets = []
        for name, data in members.items():
            if name == CONFIG_MEMBER:
                if config is None:
                    continue
                targets.append((Path(config), data))
            else:
                targets.append((data_dir / PurePosixPath(name).name, data))
        for suffix in ("-wal", "-shm"):  # an old database's side files must not meet the new one
            side = data_dir / (DATABASE + suffix)
            if f"data/{DATABASE}" in members and side.exists():
                side.unlink()
        written = []
        for target, data in targets:
            staged = target.with_name(f".{target.name}.restoring")
            mode = target.stat().st_mode & 0o777 if target.exists() else 0o600  # keep the file's own mode
            fd = os.open(staged, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(staged, target)
            written.append(str(target))
        return written


class _data_dir_free:
    """Holds the data directory's service lock for the restore; refuses when a service holds it."""

    def __init__(self, data_dir: Path):
        self.path = data_dir / LOCK_FILE

    def __enter__(self):
        self.handle = open(self.path, "a+")
        try:
            fcntl.flock(self.handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            self.handle.close()
            raise BackupError("the table service is running on this data directory: stop it first "
                              "(sudo systemctl stop game-companion)") from None
        return self

    def __exit__(self, *exc_info):
        self.handle.close()


def describe(members: dict[str, bytes]) -> str:
    """A short summary of what an archive holds, for the command's output."""
    names = sorted(members)
    return ", ".join(PurePosixPath(name).name for name in names) if names else "nothing"

"""`companion serve` refuses to start with a clear message (exit 2), never a traceback."""

from __future__ import annotations

import hashlib

import pytest

from companion.appliance.cli import main


def _serve(*args):
    return main(["serve", "--port", "0", "--host", "127.0.0.1", *args])


def test_a_missing_config_file_is_named(tmp_path, capsys):
    assert _serve("--config", str(tmp_path / "nope.toml"), "--data-dir", str(tmp_path)) == 2
    err = capsys.readouterr().err
    assert "companion serve: no config file at" in err and "Traceback" not in err


def test_an_unknown_config_key_is_named(tmp_path, capsys):
    config = tmp_path / "config.toml"
    config.write_text("[web]\nprot = 8000\n")
    assert _serve("--config", str(config), "--data-dir", str(tmp_path)) == 2
    assert "[web] unknown key 'prot'" in capsys.readouterr().err


@pytest.mark.parametrize("content, words", [
    (b"not a database" * 300, "not a readable SQLite database"),
])
def test_a_corrupt_database_is_refused_and_kept(tmp_path, capsys, content, words):
    database = tmp_path / "games.sqlite3"
    database.write_bytes(content)
    before = hashlib.sha256(database.read_bytes()).hexdigest()
    config = tmp_path / "config.toml"
    config.write_text('[camera]\nsource = "none"\n[gpio]\npin_factory = "mock"\n')
    assert _serve("--config", str(config), "--data-dir", str(tmp_path)) == 2
    err = capsys.readouterr().err
    assert words in err and "left untouched" in err
    assert hashlib.sha256(database.read_bytes()).hexdigest() == before


def test_a_port_in_use_is_a_clear_error(tmp_path, capsys):
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        config = tmp_path / "config.toml"
        config.write_text('[camera]\nsource = "none"\n[gpio]\npin_factory = "mock"\n')
        code = main(["serve", "--port", str(port), "--host", "127.0.0.1", "--config", str(config),
                     "--data-dir", str(tmp_path)])
    assert code == 2
    assert f"cannot listen on 127.0.0.1:{port}" in capsys.readouterr().err

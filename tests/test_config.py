"""The config file, the data directory and the host's PIN."""

from __future__ import annotations

import stat

import pytest

from companion.appliance.config import (
    ConfigError,
    default_data_dir,
    host_credentials,
    load_config,
    parse_config,
    prepare_data_dir,
)


def _write(tmp_path, text):
    path = tmp_path / "config.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_no_config_file_means_every_default():
    config = load_config(None)
    assert config.host.pin is None
    assert (config.web.host, config.web.port) == ("0.0.0.0", 8000)
    assert config.web.threads >= 60  # room for the slates' long-lived event streams
    assert config.table.name == "Game Table"
    assert len(config.gpio.seats) == 6  # the shipped wiring
    assert config.camera.source == "picamera"
    assert config.vision.dice == "pips"


def test_each_section_reaches_its_owner(tmp_path):
    path = _write(tmp_path, """
        [host]
        pin = "048213"
        [web]
        host = "127.0.0.1"
        port = 8123
        threads = 40
        [table]
        name = "Back room"
        [gpio]
        seats = 3
        pin_factory = "mock"
        [camera]
        source = "recorded"
        folder = "photos"
        [vision]
        dice = "chance"
        roi = [10, 20, 300, 400]
    """)
    config = load_config(path)
    assert config.host.pin == "048213"
    assert (config.web.host, config.web.port, config.web.threads) == ("127.0.0.1", 8123, 40)
    assert config.table.name == "Back room"
    assert len(config.gpio.seats) == 3 and config.gpio.pin_factory == "mock"
    assert config.camera.folder == tmp_path / "photos"  # relative to the config file
    assert config.vision.dice == "chance" and config.vision.roi == (10, 20, 300, 400)


@pytest.mark.parametrize("text, named", [
    ("[web]\nprot = 80\n", "'prot'"),
    ("[host]\npinn = \"1234\"\n", "'pinn'"),
    ("[table]\ncolour = \"red\"\n", "'colour'"),
    ("[tabel]\nname = \"x\"\n", "'tabel'"),
    ("port = 80\n", "'port'"),
    ("[gpio]\nreveel = 4\n", "'reveel'"),
    ("[camera]\nsorce = \"usb\"\n", "'sorce'"),
    ("[vision]\ndise = \"pips\"\n", "'dise'"),
])
def test_an_unknown_key_is_an_error_naming_it(tmp_path, text, named):
    with pytest.raises(ConfigError, match=named):
        load_config(_write(tmp_path, text))


@pytest.mark.parametrize("text, message", [
    ("[web]\nport = 70000\n", "web.port"),
    ("[web]\nport = \"8000\"\n", "web.port"),
    ("[web]\nhost = \"the pi\"\n", "web.host"),
    ("[web]\nthreads = 1\n", "web.threads"),
    ("[host]\npin = 1234\n", "quoted"),
    ("[host]\npin = \"12\"\n", "6 to 12 digits"),
    ("[host]\npin = \"12ab\"\n", "6 to 12 digits"),
    ("[host]\npin = \"48291\"\n", "6 to 12 digits in quotes \\(a shorter PIN is guessed too soon"),
    ("[table]\nname = \"\"\n", "table.name"),
    ("[camera]\nsource = \"telescope\"\n", "camera.source"),
    ("[gpio]\nreveal = 40\n", "gpio.reveal"),
    ("web = 3\n", "must be a section"),
])
def test_a_bad_value_is_an_error_naming_the_key(tmp_path, text, message):
    with pytest.raises(ConfigError, match=message):
        load_config(_write(tmp_path, text))


def test_broken_toml_and_a_missing_file_are_clear(tmp_path):
    with pytest.raises(ConfigError, match="not valid TOML"):
        load_config(_write(tmp_path, "[web\nport = 1\n"))
    with pytest.raises(ConfigError, match="no config file"):
        load_config(tmp_path / "nothing.toml")


def test_overrides_go_on_top_of_the_file(tmp_path):
    path = _write(tmp_path, "[camera]\nsource = \"usb\"\ndevice = 2\n")
    config = load_config(path, overrides={"camera": {"source": "none"}, "gpio": {"pin_factory": "mock"}})
    assert config.camera.source == "none"
    assert config.gpio.pin_factory == "mock"


def test_the_data_dir_follows_systemd_then_the_platform(monkeypatch, tmp_path):
    monkeypatch.setenv("STATE_DIRECTORY", str(tmp_path / "state"))
    assert default_data_dir() == tmp_path / "state"
    monkeypatch.delenv("STATE_DIRECTORY")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert default_data_dir() == tmp_path / "xdg" / "game-companion"
    assert prepare_data_dir(None).is_dir()


def test_a_generated_pin_is_kept_private_and_new_only_once(tmp_path):
    first = host_credentials(tmp_path, None)
    assert first.pin_is_new and first.pin.isdigit() and len(first.pin) == 6
    for name in ("host-pin", "secret-key"):
        assert stat.S_IMODE((tmp_path / name).stat().st_mode) == 0o600
    again = host_credentials(tmp_path, None)
    assert (again.pin, again.secret_key, again.pin_is_new) == (first.pin, first.secret_key, False)
    assert first.pin not in repr(first) and first.secret_key not in repr(first)


def test_a_configured_pin_wins_and_is_not_written(tmp_path):
    credentials = host_credentials(tmp_path, "5566")
    assert credentials.pin == "5566" and not credentials.pin_is_new
    assert not (tmp_path / "host-pin").exists()
    assert (tmp_path / "secret-key").exists()


def test_a_mangled_pin_file_is_a_clear_error(tmp_path):
    (tmp_path / "host-pin").write_text("hello\n")
    with pytest.raises(ConfigError, match="host-pin"):
        host_credentials(tmp_path, None)


def test_live_feeds_are_fewer_than_the_threads_unless_set():
    """Issue 25: slates must not take the threads the host's actions need."""
    assert parse_config({}).web.stream_limit == 80
    assert parse_config({"web": {"threads": 8}}).web.stream_limit == 4
    assert parse_config({"web": {"threads": 8, "max_streams": 6}}).web.stream_limit == 6
    with pytest.raises(ConfigError, match="web.max_streams must be a whole number from 1 to 6"):
        parse_config({"web": {"threads": 8, "max_streams": 8}})
    with pytest.raises(ConfigError, match="web.connections_per_client"):
        parse_config({"web": {"streams_per_client": 20, "connections_per_client": 16}})


def test_wifi_for_the_slates_join_code_is_checked():
    """Issue 24: [web] wifi_ssid / wifi_password, for the Pi's own hotspot."""
    web = parse_config({"web": {"wifi_ssid": "GameTable", "wifi_password": "dice-night-42"}}).web
    assert (web.wifi_ssid, web.wifi_password) == ("GameTable", "dice-night-42")
    assert parse_config({"web": {"wifi_ssid": "Open café"}}).web.wifi_password is None
    for bad in ({"wifi_ssid": ""}, {"wifi_ssid": "x" * 33}, {"wifi_ssid": "GameTable", "wifi_password": "short"},
                {"wifi_password": "no network named"}):
        with pytest.raises(ConfigError, match="wifi"):
            parse_config({"web": bad})

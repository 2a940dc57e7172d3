"""replace_file: the old file or the new one, never half of either, and nothing left behind."""

from __future__ import annotations

import os
import stat
from types import SimpleNamespace

import numpy as np
import pytest

from companion.appliance.cli import calibrate
from hardware import files
from hardware.files import replace_file
from hardware.vision import SpikeProfile


def test_a_new_file_is_written_whole(tmp_path):
    replace_file(tmp_path / "profile", b"taught")
    assert (tmp_path / "profile").read_bytes() == b"taught"
    assert os.listdir(tmp_path) == ["profile"]


def test_an_existing_file_keeps_its_permissions(tmp_path):
    target = tmp_path / "companion.toml"
    target.write_text("[host]\n")
    target.chmod(0o600)
    replace_file(target, b"[vision]\n")
    assert target.read_text() == "[vision]\n" and stat.S_IMODE(target.stat().st_mode) == 0o600


def test_a_write_that_fails_leaves_the_old_file_and_no_temporary(tmp_path, monkeypatch):
    target = tmp_path / "spike.profile"
    target.write_bytes(b"old lessons")

    def pulled_plug(fd):
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(files.os, "fsync", pulled_plug)
    with pytest.raises(OSError, match="Input/output"):
        replace_file(target, b"new lessons")
    assert target.read_bytes() == b"old lessons"
    assert os.listdir(tmp_path) == ["spike.profile"]


def test_a_spike_profile_save_that_fails_keeps_what_was_taught(tmp_path, monkeypatch):
    path = tmp_path / "spike.profile"
    crop = np.full((32, 32, 3), 90, np.uint8)
    SpikeProfile().with_examples(1, [crop]).save(path)
    monkeypatch.setattr(files.os, "replace", lambda *a: (_ for _ in ()).throw(OSError(28, "No space left on device")))
    with pytest.raises(OSError, match="No space"):
        SpikeProfile.load(path).with_examples(2, [crop]).save(path)
    assert SpikeProfile.load(path).taught == (1,)
    assert os.listdir(tmp_path) == ["spike.profile"]


def test_calibrate_that_cannot_write_leaves_the_config_as_it_was(tmp_path, monkeypatch, capsys):
    config = tmp_path / "companion.toml"
    config.write_text('[vision]\ndice = "chance"\n')
    monkeypatch.setattr(files.os, "fsync", lambda fd: (_ for _ in ()).throw(OSError(5, "Input/output error")))
    assert calibrate.run(SimpleNamespace(config=str(config), roi="0,0,100,100", empty_table=None)) == 1
    assert "config unchanged" in capsys.readouterr().err
    assert config.read_text() == '[vision]\ndice = "chance"\n'
    assert os.listdir(tmp_path) == ["companion.toml"]


def test_a_secret_is_never_readable_by_others_even_where_the_umask_would_allow_it(tmp_path):
    old = os.umask(0o022)
    try:
        replace_file(tmp_path / "host-pin", b"4821\n", mode=0o600)
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "host-pin").stat().st_mode) == 0o600

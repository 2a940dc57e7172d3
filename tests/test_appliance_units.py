"""The Pi appliance's systemd units and shell scripts pass the tools that judge them.

`systemd-analyze verify` refuses a unit whose ExecStart= binary does not exist, and ours
live under /opt/game-companion, which this machine does not have. So each unit is
verified the way it lands on a Pi: the installer runs against a scratch root, a stand-in
`companion` executable takes the place of the venv (the one step --root leaves out), and
the installed unit is copied with /opt/game-companion/ re-pointed into the scratch root.
Verify then checks the very paths the installer wrote, and the copy is otherwise
untouched. (`--root=` would avoid the rewrite for the system unit, but it needs a copy of
every system target and does not work for user units at all.) Verify only *warns* about
unknown keys and bad values, with exit status 0, so any output at all fails the test.

Without systemd-analyze or shellcheck the tests skip locally; under CI=true they fail.
"""

from __future__ import annotations

import argparse
import importlib
import os
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

from companion.appliance.cli import COMMANDS

REPO = Path(__file__).resolve().parent.parent
INSTALLER = REPO / "scripts" / "install-pi.sh"
PREFIX = "/opt/game-companion/"


def tool(name: str) -> str:
    """The tool's path; skip without it locally, fail without it under CI."""
    path = shutil.which(name)
    if path is None:
        if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
            pytest.fail(f"{name} is missing; .ci/run installs it (apt-get install {name})")
        pytest.skip(f"{name} is not installed")
    return path


def unit_files() -> list[Path]:
    return sorted((REPO / "systemd").glob("*.service"))


def shell_scripts() -> list[Path]:
    scripts = []
    for folder in ("scripts", "systemd"):
        for path in sorted((REPO / folder).rglob("*")):
            if path.is_file() and (path.suffix == ".sh" or _shell_shebang(path)):
                scripts.append(path)
    return scripts


def _shell_shebang(path: Path) -> bool:
    with path.open("rb") as handle:
        first = handle.readline().decode(errors="replace")
    return first.startswith("#!") and any(shell in first for shell in ("/sh", "bash", "env sh"))


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    """A scratch root after `install-pi.sh --root`, with a stand-in for the venv's companion."""
    root = tmp_path_factory.mktemp("pi-root")
    subprocess.run(
        ["bash", str(INSTALLER), "--root", str(root), "--kiosk-user", "pi", "--leaderboard"],
        check=True, capture_output=True, text=True,
    )
    companion = root / "opt/game-companion/venv/bin/companion"
    companion.parent.mkdir(parents=True)
    companion.write_text("#!/bin/sh\nexit 0\n")
    companion.chmod(0o755)
    return root


def installed_copy(root: Path, relative: str, into: Path) -> Path:
    """The installed unit, its /opt/game-companion/ paths pointing into the scratch root."""
    text = (root / relative).read_text()
    assert PREFIX in text, f"{relative} runs nothing from {PREFIX}"
    copy = into / Path(relative).name
    copy.write_text(text.replace(PREFIX, f"{root}{PREFIX}"))
    return copy


def verify(unit: Path, *, user: bool, runtime_dir: Path) -> subprocess.CompletedProcess:
    args = [tool("systemd-analyze")] + (["--user"] if user else []) + ["verify", "--man=no", str(unit)]
    env = dict(os.environ, XDG_RUNTIME_DIR=str(runtime_dir))  # --user needs one, even to verify
    return subprocess.run(args, capture_output=True, text=True, env=env, cwd=unit.parent)


def test_every_unit_in_systemd_folder_is_installed_and_checked():
    names = {path.name for path in unit_files()}
    assert names == {"game-companion.service", "game-companion-kiosk.service", "game-companion-leaderboard.service"}


def test_leaderboard_service_passes_systemd_analyze_verify(installed, tmp_path):
    runtime = tmp_path / "run"
    runtime.mkdir(mode=0o700)
    copy = installed_copy(installed, "etc/systemd/system/game-companion-leaderboard.service", tmp_path)
    result = verify(copy, user=False, runtime_dir=runtime)
    assert result.returncode == 0 and result.stdout + result.stderr == "", result.stdout + result.stderr


def test_table_service_passes_systemd_analyze_verify(installed, tmp_path):
    runtime = tmp_path / "run"
    runtime.mkdir(mode=0o700)
    copy = installed_copy(installed, "etc/systemd/system/game-companion.service", tmp_path)
    result = verify(copy, user=False, runtime_dir=runtime)
    assert result.returncode == 0 and result.stdout + result.stderr == "", result.stdout + result.stderr


def test_kiosk_user_unit_passes_systemd_analyze_verify(installed, tmp_path):
    runtime = tmp_path / "run"
    runtime.mkdir(mode=0o700)
    copy = installed_copy(installed, "etc/systemd/user/game-companion-kiosk.service", tmp_path)
    result = verify(copy, user=True, runtime_dir=runtime)
    assert result.returncode == 0 and result.stdout + result.stderr == "", result.stdout + result.stderr


def test_verify_catches_a_missing_executable(installed, tmp_path):
    """Guards the method above: without the stand-in companion, verify must complain."""
    runtime = tmp_path / "run"
    runtime.mkdir(mode=0o700)
    copy = installed_copy(installed, "etc/systemd/system/game-companion.service", tmp_path)
    copy.write_text(copy.read_text().replace("venv/bin/companion", "venv/bin/no-such-companion"))
    result = verify(copy, user=False, runtime_dir=runtime)
    assert result.returncode != 0
    assert "no-such-companion" in result.stderr


@pytest.mark.parametrize("script", shell_scripts(), ids=lambda p: str(p.relative_to(REPO)))
def test_shell_script_passes_shellcheck(script):
    result = subprocess.run([tool("shellcheck"), "--external-sources", str(script)], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_shellcheck_covers_the_appliance_scripts():
    names = {path.name for path in shell_scripts()}
    assert {"install-pi.sh", "game-companion-kiosk-browser", "game-companion-kiosk-session",
            "game-companion-wait-for-slate"} <= names


def parsed_exec_start(unit: str) -> tuple[str, argparse.Namespace]:
    exec_start = next(line.split("=", 1)[1] for line in (REPO / "systemd" / unit).read_text().splitlines()
                      if line.startswith("ExecStart="))
    program, command, *args = shlex.split(exec_start)
    assert program == PREFIX + "venv/bin/companion" and command in COMMANDS
    module = importlib.import_module(COMMANDS[command][0])
    parser = argparse.ArgumentParser(exit_on_error=False)
    module.add_arguments(parser)
    return command, parser.parse_args(args)


def test_table_service_command_is_one_companion_serve_accepts():
    command, parsed = parsed_exec_start("game-companion.service")
    assert command == "serve"
    assert str(parsed.config) == "/etc/game-companion/config.toml"
    assert str(parsed.data_dir) == "/var/lib/game-companion"
    assert parsed.port == 8000


def test_leaderboard_service_command_is_one_companion_leaderboard_accepts():
    command, parsed = parsed_exec_start("game-companion-leaderboard.service")
    assert command == "leaderboard"
    assert str(parsed.config) == "/etc/game-companion/leaderboard.toml"
    assert str(parsed.data_dir) == "/var/lib/game-companion-leaderboard"
    assert parsed.port == 8080 and not parsed.new_evening


def test_boot_does_not_wait_for_the_network_and_the_service_is_watched():
    """Issue 24: network-online.target held boot up to a minute at a venue without known
    Wi-Fi; a hung service went unnoticed."""
    unit = (REPO / "systemd" / "game-companion.service").read_text()
    keys = [line.split("=", 1) for line in unit.splitlines() if "=" in line and not line.startswith("#")]
    values = {}
    for key, value in keys:
        values.setdefault(key, []).append(value)
    assert "network-online.target" not in " ".join(values.get("After", []) + values.get("Wants", []))
    assert values["Type"] == ["notify"] and values["WatchdogSec"] == ["60s"]
    assert "AF_UNIX" in values["RestrictAddressFamilies"][0]  # $NOTIFY_SOCKET

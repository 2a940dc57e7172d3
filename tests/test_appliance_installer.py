"""scripts/install-pi.sh against a scratch root: where files land, idempotence, uninstall.

With `--root DIR` the installer writes every file under DIR and only prints the steps
that would change the live system (apt, users, venv and pip, systemctl, raspi-config).
Fake apt-get/systemctl/useradd/... on PATH record any call, so a test also proves that
nothing live ran. The venv is one of the printed steps, so the ExecStart binary is
checked against the venv the installer says it creates.
"""

from __future__ import annotations

import hashlib
import os
import re
import shlex
import stat
import subprocess
import tomllib
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
INSTALLER = REPO / "scripts" / "install-pi.sh"
LIVE_COMMANDS = ("apt-get", "apt-cache", "systemctl", "useradd", "usermod", "userdel", "groupadd",
                 "chown", "chgrp", "raspi-config")

USER_AUTOSTART = "pcmanfm --desktop --profile LXDE-pi &\nwf-panel-pi &\n"
USER_WAYFIRE = "[core]\nplugins = autostart idle\n\n[autostart]\npanel = wfrespawn wf-panel-pi\n"
USER_RC_XML = (
    '<?xml version="1.0"?>\n<labwc_config>\n  <theme>\n    <name>PiXflat</name>\n  </theme>\n'
    '</labwc_config>\n'
)


@pytest.fixture
def fake_bin(tmp_path) -> Path:
    """Stand-ins for every live-system command; each call is appended to calls.log."""
    folder = tmp_path / "fake-bin"
    folder.mkdir()
    for name in LIVE_COMMANDS:
        script = folder / name
        script.write_text(f'#!/bin/sh\necho "{name} $*" >> "{tmp_path}/calls.log"\n')
        script.chmod(0o755)
    return folder


def install(root: Path, fake_bin: Path, *args: str, desktop: bool = True) -> subprocess.CompletedProcess:
    """Run the installer on a scratch root that looks like the desktop image (lightdm) or Lite."""
    if desktop:
        (root / "etc/lightdm").mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, PATH=f"{fake_bin}:{os.environ['PATH']}")
    env.pop("DESTDIR", None)
    env.pop("SUDO_USER", None)
    return subprocess.run(
        ["bash", str(INSTALLER), "--root", str(root), "--kiosk-user", "pi", *args],
        capture_output=True, text=True, env=env,
    )


def ok(result: subprocess.CompletedProcess) -> str:
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout


def listing(root: Path) -> list[tuple[str, str, str]]:
    """Every path under root with its mode and, for files, a sha256 of its content."""
    rows = []
    for path in sorted(root.rglob("*")):
        mode = oct(stat.S_IMODE(path.lstat().st_mode))
        digest = hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else "dir"
        rows.append((str(path.relative_to(root)), mode, digest))
    return rows


def unit_value(unit: Path, key: str) -> list[str]:
    return [line.split("=", 1)[1] for line in unit.read_text().splitlines() if line.startswith(f"{key}=")]


def planned(stdout: str) -> list[list[str]]:
    return [shlex.split(line[len("would run:"):]) for line in stdout.splitlines() if line.startswith("would run:")]


def home_files(root: Path) -> Path:
    config = root / "home/pi/.config"
    (config / "labwc").mkdir(parents=True)
    (config / "labwc/autostart").write_text(USER_AUTOSTART)
    (config / "wayfire.ini").write_text(USER_WAYFIRE)
    return config


def test_table_service_command_points_at_the_venv_config_and_state_the_installer_makes(tmp_path, fake_bin):
    root = tmp_path / "root"
    out = ok(install(root, fake_bin))
    unit = root / "etc/systemd/system/game-companion.service"
    command = shlex.split(unit_value(unit, "ExecStart")[0])
    venv = str(Path(command[0]).parent.parent)
    assert ["/usr/bin/python3", "-m", "venv", "--system-site-packages", venv] in planned(out)
    pip = [step for step in planned(out) if step[0] == f"{venv}/bin/pip"]
    assert pip and f"{REPO}/requirements.txt" in pip[0] and pip[-1][-2:] == ["--no-deps", str(REPO)]
    assert command[1] == "serve"
    options = dict(zip(command[2::2], command[3::2]))
    assert options == {"--config": "/etc/game-companion/config.toml",
                       "--data-dir": "/var/lib/game-companion", "--port": "8000"}
    assert (root / options["--config"].lstrip("/")).is_file()
    assert unit_value(unit, "ConfigurationDirectory") == ["game-companion"]
    assert unit_value(unit, "StateDirectory") == ["game-companion"]
    assert unit_value(unit, "WorkingDirectory") == [options["--data-dir"]]


def test_kiosk_files_land_where_autostart_and_the_user_unit_run_them(tmp_path, fake_bin):
    root = tmp_path / "root"
    home_files(root)
    ok(install(root, fake_bin))
    unit = root / "etc/systemd/user/game-companion-kiosk.service"
    programs = unit_value(unit, "ExecStartPre") + unit_value(unit, "ExecStart")
    autostart = (root / "home/pi/.config/labwc/autostart").read_text()
    programs += [line.split()[0] for line in autostart.splitlines() if line.startswith("/opt/")]
    wayfire = (root / "home/pi/.config/wayfire.ini").read_text()
    programs += [line.split("=", 1)[1].strip() for line in wayfire.splitlines() if line.startswith("game_companion")]
    assert len(programs) == 4
    for program in programs:
        path = root / program.split()[0].lstrip("/")
        assert path.is_file() and os.access(path, os.X_OK), program
    session = (root / "opt/game-companion/bin/game-companion-kiosk-session").read_text()
    assert f"start {unit.name}" in session


def test_config_gets_a_fresh_six_digit_pin_shown_once_and_private(tmp_path, fake_bin):
    root = tmp_path / "root"
    out = ok(install(root, fake_bin))
    config_file = root / "etc/game-companion/config.toml"
    config = tomllib.loads(config_file.read_text())
    pin = config["host"]["pin"]
    assert re.fullmatch(r"\d{6}", pin)
    assert out.count(pin) == 1 and "Host PIN" in out
    assert stat.S_IMODE(config_file.stat().st_mode) == 0o640
    assert stat.S_IMODE(config_file.parent.stat().st_mode) == 0o750
    assert ["chown", "root:game-companion", "/etc/game-companion/config.toml"] in planned(out)
    assert config["camera"] == {"source": "picamera"}
    assert config["gpio"] == {"pin_factory": "lgpio"}


def test_config_sections_are_accepted_by_the_hardware_parsers(tmp_path, fake_bin):
    camera_config = pytest.importorskip("hardware.camera_config")
    wiring = pytest.importorskip("hardware.table.wiring")
    root = tmp_path / "root"
    ok(install(root, fake_bin))
    config = tomllib.loads((root / "etc/game-companion/config.toml").read_text())
    assert camera_config.CameraConfig.from_mapping(config["camera"]).source == "picamera"
    assert wiring.Wiring.from_mapping(config["gpio"]).pin_factory == "lgpio"


def test_two_installs_give_different_pins(tmp_path, fake_bin):
    pins = []
    for name in ("a", "b", "c"):
        ok(install(tmp_path / name, fake_bin))
        pins.append(tomllib.loads((tmp_path / name / "etc/game-companion/config.toml").read_text())["host"]["pin"])
    assert len(set(pins)) > 1


def test_second_run_changes_nothing(tmp_path, fake_bin):
    root = tmp_path / "root"
    home_files(root)
    ok(install(root, fake_bin))
    before = listing(root)
    out = ok(install(root, fake_bin))
    assert listing(root) == before
    assert "wrote" not in out and "added" not in out
    assert "kept the existing /etc/game-companion/config.toml" in out


def test_an_existing_config_is_never_overwritten_but_made_private_again(tmp_path, fake_bin):
    root = tmp_path / "root"
    config = root / "etc/game-companion/config.toml"
    config.parent.mkdir(parents=True)
    config.write_text('[host]\npin = "424242"\n')
    config.chmod(0o644)  # as a tool run by hand as root might leave it
    out = ok(install(root, fake_bin))
    assert config.read_text() == '[host]\npin = "424242"\n'
    assert "Host PIN" not in out and "424242" not in out
    assert stat.S_IMODE(config.stat().st_mode) == 0o640
    assert ["chown", "root:game-companion", "/etc/game-companion/config.toml"] in planned(out)


def test_scratch_root_never_touches_the_live_system(tmp_path, fake_bin):
    root = tmp_path / "root"
    out = ok(install(root, fake_bin))
    ok(install(root, fake_bin, "--uninstall", "--purge"))
    assert not (tmp_path / "calls.log").exists()
    steps = [" ".join(step) for step in planned(out)]
    for expected in ("apt-get install", "python3-picamera2", "python3-libcamera", "chromium",
                     "useradd --system", "gpio,video", "systemctl enable game-companion.service",
                     "raspi-config nonint do_blanking 1"):
        assert any(expected in step for step in steps), expected


def test_uninstall_removes_what_it_installed_and_keeps_config(tmp_path, fake_bin):
    root = tmp_path / "root"
    config_dir = home_files(root)
    ok(install(root, fake_bin))
    config = (root / "etc/game-companion/config.toml").read_text()
    out = ok(install(root, fake_bin, "--uninstall"))
    assert not (root / "opt/game-companion").exists()
    assert not (root / "etc/systemd/system/game-companion.service").exists()
    assert (config_dir / "labwc/autostart").read_text() == USER_AUTOSTART
    assert (config_dir / "wayfire.ini").read_text() == USER_WAYFIRE
    assert not (config_dir / "labwc/rc.xml").exists()  # it was ours alone
    assert (root / "etc/game-companion/config.toml").read_text() == config
    assert ["systemctl", "disable", "--now", "game-companion.service"] in planned(out)


def test_purge_also_removes_config_games_and_the_user(tmp_path, fake_bin):
    root = tmp_path / "root"
    ok(install(root, fake_bin))
    games = root / "var/lib/game-companion/games.sqlite3"
    games.parent.mkdir(parents=True)
    games.write_bytes(b"games")
    out = ok(install(root, fake_bin, "--uninstall", "--purge"))
    assert not (root / "etc/game-companion").exists()
    assert not (root / "var/lib/game-companion").exists()
    assert ["userdel", "game-companion"] in planned(out)
    assert [p for p in root.rglob("*") if p.is_file()] == []


def test_users_own_labwc_rc_xml_keeps_its_settings_and_gets_the_pointer_key(tmp_path, fake_bin):
    root = tmp_path / "root"
    rc = home_files(root) / "labwc/rc.xml"
    rc.write_text(USER_RC_XML)
    ok(install(root, fake_bin))
    tree = ET.fromstring(rc.read_text())
    assert tree.findtext("theme/name") == "PiXflat"
    actions = [a.get("name") for a in tree.iterfind("keyboard/keybind/action")]
    assert "HideCursor" in actions
    ok(install(root, fake_bin, "--uninstall"))
    assert rc.read_text() == USER_RC_XML


def test_created_rc_xml_is_well_formed(tmp_path, fake_bin):
    root = tmp_path / "root"
    ok(install(root, fake_bin))
    tree = ET.fromstring((root / "home/pi/.config/labwc/rc.xml").read_text())
    assert tree.tag == "labwc_config"
    assert tree.find("keyboard/default") is not None


def test_no_kiosk_leaves_the_desktop_alone(tmp_path, fake_bin):
    root = tmp_path / "root"
    config_dir = home_files(root)
    out = ok(install(root, fake_bin, "--no-kiosk"))
    assert (config_dir / "labwc/autostart").read_text() == USER_AUTOSTART
    assert not (config_dir / "labwc/rc.xml").exists()
    assert "chromium" not in out


def test_purge_without_uninstall_is_refused(tmp_path, fake_bin):
    result = install(tmp_path / "root", fake_bin, "--purge", desktop=False)
    assert result.returncode != 0
    assert "--purge only goes with --uninstall" in result.stderr
    assert not (tmp_path / "root" / "etc").exists()


def test_unknown_option_is_named(tmp_path, fake_bin):
    result = install(tmp_path / "root", fake_bin, "--colour")
    assert result.returncode != 0
    assert "unknown option: --colour" in result.stderr


def test_destdir_works_like_root(tmp_path, fake_bin):
    root = tmp_path / "staging"
    env = dict(os.environ, PATH=f"{fake_bin}:{os.environ['PATH']}", DESTDIR=str(root))
    (root / "etc/lightdm").mkdir(parents=True)
    result = subprocess.run(["bash", str(INSTALLER), "--kiosk-user", "pi"], capture_output=True, text=True, env=env)
    assert result.returncode == 0, result.stderr
    assert (root / "etc/systemd/system/game-companion.service").is_file()
    assert (root / "home/pi/.config/labwc/autostart").is_file()
    assert not (tmp_path / "calls.log").exists()


def test_wayfire_ini_without_an_autostart_section_is_restored_exactly(tmp_path, fake_bin):
    root = tmp_path / "root"
    wayfire = root / "home/pi/.config/wayfire.ini"
    wayfire.parent.mkdir(parents=True)
    wayfire.write_text("[core]\nplugins = autostart\n")
    ok(install(root, fake_bin))
    assert "[autostart]\ngame_companion_kiosk = /opt/game-companion/bin/game-companion-kiosk-session" in wayfire.read_text()
    ok(install(root, fake_bin, "--uninstall"))
    assert wayfire.read_text() == "[core]\nplugins = autostart\n"


def test_a_kept_config_with_a_pin_under_six_digits_is_warned_about_without_showing_it(tmp_path, fake_bin):
    """Issue 25: the service refuses a PIN under 6 digits at start; an upgrade says so."""
    root = tmp_path / "root"
    config = root / "etc/game-companion/config.toml"
    config.parent.mkdir(parents=True)
    config.write_text('[host]\npin = "4242"\n')
    out = ok(install(root, fake_bin))
    assert "has 4 digits; the service needs 6 to 12" in out and "4242" not in out
    assert config.read_text() == '[host]\npin = "4242"\n'
    config.write_text('[host]\npin = "424242"\n')
    assert "WARNING" not in ok(install(root, fake_bin))


def os_numpy(root: Path, version: str) -> None:
    """The scratch root's python3-numpy, as Debian installs its metadata."""
    (root / f"usr/lib/python3/dist-packages/numpy-{version}.dist-info").mkdir(parents=True)


@pytest.mark.parametrize("release, version", [("bookworm", "1.24.2"), ("trixie", "2.2.4")])
def test_pip_is_held_to_the_os_numpy_and_never_asked_for_numpy_below_2(tmp_path, fake_bin, release, version):
    """Issue 24: `numpy<2` has no wheel for Trixie's Python 3.13 and would shadow the OS's numpy."""
    root = tmp_path / release
    os_numpy(root, version)
    out = ok(install(root, fake_bin))
    steps = planned(out)
    pip = [step for step in steps if step[0].endswith("/bin/pip")]
    assert len(pip) == 2 and all("--only-binary=:all:" in step for step in pip)
    assert not any("numpy" in word for step in pip for word in step)
    # the tested versions, every file checked by its hash; then the companion adding nothing
    assert pip[0][-3:] == ["--require-hashes", "-r", f"{REPO}/requirements.txt"]
    assert pip[1][-2:] == ["--no-deps", str(REPO)]
    constraints = pip[0][pip[0].index("--constraint") + 1]
    assert constraints == "/opt/game-companion/constraints.txt"
    pins = [line for line in (root / constraints.lstrip("/")).read_text().splitlines() if not line.startswith("#")]
    assert pins == [f"numpy=={version}"]
    apt = next(step for step in steps if step[:2] == ["env", "DEBIAN_FRONTEND=noninteractive"])
    assert "python3-numpy" in apt


def test_an_os_numpy_the_lock_does_not_pin_gets_the_newest_versions_that_fit_said_plainly(tmp_path, fake_bin):
    root = tmp_path / "later"
    os_numpy(root, "2.3.1")  # a release after Trixie
    out = ok(install(root, fake_bin))
    assert "pin no numpy 2.3.1" in out
    pip = [step for step in planned(out) if step[0].endswith("/bin/pip")]
    assert "-r" not in pip[0] and pip[0][-1] == f"{REPO}[pi]" and "--constraint" in pip[0]
    assert pip[1][-2:] == ["--no-deps", str(REPO)]


@pytest.mark.parametrize("python, version", [("3.11.2", "1.24.2"), ("3.13.5", "2.2.4")])
def test_the_lock_pins_the_numpy_each_raspberry_pi_os_ships_for_its_python(python, version):
    """Bookworm: Python 3.11 and numpy 1.24.2; Trixie: 3.13 and 2.2.4. The lock's numpy for
    that Python is the OS's, so the locked install keeps it (and OpenCV fits it)."""
    from packaging.markers import Marker
    pins = {}
    for line in (REPO / "requirements.txt").read_text().splitlines():
        if line.startswith(("numpy==", "opencv-python-headless==")):
            pin, _, marker = line.rstrip(" \\").partition(";")
            env = {"python_version": python.rsplit(".", 1)[0], "python_full_version": python,
                   "platform_machine": "aarch64", "sys_platform": "linux"}
            if not marker.strip() or Marker(marker.strip()).evaluate(env):
                name, want = pin.strip().split("==")
                assert name not in pins, f"two pins of {name} for Python {python}"
                pins[name] = want
    assert pins["numpy"] == version and "opencv-python-headless" in pins


def test_without_the_os_numpy_the_installer_warns_and_pins_nothing(tmp_path, fake_bin):
    root = tmp_path / "root"
    out = ok(install(root, fake_bin))
    assert "no python3-numpy found" in out
    text = (root / "opt/game-companion/constraints.txt").read_text()
    assert "numpy==" not in text


def test_lite_installs_the_service_without_the_kiosk_and_says_so(tmp_path, fake_bin):
    """Issue 24: on Lite, raspi-config's B4 fails (no lightdm); the service must still be enabled."""
    root = tmp_path / "root"
    config_dir = home_files(root)
    out = ok(install(root, fake_bin, desktop=False))
    assert "no desktop here" in out and "without the kiosk" in out
    steps = [" ".join(step) for step in planned(out)]
    assert not any("chromium" in step or "wtype" in step or "raspi-config" in step for step in steps)
    assert "systemctl enable game-companion.service" in steps
    assert (root / "etc/systemd/system/game-companion.service").is_file()
    assert (config_dir / "labwc/autostart").read_text() == USER_AUTOSTART
    assert "the screen of" not in out


def test_a_failing_raspi_config_warns_instead_of_stopping_the_install(tmp_path, fake_bin):
    """A live run whose raspi-config refuses B4 still enables and starts the service."""
    root = tmp_path / "root"
    (fake_bin / "raspi-config").write_text(f'#!/bin/sh\necho "raspi-config $*" >> "{tmp_path}/calls.log"\nexit 1\n')
    env = dict(os.environ, PATH=f"{fake_bin}:{os.environ['PATH']}")
    env.pop("DESTDIR", None)
    script = INSTALLER.read_text().replace("\nmain \"$@\"\n", "\n")
    probe = tmp_path / "probe.sh"
    probe.write_text(script + '''
LIVE=1; KIOSK=1; KIOSK_USER=pi; KIOSK_HOME=/home/pi; ROOT="$1"; SOURCE="$2"
setup_kiosk
echo "after setup_kiosk"
''')
    (root / "home/pi").mkdir(parents=True)
    result = subprocess.run(["bash", str(probe), str(root), str(REPO)], capture_output=True, text=True, env=env)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "warning: raspi-config could not set boot to desktop" in result.stdout
    assert "after setup_kiosk" in result.stdout
    assert "raspi-config nonint do_boot_behaviour B4" in (tmp_path / "calls.log").read_text()


def test_the_journal_is_kept_on_the_card_bounded_and_given_back_on_uninstall(tmp_path, fake_bin):
    """Issue 24: Raspberry Pi OS keeps the journal in RAM; a power cut lost the table's logs."""
    import configparser

    root = tmp_path / "root"
    out = ok(install(root, fake_bin))
    dropin = root / "etc/systemd/journald.conf.d/60-game-companion.conf"
    journal = configparser.ConfigParser(comment_prefixes=("#",))
    journal.read_string(dropin.read_text())
    assert journal["Journal"]["Storage"] == "persistent"
    assert journal["Journal"]["SystemMaxUse"] == "64M"
    assert dropin.name > "40-rpi-volatile-storage.conf"  # read after the OS's volatile one
    assert ["systemctl", "restart", "systemd-journald"] in planned(out)
    assert ["systemctl", "restart", "systemd-journald"] not in planned(ok(install(root, fake_bin)))
    out = ok(install(root, fake_bin, "--uninstall"))
    assert not dropin.exists() and not dropin.parent.exists()
    assert ["systemctl", "restart", "systemd-journald"] in planned(out)


def test_the_slate_is_advertised_over_mdns_and_the_entry_goes_with_uninstall(tmp_path, fake_bin):
    """Issue 24: an avahi service file names the slate's port, as the unit serves it."""
    root = tmp_path / "root"
    out = ok(install(root, fake_bin))
    advert = root / "etc/avahi/services/game-companion.service"
    tree = ET.fromstring(advert.read_text())
    service = tree.find("service")
    assert service.findtext("type") == "_http._tcp"
    unit = root / "etc/systemd/system/game-companion.service"
    command = shlex.split(unit_value(unit, "ExecStart")[0])
    assert service.findtext("port") == command[command.index("--port") + 1]
    assert "%h" in tree.findtext("name")
    assert any("avahi-daemon" in step for step in planned(out) if "install" in step)
    ok(install(root, fake_bin, "--uninstall"))
    assert not advert.exists()


def test_leaderboard_sets_up_the_broker_with_a_user_per_table_and_the_acl(tmp_path, fake_bin):
    from companion.appliance.meetup.settings import load_leaderboard_config

    root = tmp_path / "root"
    out = ok(install(root, fake_bin, "--leaderboard", "--tables", "3"))
    creds = root / "etc/game-companion/meetup-credentials.txt"
    users = dict(line.split(":", 1) for line in creds.read_text().splitlines())
    assert list(users) == ["leaderboard", "table-1", "table-2", "table-3"]
    assert all(len(p) == 24 for p in users.values()) and len(set(users.values())) == 4
    assert stat.S_IMODE(creds.stat().st_mode) == 0o600
    assert ["mosquitto_passwd", "-U", "/etc/mosquitto/game-companion.passwd"] in planned(out)
    assert not any(password in " ".join(args) for args in planned(out) for password in users.values())
    assert "pattern write companion/tables/%u/#" in (root / "etc/mosquitto/game-companion.acl").read_text()
    assert "allow_anonymous false" in (root / "etc/mosquitto/conf.d/game-companion.conf").read_text()
    board = load_leaderboard_config(root / "etc/game-companion/leaderboard.toml")
    assert board.broker.password == users["leaderboard"] and board.tables == ("table-1", "table-2", "table-3")
    assert ["systemctl", "enable", "game-companion-leaderboard.service"] in planned(out)
    assert "8080" in (root / "etc/systemd/user/game-companion-kiosk.service.d/leaderboard.conf").read_text()
    again = ok(install(root, fake_bin, "--leaderboard", "--tables", "3"))
    assert "kept the meetup's passwords" in again and creds.read_text().count(":") == 4
    assert dict(line.split(":", 1) for line in creds.read_text().splitlines()) == users


def test_more_tables_later_adds_only_the_missing_users(tmp_path, fake_bin):
    root = tmp_path / "root"
    ok(install(root, fake_bin, "--leaderboard", "--tables", "3"))
    creds = root / "etc/game-companion/meetup-credentials.txt"
    passwd = root / "etc/mosquitto/game-companion.passwd"
    first = dict(line.split(":", 1) for line in creds.read_text().splitlines())
    out = ok(install(root, fake_bin, "--leaderboard", "--tables", "5"))
    users = dict(line.split(":", 1) for line in creds.read_text().splitlines())
    assert list(users) == ["leaderboard", "table-1", "table-2", "table-3", "table-4", "table-5"]
    assert {u: users[u] for u in first} == first  # the tables already set up keep their passwords
    assert stat.S_IMODE(creds.stat().st_mode) == 0o600
    assert "added table-4 table-5" in out
    assert users["table-4"] in out and users["table-5"] in out  # shown once, for the new tables only
    assert not any(first[u] in out for u in first)
    assert ["mosquitto_passwd", "-U", "/etc/mosquitto/game-companion.passwd"] in planned(out)
    assert not any(password in " ".join(args) for args in planned(out) for password in users.values())
    assert passwd.read_text() == creds.read_text()  # what mosquitto_passwd -U then hashes in place
    assert "add them to [leaderboard] tables" in out
    fewer = ok(install(root, fake_bin, "--leaderboard", "--tables", "2"))  # fewer: nobody is removed
    assert "kept the meetup's passwords" in fewer and "mosquitto_passwd" not in fewer
    assert dict(line.split(":", 1) for line in creds.read_text().splitlines()) == users
    passwd.unlink()  # the broker's file gone (an uninstall keeps the credentials): made again
    assert ["mosquitto_passwd", "-U", "/etc/mosquitto/game-companion.passwd"] in \
        planned(ok(install(root, fake_bin, "--leaderboard", "--tables", "5")))


def test_a_table_alone_gets_no_broker(tmp_path, fake_bin):
    root = tmp_path / "root"
    out = ok(install(root, fake_bin))
    assert not (root / "etc/mosquitto").exists() and "mosquitto" not in out

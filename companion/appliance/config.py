"""The companion's config file (TOML), the data directory and the host's credentials.

    [host]   pin = "482913"                  # the host panel's PIN, 6-12 digits (else one is generated)
    [web]    host, port, threads, public_url, sse_max_seconds, max_streams, streams_per_client,
             connections_per_client, allowed_hosts, tls_proxy
    [table]  name = "Game Table"             # shown on the slate
    [gpio]   -> hardware.gpio.Wiring.from_mapping       (buttons and lights)
    [camera] -> hardware.camera.CameraConfig.from_mapping
    [vision] -> hardware.vision VisionConfig.from_mapping
    [meetup] -> companion.appliance.meetup.settings.MeetupSection.from_mapping (off by default)

Each area parses its own section; this module only splits the file, checks the sections
it owns, and turns every mistake into a `ConfigError` naming the file and the key.
Every key and its default: docs/config.md.
"""

from __future__ import annotations

import ipaddress
import os
import secrets
import tomllib
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, Mapping

from hardware.files import replace_file

APP_NAME = "game-companion"
PIN_FILE = "host-pin"
SECRET_KEY_FILE = "secret-key"
SECTIONS = ("host", "web", "table", "gpio", "camera", "vision", "meetup")
#: A host PIN's digits. Six: with the network's budget of guesses (web.pin_budget) a
#: 6-digit PIN holds for years; a 4-digit one for days.
MIN_PIN, MAX_PIN = 6, 12
PIN_BUDGET_FILE = "pin-budget.json"


class ConfigError(ValueError):
    """The config file cannot be used; the message names the file and the key."""


@dataclass(frozen=True)
class HostSection:
    pin: str | None = None


@dataclass(frozen=True)
class WebSection:
    host: str = "0.0.0.0"
    port: int = 8000
    threads: int = 100
    public_url: str | None = None
    sse_max_seconds: float | None = None
    #: Live slate feeds in all; None: the threads less a fifth (at least 4 kept for the rest).
    max_streams: int | None = None
    streams_per_client: int = 6
    connections_per_client: int = 16
    #: Host names the table answers to (DNS rebinding); empty: any.
    allowed_hosts: tuple[str, ...] = ()
    #: The network phones should join (the Pi's own hotspot): the slate shows a Wi-Fi QR code.
    wifi_ssid: str | None = None
    wifi_password: str | None = None
    #: HTTPS is served by a proxy on this machine (nginx, set up by `install-pi.sh --https`):
    #: the server then listens on loopback only and trusts the proxy's X-Forwarded-For/-Proto.
    tls_proxy: bool = False

    @property
    def stream_limit(self) -> int:
        """Feeds in all: always fewer than the threads, so a host action finds one free."""
        if self.max_streams is not None:
            return self.max_streams
        return self.threads - max(4, self.threads // 5)


@dataclass(frozen=True)
class TableSection:
    name: str = "Game Table"


@dataclass(frozen=True)
class Config:
    """The whole file. `gpio`, `camera`, `vision` are the owners' parsed objects."""

    host: HostSection = field(default_factory=HostSection)
    web: WebSection = field(default_factory=WebSection)
    table: TableSection = field(default_factory=TableSection)
    gpio: Any = None
    camera: Any = None
    vision: Any = None
    #: companion.appliance.meetup.settings.MeetupSection; None or disabled: a table alone.
    meetup: Any = None
    path: Path | None = None
    #: The raw sections, for the areas' own tools (calibrate writes [vision] back).
    raw: Mapping[str, Any] = field(default_factory=dict)


def load_config(path: str | Path | None = None, *, overrides: Mapping[str, Mapping[str, Any]] | None = None) -> Config:
    """Read `path` (None: every default) and apply `overrides` ({"camera": {...}}) on top."""
    data: dict[str, Any] = {}
    where = "defaults"
    if path is not None:
        path = Path(path).expanduser()
        where = str(path)
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            raise ConfigError(f"no config file at {path}") from None
        except (OSError, UnicodeDecodeError) as exc:
            raise ConfigError(f"cannot read the config file {path}: {exc}") from None
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(f"{path} is not valid TOML: {exc}") from None
    for name, section in (overrides or {}).items():
        data[name] = {**data.get(name, {}), **section}
    return parse_config(data, where=where, path=path)


def parse_config(data: Mapping[str, Any], *, where: str = "config", path: Path | None = None) -> Config:
    for name, value in data.items():
        if name not in SECTIONS:
            raise ConfigError(f"{where}: unknown section or key {name!r}; known sections: {', '.join(SECTIONS)}")
        if not isinstance(value, Mapping):
            raise ConfigError(f"{where}: {name!r} must be a section ([{name}]), not a single value")
    base_dir = path.parent if path is not None else None
    try:
        return Config(
            host=_host_section(data.get("host", {}), where),
            web=_web_section(data.get("web", {}), where),
            table=_table_section(data.get("table", {}), where),
            gpio=_owner_section("gpio", data.get("gpio", {})),
            camera=_owner_section("camera", data.get("camera", {}), base_dir=base_dir),
            vision=_owner_section("vision", data.get("vision", {})),
            meetup=_owner_section("meetup", data.get("meetup", {}), base_dir=base_dir),
            path=path,
            raw={name: dict(value) for name, value in data.items()},
        )
    except ConfigError:
        raise
    except ValueError as exc:  # the owners' typed errors (WiringError, CameraConfigError, ...) are ValueErrors
        raise ConfigError(f"{where}: {exc}") from None


def _owner_section(name: str, section: Mapping[str, Any], **kwargs: Any) -> Any:
    """Hand a section to the area that owns it (imported only here, so nothing opens a device)."""
    if name == "gpio":
        from hardware.gpio import Wiring

        return Wiring.from_mapping(section)
    if name == "camera":
        from hardware.camera import CameraConfig

        return CameraConfig.from_mapping(section, **kwargs)
    if name == "meetup":
        from companion.appliance.meetup.settings import MeetupSection

        return MeetupSection.from_mapping(section, **kwargs)
    from hardware.vision import VisionConfig

    return VisionConfig.from_mapping(section)


def _check_keys(section: Mapping[str, Any], cls: type, name: str, where: str) -> None:
    known = [f.name for f in fields(cls)]
    for key in section:
        if key not in known:
            raise ConfigError(f"{where}: [{name}] unknown key {key!r}; known keys: {', '.join(known)}")


def _host_section(section: Mapping[str, Any], where: str) -> HostSection:
    _check_keys(section, HostSection, "host", where)
    pin = section.get("pin")
    if pin is None:
        return HostSection()
    if isinstance(pin, int) and not isinstance(pin, bool):
        raise ConfigError(f'{where}: host.pin must be quoted text such as "048213" (a number loses leading zeros)')
    if not isinstance(pin, str) or not pin.isdigit() or not MIN_PIN <= len(pin) <= MAX_PIN:
        raise ConfigError(f"{where}: host.pin must be {MIN_PIN} to {MAX_PIN} digits in quotes "
                          f"(a shorter PIN is guessed too soon on a shared network; see docs/config.md)")
    return HostSection(pin=pin)


def _web_section(section: Mapping[str, Any], where: str) -> WebSection:
    _check_keys(section, WebSection, "web", where)
    default = WebSection()
    tls_proxy = section.get("tls_proxy", default.tls_proxy)
    if not isinstance(tls_proxy, bool):
        raise ConfigError(f"{where}: web.tls_proxy must be true or false")
    host = section.get("host", "127.0.0.1" if tls_proxy else default.host)
    if not isinstance(host, str) or not host.strip():
        raise ConfigError(f'{where}: web.host must be an address such as "0.0.0.0" (every network) or "127.0.0.1"')
    if host != "localhost":
        try:
            ipaddress.ip_address(host)
        except ValueError:
            raise ConfigError(f"{where}: web.host = {host!r} is not an IP address") from None
    if tls_proxy and not is_loopback_address(host):
        raise ConfigError(f"{where}: web.tls_proxy = true serves the table through the HTTPS proxy on this "
                          f"machine, so web.host must be 127.0.0.1 (or left out), not {host!r}: otherwise "
                          f"the host PIN could still cross the network in clear")
    port = _whole(section.get("port", default.port), "web.port", 1, 65535, where)
    threads = _whole(section.get("threads", default.threads), "web.threads", 4, 1000, where)
    public_url = section.get("public_url")
    if public_url is not None and (not isinstance(public_url, str) or not public_url.startswith(("http://", "https://"))):
        raise ConfigError(f"{where}: web.public_url must start with http:// or https://")
    sse = section.get("sse_max_seconds")
    if sse is not None and (isinstance(sse, bool) or not isinstance(sse, (int, float)) or sse <= 0):
        raise ConfigError(f"{where}: web.sse_max_seconds must be a positive number of seconds")
    max_streams = section.get("max_streams")
    if max_streams is not None:
        max_streams = _whole(max_streams, "web.max_streams", 1, threads - 2, where)
    per_client = _whole(section.get("streams_per_client", default.streams_per_client), "web.streams_per_client",
                        1, 1000, where)
    connections = _whole(section.get("connections_per_client", default.connections_per_client),
                         "web.connections_per_client", per_client + 2, 10000, where)
    allowed = section.get("allowed_hosts", [])
    if not isinstance(allowed, list) or not all(isinstance(h, str) and h.strip() and " " not in h.strip()
                                                for h in allowed):
        raise ConfigError(f'{where}: web.allowed_hosts must be a list of host names such as ["table.local", '
                          f'"192.168.1.20"]')
    ssid, password = section.get("wifi_ssid"), section.get("wifi_password")
    if ssid is not None and (not isinstance(ssid, str) or not 1 <= len(ssid.encode()) <= 32):
        raise ConfigError(f"{where}: web.wifi_ssid must be the network's name, 1 to 32 bytes")
    if password is not None and (ssid is None or not isinstance(password, str) or not 8 <= len(password) <= 63):
        raise ConfigError(f"{where}: web.wifi_password must be 8 to 63 characters (WPA), with web.wifi_ssid")
    return WebSection(host=host, port=port, threads=threads, public_url=public_url,
                      wifi_ssid=ssid, wifi_password=password,
                      sse_max_seconds=None if sse is None else float(sse), max_streams=max_streams,
                      streams_per_client=per_client, connections_per_client=connections,
                      allowed_hosts=tuple(h.strip() for h in allowed), tls_proxy=tls_proxy)


def is_loopback_address(host: str) -> bool:
    """True for an address only this machine can reach (127.x, ::1, localhost)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _table_section(section: Mapping[str, Any], where: str) -> TableSection:
    _check_keys(section, TableSection, "table", where)
    name = section.get("name", TableSection.name)
    if not isinstance(name, str) or not name.strip() or len(name) > 60:
        raise ConfigError(f"{where}: table.name must be text of 1 to 60 characters")
    return TableSection(name=name.strip())


def _whole(value: Any, key: str, low: int, high: int, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ConfigError(f"{where}: {key} must be a whole number from {low} to {high}, not {value!r}")
    return value


# --- where games live ------------------------------------------------------------------

def default_data_dir() -> Path:
    """systemd's StateDirectory ($STATE_DIRECTORY) when run as the service, else the user data dir."""
    state = os.environ.get("STATE_DIRECTORY")
    if state:
        return Path(state.split(":")[0])
    import platformdirs

    return Path(platformdirs.user_data_dir(APP_NAME))


def prepare_data_dir(path: str | Path | None) -> Path:
    folder = Path(path).expanduser() if path is not None else default_data_dir()
    try:
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    except OSError as exc:
        raise ConfigError(f"cannot create the data directory {folder}: {exc}") from None
    if not os.access(folder, os.W_OK):
        raise ConfigError(f"the data directory {folder} is not writable")
    return folder


# --- the host's credentials -------------------------------------------------------------

@dataclass(frozen=True)
class HostCredentials:
    """The host panel's PIN and the key that signs its session cookie.

    `pin_is_new` is True only on the start that generated the PIN: the one time it is
    printed to the console. `pin_file` is where a generated PIN is kept (mode 0600).
    """

    pin: str
    secret_key: str
    pin_is_new: bool
    pin_file: Path | None

    def __repr__(self) -> str:  # never show the secrets by accident
        return f"HostCredentials(pin=***, secret_key=***, pin_is_new={self.pin_is_new}, pin_file={self.pin_file})"


def host_credentials(data_dir: Path, configured_pin: str | None) -> HostCredentials:
    """The configured PIN, else the one stored in the data dir, else a new one (stored)."""
    secret_key, _ = _private_value(data_dir / SECRET_KEY_FILE, lambda: secrets.token_hex(32))
    if configured_pin is not None:
        return HostCredentials(configured_pin, secret_key, False, None)
    pin_file = data_dir / PIN_FILE
    pin, new = _private_value(pin_file, lambda: f"{secrets.randbelow(10 ** 6):06d}")
    if not (pin.isdigit() and MIN_PIN <= len(pin) <= MAX_PIN):
        raise ConfigError(f"{pin_file} does not hold a PIN of {MIN_PIN} to {MAX_PIN} digits; "
                          f"fix it or delete it to get a new one")
    return HostCredentials(pin, secret_key, new, pin_file)


def _private_value(path: Path, make) -> tuple[str, bool]:
    """Read a small secret file, or create it with mode 0600 (never readable by others)."""
    try:
        value = path.read_text(encoding="utf-8").strip()
        if value:
            if path.stat().st_mode & 0o077:
                path.chmod(0o600)
            return value, False
    except FileNotFoundError:
        pass
    except OSError as exc:
        raise ConfigError(f"cannot read {path}: {exc}") from None
    value = make()
    try:
        replace_file(path, (value + "\n").encode("utf-8"), mode=0o600)
    except OSError as exc:
        raise ConfigError(f"cannot write {path}: {exc}") from None
    return value, True

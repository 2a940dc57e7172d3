"""companion serve [--config FILE] [--data-dir DIR] [--port 8000] [--host ADDR] [--log-level LEVEL]

Runs the table service: camera, buttons, engine and slate under waitress. Logs go to
stdout, one line per game event (journald adds the time stamps under systemd).
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from pathlib import Path

from companion.appliance.config import ConfigError, load_config, prepare_data_dir
from companion.store import StoreError


def add_arguments(parser: argparse.ArgumentParser, *, demo: bool = False) -> None:
    parser.add_argument("--config", type=Path, help="TOML config file (docs/config.md); default: built-in defaults")
    parser.add_argument("--data-dir", type=Path,
                        help="where games, the host PIN and the cookie key live (default: " + (
                            "a \"demo\" folder in the user data directory, apart from real games)" if demo else
                            "$STATE_DIRECTORY, else the user data directory)"))
    parser.add_argument("--port", type=int, help="HTTP port (default: [web] port, 8000); 0 picks a free one")
    parser.add_argument("--host", help="address to listen on (default: [web] host, 0.0.0.0: every network "
                                       "interface, so tablets and phones can open the slate; 127.0.0.1: this "
                                       "computer only)")
    parser.add_argument("--log-level", default="info", choices=("debug", "info", "warning", "error"),
                        help="debug shows button presses, never secret calls above debug (default info)")


def run(args: argparse.Namespace) -> int:
    return run_service(args, demo=False)


def run_service(args: argparse.Namespace, *, demo: bool) -> int:
    """Shared by `serve` and `demo`: build, start, print where to go, wait for a signal."""
    from companion.appliance.service import ServiceError, TableService

    setup_logging(args.log_level)
    name = "demo" if demo else "serve"
    try:
        overrides = {"camera": {"source": "none"}} if demo else None
        config = load_config(args.config, overrides=overrides)
        data_dir = prepare_data_dir(args.data_dir if args.data_dir is not None else _default_dir(demo))
        host = args.host
        service = TableService(config, data_dir, demo=demo, host=host, port=args.port)
        service.start()
    except (ConfigError, StoreError, ServiceError) as exc:
        print(f"companion {name}: {exc}", file=sys.stderr)
        return 2
    announce(service, demo=demo)
    return service.serve_until_signalled()


def announce(service, *, demo: bool) -> None:
    """Where to go, and the host PIN: printed to the console, never through logging."""
    credentials = service.credentials
    lines = [f"Slate:      {service.url}", f"Host panel: {service.host_url}"]
    if service.config.web.tls_proxy:
        lines.append(f"Listening:  http://{service.host}:{service.port}/ (loopback, for the HTTPS proxy)")
    if demo or credentials.pin_is_new:
        lines.append(f"Host PIN:   {credentials.pin}")
        if credentials.pin_is_new and not demo:
            lines.append(f"            (shown once; kept in {credentials.pin_file})")
    elif credentials.pin_file is not None:
        lines.append(f"Host PIN:   kept in {credentials.pin_file}")
    else:
        lines.append("Host PIN:   as set in the config file ([host] pin)")
    if demo:
        lines += reach_note(service)
    print("\n".join(lines), flush=True)


def reach_note(service) -> list[str]:
    """How a tablet opens the demo: it listens on every interface unless told otherwise,
    so the slate's QR code names an address the tablet can reach; said, with the way to
    keep it to this computer, or, listening on loopback, the flag that opens it up."""
    port = service.port
    if service.host in ("0.0.0.0", "::", ""):
        return [f"This computer: http://127.0.0.1:{port}/",
                "Listening on every network interface: a tablet or phone on this network opens the slate",
                "at the address above or by its QR code. Anyone on the network can see the slate; the host",
                "panel asks for the PIN. To keep the demo to this computer: companion demo --host 127.0.0.1"]
    if service.host.startswith("127.") or service.host in ("localhost", "::1"):
        return ["Only this computer can open it. For a tablet or phone on this network:",
                "companion demo --host 0.0.0.0 (anyone on the network can then see the slate)"]
    return []


def setup_logging(level: str) -> None:
    """One line per record on stdout; time stamps only when journald is not adding its own."""
    under_journald = bool(os.environ.get("JOURNAL_STREAM") or os.environ.get("INVOCATION_ID"))
    fmt = "%(levelname)s %(name)s: %(message)s" if under_journald else "%(asctime)s %(levelname)s %(name)s: %(message)s"
    logging.basicConfig(stream=sys.stdout, level=getattr(logging, level.upper()), format=fmt, force=True)
    logging.getLogger("waitress.queue").setLevel(logging.ERROR)


def _default_dir(demo: bool) -> Path | None:
    if not demo:
        return None
    from companion.appliance.config import default_data_dir

    return default_data_dir() / "demo"

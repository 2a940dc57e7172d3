"""The address a phone or tablet is told to open: never loopback, which names the phone itself."""

from __future__ import annotations

import socket


def reachable_host(host: str) -> str:
    """The address a phone or tablet would use for a server listening on `host`: the LAN
    address, else (no route yet: a hotspot still starting) the mDNS name `<hostname>.local`."""
    if host not in ("0.0.0.0", "::", ""):
        return host
    probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        probe.connect(("10.254.254.254", 1))  # no packet is sent: this only picks the LAN interface
        address = probe.getsockname()[0]
    except OSError:
        address = "127.0.0.1"
    finally:
        probe.close()
    if address.startswith("127.") or address == "0.0.0.0":
        return f"{socket.gethostname()}.local"
    return address


def slate_url(host: str, port: int, *, tls_proxy: bool = False) -> str:
    """The slate's URL for phones; behind the HTTPS proxy (`[web] tls_proxy`) they come in
    through it, on 443, whatever loopback address the server itself listens on."""
    if tls_proxy:
        return f"https://{reachable_host('0.0.0.0')}/"
    return f"http://{reachable_host(host)}:{port}/"

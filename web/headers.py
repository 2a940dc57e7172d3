"""What every response says about itself to the browser, and which host names it answers.

The pages load scripts, styles and pictures only from the companion itself (the slate's
state arrives inside a non-executed `<script type="application/json">`), so a strict
Content-Security-Policy costs nothing and stops a script slipped into a name or a record
from running. No page may be framed by another site (a host page inside a stranger's
frame could be clicked through), `nosniff` stops a download being run as a script, and
no address leaves as a Referer.

`allowed_hosts` (optional) is the names the table answers to. A page on another site can
point its own name at the Pi's address (DNS rebinding) and then read the table as if it
were that site; with the list set, such a request is refused. The loopback names are
always allowed (the kiosk on the Pi's own screen).
"""

from __future__ import annotations

from typing import Iterable

from flask import Flask, abort, request

SECURITY_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; "
        "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",
    "Cross-Origin-Opener-Policy": "same-origin",
}
LOOPBACK = ("localhost", "127.0.0.1", "::1")


def host_name(host: str) -> str:
    """ "Table.local:8000" -> "table.local"; "[::1]:8000" -> "::1"."""
    host = host.strip().lower()
    if host.startswith("["):
        return host[1:].split("]", 1)[0]
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host


def init_app(app: Flask, allowed_hosts: Iterable[str] | None = None) -> None:
    allowed = None if not allowed_hosts else {host_name(h) for h in allowed_hosts} | set(LOOPBACK)

    if allowed is not None:
        @app.before_request
        def known_host() -> None:
            if host_name(request.host) not in allowed:
                abort(400, "this table does not answer to that name: use the address on its slate")

    @app.after_request
    def security_headers(response):
        for name, value in SECURITY_HEADERS.items():
            response.headers.setdefault(name, value)
        return response

"""The slate and the host panel: a Flask app that shows the table and forwards to it.

`create_app(table, settings)` builds a fresh app around the one `Table` of the
process; nothing is created at import time (the Flask tutorial's factory). The views
read the table's public projection and submit events; they never compute rules.
"""

from __future__ import annotations

import logging
import secrets
from typing import Any, Callable, Mapping

from flask import Flask, request

from web.bounds import LARGEST_BODY, body_limit, finalize
from web.guard import PinGuard, RefusedLogins
from web.once import Once
from web.slate import MAX_STREAMS, STREAMS_PER_CLIENT, StreamCount


def create_app(table: Any, settings: Mapping[str, Any] | None = None, *,
               on_reveal: Callable[[], str] | None = None, camera: Any = None) -> Flask:
    """The web app for `table`.

    `settings` keys: host_pin (the host panel is closed without one), secret_key
    (one is generated per app when absent), slate_url (the URL the QR code opens;
    default from the request), lan_url (a string, or a function returning one: the URL
    phones can reach, used instead of a loopback request's own), wifi ((ssid, password or None):
    the slate also shows a QR code that joins that network), title (the table's name), pin_delay (fixed seconds of
    slow-down after wrong PINs; default grows 1, 2, 4 ... capped), pin_budget_file (where
    the network's PIN guess budget is kept; default: memory), pin_budget ({"burst",
    "per_day"}: its size, web.pin_budget), max_streams and streams_per_client (live
    feeds in all and per client address, web.slate), allowed_hosts (the host names the
    table answers to; default any, web.headers), sse_max_seconds
    and sse_heartbeat (tests), backup (a function returning the table's backup archive
    as bytes, or a str saying why there is none: GET /host/backup; absent, no download),
    secure_cookie (the host's cookie is sent over HTTPS only). `on_reveal` reads the dice now and returns a short
    status; None means no camera (manual entry only). `camera` is the host panel's camera
    page (hardware.camera_setup.CameraSetup); None leaves the page out.
    """
    settings = dict(settings or {})
    app = Flask(__name__)
    app.config.update(
        SECRET_KEY=settings.get("secret_key") or secrets.token_bytes(32),
        SESSION_COOKIE_HTTPONLY=True,
        SESSION_COOKIE_SAMESITE="Lax",
        SESSION_COOKIE_SECURE=bool(settings.get("secure_cookie")),  # served over HTTPS (web.tls_proxy)
        SESSION_COOKIE_NAME="companion_host",
        MAX_CONTENT_LENGTH=LARGEST_BODY,
        JSON_SORT_KEYS=False,
    )
    app.jinja_env.finalize = finalize  # a name stored before names were checked is shown escaped
    app.extensions["companion"] = {
        "table": table,
        "settings": settings,
        "on_reveal": on_reveal,
        "camera": camera,
        "guard": PinGuard(settings.get("host_pin"), settings.get("pin_delay"), key=app.secret_key,
                          budget_file=settings.get("pin_budget_file"), **settings.get("pin_budget", {})),
        "refused_logins": RefusedLogins(logging.getLogger("web.host")),
        "once": Once(),  # a double tap on the host panel is one action
        "streams": StreamCount(settings.get("max_streams", MAX_STREAMS), settings.get("streams_per_client", STREAMS_PER_CLIENT)),
    }

    from web import api, camera as camera_page, errors, headers, history, host, slate

    headers.init_app(app, settings.get("allowed_hosts"))
    errors.init_app(app)
    app.register_blueprint(slate.bp)
    app.register_blueprint(api.bp)
    app.register_blueprint(host.bp)
    app.register_blueprint(history.bp)
    app.register_blueprint(camera_page.bp)

    @app.before_request
    def route_body_limit() -> None:
        request.max_content_length = body_limit(request.path)

    @app.context_processor
    def table_title() -> dict[str, Any]:
        return {"table_title": settings.get("title") or "Game Table"}

    return app

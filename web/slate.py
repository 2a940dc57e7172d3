"""The slate (`/`), its live feed of server-sent events (`/events`) and the reveal photos.

Each open feed holds one of the server's threads for as long as the slate is open, so
feeds are seats at a counter (`StreamCount`): at most `streams_per_client` for one
client address and `max_streams` in all, fewer than the server's threads, so the host's
actions always find a thread free. A feed refused is a 503 with `Retry-After`; the slate
tries again after it. A slate that went away is noticed within a second (the server says
so: waitress's `client_disconnected`), or, if it vanished without a word, once a
keep-alive every `HEARTBEAT` seconds goes unacknowledged.
"""

from __future__ import annotations

import threading
import time
from typing import Any, Callable, Iterator

import segno
import segno.helpers
from flask import Blueprint, Response, abort, current_app, render_template, request
from markupsafe import Markup

from web.errors import error_response
from web.guard import is_host
from web.headers import host_name

bp = Blueprint("slate", __name__)

HEARTBEAT = 5.0
#: Feeds one client address may hold: a phone with a tab or two, a host with the panel too.
STREAMS_PER_CLIENT = 6
#: Feeds in all, unless the settings say (the appliance sizes it below its threads).
MAX_STREAMS = 64
#: Seconds a refused slate waits before it tries again.
RETRY_AFTER = 5


def companion() -> dict[str, Any]:
    return current_app.extensions["companion"]


LOOPBACK_NAMES = {"localhost", "localhost.localdomain", "ip6-localhost", "ip6-loopback"}


def is_loopback(host: str) -> bool:
    """True for a Host header that names this machine only (the kiosk asks on loopback)."""
    name = host_name(host)
    return name in LOOPBACK_NAMES or name.endswith(".localhost") or name.startswith("127.") or name == "::1"


def slate_url() -> str:
    """The URL the QR code opens: the configured one, else the one this request used,
    unless that names loopback (the table's own screen): then the address the appliance
    says phones can reach (settings `lan_url`, a string or a function), never localhost."""
    settings = companion()["settings"]
    if settings.get("slate_url"):
        return settings["slate_url"]
    if is_loopback(request.host):
        lan = settings.get("lan_url")
        lan = lan() if callable(lan) else lan
        if lan:
            return lan
    return request.url_root


def qr_svg(url: str) -> Markup:
    """The slate URL as an inline SVG QR code (segno makes it locally)."""
    code = segno.make(url, error="m")
    return Markup(code.svg_inline(scale=4, dark="#111", light="#fff", omitsize=True, title="Open the slate on your phone"))


def wifi_qr_svg(ssid: str, password: str | None) -> Markup:
    """A QR code that joins a phone to the table's network (the WIFI: scheme phones read)."""
    code = segno.helpers.make_wifi(ssid=ssid, password=password, security="WPA" if password else "nopass")
    return Markup(code.svg_inline(scale=4, dark="#111", light="#fff", omitsize=True, title="Join the table's Wi-Fi"))


@bp.get("/")
def index():
    seq, snapshot = companion()["table"].snapshot_json()
    url = slate_url()
    wifi = companion()["settings"].get("wifi")
    # JSON inside <script>: no "<" at all, so no name can close or confuse the tag
    return render_template("slate.html", snapshot=Markup(snapshot.replace("<", "\\u003c")), qr=qr_svg(url), url=url,
                           wifi_qr=wifi_qr_svg(*wifi) if wifi else None, wifi_ssid=wifi[0] if wifi else None,
                           spike_faces=sorted(spike_key()))


def spike_key() -> dict[int, bytes]:
    """The pictures of this table's taught spike faces (face -> PNG); none without a camera."""
    camera = companion()["camera"]
    return camera.spike_key() if camera is not None else {}


@bp.get("/spike-face/<int:face>.png")
def spike_face(face: int):
    """One taught spike face, for the slate's key (the symbols are no secret: they are on every die)."""
    picture = spike_key().get(face)
    if picture is None:
        abort(404, "that spike face is not taught")
    response = Response(picture, mimetype="image/png")
    response.headers["Cache-Control"] = "no-cache"
    return response


@bp.get("/events")
def events():
    """The table's snapshot each time it changes, as `event: state` with `id: <seq>`."""
    settings = companion()["settings"]
    last = request.headers.get("Last-Event-ID") or request.args.get("lastEventId")
    try:
        last_seq = int(last) if last is not None else None
    except ValueError:
        last_seq = None
    client = request.remote_addr or "unknown"
    streams: StreamCount = companion()["streams"]
    if not streams.take(client):
        return error_response(503, "too many live slates are open here: this one tries again in a few seconds",
                              {"Retry-After": str(RETRY_AFTER)})
    gone = request.environ.get("waitress.client_disconnected") or (lambda: False)
    stream = Seated(streams, client, state_stream(
        companion()["table"], last_seq,
        heartbeat=float(settings.get("sse_heartbeat", HEARTBEAT)),
        max_seconds=settings.get("sse_max_seconds"), gone=gone,
    ))
    response = Response(stream, mimetype="text/event-stream")
    response.headers["Cache-Control"] = "no-cache"
    response.headers["X-Accel-Buffering"] = "no"
    return response


class StreamCount:
    """The feeds open now (each holds one server thread), in all and per client address."""

    def __init__(self, max_streams: int = MAX_STREAMS, per_client: int = STREAMS_PER_CLIENT) -> None:
        self._lock = threading.Lock()
        self.max_streams = max_streams
        self.per_client = per_client
        self.open = 0
        self._clients: dict[str, int] = {}

    def take(self, client: str) -> bool:
        """A seat for one more feed from `client`, or False when there is none."""
        with self._lock:
            if self.open >= self.max_streams or self._clients.get(client, 0) >= self.per_client:
                return False
            self.open += 1
            self._clients[client] = self._clients.get(client, 0) + 1
            return True

    def release(self, client: str) -> None:
        with self._lock:
            self.open -= 1
            left = self._clients.get(client, 1) - 1
            if left > 0:
                self._clients[client] = left
            else:
                self._clients.pop(client, None)


class Seated:
    """A feed holding its seat until the server closes it (WSGI calls `close()` on every
    response it started, even one never iterated), then giving it back exactly once."""

    def __init__(self, streams: StreamCount, client: str, stream: Iterator[str]):
        self._streams, self._client, self._stream = streams, client, stream
        self._seated = True

    def __iter__(self) -> Iterator[str]:
        return self._stream

    def close(self) -> None:
        try:
            self._stream.close()
        finally:
            if self._seated:
                self._seated = False
                self._streams.release(self._client)


def message(seq: int, data: str) -> str:
    return f"id: {seq}\nevent: state\ndata: {data}\n\n"


def state_stream(table, last_seq: int | None, *, heartbeat: float, max_seconds: float | None,
                 gone: Callable[[], bool] = lambda: False) -> Iterator[str]:
    """Yield SSE text until the client leaves (`gone()`, checked every second, or the
    server closes this generator) or `max_seconds` pass. The full state goes out at once
    unless the client already has exactly this one; a server restart (its seq went
    back) resynchronises too."""
    deadline = None if max_seconds is None else time.monotonic() + float(max_seconds)
    yield "retry: 1000\n\n"
    seq, data = table.snapshot_json()
    if last_seq != seq:
        yield message(seq, data)
    quiet_until = time.monotonic() + heartbeat
    while not gone():
        now = time.monotonic()
        wait = min(1.0, max(0.0, quiet_until - now))
        if deadline is not None:
            wait = min(wait, deadline - now)
            if wait <= 0:
                return
        change = table.wait_for_change(seq, wait)
        if change is not None:
            seq, data = change
            yield message(seq, data)
            quiet_until = time.monotonic() + heartbeat
        elif time.monotonic() >= quiet_until and (deadline is None or time.monotonic() < deadline):
            yield ": keep-alive\n\n"
            quiet_until = time.monotonic() + heartbeat


@bp.get("/photo/<int:photo_id>")
def photo(photo_id: int):
    data = companion()["table"].photo(photo_id, held_too=is_host())
    if data is None:
        abort(404, "that photo is no longer kept")
    response = Response(data, mimetype="image/jpeg")
    response.headers["Cache-Control"] = "private, max-age=3600"
    return response

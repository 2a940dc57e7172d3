"""The slate (`/`), its live feed of server-sent events (`/events`) and the reveal photos."""

from __future__ import annotations

import threading
import time
from typing import Any, Iterator

import segno
from flask import Blueprint, Response, abort, current_app, render_template, request
from markupsafe import Markup

from web.guard import is_host

bp = Blueprint("slate", __name__)

HEARTBEAT = 15.0


def companion() -> dict[str, Any]:
    return current_app.extensions["companion"]


def slate_url() -> str:
    return companion()["settings"].get("slate_url") or request.url_root


def qr_svg(url: str) -> Markup:
    """The slate URL as an inline SVG QR code (segno makes it locally)."""
    code = segno.make(url, error="m")
    return Markup(code.svg_inline(scale=4, dark="#111", light="#fff", omitsize=True, title="Open the slate on your phone"))


@bp.get("/")
def index():
    seq, snapshot = companion()["table"].snapshot_json()
    url = slate_url()
    # JSON inside <script>: no "<" at all, so no name can close or confuse the tag
    return render_template("slate.html", snapshot=Markup(snapshot.replace("<", "\\u003c")), qr=qr_svg(url), url=url)


@bp.get("/events")
def events():
    """The table's snapshot each time it changes, as `event: state` with `id: <seq>`."""
    settings = companion()["settings"]
    last = request.headers.get("Last-Event-ID") or request.args.get("lastEventId")
    try:
        last_seq = int(last) if last is not None else None
    except ValueError:
        last_seq = None
    stream = counted(companion()["streams"], state_stream(
        companion()["table"], last_seq,
        heartbeat=float(settings.get("sse_heartbeat", HEARTBEAT)),
        max_seconds=settings.get("sse_max_seconds"),
    ))
    response = Response(stream, mimetype="text/event-stream")
    response.headers["Cache-Control"] = "no-cache"
    response.headers["X-Accel-Buffering"] = "no"
    return response


class StreamCount:
    """How many slates are connected now (each holds one server thread)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.open = 0

    def add(self, n: int) -> None:
        with self._lock:
            self.open += n


def counted(count: StreamCount, stream: Iterator[str]) -> Iterator[str]:
    """`stream`, counted while it runs; closing this generator (the server does when the
    client goes away) closes the inner one."""
    count.add(1)
    try:
        yield from stream
    finally:
        count.add(-1)


def message(seq: int, data: str) -> str:
    return f"id: {seq}\nevent: state\ndata: {data}\n\n"


def state_stream(table, last_seq: int | None, *, heartbeat: float, max_seconds: float | None) -> Iterator[str]:
    """Yield SSE text until the client leaves (the server closes this generator) or
    `max_seconds` pass. The full state goes out at once unless the client already
    has exactly this one; a server restart (its seq went back) resynchronises too."""
    deadline = None if max_seconds is None else time.monotonic() + float(max_seconds)
    yield "retry: 1000\n\n"
    seq, data = table.snapshot_json()
    if last_seq != seq:
        yield message(seq, data)
    while True:
        wait = heartbeat
        if deadline is not None:
            wait = min(wait, deadline - time.monotonic())
            if wait <= 0:
                return
        change = table.wait_for_change(seq, wait)
        if change is not None:
            seq, data = change
            yield message(seq, data)
        elif deadline is None or time.monotonic() < deadline:
            yield ": keep-alive\n\n"


@bp.get("/photo/<int:photo_id>")
def photo(photo_id: int):
    data = companion()["table"].photo(photo_id, held_too=is_host())
    if data is None:
        abort(404, "that photo is no longer kept")
    response = Response(data, mimetype="image/jpeg")
    response.headers["Cache-Control"] = "private, max-age=3600"
    return response

"""The host panel (`/host`): behind the PIN, every state-changing request CSRF-checked.

Each action forwards to the table; the table (and the rules behind it) decide. A
refusal comes back as the engine's own message (409); a malformed request as 400.
Fetch calls get JSON, plain form posts a redirect back to the panel.
"""

from __future__ import annotations

import functools
import logging
import time
from typing import Any, Callable

from flask import Blueprint, Response, abort, flash, jsonify, redirect, render_template, request, session, url_for

from companion.rules.gyvahrs import MAX_STAKE
from companion.rules import BadRecord, GameRecord
from web import actions
from web.bounds import BadInput, check_names, check_unicode
from web.errors import error_response, wants_json
from web.guard import PinRefused, check_csrf, csrf_token, is_host
from web.slate import companion

bp = Blueprint("host", __name__, url_prefix="/host")
log = logging.getLogger("web.host")

BUTTONS = ("green", "yellow", "liar")
#: A press's answer is padded to this many characters (message and `pad` together): a
#: green and a yellow press are answered in the same number of bytes. The panel pads
#: its request the same way (host.js).
PRESS_ANSWER = 40


def require_host() -> None:
    """401 unless the request comes from a logged-in host."""
    if not is_host():
        abort(401, "log in to the host panel first")


def login_first():
    """For the panel's pages: 503 when no PIN is configured, the login page for a visitor
    who is not the host; None for the host."""
    if not companion()["guard"].enabled:
        return error_response(503, "the host panel has no PIN configured")
    if not is_host():
        return render_template("login.html", csrf=csrf_token(), error=None)
    return None


def host_action(view: Callable[..., Any]) -> Callable[..., Any]:
    """Only for a logged-in host (401), only with this session's CSRF token (403)."""

    @functools.wraps(view)
    def guarded(*args, **kwargs):
        require_host()
        check_csrf()
        # a double tap is one action (web/once.py): the repeat gets the first answer
        return companion()["once"].run(csrf_token(), request.headers.get("X-Once"), lambda: view(*args, **kwargs))

    return guarded


def done(message: str, **extra: Any):
    if wants_json():
        return jsonify({"ok": True, "message": message, **extra})
    flash(message)
    return redirect(url_for("host.panel"), code=303)


def table():
    return companion()["table"]


# --- logging in ------------------------------------------------------------------

@bp.get("")
def panel():
    refused = login_first()
    if refused is not None:
        return refused
    return render_template("host.html", csrf=csrf_token(), games=actions.game_catalogue(),
                           camera=companion()["on_reveal"] is not None, buttons=BUTTONS,
                           camera_page=companion()["camera"].describe() if companion()["camera"] is not None else None,
                           backup=companion()["settings"].get("backup") is not None, max_stake=MAX_STAKE)


@bp.get("/backup")
def backup():
    """The whole table in one file: the archive `companion backup` writes, for the host to
    keep off the card. 404 where no backup was wired in; 409 with the reason where the
    table has none to give (the demo)."""
    require_host()
    make = companion()["settings"].get("backup")
    if make is None:
        abort(404, "this table has no backup download")
    archive = make()
    if isinstance(archive, str):
        abort(409, archive)
    name = time.strftime("game-companion-backup-%Y%m%d-%H%M.zip")
    log.info("backup downloaded from %s", request.remote_addr)
    return Response(archive, mimetype="application/zip", headers={
        "Content-Disposition": f'attachment; filename="{name}"',
        "Cache-Control": "no-store", "Pragma": "no-cache"})


@bp.post("/login")
def login():
    guard = companion()["guard"]
    if not guard.enabled:
        abort(503, "the host panel has no PIN configured")
    check_csrf()
    given = request.form.get("pin")
    if given is None and request.is_json:
        given = (request.get_json(silent=True) or {}).get("pin")
    if not isinstance(given, str) or not given.strip():
        return login_refused(400, "enter the PIN")  # nothing was tried: no free try used up
    try:
        guard.check(request.remote_addr or "unknown", given.strip())
    except PinRefused as refused:
        companion()["refused_logins"].note(request.remote_addr or "unknown", refused.reason)
        status = 429 if refused.retry_after else 401
        headers = {"Retry-After": str(max(1, round(refused.retry_after)))} if refused.retry_after else {}
        return login_refused(status, refused.message, headers)
    session.clear()
    session["host"] = guard.open_session()
    csrf_token()
    log.info("host logged in from %s", request.remote_addr)
    return done("logged in")


def login_refused(status: int, message: str, headers: dict[str, str] | None = None):
    """JSON for a fetch call; for a form, the login page again with the message."""
    if wants_json():
        return error_response(status, message, headers)
    return render_template("login.html", csrf=csrf_token(), error=message), status, headers or {}


@bp.post("/logout")
@host_action
def logout():
    """Ends this login for every copy of its cookie, not only in this browser."""
    companion()["guard"].revoke(session.get("host"))
    session.clear()
    return redirect(url_for("slate.index"), code=303)


@bp.get("/state")
def state():
    """What the panel shows: the public state, the held reading, the event list."""
    require_host()
    view = table().host_view()
    current = table().session
    view["options"] = dict(current.record.options) if current is not None else {}
    view["players"] = list(current.record.players) if current is not None else []
    view["camera"] = companion()["on_reveal"] is not None
    view["button_words"] = dict(current.game.button_words) if current is not None else {}
    return jsonify(view)


# --- running a game ------------------------------------------------------------------

@bp.post("/start")
@host_action
def start():
    data = actions.payload()
    game, players, options = actions.start_request(data)
    ending = "a new game was started" if data.get("end_current") in ("1", "on", True) else None  # the start card
    game_id = table().start_game(game, players, options, ending=ending)
    return done(f"game {game_id} started", game_id=game_id)


@bp.post("/event")
@host_action
def event():
    """A declaration, bid, stake, call or challenge entered for a seat."""
    data = actions.payload()
    if data.get("kind") in ("dice", "undo", "amend", "end_game"):
        abort(400, "use the dice, fix, undo and end actions for those")
    ev = actions.event_from(data)
    table().submit(ev)
    return done(f"{ev.kind.replace('_', ' ')} accepted")


@bp.post("/press")
@host_action
def press():
    """A virtual table button: what it means now is the game's call. `pad` is ignored."""
    data = actions.payload()
    button = data.get("button")
    if button not in BUTTONS:
        abort(400, f"button must be one of {', '.join(BUTTONS)}")
    seat = data.get("seat")
    seat = None if seat in (None, "") else actions.as_int(seat, "seat")
    if not table().press(seat, button):
        abort(409, "that button means nothing now")  # the same words, and length, for any colour
    message = f"{button} pressed" + ("" if seat is None else f" for seat {seat + 1}")
    return done(message, pad=" " * max(0, PRESS_ANSWER - len(message)))


@bp.post("/reveal")
@host_action
def reveal():
    """Read the dice now (the camera), like the table's reveal button."""
    on_reveal = companion()["on_reveal"]
    if on_reveal is None:
        abort(409, "there is no camera: enter the dice by hand")
    return done(str(on_reveal()))


@bp.post("/dice")
@host_action
def dice():
    """Dice typed in by the host, or the fix of a held camera reading."""
    data = actions.payload()
    values = actions.dice_values(data)
    readings = data.get("readings")  # how many readings were in force when the form was filled
    readings = None if readings in (None, "") else actions.as_int(readings, "readings")
    photo = data.get("held")  # the held reading's photo the host was fixing
    photo = None if photo in (None, "") else actions.as_int(photo, "held")
    table().confirm_reading(values, readings=readings, photo=photo)
    return done("dice accepted")


@bp.post("/fix-die")
@host_action
def fix_die():
    """A misread die: the dice event at `target` is amended with that die's new value."""
    data = actions.payload()
    target = actions.as_int(data.get("target"), "target")
    die = actions.as_int(data.get("die"), "die")
    if "value" not in data or data["value"] in ("", None):
        abort(400, "pick the die's value")
    current = table().session
    live = dict(current.live_events()) if current is not None else {}
    if target not in live:
        abort(422, f"event {target} is not a reading in force")
    table().amend(target, actions.fixed_dice(live[target], die, data["value"]))
    return done(f"die {die + 1} fixed")


@bp.post("/amend")
@host_action
def amend():
    """Replace any event in force (a mistyped declaration or bid) with a corrected one."""
    data = actions.payload()
    target = actions.as_int(data.get("target"), "target")
    fields = data.get("event") if request.is_json else {k: v for k, v in data.items() if k != "target"}
    if not isinstance(fields, dict):
        abort(400, "event must be an object")
    table().amend(target, actions.event_from(fields))
    return done(f"event {target} amended")


@bp.post("/undo")
@host_action
def undo():
    expect = actions.payload().get("expect")  # the latest action the panel showed
    table().undo(expect=None if expect in (None, "") else actions.as_int(expect, "expect"))
    return done("last action undone")


@bp.post("/end")
@host_action
def end():
    reason = actions.payload().get("reason") or "ended by the host"
    if not isinstance(reason, str):
        abort(400, "reason must be text")
    table().end_game(reason.strip()[:200] or "ended by the host")
    return done("game ended")


@bp.post("/import")
@host_action
def import_record():
    """A game record file: read, replayed to check it, then stored as history."""
    upload = request.files.get("record")
    if upload is None:
        if not request.is_json:
            abort(400, "choose a record file to import")
        text = request.get_data(as_text=True)
    else:
        text = upload.read().decode("utf-8", errors="replace")
    try:
        record = GameRecord.from_json(text)
    except BadRecord as exc:
        abort(400, f"that file is not a game record: {exc}")
    try:
        check_unicode(record.to_dict())
        check_names(record.players)
    except BadInput as exc:
        abort(400, f"that record cannot be imported: {exc}")
    game_id = table().import_record(record)
    return done(f"game imported as {game_id}", game_id=game_id)

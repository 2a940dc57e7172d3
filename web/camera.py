"""The host panel's camera page (`/host/camera`): what the camera sees, the table region
drawn over it, the empty-table photo taken from it, spike faces taught from it and trial
reads. Host only, every change CSRF-checked, like the rest of the panel; the work is the
service's CameraSetup.
"""

from __future__ import annotations

from typing import Callable

from flask import Blueprint, abort, flash, jsonify, make_response, redirect, render_template, request, url_for

from hardware.calibration import CalibrationError, CalibrationInputError, RegionDoesNotFit
from web import actions
from web.errors import error_response, wants_json
from web.guard import csrf_token
from web.host import host_action, login_first, require_host
from web.slate import companion

bp = Blueprint("camera", __name__, url_prefix="/host/camera")

#: How the panel answers each kind of refusal, the most specific first: input that is not
#: a value the page takes 400, a region that does not fit the picture 422, anything else
#: (no recent picture, a game in progress, the demo) 409: not now.
REFUSAL_STATUS: tuple[tuple[type[CalibrationError], int], ...] = (
    (CalibrationInputError, 400),
    (RegionDoesNotFit, 422),
    (CalibrationError, 409),
)


def refusal_status(refusal: CalibrationError) -> int:
    return next(status for kind, status in REFUSAL_STATUS if isinstance(refusal, kind))


def setup():
    camera = companion()["camera"]
    if camera is None:
        abort(409, "there is no camera on this table")
    return camera


def changed(message: str, shown: bool = True):
    """`shown`: flash the message on the page (a trial read or a lesson shows its own, by its picture)."""
    if wants_json():
        return jsonify({"ok": True, "message": message, **setup().describe()})
    if shown:
        flash(message)
    return redirect(url_for("camera.page"), code=303)


def answer(change: Callable[[], str], shown: bool = True):
    """Run the change: its message, or why it was refused (the calibration then unchanged;
    a page shows the reason above the picture)."""
    try:
        return changed(change(), shown)
    except CalibrationError as exc:
        if wants_json():
            return error_response(refusal_status(exc), str(exc))
        flash(str(exc), "error")
        return redirect(url_for("camera.page"), code=303)


def jpeg(data: bytes, **headers: str):
    """A picture of the table as it is now: never cached."""
    response = make_response(data)
    response.headers.update({"Content-Type": "image/jpeg", "Cache-Control": "no-store", **headers})
    return response


@bp.get("")
def page():
    refused = login_first()
    if refused is not None:
        return refused
    camera = companion()["camera"]
    return render_template("camera.html", csrf=csrf_token(), state=camera.describe() if camera else None)


@bp.get("/state")
def state():
    require_host()
    return jsonify(setup().describe())


@bp.get("/picture.jpg")
def picture():
    """The camera's latest picture, its camera size in X-Camera-Size."""
    require_host()
    try:
        shot = setup().picture()
    except CalibrationError as exc:
        abort(refusal_status(exc), str(exc))
    if shot is None:
        abort(404, "the camera has sent no picture lately")
    data, width, height = shot
    return jpeg(data, **{"X-Camera-Size": f"{width}x{height}"})


@bp.post("/region")
@host_action
def region():
    """The table region in camera pixels: `roi` [x1, y1, x2, y2] (JSON) or fields x1..y2."""
    data = actions.payload()
    roi = data.get("roi") if request.is_json else [data.get(k, "") for k in ("x1", "y1", "x2", "y2")]
    if roi is None:
        abort(400, "give the table region as roi: [x1, y1, x2, y2]")
    return answer(lambda: setup().set_region(roi))


@bp.post("/empty-table")
@host_action
def empty_table():
    return answer(lambda: setup().take_empty_table())


@bp.post("/forget")
@host_action
def forget():
    return answer(lambda: setup().forget())


@bp.post("/teach-spike")
@host_action
def teach_spike():
    """`face` 1..6: every die in view now is taught as that spike face."""
    face = actions.payload().get("face")
    if face in (None, ""):
        abort(400, "pick the face (1 to 6) the dice show")
    return answer(lambda: setup().teach_spike(face), shown=False)


@bp.post("/undo-lesson")
@host_action
def undo_lesson():
    return answer(lambda: setup().undo_lesson())


@bp.post("/new-spike-profile")
@host_action
def new_spike_profile():
    return answer(lambda: setup().new_spike_profile())


@bp.post("/measure-light")
@host_action
def measure_light():
    """Let the camera measure the room's light again and lock it (a Pi camera)."""
    return answer(lambda: setup().measure_light())


@bp.post("/try-read")
@host_action
def try_read():
    """Read the dice in view now (`kind`: pips, chance or spike) without touching the game."""
    kind = actions.payload().get("kind")
    return answer(lambda: setup().try_read(kind or "pips"), shown=False)


@bp.get("/trial.jpg")
def trial():
    require_host()
    data = setup().trial_picture()
    if data is None:
        abort(404, "no trial read yet")
    return jpeg(data)

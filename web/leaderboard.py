"""The meetup's leaderboard page: one tile per table and the evening's standings.

`create_leaderboard_app(board, settings)` is a small app of its own (the leaderboard Pi
runs no table): `/` the full-screen page, `/api/leaderboard` what it shows as JSON, which
the page asks for every few seconds. It reads the evening's board
(`companion.meetup.Board`) and changes nothing. Same look, headers and size rules as the slate.
"""

from __future__ import annotations

import json
from typing import Any, Mapping

from flask import Blueprint, Flask, current_app, jsonify, render_template
from markupsafe import Markup

from web import headers
from web.bounds import finalize

bp = Blueprint("leaderboard", __name__)

#: Seconds between the page's questions: a game shows within this after it arrives.
POLL_SECONDS = 2


def create_leaderboard_app(board: Any, settings: Mapping[str, Any] | None = None) -> Flask:
    """settings: title (the screen's heading), scoring (companion.meetup.Scoring), tables
    (names shown before they are heard from), broker (a function: the leaderboard's own
    link to the broker, {"connected": bool, "since": epoch seconds or None})."""
    settings = dict(settings or {})
    app = Flask(__name__)
    app.jinja_env.finalize = finalize
    app.config.update(JSON_SORT_KEYS=False, MAX_CONTENT_LENGTH=1024)
    app.extensions["leaderboard"] = {"board": board, "settings": settings}
    headers.init_app(app, settings.get("allowed_hosts"))
    app.register_blueprint(bp)
    return app


def view() -> dict[str, Any]:
    state = current_app.extensions["leaderboard"]
    settings = state["settings"]
    data = state["board"].view(settings["scoring"], tuple(settings.get("tables", ())))
    broker = settings.get("broker")
    data["broker"] = broker() if callable(broker) else {"connected": None, "since": None}
    data["title"] = settings.get("title") or "Leaderboard"
    return data


@bp.get("/")
def index():
    data = view()
    snapshot = Markup(json.dumps(data).replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026"))
    return render_template("leaderboard.html", table_title=data["title"], snapshot=snapshot,
                           poll_ms=POLL_SECONDS * 1000)


@bp.get("/api/leaderboard")
def api():
    response = jsonify(view())
    response.headers["Cache-Control"] = "no-store"
    return response

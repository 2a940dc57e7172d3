"""The JSON API: the public state and the stored games (docs/api.md). Read-only and
public: nothing here ever holds a secret call before its reveal."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, abort, jsonify

from web.records import game_summaries
from web.slate import companion

bp = Blueprint("api", __name__, url_prefix="/api")


@bp.get("/state")
def state():
    _, data = companion()["table"].snapshot_json()
    return Response(data, mimetype="application/json", headers={"Cache-Control": "no-store"})


@bp.get("/games")
def games():
    return jsonify({"games": game_summaries(companion()["table"])})


@bp.get("/games/<game_id>")
def game(game_id: str):
    entry = companion()["table"].game_entry(game_id)
    if entry is None:
        abort(404, f"there is no game {game_id!r}")
    out: dict[str, Any] = {key: entry[key] for key in ("id", "summary", "record", "slate")}
    return jsonify(out)

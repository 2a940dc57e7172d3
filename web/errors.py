"""Every error leaves as a short message (JSON for fetch and API calls, a page for a
browser), never a stack trace. The engine's refusals keep the engine's own words."""

from __future__ import annotations

import logging

from flask import Flask, jsonify, render_template, request
from werkzeug.exceptions import HTTPException

from companion.rules import BadRecord, IllegalAction, UnknownGame
from companion.store import StoreFull
from web.bounds import BadInput

log = logging.getLogger("web")


def wants_json() -> bool:
    """Fetch calls and API clients get JSON; a browser following a form gets a page."""
    if request.path.startswith("/api/") or request.path in ("/host/state", "/host/camera/state") or request.is_json:
        return True
    if request.headers.get("X-CSRF-Token") or request.headers.get("X-Requested-With"):
        return True
    accept = request.accept_mimetypes
    return accept.best == "application/json"


def error_response(status: int, message: str, headers: dict | None = None):
    if wants_json():
        response = jsonify({"error": message})
    else:
        response = render_template("error.html", status=status, message=message)
    return response, status, headers or {}


def init_app(app: Flask) -> None:
    @app.errorhandler(HTTPException)
    def http_error(exc: HTTPException):
        message = exc.description if isinstance(exc.description, str) else exc.name
        if exc.code == 404 and message.startswith("The requested URL"):
            message = "there is no such page"
        elif exc.code == 405:
            message = f"{request.method} is not allowed here"
        elif exc.code == 413:
            message = "that upload is too large"
        elif exc.code == 400 and message.startswith("The browser"):
            message = "the request could not be read"
        return error_response(exc.code or 500, message)

    @app.errorhandler(BadInput)
    def bad_input(exc: BadInput):
        return error_response(400, str(exc))

    @app.errorhandler(IllegalAction)
    def illegal(exc: IllegalAction):
        return error_response(409, exc.message)

    @app.errorhandler(BadRecord)
    def bad_record(exc: BadRecord):
        return error_response(422, str(exc))

    @app.errorhandler(UnknownGame)
    def unknown_game(exc: UnknownGame):
        return error_response(422, str(exc))

    @app.errorhandler(StoreFull)
    def store_full(exc: StoreFull):
        # said in words (and on the slate, as the store's status), not "something went wrong"
        return error_response(507, str(exc))

    @app.errorhandler(Exception)
    def crash(exc: Exception):
        log.exception("error while serving %s %s", request.method, request.path)
        return error_response(500, "something went wrong on the companion; the game is safe, try again")

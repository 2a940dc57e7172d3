"""Set-up shared by the web tests: a fresh app around a fresh table, a logged-in host."""

from __future__ import annotations

import random
import re

from companion.rules import get_game
from companion.table import Table
from web import create_app

PIN = "4817"


def make_app(table: Table | None = None, *, on_reveal=None, camera=None, **settings):
    table = table if table is not None else Table()
    settings.setdefault("host_pin", PIN)
    settings.setdefault("secret_key", "test-secret")
    app = create_app(table, settings, on_reveal=on_reveal, camera=camera)
    app.config["TESTING"] = False  # errors go through the handlers, as in production
    return app, table


def page_token(client, path: str = "/host") -> str:
    html = client.get(path).get_data(as_text=True)
    found = re.search(r'name="csrf_token" value="([^"]+)"', html) or re.search(r'data-csrf="([^"]+)"', html)
    assert found, f"no CSRF token on {path}"
    return found.group(1)


def login(client, pin: str = PIN) -> dict[str, str]:
    """Log the client in; returns the headers a fetch call sends (the CSRF token)."""
    token = page_token(client)
    response = client.post("/host/login", data={"pin": pin, "csrf_token": token})
    assert response.status_code == 303, response.get_data(as_text=True)
    return {"X-CSRF-Token": page_token(client)}


def play_out(table: Table, seed: int = 1, limit: int = 500) -> None:
    """Play the running game to its end with random legal moves (the engine's own)."""
    rng = random.Random(seed)
    for _ in range(limit):
        session = table.session
        if session.finished:
            return
        game = get_game(session.record.game)
        if session.prompt().dice is not None and (rng.random() < 0.8 or not game.legal_actions(session.state)):
            table.submit(game.sample_reading(session.state, rng))
        else:
            table.submit(rng.choice(game.legal_actions(session.state)))
    raise AssertionError("the game did not end")

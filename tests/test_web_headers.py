"""Issue 25: every response carries the security headers, no page can be framed, the
pages need nothing the Content-Security-Policy forbids, and an optional allow-list of
host names refuses DNS rebinding."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from web_app import login, make_app, play_out

WEB = Path(__file__).resolve().parents[1] / "web"


@pytest.fixture
def app_and_table():
    app, table = make_app(sse_max_seconds=0.1)
    table.start_game("tregald", ["Ann", "Ben"], {"rounds": 1})
    play_out(table)
    return app, table


@pytest.mark.parametrize("path", ["/", "/host", "/games", "/games/1", "/stats", "/api/state", "/events",
                                  "/static/slate.js", "/no/such/page", "/games/1.csv"])
def test_every_response_carries_the_security_headers(app_and_table, path):
    app, _ = app_and_table
    response = app.test_client().get(path)
    assert response.headers["X-Content-Type-Options"] == "nosniff"
    assert response.headers["X-Frame-Options"] == "DENY"
    assert "frame-ancestors 'none'" in response.headers["Content-Security-Policy"]
    assert response.headers["Referrer-Policy"] == "no-referrer"
    response.close()


def test_the_host_panel_logged_in_cannot_be_framed_either():
    app, _ = make_app()
    client = app.test_client()
    login(client)
    response = client.get("/host")
    assert "Start a game" in response.get_data(as_text=True)
    assert response.headers["X-Frame-Options"] == "DENY"


def test_the_pages_need_nothing_the_policy_forbids():
    """No inline script, style attribute, event handler or javascript: URL in any
    template, and no inline style or eval in the scripts."""
    for template in (WEB / "templates").glob("*.html"):
        text = template.read_text(encoding="utf-8")
        for script in re.findall(r"<script([^>]*)>(.*?)</script>", text, re.S):
            assert "src=" in script[0] or 'type="application/json"' in script[0], template.name
        assert not re.search(r"\sstyle=|\son[a-z]+=|javascript:|<style", text), template.name
    for script in (WEB / "static").glob("*.js"):
        text = script.read_text(encoding="utf-8")
        assert not re.search(r"eval\(|new Function|setAttribute\(\"style\"|innerHTML\s*=.*style=", text), script.name


def test_an_allow_list_of_host_names_refuses_any_other_name():
    app, _ = make_app(allowed_hosts=["Table.local", "192.168.1.20"])
    client = app.test_client()
    assert client.get("/api/state", headers={"Host": "table.local:8000"}).status_code == 200
    assert client.get("/api/state", headers={"Host": "192.168.1.20"}).status_code == 200
    assert client.get("/", headers={"Host": "localhost:8000"}).status_code == 200  # the kiosk
    refused = client.get("/api/state", headers={"Host": "evil.example:8000"})
    assert refused.status_code == 400 and "does not answer to that name" in refused.get_json()["error"]
    assert refused.headers["X-Frame-Options"] == "DENY"
    open_app, _ = make_app()
    assert open_app.test_client().get("/api/state", headers={"Host": "evil.example"}).status_code == 200

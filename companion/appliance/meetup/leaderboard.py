"""The leaderboard service: subscribe to every table, count each game once, serve the page.

`LeaderboardService(config, data_dir).start()` opens the evening's board
(`companion.meetup.Board`), subscribes to the tables' topics with a persistent MQTT
session (games published while the leaderboard was away are kept for it by the broker)
and serves `web.leaderboard` with waitress, guarded as the table's own server is. Every message goes through `receive`: a game
is counted only when its record replays (`companion.meetup.read_game`); anything refused
is logged once (the board remembers it) and changes nothing.
"""

from __future__ import annotations

import hashlib
import logging
import threading
import time
from pathlib import Path
from typing import Any

from companion.appliance.meetup.publisher import mqtt_client
from companion.appliance.meetup.settings import LeaderboardConfig
from companion.meetup import Board, Refused, parse_topic, read_game, read_slate, read_status
from companion.meetup.messages import PREFIX

log = logging.getLogger("companion.leaderboard")

#: The page's workers, and seconds a connection may stay silent (as the table's server).
THREADS = 8
CHANNEL_TIMEOUT = 30
#: Slates at QoS 0: the broker never queues a backlog of them (each replaces the one before,
#: and the retained one comes on every connection); statuses and games at QoS 1.
SUBSCRIPTIONS = [(f"{PREFIX}/+/slate", 0), (f"{PREFIX}/+/status", 1), (f"{PREFIX}/+/games/+", 1)]


class LeaderboardService:
    def __init__(self, config: LeaderboardConfig, data_dir: Path, *, host: str | None = None,
                 port: int | None = None):
        self.config = config
        self.data_dir = Path(data_dir)
        self.host = host or config.host
        self.port = config.port if port is None else port
        self.board: Board | None = None
        self._client = None
        self._server = None
        self._thread: threading.Thread | None = None
        self._connected = False
        self._since: float | None = time.time()

    def start(self) -> None:
        self.board = Board.in_dir(self.data_dir)
        client = mqtt_client(self.config.client_id, self.config.broker)
        client.on_connect = self._on_connect
        client.on_disconnect = self._on_disconnect
        client.on_message = self._on_message
        client.max_queued_messages_set(0)
        self._client = client
        client.connect_async(self.config.broker.host, self.config.broker.port, keepalive=self.config.broker.keepalive)
        client.loop_start()
        self._server = self._build_server()
        self.port = self._server.effective_port
        self._thread = threading.Thread(target=self._server.run, name="http", daemon=True)
        self._thread.start()
        log.info("leaderboard up at http://%s:%s/ (data in %s)", self.host, self.port, self.data_dir)

    def _build_server(self):
        """waitress with the slate's venue-network defences (companion.appliance.http_guard):
        no request body at all (the page only reads), a half-sent request dropped within
        seconds, at most 16 connections per client address."""
        from companion.appliance.http_guard import Limits, create_guarded_server
        from web.leaderboard import create_leaderboard_app

        app = create_leaderboard_app(self.board, {
            "title": self.config.title, "scoring": self.config.scoring, "tables": self.config.tables,
            "allowed_hosts": list(self.config.allowed_hosts),
            "broker": lambda: {"connected": self._connected, "since": self._since}})
        return create_guarded_server(
            app, max_body=0, limits=Limits(body_limit=lambda _path: 0),
            host=self.host, port=self.port, threads=THREADS, connection_limit=100, asyncore_use_poll=True,
            channel_timeout=CHANNEL_TIMEOUT, cleanup_interval=1, channel_request_lookahead=1,
            ident="game-companion-leaderboard", clear_untrusted_proxy_headers=True)

    def stop(self) -> None:
        self._connected = False  # a disconnection asked for is not "lost"
        if self._client is not None:
            self._client.disconnect()
            self._client.loop_stop()
        if self._server is not None:
            self._server.close()
            self._server.task_dispatcher.shutdown(timeout=1.0)
        if self.board is not None:
            self.board.close()

    # --- the broker ------------------------------------------------------------------

    def _on_connect(self, client, _userdata, flags, reason_code, _properties) -> None:
        if reason_code.is_failure:
            log.error("the broker refused the leaderboard: %s", reason_code)
            return
        self._connected, self._since = True, time.time()
        log.info("connected to the broker at %s:%s (session %s)", self.config.broker.host, self.config.broker.port,
                 "resumed" if flags.session_present else "new")
        client.subscribe(SUBSCRIPTIONS)  # again on every connection: a restarted broker may have lost the session

    def _on_disconnect(self, _client, _userdata, _flags, reason_code, _properties) -> None:
        if self._connected:
            log.warning("lost the broker (%s); reconnecting", reason_code)
            self._since = time.time()
        self._connected = False

    def _on_message(self, _client, _userdata, message) -> None:
        try:
            topic = message.topic
        except UnicodeDecodeError:
            topic = repr(message._topic)[:120]
        try:
            self.receive(topic, bytes(message.payload))
        except Exception:
            log.exception("a message on %s could not be handled", topic)

    # --- what arrives --------------------------------------------------------------

    def receive(self, topic: str, payload: bytes) -> str:
        """Take one message; returns what became of it ("game", "again", "slate", "status",
        "refused"), which the tests and the benchmark read."""
        try:
            table, kind, game_id = parse_topic(topic)
            if kind == "games":
                game = read_game(table, game_id, payload)
                if not self.board.add_game(game):
                    return "again"
                log.info("game %s of table %s counted: %s, %s", game.id, table, game.title,
                         "won by " + game.players[game.winner] if game.winner is not None else "no winner")
                return "game"
            if kind == "slate":
                self.board.table_slate(table, read_slate(table, payload))
                return "slate"
            self.board.table_status(table, read_status(payload))
            return "status"
        except Refused as exc:
            key = hashlib.sha256(topic.encode("utf-8", "replace") + b"\0" + payload).hexdigest()
            if self.board.first_refusal(key, exc.reason):
                log.warning("refused a message on %s (%d bytes): %s", topic[:120], len(payload), exc.reason)
            return "refused"


def run_until_signalled(service: LeaderboardService) -> int:
    import signal

    stop = threading.Event()
    previous = {sig: signal.signal(sig, lambda *_: stop.set()) for sig in (signal.SIGTERM, signal.SIGINT)}
    try:
        while not stop.wait(0.5):
            if service._thread is not None and not service._thread.is_alive():
                log.error("the web server stopped unexpectedly")
                return 1
        return 0
    finally:
        service.stop()
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def leaderboard_url(service: Any) -> str:
    host = service.host if service.host not in ("0.0.0.0", "::", "") else "127.0.0.1"
    return f"http://{host}:{service.port}/"

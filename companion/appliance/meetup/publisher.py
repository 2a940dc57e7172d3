"""The table's side of meetup mode: its public slate and its finished games, to the broker.

`TablePublisher` runs one thread beside the table. On every change of the table's public
snapshot it publishes the slate message (retained, QoS 1) when what it shows changed,
and it sends every game the outbox says is due as a QoS 1 message; a game is marked sent
only when the broker acknowledges it (paho's `on_publish`). The MQTT session is
persistent (a fixed client id, clean_session off) and the broker's last will marks the
table offline. The host panel (and the slate's device notes) shows whether the table
is connected: device "leaderboard".

paho's callbacks run on its own network thread while it holds its locks, so they only
set flags and queue acknowledgements; everything else happens on the publisher's thread.
"""

from __future__ import annotations

import logging
import queue
import ssl
import threading
import time
from typing import Any, Callable

from companion.meetup import Outbox, game_message, game_topic, slate_message, status_message
from companion.meetup.messages import slate_topic, status_topic
from companion.meetup.outbox import DueGame

log = logging.getLogger("companion.meetup")

DEVICE = "leaderboard"
#: Seconds an unacknowledged game waits before it is sent again (paho also resends on reconnect).
RESEND_AFTER = 30.0
#: Reconnection back-off, seconds: quick after a Wi-Fi blip, never hammering a broker that is away.
RECONNECT = (1, 8)


def mqtt_client(client_id: str, broker, *, will: tuple[str, bytes] | None = None, clean: bool = False):
    """A paho client for `broker` (a settings.Broker), not yet connected."""
    import paho.mqtt.client as mqtt

    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=client_id, clean_session=clean,
                         protocol=mqtt.MQTTv311)
    if broker.username is not None:
        client.username_pw_set(broker.username, broker.password)
    if broker.tls:
        client.tls_set(ca_certs=str(broker.ca_file) if broker.ca_file else None, cert_reqs=ssl.CERT_REQUIRED)
    if will is not None:
        client.will_set(will[0], will[1], qos=1, retain=True)
    client.reconnect_delay_set(*RECONNECT)
    return client


class TablePublisher:
    """Publishes one table to the meetup's broker; `start()` and `stop()` from the service."""

    def __init__(self, table: Any, outbox: Outbox, settings: Any, *, title: str,
                 clock: Callable[[], float] = time.time):
        self.table = table
        self.outbox = outbox
        self.name: str = settings.table
        self.broker = settings.broker
        self.title = title
        self._clock = clock
        self._client = None
        self._connected = threading.Event()
        self._fresh_connection = threading.Event()
        self._acks: queue.Queue = queue.Queue()
        self._inflight: dict[int, tuple[DueGame, float]] = {}  # paho's message id -> the game, when sent
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None
        self._last_slate: bytes | None = None
        self._refused: str | None = None  # why the broker last refused the table's login
        self._offline_since: float | None = None
        self._checked_at = 0.0  # when the outbox was last asked what is due
        self._ended_seen: tuple[str | None, int] | None = None  # the ended game the outbox was last asked after

    @property
    def connected(self) -> bool:
        return self._connected.is_set()

    def start(self) -> None:
        client = mqtt_client(f"companion-table-{self.name}", self.broker,
                             will=(status_topic(self.name), status_message(False)))
        client.on_connect = self._on_connect
        client.on_disconnect = self._on_disconnect
        client.on_connect_fail = self._on_connect_fail
        client.on_publish = lambda _c, _u, mid, _rc, _p: self._acks.put(mid)
        self._client = client
        self.table.set_device_status(DEVICE, "connecting", f"to the broker at {self.broker.host}:{self.broker.port}")
        client.connect_async(self.broker.host, self.broker.port, keepalive=self.broker.keepalive)
        client.loop_start()
        self._thread = threading.Thread(target=self._run, name="meetup", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Say "offline" (retained) while still connected, then disconnect."""
        self._stopping.set()
        if self._thread is not None:
            self._thread.join(5.0)
        client = self._client
        if client is None:
            return
        if self.connected:
            info = client.publish(status_topic(self.name), status_message(False), qos=1, retain=True)
            try:
                info.wait_for_publish(2.0)
            except (RuntimeError, ValueError):
                pass
        client.disconnect()
        client.loop_stop()

    # --- paho's network thread: flags only ------------------------------------------------

    def _on_connect(self, client, _userdata, _flags, reason_code, _properties) -> None:
        if reason_code.is_failure:
            reason = str(reason_code)
            if reason != self._refused:  # paho tries again every few seconds: say it once
                log.warning("the broker at %s:%s refused the table %s: %s", self.broker.host, self.broker.port,
                            self.name, reason)
                self._refused = reason
            self.table.set_device_status(DEVICE, "refused", f"the broker refused this table ({reason}): check "
                                                            f"[meetup] table and password")
            return
        self._refused = None
        self._offline_since = None
        log.info("connected to the meetup's broker at %s:%s as %s", self.broker.host, self.broker.port, self.name)
        self._connected.set()
        self._fresh_connection.set()
        self.table.set_device_status(DEVICE, "connected", f"broker {self.broker.host}:{self.broker.port}")

    def _on_disconnect(self, _client, _userdata, _flags, reason_code, _properties) -> None:
        was_connected = self._connected.is_set()
        self._connected.clear()
        if self._stopping.is_set() or self._refused is not None:
            return
        if was_connected:
            log.warning("lost the meetup's broker (%s); games are kept and sent when it is back", reason_code)
        self._offline()

    def _on_connect_fail(self, _client, _userdata) -> None:
        if not self._stopping.is_set():
            self._offline()

    def _offline(self) -> None:
        """The table shows since when it has had no broker (the first failure, not the latest try)."""
        if self._offline_since is None:
            self._offline_since = self._clock()
            log.info("no broker at %s:%s; trying again every few seconds", self.broker.host, self.broker.port)
        since = time.strftime("%H:%M", time.localtime(self._offline_since))
        self.table.set_device_status(DEVICE, "offline", f"no broker at {self.broker.host}:{self.broker.port} since "
                                                        f"{since}; finished games are kept and sent when it is back")

    # --- the publisher's thread ---------------------------------------------------------

    def _run(self) -> None:
        seq = -1
        while not self._stopping.is_set():
            change = self.table.wait_for_change(seq, 0.25)
            if change is not None:
                seq = change[0]
            try:
                self._take_acks()
                if self.connected:
                    fresh = self._fresh_connection.is_set()
                    if fresh:  # a new connection: what was in flight is resent below under new ids
                        self._inflight.clear()
                    self._publish_slate(force=fresh)
                    if fresh or self._game_ended() or self._clock() - self._checked_at >= RESEND_AFTER:
                        self._checked_at = self._clock()
                        self._send_due()
            except Exception:
                log.exception("meetup: could not publish; trying again")
                self._stopping.wait(1.0)

    def _game_ended(self) -> bool:
        """Whether the table's game has ended (again) since the last look: only then can a
        new game be due, so the store's list is not read on every press."""
        session = self.table.session
        seen = (self.table.game_id, len(session.record.events)) if session is not None and session.finished else None
        if seen is None or seen == self._ended_seen:
            return False
        self._ended_seen = seen
        return True

    def _publish_slate(self, *, force: bool) -> None:
        if force:
            self._fresh_connection.clear()
            self._client.publish(status_topic(self.name), status_message(True), qos=1, retain=True)
        payload = slate_message(self.name, self.title, self.table.snapshot())
        if force or payload != self._last_slate:
            self._client.publish(slate_topic(self.name), payload, qos=1, retain=True)
            self._last_slate = payload

    def _send_due(self) -> None:
        """Send what is due. `_inflight` keeps one entry per game still due, the latest send:
        an entry is dropped when its game is sent again or is no longer due, so an old
        message id (paho's ids wrap, and slates share them) can never mark a game taken."""
        now = self._clock()
        due_games = self.outbox.due()
        due_ids = {due.local_id for due in due_games}
        for mid in [mid for mid, (game, _) in self._inflight.items() if game.local_id not in due_ids]:
            del self._inflight[mid]
        waiting = {due.local_id for due, sent in self._inflight.values() if now - sent < RESEND_AFTER}
        for due in due_games:
            if due.local_id in waiting:
                continue
            for mid in [mid for mid, (game, _) in self._inflight.items() if game.local_id == due.local_id]:
                del self._inflight[mid]  # resent: its earlier message id no longer stands for it
            record = self.table.store.load(due.local_id)
            game_id, payload = game_message(self.name, due.local_id, record)
            info = self._client.publish(game_topic(self.name, game_id), payload, qos=1)
            if info.mid is None or info.rc not in (0, 4):  # 4: no connection now; paho sends it on reconnect
                log.warning("meetup: game %s not handed to the client (%s); trying again", game_id, info.rc)
                return
            self._inflight[info.mid] = (DueGame(due.local_id, len(record.events)), now)
            log.info("meetup: sent game %s as %s (%d events)", due.local_id, game_id, len(record.events))

    def _take_acks(self) -> None:
        while True:
            try:
                mid = self._acks.get_nowait()
            except queue.Empty:
                return
            sent = self._inflight.pop(mid, None)
            if sent is not None:
                self.outbox.taken(sent[0])
                for other in [m for m, (game, _) in self._inflight.items() if game.local_id == sent[0].local_id]:
                    del self._inflight[other]

"""MQTT clients for the meetup tests: a spy that records every message it may read."""

from __future__ import annotations

import threading
import time

import paho.mqtt.client as mqtt


class Spy:
    """Subscribes to `pattern` and keeps (topic, payload) in arrival order."""

    def __init__(self, port: int, user: str, password: str, pattern: str = "#", client_id: str | None = None):
        self.messages: list[tuple[str, bytes]] = []
        self._lock = threading.Lock()
        self._subscribed = threading.Event()
        self.client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=client_id or f"spy-{time.time_ns()}",
                                  protocol=mqtt.MQTTv311)
        self.client.username_pw_set(user, password)
        self.client.on_connect = lambda c, *_: c.subscribe(pattern, qos=1)
        self.client.on_subscribe = lambda *_: self._subscribed.set()
        self.client.on_message = self._keep
        self.client.connect("127.0.0.1", port)
        self.client.loop_start()
        assert self._subscribed.wait(5), "the spy could not subscribe"

    def _keep(self, _client, _userdata, message) -> None:
        with self._lock:
            self.messages.append((message.topic, bytes(message.payload)))

    def on(self, prefix: str) -> list[tuple[str, bytes]]:
        with self._lock:
            return [(t, p) for t, p in self.messages if t.startswith(prefix)]

    def wait_for(self, prefix: str, count: int, seconds: float = 5.0) -> list[tuple[str, bytes]]:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline and len(self.on(prefix)) < count:
            time.sleep(0.02)
        return self.on(prefix)

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


def publisher(port: int, user: str, password: str) -> mqtt.Client:
    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=f"pub-{user}-{time.time_ns()}",
                         protocol=mqtt.MQTTv311)
    client.username_pw_set(user, password)
    client.connect("127.0.0.1", port)
    client.loop_start()
    return client

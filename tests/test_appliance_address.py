"""Issue 24: the address the service names for phones is never loopback."""

from __future__ import annotations

import socket

from companion.appliance import addresses


class NoRoute:
    """A UDP socket on a Pi with no network yet (a hotspot still starting)."""

    def __init__(self, *args):
        pass

    def connect(self, address):
        raise OSError("Network is unreachable")

    def close(self):
        pass


class Routed(NoRoute):
    def __init__(self, address):
        self.address = address

    def __call__(self, *args):
        return self

    def connect(self, address):
        pass

    def getsockname(self):
        return (self.address, 40000)


def test_all_interfaces_name_the_lan_address(monkeypatch):
    monkeypatch.setattr(addresses.socket, "socket", Routed("192.168.1.50"))
    assert addresses.reachable_host("0.0.0.0") == "192.168.1.50"


def test_without_a_route_the_mdns_name_stands_in_for_loopback(monkeypatch):
    monkeypatch.setattr(addresses.socket, "socket", NoRoute)
    monkeypatch.setattr(addresses.socket, "gethostname", lambda: "gametable")
    assert addresses.reachable_host("0.0.0.0") == "gametable.local"
    assert addresses.reachable_host("::") == "gametable.local"


def test_a_configured_listening_address_is_kept():
    assert addresses.reachable_host("192.168.1.7") == "192.168.1.7"
    assert socket.gethostname()  # the real name the service would fall back to

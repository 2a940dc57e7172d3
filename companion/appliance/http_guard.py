"""waitress, hardened for a venue's shared Wi-Fi: a request body is refused before it is
read, a half-sent request is dropped within seconds, and one address cannot take every
connection.

waitress reads a whole request, body included, before the app sees it, so Flask's limit
came too late: a `POST /host/login` declaring 20 MB got its 413 only after 20 MB had
arrived, and a 150 MB body became a 149 MB temporary file on the SD card (waitress's
own limit is 1 GiB). Here the limit is the route's (`body_limit(path)`, from
`web.bounds`), applied by waitress's parser as soon as the request line and headers are
in: a declared length over it is a 413 with nothing of the body read, and a chunked body
is refused as soon as it passes it.

waitress closes a connection only after `channel_timeout` seconds *without a byte*, so
205 sockets that each sent half a request held every connection slot for five minutes,
for ever when a byte was trickled now and then. Here a request's line and headers must
all arrive within `head_seconds` of its first byte (or of the connection, for the first
request), its body within `body_seconds`, whatever trickles in between; and one client
address holds at most `connections_per_client` connections (more are closed at once).
At the connection limit, the connection waiting longest without a request being served
makes room for the new one.
"""

from __future__ import annotations

import dataclasses
import functools
import logging
import socket
import time
from dataclasses import dataclass
from typing import Any, Callable

from waitress.adjustments import Adjustments
from waitress.channel import HTTPChannel
from waitress.parser import HTTPRequestParser
from waitress.server import MultiSocketServer, TcpWSGIServer
from waitress.task import ThreadedTaskDispatcher

from companion.appliance.config import is_loopback_address

log = logging.getLogger("companion.http")


@dataclass(frozen=True)
class Limits:
    """What one client may hold of the server, and for how long."""

    #: The largest body each path takes, in bytes.
    body_limit: Callable[[str], int]
    #: Connections one client address may hold at once (a browser opens at most 6 per server).
    connections_per_client: int = 16
    #: Seconds for a request's line and headers to arrive, from its first byte.
    head_seconds: float = 5.0
    #: Seconds for a whole request, body included (a 2 MiB record over poor Wi-Fi).
    body_seconds: float = 60.0
    #: Peers the per-address cap leaves alone: the HTTPS proxy, which caps each client itself.
    unlimited: tuple[str, ...] = ()


#: The HTTPS proxy on this machine (`[web] tls_proxy`): its connections all come from here.
PROXY = ("127.0.0.1",)
#: waitress takes the client's address and scheme from the proxy's headers, and from it
#: alone (`clear_untrusted_proxy_headers` drops them from anyone else).
PROXY_SETTINGS = {"trusted_proxy": PROXY[0], "trusted_proxy_count": 1,
                  "trusted_proxy_headers": {"x-forwarded-for", "x-forwarded-proto"}}


class _RouteAdjustments:
    """waitress's settings for one request, with its route's body limit in force."""

    def __init__(self, adj: Adjustments, max_body: int):
        self._adj = adj
        self.max_request_body_size = max_body

    def __getattr__(self, name: str) -> Any:
        return getattr(self._adj, name)


class RoutedParser(HTTPRequestParser):
    """waitress's parser, refusing a body over its route's limit as soon as the headers
    are in (declared length) or as soon as it passes the limit (chunked)."""

    def __init__(self, adj: Adjustments, *, body_limit: Callable[[str], int]):
        super().__init__(adj)
        self._body_limit = body_limit

    def parse_header(self, header_plus: bytes) -> None:
        super().parse_header(header_plus)
        # waitress refuses a body of max_request_body_size or more: one past the limit
        limit = min(self._body_limit(self.path) + 1, self.adj.max_request_body_size)
        self.adj = _RouteAdjustments(self.adj, limit)


class GuardedChannel(HTTPChannel):
    """A connection that knows when its request began, for the server's deadlines."""

    def __init__(self, server: "GuardedServer", sock, addr, adj, map=None):
        super().__init__(server, sock, addr, adj, map=map)
        self.parser_class = functools.partial(RoutedParser, body_limit=server.limits.body_limit)
        self.request_started = self.creation_time
        self.served = 0

    def received(self, data: bytes) -> bool:
        if self.request is None and data:
            self.request_started = time.time()
        return super().received(data)

    def waiting_since(self) -> tuple[bool, float]:
        """For making room: a body on its way is kept over an idle or half-sent connection;
        among the rest, the oldest connection goes first (a new one, about to send its
        request, is never the one)."""
        receiving_body = self.request is not None and self.request.headers_finished
        return receiving_body, self.creation_time

    def overdue(self, now: float, limits: Limits) -> bool:
        """A request begun (or a connection opened) and not in within its time."""
        if self.requests or self.will_close or self.close_when_flushed:
            return False  # a request is being served (an event stream, say)
        partial = self.request
        if partial is None:
            # idle between requests: waitress's channel_timeout; never used: the head's time
            return self.last_activity == self.creation_time and now - self.creation_time > limits.head_seconds
        allowed = limits.body_seconds if partial.headers_finished else limits.head_seconds
        return now - self.request_started > allowed


class GuardedServer(TcpWSGIServer):
    """waitress's TCP server with `GuardedChannel`s, a per-address cap and the deadlines."""

    channel_class = GuardedChannel

    def __init__(self, application, map=None, *, limits: Limits, **kwargs):
        self.limits = limits
        self.refused_connections = 0
        self.evicted_connections = 0
        super().__init__(application, map, **kwargs)

    def handle_accept(self) -> None:
        try:
            accepted = self.accept()
        except OSError:
            return
        if accepted is None:
            return
        conn, addr = accepted
        client = addr[0]
        held = sum(1 for channel in list(self.active_channels.values()) if channel.addr[0] == client)
        if held >= self.limits.connections_per_client and client not in self.limits.unlimited:
            self.refused_connections += 1
            conn.close()
            return
        try:
            self.set_socket_options(conn)
        except OSError:
            conn.close()
            return
        self.channel_class(self, conn, self.fix_addr(addr), self.adj, map=self._map)

    def readable(self) -> bool:
        """waitress stops accepting at its connection limit, leaving new clients in the
        kernel's queue behind whatever holds the slots. Here, at the limit, the connection
        waiting longest without a request being served is closed to make room, so a new
        client gets in as long as not every slot is serving a request."""
        if self.accepting and len(self._map) >= self.adj.connection_limit:
            self._make_room()
        return super().readable()

    def _make_room(self) -> None:
        """Mark one connection to close; the loop closes it in its write pass (closing it
        here, while the loop gathers what to poll, could hand its poll result to a new
        connection given the same file number), and accepting resumes once it is gone."""
        channels = [c for c in list(self.active_channels.values()) if isinstance(c, GuardedChannel)]
        if any(c.will_close for c in channels):
            return  # room is already being made
        waiting = [c for c in channels if not c.requests and not c.close_when_flushed]
        if waiting:
            self.evicted_connections += 1
            min(waiting, key=GuardedChannel.waiting_since).will_close = True

    def maintenance(self, now: float) -> None:
        super().maintenance(now)
        for channel in list(self.active_channels.values()):
            if isinstance(channel, GuardedChannel) and channel.overdue(now, self.limits):
                channel.will_close = True


def socket_options() -> list[tuple[int, int, int]]:
    """TCP options for each connection: no Nagle delay (small event-stream messages go
    out at once), and a peer that vanished (a phone switched off, out of the Wi-Fi) is
    dropped once data to it goes unacknowledged for 10 s, instead of TCP's 15 minutes."""
    options = [(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1), (socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)]
    for name, value in (("TCP_USER_TIMEOUT", 10_000), ("TCP_KEEPIDLE", 10), ("TCP_KEEPINTVL", 5), ("TCP_KEEPCNT", 2)):
        if hasattr(socket, name):
            options.append((socket.IPPROTO_TCP, getattr(socket, name), value))
    return options


def create_guarded_server(application, *, limits: Limits, max_body: int, behind_proxy: bool = False, **settings):
    """Like `waitress.create_server`, with `GuardedServer`s and every body capped at `max_body`.

    The worker pool is waitress's own `ThreadedTaskDispatcher` of `threads` workers, made
    as `create_server` makes it and shared by every listening socket. `behind_proxy`: the
    HTTPS proxy on this machine forwards every client (ValueError unless `host` is loopback)."""
    if behind_proxy:
        if not is_loopback_address(settings.get("host", "0.0.0.0")):
            raise ValueError(f"web.tls_proxy is on: listen on 127.0.0.1 behind the HTTPS proxy, "
                             f"not {settings.get('host', '0.0.0.0')}")
        limits = dataclasses.replace(limits, unlimited=PROXY)
        settings.update(PROXY_SETTINGS)
    adj = Adjustments(max_request_body_size=max_body + 1, **settings)
    adj.socket_options = socket_options()  # a class attribute of waitress's, not a setting
    dispatcher = ThreadedTaskDispatcher()
    dispatcher.set_thread_count(adj.threads)
    sockets_map: dict = {}
    servers = []
    try:
        for sockinfo in adj.listen:
            servers.append(GuardedServer(application, sockets_map, limits=limits, dispatcher=dispatcher,
                                         adj=adj, sockinfo=sockinfo))
    except BaseException:
        for server in servers:
            server.close()
        dispatcher.shutdown(cancel_pending=True, timeout=1)  # its workers are already running
        raise
    if len(servers) == 1:
        return servers[0]
    listening = [(server.effective_host, server.effective_port) for server in servers]
    return MultiSocketServer(sockets_map, adj, listening, dispatcher, servers[-1].log_info)

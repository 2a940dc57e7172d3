"""The table service: the one place where camera, buttons, engine, store and slate meet.

`TableService(config, data_dir).start()` opens the game database, resumes the unfinished
game, opens the buttons, the seat lights and the camera (each may be missing: the table
then runs on the host panel alone), builds the web app and serves it with waitress.
`stop()` shuts it all down in order; `serve_until_signalled()` runs until SIGTERM/Ctrl-C.

Seats: the first `[[gpio.seats]]` entry is the game's first player (seat 0, as the
engine counts), and so on round the table. Nothing here is created at import time.
"""

from __future__ import annotations

import fcntl
import logging
import queue
import signal
import threading
from pathlib import Path
from typing import Any, Callable

from companion.appliance import backup, meetup, memory, watchdog
from companion.appliance.addresses import slate_url
from companion.appliance.config import PIN_BUDGET_FILE, Config, HostCredentials, host_credentials
from companion.projection import SeatsView
from companion.rules import BadRecord, IllegalAction, UnknownGame
from companion.store import SqliteStore, StoreFull
from companion.table import Table
from hardware.calibration import CalibrationStore, applied
from hardware.camera_setup import CameraSetup
from hardware.demo_camera import demo_spike_profile
from hardware.faults import HardwareFault
from hardware.reveal import DiceReader, RevealDesk, SettledScene, VisionReader
from hardware.vision import VisionConfig

log = logging.getLogger("companion.service")

_STOP = object()
#: Seconds an idle keep-alive connection stays open between requests (a browser opens a
#: new one when it needs it); a request being served (an event stream) is never idle.
CHANNEL_TIMEOUT = 30


class ServiceError(Exception):
    """The service cannot start; the message says why and what to do."""


class TableService:
    """Everything one table needs, wired together. Parts may be injected (tests, benchmarks)."""

    def __init__(self, config: Config, data_dir: Path, *, demo: bool = False, host: str | None = None,
                 port: int | None = None, pin_factory: Any = None,
                 open_camera: Callable[[], Any] | None = None, make_reader: Callable[[], DiceReader | None] | None = None,
                 ready: Callable[[], Any] | None = None):
        self.config = config
        self.data_dir = Path(data_dir)
        self.demo = demo
        self.host = host or config.web.host
        self.port = config.web.port if port is None else port
        self.pin_factory = pin_factory
        self._open_camera = open_camera
        self._make_reader = make_reader
        self._ready = ready
        self.presses: queue.Queue = queue.Queue()
        self.table: Table | None = None
        self.store: SqliteStore | None = None
        self.credentials: HostCredentials | None = None
        self.desk: RevealDesk | None = None
        self.camera_setup: CameraSetup | None = None
        self.buttons = None
        self.lights = None
        self.app = None
        self._server = None
        self._threads: list[threading.Thread] = []
        self._stopping = threading.Event()
        self._lock_file = None
        self._before_reveal: Callable[[], None] = lambda: None
        self._demo_camera = None
        self._calibration_warned = False
        self._resumed = False  # a game was picked up after a restart
        self._owns_factory = False
        self._meetup = None  # the meetup's publisher ([meetup] enabled)

    # --- start ------------------------------------------------------------------------

    def start(self) -> None:
        """Bring the table up; ServiceError (nothing left open) when it cannot start."""
        memory.hand_big_buffers_back()  # camera frames and readings: memory that goes back (memory.py)
        try:
            self._claim_data_dir()
            self.store = SqliteStore.in_dir(self.data_dir)
            self.table = Table(self.store)
            self._resume()
            self.credentials = host_credentials(self.data_dir, self.config.host.pin)
            self._open_gpio()
            self._open_camera_wing()
            self.app = self._build_app()
            self._server = self._build_server()
            self._meetup = meetup.start_publisher(self.config, self.table, self.data_dir)
        except BaseException:
            self.stop()
            raise
        self._spawn("presses", self._consume_presses)
        if self.lights is not None:
            self._spawn("seat-lights", self._drive_lights)
        self.desk.start()
        self._spawn("http", self._server.run)
        self._watchdog = watchdog.start({
            "the camera loop": watchdog.turned_lately(lambda: self.desk.turned_at),
            "the web server": watchdog.http_answers(watchdog.own_url(self.host, self.port, "/api/state")),
        })
        watchdog.notify("READY=1")
        log.info("table service up at %s (data in %s)", self.url, self.data_dir)

    def _claim_data_dir(self) -> None:
        """One service per data directory: two would interleave games in one database."""
        self.data_dir.mkdir(parents=True, exist_ok=True)
        handle = open(self.data_dir / "service.lock", "a+")
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            handle.close()
            raise ServiceError(f"another companion is already running with the data directory {self.data_dir}") from None
        self._lock_file = handle

    def _resume(self) -> None:
        try:
            if self.table.resume():
                self._resumed = True
                log.info("resumed the unfinished game %s", self.table.game_id)
        except (BadRecord, UnknownGame) as exc:
            # Keep the record (never overwrite it); the table starts without it.
            log.error("the unfinished game cannot be resumed and was left as it is: %s", exc)
            self.table.set_device_status("store", "warning", f"the last unfinished game cannot be resumed: {exc}")

    def _open_gpio(self) -> None:
        from hardware.gpio import SeatLights, TableButtons, make_pin_factory

        wiring = self.config.gpio
        try:
            if self.pin_factory is None:
                self.pin_factory = make_pin_factory("mock" if self.demo else wiring.pin_factory, wiring.chip)
                self._owns_factory = True
            self.buttons = TableButtons(wiring, self.presses, pin_factory=self.pin_factory)
            self.lights = SeatLights(wiring, pin_factory=self.pin_factory)
        except HardwareFault as exc:
            from hardware.table.chips import describe_chips, list_chips

            message = f"VIRTUAL BUTTONS ONLY: {exc}. {describe_chips(list_chips())}"
            log.error("table buttons unavailable: %s", message)
            self.table.set_device_status("buttons", "unavailable", message)
            for part in (self.buttons, self.lights):
                if part is not None:
                    part.close()
            self.buttons = self.lights = None
            return
        status = "demo" if self.demo else "ok"
        self.table.set_device_status("buttons", status, "virtual buttons on mock pins" if self.demo else "")

    def _open_camera_wing(self) -> None:
        """The reveal desk, built for the host's saved calibration, and the camera page's
        set-up, which changes that calibration and has the desk rebuild its reader."""
        calibrations = CalibrationStore(self.data_dir)
        calibration = calibrations.load()
        self._calibration_warned = bool(calibrations.problem)
        if self._calibration_warned:
            self.table.set_device_status("calibration", "warning", calibrations.problem)
        self.desk = self._build_desk(applied(self.config.vision, calibration, self.data_dir))
        self.camera_setup = CameraSetup(
            calibrations, self.config.vision, calibration, self.desk, rebuild=self._recalibrated,
            withheld=self._picture_withheld, read_only=(
                "the demo's photos come from several cameras, so no one region or empty-table photo fits "
                "them: on a real table this page sets them" if self.demo else None),
            taught=demo_spike_profile if self.demo else None)

    def _build_desk(self, vision: VisionConfig) -> RevealDesk:
        opener = self._open_camera
        if self.demo:
            from hardware.demo_camera import DemoCamera

            camera = DemoCamera(self.table)
            self._demo_camera = camera
            self._before_reveal = camera.lift_cup
            opener = opener or (lambda: camera)
        if opener is None:
            from hardware.camera import open_camera

            opener = lambda: open_camera(self.config.camera)  # noqa: E731
        return RevealDesk(self.table, opener, self._reader_for(vision), ready=self._ready_for(vision),
                          resumed=self._resumed)

    def _reader_for(self, vision) -> Callable[[], DiceReader | None]:
        if self._make_reader is not None:
            return self._make_reader
        if self.demo:
            return lambda: demo_reader(self._demo_camera, vision, self.table)
        return lambda: VisionReader(vision)

    def _ready_for(self, vision) -> Callable[[], Any]:
        return self._ready if self._ready is not None else vision_ready(vision)

    def _picture_withheld(self) -> str | None:
        """The camera page shows no picture and reads no dice while a game is in progress:
        a peek under a cup would show the host dice that are secret until the reveal."""
        session = self.table.session
        if session is not None and not session.finished:
            return ("a game is in progress: the dice under the cups are secret until the reveal, and a peek "
                    "would show them here. The picture, trial reads and spike lessons come back when it ends")
        return None

    def _recalibrated(self, vision) -> None:
        """The host changed the calibration: the desk builds its reader and watcher anew."""
        self.desk.reconfigure(self._reader_for(vision), self._ready_for(vision))
        if self._calibration_warned:  # the host has set it again: the warning is answered
            self._calibration_warned = False
            self.table.set_device_status("calibration", "ok", "")

    def _build_app(self):
        from web import create_app

        web = self.config.web
        settings = {
            "host_pin": self.credentials.pin,
            "pin_budget_file": self.data_dir / PIN_BUDGET_FILE,
            "max_streams": web.stream_limit,
            "streams_per_client": web.streams_per_client,
            "allowed_hosts": list(web.allowed_hosts),
            "secret_key": self.credentials.secret_key,
            "title": self.config.table.name,
            "lan_url": lambda: self.url,  # the kiosk asks on localhost: its QR code names the LAN
            "secure_cookie": web.tls_proxy,
        }
        if web.public_url:
            settings["slate_url"] = web.public_url
        if web.wifi_ssid:
            settings["wifi"] = (web.wifi_ssid, web.wifi_password)
        if web.sse_max_seconds is not None:
            settings["sse_max_seconds"] = web.sse_max_seconds
        settings["backup"] = (lambda: backup.DEMO_REFUSAL) if self.demo else (
            lambda: backup.archive_bytes(self.data_dir, self.config.path))
        return create_app(self.table, settings, on_reveal=self.reveal_now, camera=self.camera_setup)

    def _build_server(self):
        from companion.appliance.http_guard import Limits, create_guarded_server
        from web.bounds import LARGEST_BODY, body_limit

        threads = self.config.web.threads
        try:
            server = create_guarded_server(
                self.app, max_body=LARGEST_BODY,
                limits=Limits(body_limit=body_limit, connections_per_client=self.config.web.connections_per_client),
                behind_proxy=self.config.web.tls_proxy,
                host=self.host, port=self.port, threads=threads, connection_limit=max(100, threads * 2),
                asyncore_use_poll=True, channel_timeout=CHANNEL_TIMEOUT, cleanup_interval=1,
                channel_request_lookahead=1, ident="game-companion", clear_untrusted_proxy_headers=True,
            )
        except (OSError, ValueError) as exc:  # ValueError: not loopback behind the HTTPS proxy
            raise ServiceError(f"cannot listen on {self.host}:{self.port}: {getattr(exc, 'strerror', None) or exc}") from None
        self.port = server.effective_port
        return server

    def _spawn(self, name: str, target: Callable[[], None]) -> None:
        thread = threading.Thread(target=target, name=name, daemon=True)
        thread.start()
        self._threads.append(thread)

    # --- what the table's buttons and lights do ----------------------------------------

    def _consume_presses(self) -> None:
        """Presses are applied here, one at a time, never on gpiozero's callback threads."""
        while True:
            press = self.presses.get()
            if press is _STOP:
                return
            try:
                self.handle_press(press)
            except Exception:
                log.exception("a button press could not be handled")

    def handle_press(self, press) -> None:
        button = press.button.value
        if button == "reveal":
            self._before_reveal()
            self.desk.request_reveal()
            return
        seat = press.seat
        if seat is not None and seat >= self._player_count():
            log.debug("press at seat %s ignored: nobody plays there", seat)
            return
        try:
            if not self.table.press(seat, button):
                return
        except IllegalAction as exc:
            log.debug("press at seat %s refused: %s", press.seat, exc)
        except StoreFull:  # the slate and the host panel say so; the player presses again later
            log.warning("a press at seat %s was not stored: the disk is full", press.seat)

    def reveal_now(self) -> str:
        """The host panel's reveal button: read the dice now and say what happened."""
        self._before_reveal()
        return self.desk.reveal_now()

    def _player_count(self) -> int:
        session = self.table.session
        return len(session.record.players) if session is not None else 0

    def _drive_lights(self) -> None:
        seq = -1
        while not self._stopping.is_set():
            change = self.table.wait_for_change(seq, 1.0)
            self._forget_mock_history()
            if change is None:
                continue
            seq = change[0]
            try:
                self.lights.show(light_states(self.table.seats_view(), self.config.gpio.seat_numbers()))
            except Exception:
                log.exception("the seat lights could not be set")

    def _forget_mock_history(self) -> None:
        """gpiozero's MockFactory (demo, `pin_factory = "mock"`) keeps every change of every
        pin for tests to inspect; a blinking seat light would grow that list all evening."""
        if not self._owns_factory:
            return
        for pin in list(getattr(self.pin_factory, "pins", {}).values()):
            if len(getattr(pin, "states", ())) > 100 and hasattr(pin, "clear_states"):
                pin.clear_states()

    # --- addresses ----------------------------------------------------------------------

    @property
    def url(self) -> str:
        return slate_url(self.host, self.port, tls_proxy=self.config.web.tls_proxy)

    @property
    def host_url(self) -> str:
        return self.url + "host"

    # --- stop ---------------------------------------------------------------------------

    def stop(self) -> None:
        """Stop serving, finish pending presses, release the hardware, close the database."""
        if self._stopping.is_set():
            return
        self._stopping.set()
        watchdog.notify("STOPPING=1")
        if getattr(self, "_watchdog", None) is not None:
            self._watchdog.stop()
        if self.table is not None:  # wakes every waiter: the lights thread, the slates' streams
            self.table.set_device_status("service", "stopping", "the table service is shutting down")
        if self._server is not None:
            _close_server(self._server)
        if self.desk is not None:
            self.desk.stop()
        if self.buttons is not None:
            self.buttons.close()
        self.presses.put(_STOP)
        for thread in self._threads:
            thread.join(5.0)
        if self.lights is not None:
            self.lights.close()
        if self._owns_factory and self.pin_factory is not None:
            self.pin_factory.close()
        if self._meetup is not None:
            self._meetup.stop()
        if self.store is not None:
            self.store.close()
        if self._lock_file is not None:
            self._lock_file.close()
        log.info("table service stopped")

    def serve_until_signalled(self) -> int:
        """Run until SIGTERM or Ctrl-C (SIGINT), then stop cleanly. Main thread only."""
        stop = threading.Event()
        previous = {sig: signal.signal(sig, lambda *_: stop.set()) for sig in (signal.SIGTERM, signal.SIGINT)}
        try:
            while not stop.wait(0.5):
                if not any(t.is_alive() for t in self._threads if t.name == "http"):
                    log.error("the web server stopped unexpectedly")
                    return 1
            log.info("stopping (signal received)")
            return 0
        finally:
            self.stop()
            for sig, handler in previous.items():
                signal.signal(sig, handler)


def light_states(seats_view: SeatsView, seats: list[int]):
    """The seat lights for the seats' view: blink = this seat is to act, steady = call in.

    Only *that* a seat has called is shown, never what: the view has no secret.
    """
    from hardware.gpio import LightState

    return {seat: LightState(cue.value) for seat, cue in seats_view.cues(seats).items()}


def vision_ready(vision_config) -> Callable[[], Any]:
    """The vision's ready-to-read machine (a plain still-picture check if vision cannot load)."""
    try:
        return VisionReader.ready_factory(vision_config)
    except Exception as exc:  # ImportError, a missing model file
        log.warning("the vision's cup-lifted detector is unavailable (%s); using a plain still-picture check", exc)
        return SettledScene


def demo_reader(camera, vision_config, table) -> DiceReader:
    """The real reader with the bundled spike dice taught; the photos' own values if it cannot load."""
    from hardware.demo_camera import ManifestReader, demo_spike_profile

    try:
        return VisionReader(vision_config, spike_profile=demo_spike_profile())
    except Exception as exc:
        log.warning("the dice reader is unavailable (%s); the demo uses the photos' known values", exc)
        table.set_device_status("reader", "demo", f"the dice reader cannot start ({exc}); using the photos' known values")
        return ManifestReader(camera)


def _close_server(server) -> None:
    """Stop waitress from another thread: close every channel, then the worker threads."""
    logging.getLogger("waitress").setLevel(logging.ERROR)
    try:
        server.close()
        for channel in list(server._map.values()):
            try:
                channel.handle_close()
            except Exception:
                pass
        server.task_dispatcher.shutdown(timeout=1.0)
    except Exception:
        log.debug("error while closing the web server", exc_info=True)

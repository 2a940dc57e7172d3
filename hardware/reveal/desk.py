"""The reveal flow: camera frames in, a reading offered to the table out.

One thread owns the camera. It hands every frame to the desk's step (`step.RevealStep`),
which feeds the vision's ready-to-read state machine and decides: when the game expects
dice and the cup has been lifted and the dice are still (or someone pressed the reveal
button, real or virtual), the frame is read, the reading checked against what the game
expects and offered to the table, which applies it or holds it for the host's one-tap
fix. Flagged or implausible readings are never applied silently. The thread carries the
step's decisions out and runs the camera page's jobs between frames.

Faults never stop the table: no camera, a camera unplugged mid-game or a reader error
become a device status on the host panel, and manual entry keeps working. The camera is
reopened every few seconds until it is back.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Any, Callable

import numpy as np

from hardware.faults import HardwareFault
from hardware.reveal.jobs import Ask, CameraJob, CameraJobFailed
from hardware.reveal.sight import DiceReader, ReadySignal, RevealTable
from hardware.reveal.step import MANUAL, Answer, Offer, RevealStep, TellTable, unseen

log = logging.getLogger("companion.reveal")


class RevealDesk:
    """Runs the camera loop for one table. `open_camera()` returns a FrameSource or None (no
    camera). The decisions are the step's (`step.RevealStep`); the desk keeps the thread,
    the camera and the reader, and carries the step's actions out."""

    def __init__(self, table: RevealTable, open_camera: Callable[[], Any],
                 make_reader: Callable[[], DiceReader | None], *,
                 ready: Callable[[], ReadySignal] | None = None, frame_interval: float = 0.1,
                 idle_interval: float = 0.25, retry_seconds: float = 5.0, occluded_notice: float = 10.0,
                 clock: Callable[[], float] = time.monotonic, resumed: bool = False):
        """`resumed`: the table picked up a game after a restart; the dice lying there when the
        camera first looks may have been read before it, so that first scene is not taken for
        a new throw (a press reads it)."""
        self.table = table
        self._open_camera = open_camera
        self._make_reader = make_reader
        self.decisions = RevealStep(ready, occluded_notice=occluded_notice, resumed=resumed)
        self._frame_interval = frame_interval
        self._idle_interval = idle_interval
        self._retry_seconds = retry_seconds
        self._clock = clock
        self._lock = threading.Lock()
        self._asks: list[Ask] = []
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._camera = None
        self._last_fault: str | None = None
        self._camera_wanted = True
        self._next_open = 0.0
        self._jobs: list[tuple[CameraJob, Ask]] = []
        self._new_parts: tuple[Callable[[], DiceReader | None], Callable[[], ReadySignal] | None] | None = None
        self._latest: tuple[np.ndarray, float] | None = None  # the last frame and when it came
        self.resumed = resumed
        self.readings = 0  # offered readings (benchmarks, tests)
        self._turned = threading.Condition()  # notified after each turn of the loop
        self._turns = 0
        self.turned_at = time.monotonic()  # when the loop last finished a turn (the watchdog asks)

    @property
    def reader(self) -> DiceReader | None:
        """The dice reader the camera thread uses (None until it has loaded, or when it cannot)."""
        return self.decisions.reader

    def wait_for_turns(self, count: int = 1, timeout: float = 5.0) -> bool:
        """Block until the camera loop has finished `count` more turns; False on timeout.
        (What a turn decided has then been carried out: tests and benchmarks wait on it.)"""
        with self._turned:
            goal = self._turns + count
            return self._turned.wait_for(lambda: self._turns >= goal, timeout)

    # --- life cycle -------------------------------------------------------------------

    def start(self) -> None:
        self.turned_at = time.monotonic()
        self._thread = threading.Thread(target=self._run, name="reveal-desk", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 5.0) -> None:
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout)
        self._close_camera()
        with self._lock:
            asks, self._asks = self._asks, []
            jobs, self._jobs = self._jobs, []
        for ask in asks:
            ask.answer("the table is shutting down")
        for _, ask in jobs:
            ask.answer(CameraJobFailed("the table is shutting down"))

    # --- asking for a reading ---------------------------------------------------------

    def request_reveal(self) -> Ask:
        """The reveal button: read the next frame now (does not wait)."""
        ask = Ask()
        with self._lock:
            self._asks.append(ask)
        self._wake.set()
        return ask

    def reveal_now(self, timeout: float = 8.0) -> str:
        """The host panel's reveal button: read now and say what happened."""
        if self._stop.is_set():
            return "the table is shutting down"
        ask = self.request_reveal()
        if not ask.done.wait(timeout):
            return f"the camera did not answer in time; {MANUAL}"
        return ask.result

    # --- the camera page (calibration) -------------------------------------------------

    def latest_frame(self, max_age: float = 3.0) -> np.ndarray | None:
        """The last frame the camera sent, if it came within `max_age` seconds (read only)."""
        latest = self._latest
        if latest is None or self._clock() - latest[1] > max_age:
            return None
        return latest[0]

    def on_camera_thread(self, job: CameraJob, timeout: float = 8.0) -> Any:
        """Run `job(frame, reader)` on the camera thread, with a frame taken after this call
        (averaged with the still frames before it when nothing moved), between reads: it
        uses the reader the table uses, set up as the table's, and never races a reveal.
        Returns what the job returns; raises what it raises, or CameraJobFailed when it
        cannot run (no answer within `timeout`, shutting down)."""
        if self._stop.is_set():
            raise CameraJobFailed("the table is shutting down")
        ask = Ask()
        with self._lock:
            self._jobs.append((job, ask))
        self._wake.set()
        if not ask.done.wait(timeout):
            with self._lock:
                if (job, ask) in self._jobs:
                    self._jobs.remove((job, ask))
            raise CameraJobFailed("the camera did not answer in time")
        if isinstance(ask.result, BaseException):
            raise ask.result
        return ask.result

    def can_measure_light(self) -> bool:
        """Whether the camera open now can measure the light again (a Pi camera can; a
        webcam keeps adjusting its own exposure, recorded pictures have none)."""
        return callable(getattr(self._camera, "measure_light", None))

    def measure_light(self, settle_seconds: float | None = None, timeout: float = 15.0) -> dict[str, Any]:
        """Let the camera measure the room's light again and lock what it finds (on the camera
        thread, between reads); returns the values locked. Raises CameraJobFailed when there
        is no camera, or one that cannot, or it failed."""

        def job(frame, reader):
            measure = getattr(self._camera, "measure_light", None)
            if frame is None or self._camera is None:
                raise CameraJobFailed("there is no camera to measure the light with: check it is connected")
            if not callable(measure):
                raise CameraJobFailed("this camera sets its own exposure as the light changes: nothing to measure")
            try:
                locked = measure(settle_seconds)
            except HardwareFault as exc:
                raise CameraJobFailed(str(exc)) from None
            # The picture's brightness jumps, which the ready-watcher takes for movement; the
            # dice it then sees settle are the ones read last, and same_throw keeps them from
            # being read as a new throw.
            log.info("the light was measured again: %s", locked)
            return dict(locked)

        return self.on_camera_thread(job, timeout=timeout)

    def reconfigure(self, make_reader: Callable[[], DiceReader | None],
                    ready: Callable[[], ReadySignal] | None) -> None:
        """Use new reader and ready-to-read factories (a new table region or empty-table
        photo): the camera thread builds them before its next frame."""
        with self._lock:
            self._new_parts = (make_reader, ready)
        self._wake.set()

    def _take_jobs(self) -> list[tuple[CameraJob, Ask]]:
        with self._lock:
            jobs, self._jobs = self._jobs, []
        return jobs

    def _run_jobs(self, jobs: list[tuple[CameraJob, Ask]], frame: np.ndarray | None) -> None:
        for job, ask in jobs:
            try:
                ask.answer(job(frame, self.reader))
            except Exception as exc:  # the job's own refusal, or a bug: the asker hears of it
                ask.answer(exc)

    def _apply_new_parts(self) -> None:
        with self._lock:
            parts, self._new_parts = self._new_parts, None
        if parts is None:
            return
        self._make_reader, ready = parts
        self._carry_out(self.decisions.reconfigure(ready))
        self._load_reader()
        log.info("the dice reader was set up again (new calibration)")

    # --- the loop ---------------------------------------------------------------------

    def _run(self) -> None:
        self._load_reader()
        while not self._stop.is_set():
            try:
                pause = self.turn()
            except Exception:  # a bug here must never take the table down
                log.exception("the camera loop failed; retrying")
                self.table.set_device_status("camera", "error", f"the camera loop failed; {MANUAL}")
                self._close_camera()
                pause = self._retry_seconds
            with self._turned:
                self._turns += 1
                self.turned_at = time.monotonic()
                self._turned.notify_all()
            self._wake.wait(pause)
            self._wake.clear()

    def turn(self) -> float:
        """One turn of the loop (the camera thread's; tests on a hand-turned clock call it):
        take a frame, let the step decide, carry it out. Returns how long to pause."""
        self._apply_new_parts()
        asked = self._take_asks()  # before the frame: "read now" means a picture taken after the press
        jobs = self._take_jobs()
        request = self.table.expected_dice()
        readings = self.table.readings_in_force() if request is not None else None  # what a reading would follow
        if self._camera is None:
            self._try_open()
        if self._camera is None:
            for ask in asked:
                ask.answer(unseen(request))
            self._run_jobs(jobs, None)
            return self._idle_interval if not self._camera_wanted else min(self._retry_seconds, 1.0)
        try:
            frame = self._camera.read()
        except HardwareFault as exc:
            log.warning("camera lost: %s", exc)
            self.table.set_device_status("camera", "unavailable", f"{exc}")
            self._close_camera()
            self._next_open = self._clock() + self._retry_seconds
            for ask in asked:
                ask.answer(f"the camera is not available; {MANUAL}")
            self._run_jobs(jobs, None)
            return 0.2
        now = self._clock()
        self._latest = (frame, now)
        turn = self.decisions.step(frame, now, request, pressed=bool(asked), looking=bool(jobs), readings=readings)
        self._run_jobs(jobs, turn.still)
        answer = self._carry_out(turn.actions)
        for ask in asked:
            ask.answer(answer)
        return self._frame_interval if request is not None else self._idle_interval

    def _carry_out(self, actions) -> str:
        """Do what the step decided, in order; returns the answer for this turn's presses."""
        answer = ""
        for action in actions:
            if isinstance(action, TellTable):
                self.table.set_device_status(action.device, action.status, action.message)
            elif isinstance(action, Answer):
                answer = action.text
            elif isinstance(action, Offer):
                outcome = self.table.offer_reading(action.sight.offered(), photo=action.photo,
                                                   readings=action.readings)
                self.readings += 1
                answer = action.answer(outcome)
        return answer

    def _load_reader(self) -> None:
        """Built on this thread: loading models must not delay the slate."""
        try:
            self.decisions.reader = self._make_reader()
        except Exception as exc:
            log.warning("the dice reader is unavailable: %s", exc)
            self.table.set_device_status("reader", "unavailable", f"the dice reader cannot start ({exc}); {MANUAL}")

    # --- the camera -------------------------------------------------------------------

    def _try_open(self) -> None:
        if not self._camera_wanted or self._clock() < self._next_open:
            return
        try:
            camera = self._open_camera()
        except HardwareFault as exc:
            # Retried every few seconds: say it once, not every time.
            (log.debug if str(exc) == self._last_fault else log.warning)("no camera: %s", exc)
            self._last_fault = str(exc)
            self.table.set_device_status("camera", "unavailable", str(exc))
            self._next_open = self._clock() + self._retry_seconds
            return
        if camera is None:
            self._camera_wanted = False
            self.table.set_device_status("camera", "off", f"no camera configured; {MANUAL}")
            return
        self._camera, self._last_fault = camera, None
        self.decisions.new_camera()
        self.table.set_device_status("camera", "ok", "")
        log.info("camera ready")

    def _close_camera(self) -> None:
        camera, self._camera = self._camera, None
        self._latest = None  # a camera that is gone has no picture of the table now
        if camera is not None:
            try:
                camera.close()
            except Exception:
                log.debug("error closing the camera", exc_info=True)

    def _take_asks(self) -> list[Ask]:
        with self._lock:
            asks, self._asks = self._asks, []
        return asks

"""The reveal flow: camera frames in, a reading offered to the table out.

One thread owns the camera. It feeds every frame to the vision's ready-to-read state
machine; when the game expects dice and the cup has been lifted and the dice are still
(or someone pressed the reveal button, real or virtual), it reads the frame, checks the
reading against what the game expects (how many dice, which kind) and offers it to the
table, which applies it or holds it for the host's one-tap fix. Flagged or implausible
readings are never applied silently.

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
from hardware.reveal.sight import CAMERA_KINDS, DiceReader, ReadySignal, Sight, check_sight, encode_photo, same_throw
from hardware.vision.reading import UnreadableFrame

log = logging.getLogger("companion.reveal")

_MANUAL = "enter the dice on the host panel"


class RevealDesk:
    """Runs the camera loop for one table. `open_camera()` returns a FrameSource or None (no camera)."""

    def __init__(self, table, open_camera: Callable[[], Any], make_reader: Callable[[], DiceReader | None], *,
                 ready: Callable[[], ReadySignal] | None = None, frame_interval: float = 0.1,
                 idle_interval: float = 0.25, retry_seconds: float = 5.0, occluded_notice: float = 10.0,
                 clock: Callable[[], float] = time.monotonic, resumed: bool = False):
        """`resumed`: the table picked up a game after a restart; the dice lying there when the
        camera first looks may have been read before it, so that first scene is not taken for
        a new throw (a press reads it)."""
        self.table = table
        self._open_camera = open_camera
        self._make_reader = make_reader
        self._reader: DiceReader | None = None
        self._make_ready = ready
        self._frame_interval = frame_interval
        self._idle_interval = idle_interval
        self._retry_seconds = retry_seconds
        self._occluded_notice = occluded_notice
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
        self._ready: ReadySignal | None = None
        self._fresh_scene: np.ndarray | None = None
        self._occluded_since: float | None = None
        self._occlusion_told = False
        self._jobs: list[tuple[CameraJob, Ask]] = []
        self._new_parts: tuple[Callable[[], DiceReader | None], Callable[[], ReadySignal] | None] | None = None
        self._latest: tuple[np.ndarray, float] | None = None  # the last frame and when it came
        self._last_read: np.ndarray | None = None  # the last frame whose reading was offered
        self._last_sight: Sight | None = None  # ... and what was read in it (frame pixels)
        self.resumed = resumed
        self._first_scene_read = resumed
        self._watch_problem: str | None = None  # why the ready-watcher cannot look (told once)
        self.readings = 0  # offered readings (benchmarks, tests)

    # --- life cycle -------------------------------------------------------------------

    def start(self) -> None:
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
            return f"the camera did not answer in time; {_MANUAL}"
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
                ask.answer(job(frame, self._reader))
            except Exception as exc:  # the job's own refusal, or a bug: the asker hears of it
                ask.answer(exc)

    def _apply_new_parts(self) -> None:
        with self._lock:
            parts, self._new_parts = self._new_parts, None
        if parts is None:
            return
        self._make_reader, self._make_ready = parts
        self._ready, self._fresh_scene = None, None
        self._clear_occlusion()
        self._load_reader()
        log.info("the dice reader was set up again (new calibration)")

    # --- the loop ---------------------------------------------------------------------

    def _run(self) -> None:
        self._load_reader()
        while not self._stop.is_set():
            try:
                pause = self._step()
            except Exception:  # a bug here must never take the table down
                log.exception("the camera loop failed; retrying")
                self.table.set_device_status("camera", "error", f"the camera loop failed; {_MANUAL}")
                self._close_camera()
                pause = self._retry_seconds
            self._wake.wait(pause)
            self._wake.clear()

    def _step(self) -> float:
        """One turn of the loop; returns how long to pause before the next."""
        self._apply_new_parts()
        asked = self._take_asks()  # before the frame: "read now" means a picture taken after the press
        jobs = self._take_jobs()
        request = self.table.expected_dice()
        count = getattr(self.table, "readings_in_force", None)
        readings = count() if count is not None and request is not None else None  # what a reading would follow
        if self._camera is None:
            self._try_open()
        if self._camera is None:
            for ask in asked:
                ask.answer(self._no_camera_reason(request))
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
                ask.answer(f"the camera is not available; {_MANUAL}")
            self._run_jobs(jobs, None)
            return 0.2
        self._latest = (frame, self._clock())
        signal = self._feed(frame)
        # A settled scene is read from its still frames averaged; so is a press, or a job of
        # the camera page (a trial read, the empty-table photo), when the frame taken after
        # it is one of them (the watcher saw it still).
        # (Averaged only when something will look: it costs a few ms, once a read.)
        still = self._settled(frame) if (jobs or asked or signal == "ready") and signal in (
            "waiting", "ready", "occluded") else frame
        self._run_jobs(jobs, still)
        self._note_occlusion(signal, request)
        if asked or (signal == "ready" and request is not None) or (request is not None and self._fresh_scene is not None):
            scene = still if asked or signal == "ready" else self._fresh_scene
            self._fresh_scene = None
            result = self._read_and_offer(scene, request, asked=bool(asked), readings=readings)
            for ask in asked:
                ask.answer(result)
        elif signal == "ready":
            self._fresh_scene = still  # dice came to rest before the game asked for them
        elif signal == "moving":
            self._fresh_scene = None
        return self._frame_interval if request is not None else self._idle_interval

    def _feed(self, frame: np.ndarray) -> str | None:
        if self._make_ready is None:
            return None
        if self._ready is None:
            self._ready = self._make_ready()
            if self._last_read is not None:  # a new watcher (camera back, new calibration) must
                self._mark_read(self._last_read)  # not take the dice already read for a new throw
            elif self._first_scene_read:  # nor, after a restart, the dice read before it
                self._mark_read(frame)
            self._first_scene_read = False
        try:
            state = self._ready.feed(frame, self._clock())
        except UnreadableFrame as exc:  # a table region outside this camera's picture
            if self._watch_problem != str(exc):
                log.warning("cannot watch the table: %s", exc)
                self.table.set_device_status("camera", "error", f"{exc}; meanwhile press reveal or {_MANUAL}")
            self._watch_problem = str(exc)
            return None
        if self._watch_problem is not None:
            self._watch_problem = None
            self.table.set_device_status("camera", "ok", "")
        return getattr(state, "value", state)

    def _settled(self, frame: np.ndarray) -> np.ndarray:
        """The scene the watcher found still, `frame` the newest of it: its still frames
        averaged (ReadyToRead's still_picture), or `frame` from a watcher that keeps none."""
        picture = getattr(self._ready, "still_picture", None)
        scene = picture() if picture is not None else None
        return frame if scene is None else scene

    def _note_occlusion(self, signal: str | None, request) -> None:
        """Tell the table when something big has stayed over it while dice are awaited.

        The ready machine waits while a cup or a hand covers the table, and nothing else
        shows. Left there for `occluded_notice` seconds, it becomes a camera status on the
        slate and the host panel. That covers a cup left down, and a camera knocked since
        the empty-table photo, after which the whole view differs from it and looks
        covered for ever. The status clears once the view is clear or moving again."""
        if signal == "occluded" and request is not None:
            now = self._clock()
            if self._occluded_since is None:
                self._occluded_since = now
            elif not self._occlusion_told and now - self._occluded_since >= self._occluded_notice:
                self._occlusion_told = True
                self.table.set_device_status(
                    "camera", "covered",
                    f"something has covered the table for {now - self._occluded_since:.0f} s: lift the cup or "
                    "move the hand. If the table is clear, the camera may have moved since the empty-table "
                    f"photo: take it again (host panel, Camera set-up), or press reveal to read now")
            return
        self._clear_occlusion()

    def _clear_occlusion(self) -> None:
        """Nothing covers the table (or a new watcher starts afresh): the notice, if given, is over."""
        self._occluded_since = None
        if self._occlusion_told:
            self._occlusion_told = False
            self.table.set_device_status("camera", "ok", "")

    def _read_and_offer(self, frame: np.ndarray, request, asked: bool = True, readings: int | None = None) -> str:
        """Read the frame and offer the reading to the table. A read nobody asked for (the
        scene came to rest) that sees no die at all is not offered: that is the empty tray
        before the throw, or the cup resting over the dice before it is lifted, and holding
        it for the host would only show a "no dice found" to dismiss. Nor is one showing the
        dice last read, barely moved (`same_throw`)."""
        if request is None:
            return "no dice are expected now"
        if request.kind not in CAMERA_KINDS:
            return f"{request.kind} dice are typed in: {_MANUAL}"
        if self._reader is None:
            return f"there is no dice reader; {_MANUAL}"
        try:
            sight = self._reader.read(frame, request.kind, expect=request.count)
        except Exception as exc:  # UnreadableFrame, a missing spike profile, a reader bug
            log.warning("could not read the dice: %s", exc)
            sight = Sight((), (), (), True, f"the reader failed: {exc}")
        else:
            if not asked and not sight.values:
                log.debug("a still scene with no dice in view: not offered")
                return "no dice in view"
        again = not asked and self._last_sight is not None and same_throw(sight, self._last_sight)
        self._last_read = frame
        self._mark_read(frame)  # a press before the dice settled: READY must not read them again
        if again:
            log.info("the dice read last were moved a little (a nudge, a bumped table): not a new throw")
            return "the same dice as the last reading"
        self._last_sight = sight
        photo, sight = encode_photo(frame, sight)
        sight = check_sight(sight, request.kind, request.count)
        outcome = self.table.offer_reading(
            sight.values, boxes=sight.boxes, confidences=sight.confidences, flagged=sight.flagged,
            reason=sight.reason, photo=photo, unsure=sight.unsure, readings=readings,
        )
        self.readings += 1
        if outcome == "applied":
            return f"read {len(sight.values)} {'die' if len(sight.values) == 1 else 'dice'}"
        if outcome == "held":
            return f"held for the host: {sight.reason or 'the reading does not fit the game'}"
        if outcome == "stale":
            return "the dice were entered while the camera read them: nothing more was applied"
        return "no dice are expected now"

    def _mark_read(self, frame: np.ndarray) -> None:
        mark = getattr(self._ready, "mark_read", None)
        if mark is not None:
            mark(frame)

    def _load_reader(self) -> None:
        """Built on this thread: loading models must not delay the slate."""
        try:
            self._reader = self._make_reader()
        except Exception as exc:
            log.warning("the dice reader is unavailable: %s", exc)
            self.table.set_device_status("reader", "unavailable", f"the dice reader cannot start ({exc}); {_MANUAL}")

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
            self.table.set_device_status("camera", "off", f"no camera configured; {_MANUAL}")
            return
        self._camera, self._ready, self._fresh_scene, self._last_fault = camera, None, None, None
        self._occluded_since, self._occlusion_told = None, False
        self.table.set_device_status("camera", "ok", "")
        log.info("camera ready")

    def _no_camera_reason(self, request) -> str:
        if request is not None and request.kind not in CAMERA_KINDS:
            return f"{request.kind} dice are typed in: {_MANUAL}"
        return f"no camera; {_MANUAL}"

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

"""The reveal desk's decisions, one camera frame at a time, with no thread and no clock.

`RevealStep.step(frame, now, request)` takes the frame the camera just gave, the time it
came and the dice the game is waiting for (None: none), and returns what to do: tell the
table a device status, offer it a reading, or answer a press. It decides when to read (the
ready-to-read watcher says the dice are at rest, a press, dice that came to rest before the
game asked), that a nudge of the dice already read is not a new throw, when a covered
table is worth telling, and what a read nobody asked for should not offer. The desk
(`desk.RevealDesk`) owns the thread and the camera and carries the actions out, so each of
these rulings is tested here frame by frame.
"""

from __future__ import annotations

import dataclasses
import logging
from dataclasses import dataclass
from enum import StrEnum
from typing import Callable, Union

import numpy as np

from hardware.reveal.sight import CAMERA_KINDS, DiceReader, ReadySignal, Sight, encode_photo, same_throw
from hardware.vision.reading import UnreadableFrame

log = logging.getLogger("companion.reveal")

MANUAL = "enter the dice on the host panel"


class Watch(StrEnum):
    """What the ready-to-read watcher says of a frame (hardware.vision.ReadyState's values)."""

    WAITING = "waiting"  # nothing new to read: settling, or this scene was read already
    MOVING = "moving"  # the picture changes: a cup, a hand, rolling dice
    OCCLUDED = "occluded"  # still, but something big sits over the table
    READY = "ready"  # the dice have rested long enough: read this frame


class Outcome(StrEnum):
    """What the table did with a reading offered to it (`Table.offer_reading`)."""

    APPLIED = "applied"
    HELD = "held"
    STALE = "stale"  # the dice were entered while the camera read them
    IGNORED = "ignored"  # no dice are expected now


@dataclass(frozen=True)
class TellTable:
    """Set a device's status on the slate and the host panel."""

    device: str
    status: str
    message: str = ""


@dataclass(frozen=True)
class Answer:
    """Answer the presses of this turn, with nothing offered to the table."""

    text: str


@dataclass(frozen=True, eq=False)
class Offer:
    """Offer the table this reading (its photo and sight in the photo's pixels).
    `readings`: how many readings were in force when the frame was taken."""

    sight: Sight
    photo: bytes
    readings: int | None = None

    def answer(self, outcome: Outcome | str) -> str:
        """What a press that asked for this reading is told, once the table has taken it."""
        outcome = Outcome(str(outcome))
        seen = len(self.sight.values)
        if outcome is Outcome.APPLIED:
            return f"read {seen} {'die' if seen == 1 else 'dice'}"
        if outcome is Outcome.HELD:
            return f"held for the host: {self.sight.reason or 'the reading does not fit the game'}"
        if outcome is Outcome.STALE:
            return "the dice were entered while the camera read them: nothing more was applied"
        return "no dice are expected now"


Action = Union[TellTable, Answer, Offer]


@dataclass(frozen=True, eq=False)
class Turn:
    """One frame's decisions: the actions, in order, and the scene the camera page's jobs
    look at (the still frames averaged while the table is still, else the frame)."""

    still: np.ndarray
    actions: tuple[Action, ...] = ()
    watch: Watch | None = None


def unseen(request) -> str:
    """The answer to a press when there is no picture to read."""
    if request is not None and request.kind not in CAMERA_KINDS:
        return f"{request.kind} dice are typed in: {MANUAL}"
    return f"no camera; {MANUAL}"


class RevealStep:
    """The desk's decisions for one camera; `reader` reads a frame (None: none loaded).

    `resumed`: the table picked up a game after a restart; the dice lying there when the
    camera first looks may have been read before it, so that first scene is not taken
    for a new throw (a press reads it)."""

    def __init__(self, make_ready: Callable[[], ReadySignal] | None, reader: DiceReader | None = None, *,
                 occluded_notice: float = 10.0, resumed: bool = False):
        self.reader = reader
        self.occluded_notice = occluded_notice
        self._make_ready = make_ready
        self._ready: ReadySignal | None = None
        self._fresh_scene: np.ndarray | None = None  # dice at rest before the game asked for them
        self._occluded_since: float | None = None
        self._occlusion_told = False
        self._last_read: np.ndarray | None = None  # the last frame whose reading was offered
        self._last_sight: Sight | None = None  # ... and what was read in it (frame pixels)
        self._first_scene_read = resumed
        self._watch_problem: str | None = None  # why the watcher cannot look (told once)
        self._reader_fault: str | None = None  # why the last read raised (told, logged once)

    # --- what changes around the step ---------------------------------------------------

    def new_camera(self) -> None:
        """A camera was (re)opened: a new watcher; a covered table is forgotten unsaid (the
        desk tells the table the camera is ready)."""
        self._ready, self._fresh_scene = None, None
        self._occluded_since, self._occlusion_told = None, False

    def reconfigure(self, make_ready: Callable[[], ReadySignal] | None) -> tuple[Action, ...]:
        """A new calibration: a new watcher, and a covered-table notice given is over."""
        self._make_ready = make_ready
        self._ready, self._fresh_scene = None, None
        return self._clear_occlusion()

    # --- one frame ------------------------------------------------------------------------

    def step(self, frame: np.ndarray, now: float, request, *, pressed: bool = False, looking: bool = False,
             readings: int | None = None) -> Turn:
        """Decide what `frame`, taken at `now`, calls for. `request`: the DiceRequest the game
        waits for, or None; `pressed`: a reveal press came before the frame was taken;
        `looking`: a job of the camera page waits for the scene; `readings`: how many
        readings the table had in force when the frame was taken."""
        actions: list[Action] = []
        watch = self._feed(frame, now, actions)
        # A settled scene is read from its still frames averaged; so is a press, or a job of
        # the camera page, when the frame taken after it is one of them (the watcher saw it
        # still). Averaged only when something will look: it costs a few ms.
        wanted = looking or pressed or watch is Watch.READY
        still = self._settled(frame) if wanted and watch in (Watch.WAITING, Watch.READY, Watch.OCCLUDED) else frame
        actions += self._note_occlusion(watch, request, now)
        if pressed or (request is not None and (watch is Watch.READY or self._fresh_scene is not None)):
            scene = still if pressed or watch is Watch.READY else self._fresh_scene
            self._fresh_scene = None
            actions += self._read(scene, request, pressed, readings)
        elif watch is Watch.READY:
            self._fresh_scene = still  # dice came to rest before the game asked for them
        elif watch is Watch.MOVING:
            self._fresh_scene = None
        return Turn(still, tuple(actions), watch)

    def _feed(self, frame: np.ndarray, now: float, actions: list[Action]) -> Watch | None:
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
            state = self._ready.feed(frame, now)
        except UnreadableFrame as exc:  # a table region outside this camera's picture
            if self._watch_problem != str(exc):
                log.warning("cannot watch the table: %s", exc)
                actions.append(TellTable("camera", "error", f"{exc}; meanwhile press reveal or {MANUAL}"))
            self._watch_problem = str(exc)
            return None
        if self._watch_problem is not None:
            self._watch_problem = None
            actions.append(TellTable("camera", "ok", ""))
        return Watch(getattr(state, "value", state))

    def _settled(self, frame: np.ndarray) -> np.ndarray:
        """The scene the watcher found still, `frame` the newest of it: its still frames
        averaged (ReadyToRead's still_picture), or `frame` from a watcher that keeps none."""
        picture = getattr(self._ready, "still_picture", None)
        scene = picture() if picture is not None else None
        return frame if scene is None else scene

    def _note_occlusion(self, watch: Watch | None, request, now: float) -> tuple[Action, ...]:
        """Tell the table when something big has stayed over it while dice are awaited.

        The watcher waits while a cup or a hand covers the table, and nothing else shows.
        Left there for `occluded_notice` seconds, it becomes a camera status on the slate
        and the host panel. That covers a cup left down, and a camera knocked since the
        empty-table photo, after which the whole view differs from it and looks covered for
        ever. The status clears once the view is clear or moving again."""
        if watch is Watch.OCCLUDED and request is not None:
            if self._occluded_since is None:
                self._occluded_since = now
            elif not self._occlusion_told and now - self._occluded_since >= self.occluded_notice:
                self._occlusion_told = True
                return (TellTable(
                    "camera", "covered",
                    f"something has covered the table for {now - self._occluded_since:.0f} s: lift the cup or "
                    "move the hand. If the table is clear, the camera may have moved since the empty-table "
                    f"photo: take it again (host panel, Camera set-up), or press reveal to read now"),)
            return ()
        return self._clear_occlusion()

    def _clear_occlusion(self) -> tuple[Action, ...]:
        """Nothing covers the table (or a new watcher starts afresh): the notice, if given, is over."""
        self._occluded_since = None
        if self._occlusion_told:
            self._occlusion_told = False
            return (TellTable("camera", "ok", ""),)
        return ()

    def _read(self, frame: np.ndarray, request, pressed: bool, readings: int | None) -> tuple[Action, ...]:
        """Read the frame and say what to offer. A read nobody asked for (the scene came to
        rest) that sees no die at all is not offered: that is the empty tray before the
        throw, or the cup resting over the dice before it is lifted, and holding it for the
        host would only show a "no dice found" to dismiss. Nor is one showing the dice last
        read, barely moved (`same_throw`).

        A reader that raises (a bug, a model an OpenCV release cannot run; not a reading it
        is unsure of) is a fault of the camera, not an unsure reading: the table is told
        ("reader failing") until a read goes through, and the traceback is logged once."""
        if request is None:
            return (Answer("no dice are expected now"),)
        if request.kind not in CAMERA_KINDS:
            return (Answer(f"{request.kind} dice are typed in: {MANUAL}"),)
        if self.reader is None:
            return (Answer(f"there is no dice reader; {MANUAL}"),)
        told: tuple[Action, ...] = ()
        try:
            sight = self.reader.read(frame, request.kind, expect=request.count)
        except UnreadableFrame as exc:  # a table region outside this picture: the set-up's, not a fault
            log.warning("could not read the dice: %s", exc)
            sight = Sight((), (), (), True, f"the reader failed: {exc}")
        except Exception as exc:  # a reader bug, a model this OpenCV cannot run
            sight = Sight((), (), (), True, f"the reader failed: {exc}")
            told = self._reader_failed(exc)
        else:
            told = self._reader_works()
            if not pressed and not sight.values:
                log.debug("a still scene with no dice in view: not offered")
                return told + (Answer("no dice in view"),)
        again = not pressed and self._last_sight is not None and same_throw(sight, self._last_sight)
        self._last_read = frame
        self._mark_read(frame)  # a press before the dice settled: READY must not read them again
        if again:
            log.info("the dice read last were moved a little (a nudge, a bumped table): not a new throw")
            return told + (Answer("the same dice as the last reading"),)
        self._last_sight = sight
        photo, sight = encode_photo(frame, sight)
        return told + (Offer(_judged(sight, request), photo, readings),)

    def _reader_failed(self, exc: Exception) -> tuple[Action, ...]:
        """The reader raised: log the traceback the first time this fault is met (a line
        after), and tell the table."""
        fault = f"{type(exc).__name__}: {exc}"
        if fault == self._reader_fault:
            log.warning("the dice reader failed again: %s", fault)
        else:
            log.error("the dice reader failed: %s", fault, exc_info=exc)
        self._reader_fault = fault
        # said again at each failure: a camera reopened or uncovered since has said "ok"
        return (TellTable("camera", "reader failing", f"{exc}; {MANUAL}"),)

    def _reader_works(self) -> tuple[Action, ...]:
        """A read went through: a reader fault told before is over."""
        if self._reader_fault is None:
            return ()
        log.info("the dice reader reads again")
        self._reader_fault = None
        return (TellTable("camera", "ok", ""),)

    def _mark_read(self, frame: np.ndarray) -> None:
        mark = getattr(self._ready, "mark_read", None)
        if mark is not None:
            mark(frame)


def _judged(sight: Sight, request) -> Sight:
    """The sight flagged for the host when the rules say the game cannot take it (how many
    dice, which faces: `DiceRequest.misfit`, the rule's one home), so that it is held with
    the photo to check rather than refused."""
    if sight.flagged:
        return sight
    misfit = request.misfit(sight.values)
    return sight if misfit is None else dataclasses.replace(sight, flagged=True, reason=f"{misfit}: check the photo")

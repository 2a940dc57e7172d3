"""The table: the one object the slate, the buttons and the camera talk to.

It owns the current `Session`, writes every accepted event to the `Store` *before*
anyone is told about it (nothing acknowledged is ever lost), keeps a public snapshot
(no secret ever), and wakes listeners (server-sent events) when it changes. All methods
are thread-safe (gpiozero callbacks, the camera loop and web requests call in from
different threads). Views: `companion.projection`; the held reading and the photos:
`companion.readings`; stores: `companion.store`.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from typing import Any, Callable, Iterator, Mapping, Sequence

from companion.history import stored_as
from companion.projection import SeatsView, game_entry, host_view, public_snapshot
from companion.readings import HeldReading, Offered, OfferedReading, RevealPhotos
from companion.rules import DiceObserved, Event, GameRecord, IllegalAction, RulesError
from companion.session import Session
from companion.store import MemoryStore, Store, StoreFull
from companion.store_health import StoreHealth

log = logging.getLogger("companion.table")


class NoGame(IllegalAction):
    def __init__(self) -> None:
        super().__init__("no game", "no game is running; start one on the host panel")


class Table:
    """The service's single source of truth for the current game."""

    def __init__(self, store: Store | None = None, *, clock: Callable[[], float] = time.time, photo_limit: int = 12):
        self.store: Store = store if store is not None else MemoryStore()
        self._clock = clock
        self._lock = threading.RLock()
        self._changed = threading.Condition(self._lock)
        self._session: Session | None = None
        self._game_id: str | None = None
        self._seq = 0
        self._snapshot_json = ""
        self._held: HeldReading | None = None
        self._photos = RevealPhotos(photo_limit)
        self._devices: dict[str, dict[str, str]] = {}
        self._health = StoreHealth(self._devices)  # the disk full, a game's end unsaved
        self._publish()

    # --- life cycle -------------------------------------------------------------------

    def resume(self) -> bool:
        """Pick up the newest unfinished game from the store, exactly where it stopped.

        A game the store holds unfinished although its events are over (the power went, or
        the store failed, between its last event and its end) is finished in the store now,
        with the slate it reached, and is history, not the game in progress. An unfinished
        imported game is half an import from before imports were stored in one go: it is
        left as it is, never taken for the game in progress. Raises BadRecord (or
        UnknownGame) when the newest unfinished game does not replay.
        """
        with self._lock:
            pending = [(game_id, record) for game_id, record in self.store.unfinished()
                       if not _cut_short_import(game_id, record)]
            current: tuple[str, Session] | None = None
            for n, (game_id, record) in enumerate(pending):
                try:
                    session = Session.of(record)
                except RulesError as exc:
                    if n == len(pending) - 1:
                        raise
                    log.warning("unfinished game %s does not replay and was left as it is: %s", game_id, exc)
                    continue
                if session.finished:
                    self._store_end(game_id, session)
                else:
                    current = game_id, session
            if current is None:
                return False
            self._game_id, self._session = current
            log.info("resumed game %s (%s, %d events)", self._game_id, self._session.game.name,
                     len(self._session.record.events))
            self._publish()
            return True

    def start_game(self, game: str, players: Sequence[str], options: Mapping[str, Any] | None = None,
                   *, ending: str | None = None) -> str:
        """A new game; `ending`: end the one in progress first, with this reason (a start
        that would be refused ends nothing)."""
        with self._lock:
            running = self._session is not None and not self._session.finished
            if running and ending is None:
                raise IllegalAction("one game at a time", "a game is in progress; end it before starting another")
            meta = {"started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(self._clock()))}
            session = Session.new(game, players, options, meta)  # refused here: nothing is ended
            if running:
                self._commit(lambda current: current.ended(ending))
            if self._health.end_unsaved:  # one more try; else a restart stores it (see resume)
                self._file_end()
            with self._health.writing(self._publish, self._game_id):
                game_id = self.store.create(session.record)
            self._session, self._game_id = session, game_id
            self._health.end_unsaved = False  # if the retry failed, the warning stays: the restart stores that end
            self._held = None
            self._photos.forget_reveal()
            log.info("game %s started: %s for %s", game_id, session.game.title, ", ".join(session.record.players))
            self._publish()
            return game_id

    def import_record(self, record: GameRecord) -> str:
        """Store a game record from elsewhere as history, once it replays cleanly.

        Raises BadRecord (or UnknownGame) and stores nothing when it does not replay,
        and IllegalAction when the same record is stored already (`companion.history`:
        the same content, imported or played here): counted once, never twice.
        The game is filed as finished with the slate it reached (an unfinished record
        is history, never resumed), and meta["imported"] says when it came in. It is
        stored in one go: an import cut short leaves nothing, never a half game that a
        restart would take for the game in progress.
        """
        session = Session.of(record)
        with self._lock:
            already = stored_as(self.store, record)
            if already is not None:
                raise IllegalAction("already stored", f"that record is already stored here as game {already}: "
                                                      "nothing was imported")
            meta = dict(record.meta)
            meta["imported"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(self._clock()))
            filed = GameRecord(game=session.game.name, players=tuple(record.players),
                               options=dict(record.options), events=tuple(record.events), meta=meta)
            with self._health.writing(self._publish, self._game_id):
                game_id = self.store.create_finished(filed, session.slate().to_json())
            log.info("game %s imported: %s for %s, %d events", game_id, session.game.title,
                     ", ".join(record.players), len(record.events))
            return game_id

    # --- changes (each is stored before it is acknowledged) ------------------------

    def submit(self, event: Event) -> None:
        """A game event typed in (host panel, API). Once the dice are out, only the dice:
        a call entered now would be made knowing them (a change is a correction, `amend`)."""
        with self._lock:
            if self._dice_out() and not isinstance(event, DiceObserved):
                raise IllegalAction("the dice are out", "the dice are out: calls are closed until the reading is "
                                    "settled; to change one now, correct it (Fix), which the record keeps as the host's")
            self._commit(lambda session: session.submitted(event))

    def press(self, seat: int | None, button: str) -> bool:
        """A table button (real or virtual). False when it means nothing now."""
        with self._lock:
            session = self._session
            if session is None or session.finished:
                log.debug("press %s/%s ignored: no game", seat, button)
                return False
            if self._dice_out():
                log.info("press at %s ignored: the dice are out, waiting for the host to settle the reading",
                         "the shared button" if seat is None else f"seat {seat + 1}")
                return False
            event = session.game.on_button(session.state, seat, button)
            if event is None:
                log.debug("press %s/%s ignored in phase %s", seat, button, session.prompt().phase)
                return False
            self._commit(lambda current: current.submitted(event))
            return True

    def _dice_out(self) -> bool:
        """The camera has seen the dice, so the cup is off and everyone can see them: a call
        changed now would be made knowing the dice. Until the host settles the reading,
        calls are closed on every path (a reading that found no dice leaves them open: the
        cup may still be on; and once the game no longer waits for dice, an undo say, the
        held reading closes nothing)."""
        return self._held is not None and bool(self._held.values) and self.expected_dice() is not None

    def undo(self, expect: int | None = None) -> None:
        """Take back the latest game event in force. `expect`: the record index of the event
        the host means (the latest one the panel showed); when another came in meanwhile
        (a player's press landed first), nothing is taken back and the host is told."""
        with self._lock:
            session = self._require()
            live = session.live_events()
            if expect is not None and live and live[-1][0] != expect:
                raise IllegalAction("undo", "the last action changed while you tapped Undo (a new one came in): "
                                            "look at the list again, then undo if it is still wanted")
            self._commit(Session.undone)

    def amend(self, target: int, event: Event) -> None:
        with self._lock:
            self._commit(lambda session: session.amended(target, event))

    def end_game(self, reason: str = "ended by the host") -> None:
        with self._lock:
            self._commit(lambda session: session.ended(reason))

    def _commit(self, change: Callable[[Session], Session], *, stored: Callable[[int], None] | None = None) -> None:
        """Apply, store, then tell everyone once.

        `change(session)` is the next session; it is kept only once the store has its new
        event (when the store fails, the table keeps the session it had). `stored(index)`
        runs after the event is safely stored and before the one publication, for what goes
        with the event (a reading's photo).
        """
        before = self._require()
        session = change(before)
        event = session.last_event
        index = len(session.record.events) - 1
        # An undo that takes back a game's end puts it in play again: the store is told
        # first, so a restart resumes it. Cut off between the two, the store holds the game
        # unfinished with its events over, which resume() finishes again: as before the undo.
        reopened = before.finished and not session.finished and not self._health.end_unsaved
        try:
            with self._health.writing(self._publish, self._game_id):
                if reopened:
                    self.store.reopen(self._game_id)
                self.store.append(self._game_id, index, event)
        except Exception as exc:
            if isinstance(exc, StoreFull):  # said on the slate and the panel; no traceback a press
                log.warning("could not store event %d of game %s; it was not applied: the disk is full",
                            index, self._game_id)
            else:
                log.exception("could not store event %d of game %s; it was not applied", index, self._game_id)
            if reopened:  # the game is over again: its end back in the store, or stored later
                self._file_end()
            raise
        self._session = session
        log.info("game %s event %d: %s", self._game_id, index, json.dumps(_public_event(event)))
        if session.finished:
            self._file_end()
        elif self._health.end_unsaved:  # an undo took the end back before the store had it
            self._health.end_stored(True, self._game_id)
        if stored is not None:
            stored(index)
        self._publish()

    def _store_end(self, game_id: str, session: Session) -> bool:
        """File a finished game's final slate; False (logged) when the store fails.

        The game's last event is stored by then, so nothing is lost when this fails: the
        table goes on showing the game over, and the end is filed later, before the next
        game starts or, after a restart, by `resume`, which sees from the events that the
        game is over.
        """
        final = session.slate()
        try:
            with self._health.writing(self._publish, self._game_id):
                self.store.finish(game_id, final.to_json())
        except StoreFull:
            log.warning("could not store the end of game %s: the disk is full; it is stored once there is room", game_id)
            return False
        except Exception:
            log.exception("could not store the end of game %s; it is stored before the next game or on restart",
                          game_id)
            return False
        log.info("game %s finished; winner: %s", game_id, final.winner)
        return True

    def _file_end(self) -> None:
        """File the current game's end, and say on the slate whether the store took it."""
        self._health.end_stored(self._store_end(self._game_id, self._session), self._game_id)

    def _require(self) -> Session:
        if self._session is None:
            raise NoGame()
        return self._session

    # --- camera readings -----------------------------------------------------------

    def expected_dice(self):
        """The DiceRequest the game is waiting for, or None."""
        with self._lock:
            if self._session is None or self._session.finished:
                return None
            return self._session.prompt().dice

    def offer_reading(self, reading: OfferedReading, *, photo: bytes | None = None,
                      readings: int | None = None) -> Offered:
        """A reading from the camera (returns what became of it): applied when it fits, else
        held for the host, who is shown which dice the reader doubts (`reading.unsure`).
        `readings`: how many readings were in force when the frame was taken; if one has come
        in since (the host typed the dice meanwhile), this one is for a settled throw: dropped."""
        with self._lock:
            request = self.expected_dice()
            if request is None:
                return Offered.IGNORED
            if readings is not None and readings != self.readings_in_force():
                log.info("a camera reading came after the dice it read were entered: dropped")
                return Offered.STALE
            photo_id = self._photos.keep(photo)
            reason = reading.reason
            if not reading.flagged:
                event = DiceObserved(values=reading.values, seat=request.seat, source="camera")
                try:
                    self._commit(lambda session: session.submitted(event),
                                 stored=lambda index: self._reading_applied(index, photo_id, reading))
                except (IllegalAction, StoreFull) as exc:  # the disk full: held, to confirm once there is room
                    reason = str(exc)
                else:
                    return Offered.APPLIED
            self._held = HeldReading(reading, reason or "the reader is unsure", photo_id, request.count)
            log.info("reading held for the host: %s", self._held.reason)
            self._publish()
            return Offered.HELD

    def confirm_reading(self, values: Sequence[Any], *, readings: int | None = None, photo: int | None = None) -> None:
        """The host's fix of a held (or a manual) reading. `readings`: how many dice readings
        were in force when the host began entering these; if another has come in since (the
        players threw again and the camera read it), the game may be waiting for someone
        else's dice now, so these are refused rather than given to the wrong throw. `photo`:
        the held reading's photo the host was fixing; another held since is refused too."""
        with self._lock:
            request = self.expected_dice()
            if request is None:
                raise IllegalAction("no reading expected", "the game is not waiting for dice now")
            held = self._held
            if readings is not None and readings != self.readings_in_force():
                raise IllegalAction("the dice were read meanwhile",
                                    "a reading came in while you were entering dice: look at the last reading, "
                                    "and enter dice again if they are still wanted")
            if photo is not None and (held is None or held.photo_id != photo):
                raise IllegalAction("the dice were read again",
                                    "the camera read the dice again while you were fixing them: "
                                    "check the new photo and set the dice again")
            event = DiceObserved(values=tuple(values), seat=request.seat, source="host")

            def stored(index: int) -> None:
                self._held = None
                if held is not None and held.photo_id is not None:  # else the last photo stays as it was
                    fixed = OfferedReading(tuple(values), boxes=held.boxes_for(values))
                    self._reading_applied(index, held.photo_id, fixed)

            self._commit(lambda session: session.submitted(event), stored=stored)

    def readings_in_force(self) -> int:
        """How many dice readings the game has in force: a reading or a fix made against
        another number came in before one that was applied meanwhile."""
        with self._lock:
            session = self._session
            return 0 if session is None else sum(1 for _, e in session.live_events() if isinstance(e, DiceObserved))

    def _reading_applied(self, index: int, photo_id: int | None, reading: OfferedReading) -> None:
        """The reading at record `index` is in force: no reading is held, its photo is shown."""
        self._held = None
        self._photos.applied(index, photo_id, reading)

    def photo(self, photo_id: int, *, held_too: bool = False) -> bytes | None:
        """A kept photo of the dice, once its reading is in force. A held reading's photo
        waits for the host (`held_too`): shown to anyone sooner, a caller who can still
        change their call could look at the dice first."""
        with self._lock:
            return self._photos.photo(photo_id, held_too=held_too)

    # --- device status (camera, buttons) shown on the slate and host panel -------

    def set_device_status(self, device: str, status: str, message: str = "") -> None:
        with self._lock:
            if self._devices.get(device) != {"status": status, "message": message}:
                self._devices[device] = {"status": status, "message": message}
                self._publish()

    # --- views -------------------------------------------------------------------------

    @property
    def seq(self) -> int:
        return self._seq

    @property
    def game_id(self) -> str | None:
        return self._game_id

    @property
    def session(self) -> Session | None:
        return self._session

    def snapshot(self) -> dict[str, Any]:
        """The public state: what any slate, phone or API client may see."""
        with self._lock:
            return json.loads(self._snapshot_json)

    def snapshot_json(self) -> tuple[int, str]:
        with self._lock:
            return self._seq, self._snapshot_json

    def host_view(self) -> dict[str, Any]:
        """The public state plus what the host needs to correct it (still no secrets)."""
        with self._lock:
            return host_view(self.snapshot(), self._held, self._session)

    def game_entry(self, game_id: str) -> dict[str, Any] | None:
        """A stored game as the history pages and the API show it (None: no such game)."""
        with self._lock:
            current_id, current = self._game_id, self._session
        return game_entry(self.store, game_id, current_id, current)

    def seats_view(self) -> SeatsView:
        """The seats as their lights show them."""
        with self._lock:
            return SeatsView.of(self._session)

    def public_record(self, game_id: str | None = None) -> GameRecord | dict[str, Any]:
        """A game's record as JSON data, with unrevealed secrets hidden."""
        with self._lock:
            if game_id is None or game_id == self._game_id:
                session = self._require()
                return session.record.to_dict(public=True)
            return self.store.load(game_id).to_dict(public=True)

    def wait_for_change(self, after_seq: int, timeout: float) -> tuple[int, str] | None:
        """Block until the snapshot is newer than `after_seq` (or timeout: None)."""
        with self._changed:
            if self._seq <= after_seq:
                self._changed.wait(timeout)
            if self._seq <= after_seq:
                return None
            return self._seq, self._snapshot_json

    def changes(self, after_seq: int = 0, *, heartbeat: float = 15.0) -> Iterator[tuple[int, str] | None]:
        """Snapshots as they change; None every `heartbeat` seconds of quiet (keep-alive)."""
        seq = after_seq
        while True:
            change = self.wait_for_change(seq, heartbeat)
            if change is not None:
                seq = change[0]
            yield change

    def _publish(self) -> None:
        with self._changed:
            self._seq += 1
            self._snapshot_json = json.dumps(self._build_snapshot(), separators=(",", ":"))
            self._changed.notify_all()

    def _build_snapshot(self) -> dict[str, Any]:
        session = self._session
        photo = self._photos.in_force(session) if session is not None else None
        return public_snapshot(self._seq, self._game_id, self._devices, session, photo=photo,
                               held=self._held is not None, dice_out=self._dice_out())


def _cut_short_import(game_id: str, record: GameRecord) -> bool:
    """An imported game is stored finished; found unfinished, an import was cut short."""
    if "imported" not in record.meta:
        return False
    log.warning("game %s is half an import that was cut short; it is left as it is, not resumed", game_id)
    return True


def _public_event(event: Event) -> dict[str, Any]:
    """An event as it may be logged: secret content hidden until revealed."""
    return event.redacted() if event.secret else event.to_dict()

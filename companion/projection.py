"""Views of the table's state: what the slate, the API, the host panel, the history pages
and the seat lights are shown.

Every view is built here from the same source: the session (its prompt, slate and public
record) and what the table keeps beside it (device status, the reveal photo, the reading
held for the host, the stored games). Nothing here changes state, and nothing secret
reaches a view: the slate and the record are their public projections.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Any, Mapping

from companion.readings import HeldReading
from companion.rules import Amend, BadRecord, DiceObserved, Event, Prompt, RevealView, effective_events
from companion.rules.record import pending_secrets
from companion.rules.dice import face_text
from companion.session import Session
from companion.store import Store

#: Host corrections: events of the record that are never "in force" themselves.
CORRECTIONS = ("undo", "amend", "end_game")


def public_snapshot(seq: int, game_id: str | None, devices: Mapping[str, dict[str, str]], session: Session | None,
                    *, photo: dict[str, Any] | None, held: bool, dice_out: bool = False) -> dict[str, Any]:
    """The public state: what any slate, phone or API client may see. `dice_out`: the
    camera has seen the dice (Table._dice_out), so nothing but the dice is wanted now."""
    snap: dict[str, Any] = {"seq": seq, "game_id": game_id, "devices": dict(devices)}
    if session is None:
        snap.update(slate=None, prompt=None, photo=None, held=False, turn=[], reveal_photo=False)
        return snap
    slate, prompt = session.slate(), session.prompt()
    snap["slate"] = slate.to_json()
    snap["prompt"] = prompt_view(prompt)
    if dice_out:
        snap["prompt"]["wants"] = [w for w in prompt.wants if w == "dice"]
    snap["photo"] = photo
    snap["held"] = held
    snap["turn"] = [] if slate.finished or held else turn_seats(prompt)
    snap["reveal_photo"] = photo_shows_reveal(photo, slate.reveal)
    snap["fixes"] = host_fixes(session)
    return snap


def host_fixes(session: Session) -> list[str]:
    """The host's corrections the table must see as the host's, in words: each event in
    force that an amend replaced since the reading before the last one in force (this turn
    and the one whose result is shown). A secret call is said once a reveal uncovered it,
    never before (pending_secrets)."""
    events = session.record.events
    replaced = {e.target for e in events if isinstance(e, Amend)}
    if not replaced:  # the common case, on every publish: no replay of the record for nothing
        return []
    live = session.live_events()
    hidden = pending_secrets(events)
    readings = [i for i, ev in live if isinstance(ev, DiceObserved)]
    since = readings[-2] if len(readings) > 1 else -1
    players = session.record.players
    lines = []
    for index, event in live:
        if index in replaced and index > since and index not in hidden and event != events[index]:
            lines.append("Host's fix: " + _fixed(event, players))
    return lines


def _fixed(event: Event, players: tuple[str, ...]) -> str:
    """ "Ann's colour call is now blue (Des)"; "the dice are now 5, 3, 1"."""
    fields = {k: v for k, v in event.to_dict().items() if k not in ("kind", "seat", "source")}
    seat = getattr(event, "seat", None)
    name = players[seat] if isinstance(seat, int) and 0 <= seat < len(players) else None
    if isinstance(event, DiceObserved):
        return "the dice are now " + ", ".join(face_text(v) for v in event.values)
    if name is not None and not any(v not in (None, [], ()) for v in fields.values()):
        return f"the {event.kind.replace('_', ' ')} is now {name}'s"  # a challenge, a discard of the smallest
    what = (f"{name}'s " if name is not None else "the ") + event.kind.replace("_", " ")
    if len(fields) == 1:
        return f"{what} is now {_words(next(iter(fields.values())))}"
    parts = (f"{k.replace('_', ' ')} {_words(v)}" for k, v in fields.items() if v is not None)
    return f"{what} is now " + ", ".join(parts)


def _words(value: Any) -> str:
    if isinstance(value, (list, tuple)):
        return ", ".join(_words(v) for v in value)
    return face_text(value)


def turn_seats(prompt: Prompt) -> list[int]:
    """The seats whose turn it is, for the slate's one turn mark: those still to call or
    throw in a round of calls or a roll-off; the one whose dice are wanted (who lifts the
    cup, who throws), nobody when every hand is shown; else those who act now."""
    if prompt.waiting:
        return sorted(prompt.waiting)
    if prompt.dice is not None:
        return [] if prompt.dice.seat is None else [prompt.dice.seat]
    return sorted(prompt.seats)


def photo_shows_reveal(photo: dict[str, Any] | None, reveal: RevealView | None) -> bool:
    """True when the photo in force shows the very dice of the reveal on the slate (not a
    roll-off's die or one throw of a round whose reveal names another)."""
    if photo is None or reveal is None:
        return False
    return [d.get("value") for d in photo.get("dice", [])] == list(reveal.dice)


def prompt_view(prompt: Prompt) -> dict[str, Any]:
    """Whose turn it is and what may happen next, as the slate and the host panel read it."""
    return {
        "phase": prompt.phase, "text": prompt.text, "seats": list(prompt.seats), "wants": list(prompt.wants),
        "waiting": list(prompt.waiting), "bid_faces": list(prompt.bid_faces),
        "dice": None if prompt.dice is None else {
            "kind": prompt.dice.kind, "count": prompt.dice.count, "seat": prompt.dice.seat,
            "purpose": prompt.dice.purpose, "hands": [[s, list(h)] for s, h in prompt.dice.hands],
        },
    }


def held_view(held: HeldReading | None) -> dict[str, Any] | None:
    """The reading held for the host: each die read, marked when the reader doubts it, and
    each die missing, where something die-like was seen (`box`, in the photo's pixels) or
    None (shown beside the photo). `reason` is in words, never camera pixels."""
    if held is None:
        return None
    suspects = list(held.reading.suspects)
    return {
        "values": list(held.values), "reason": held.for_people(), "photo": held.photo_id,
        "expected": held.expected, "extra": held.extra,
        "dice": [{"value": v, "box": held.reading.box(i), "unsure": i in held.reading.unsure}
                 for i, v in enumerate(held.values)],
        "missing": [{"box": list(suspects[i]) if i < len(suspects) else None} for i in range(held.missing)],
    }


def host_view(snapshot: dict[str, Any], held: HeldReading | None, session: Session | None) -> dict[str, Any]:
    """The public snapshot plus what the host needs to correct it (still no secrets)."""
    return dict(snapshot, held_reading=held_view(held), events=host_events(session))


def host_events(session: Session | None) -> list[dict[str, Any]]:
    """The game's public record, each event with its index and whether it is in force
    (an undone or amended one is not), for the host's undo and fixes."""
    if session is None:
        return []
    record = session.record.to_dict(public=True)
    live = {i for i, _ in session.live_events()}
    return [dict(e, index=i, in_force=i in live) for i, e in enumerate(record["events"])]


def game_entry(store: Store, game_id: str, current_id: str | None,
               current: Session | None) -> dict[str, Any] | None:
    """A stored game as the history pages and the API show it: its summary, public record,
    final slate (the running game's current one) and events; None when there is none.
    `current_id`/`current`: the game in progress, whose record and slate are the session's."""
    summary = next((g for g in store.list_games() if str(g.get("id")) == game_id), None)
    if summary is None:
        return None
    running = current if current is not None and summary["id"] == current_id else None
    try:
        record = store.load(summary["id"])
    except (KeyError, LookupError):
        return None
    public = (running.record if running is not None else record).to_dict(public=True)
    slate = summary.get("slate")
    if slate is None and running is not None:
        slate = running.slate().to_json()
    try:
        live = {i for i, _ in effective_events(record.events)}
    except BadRecord:
        live = set(range(len(record.events)))
    events = [dict(e, index=i, in_force=i in live, correction=e["kind"] in CORRECTIONS)
              for i, e in enumerate(public["events"])]
    return {"id": summary["id"], "summary": summary, "record": public, "slate": slate, "events": events}


class SeatCue(Enum):
    """What a seat's light says: this seat is to act (blinking), or its call is in (steady)."""

    TURN = "turn"
    CALL_IN = "call-in"


@dataclass(frozen=True)
class SeatsView:
    """The seats as their lights show them: who is to act and who has called, never what."""

    players: int = 0  # no game: no seat is lit
    finished: bool = False
    acting: frozenset[int] = frozenset()
    waiting: frozenset[int] = frozenset()
    calling: bool = False  # a call round: every seat in play is lit, blinking until it calls

    @classmethod
    def of(cls, session: Session | None) -> "SeatsView":
        if session is None:
            return cls()
        prompt, slate = session.prompt(), session.slate()
        return cls(players=len(slate.players), finished=slate.finished, acting=frozenset(prompt.seats),
                   waiting=frozenset(prompt.waiting), calling="chip_call" in prompt.wants or bool(prompt.waiting))

    def cues(self, seats: list[int]) -> dict[int, SeatCue]:
        """The cue of each of `seats` (those with a light) that has one."""
        if self.finished:
            return {}
        cues = {}
        for seat in seats:
            if seat >= self.players:
                continue
            if self.calling:
                cues[seat] = SeatCue.TURN if seat in self.waiting else SeatCue.CALL_IN
            elif seat in self.acting:
                cues[seat] = SeatCue.TURN
        return cues

"""Views of the table's state: what the slate, the API and the host panel are shown.

Built from the session and what the table keeps beside it (device status, the reveal
photo, the reading held for the host); nothing here changes state, and nothing secret
reaches a view: the slate and the record are their public projections.
"""

from __future__ import annotations

from typing import Any, Mapping

from companion.readings import HeldReading
from companion.rules import Prompt
from companion.session import Session


def public_snapshot(seq: int, game_id: str | None, devices: Mapping[str, dict[str, str]], session: Session | None,
                    *, photo: dict[str, Any] | None, held: bool) -> dict[str, Any]:
    """The public state: what any slate, phone or API client may see."""
    snap: dict[str, Any] = {"seq": seq, "game_id": game_id, "devices": dict(devices)}
    if session is None:
        snap.update(slate=None, prompt=None, photo=None, held=False)
        return snap
    snap["slate"] = session.slate().to_json()
    snap["prompt"] = prompt_view(session.prompt())
    snap["photo"] = photo
    snap["held"] = held
    return snap


def prompt_view(prompt: Prompt) -> dict[str, Any]:
    """Whose turn it is and what may happen next, as the slate and the host panel read it."""
    return {
        "phase": prompt.phase, "text": prompt.text, "seats": list(prompt.seats), "wants": list(prompt.wants),
        "waiting": list(prompt.waiting),
        "dice": None if prompt.dice is None else {
            "kind": prompt.dice.kind, "count": prompt.dice.count, "seat": prompt.dice.seat,
            "purpose": prompt.dice.purpose, "hands": [[s, list(h)] for s, h in prompt.dice.hands],
        },
    }


def held_view(held: HeldReading | None) -> dict[str, Any] | None:
    """The reading held for the host, each die marked when the reader doubts it."""
    if held is None:
        return None
    return {
        "values": list(held.values), "reason": held.reason, "photo": held.photo_id,
        "dice": [{"value": v, "box": held.reading.box(i), "unsure": i in held.reading.unsure}
                 for i, v in enumerate(held.values)],
    }


def host_events(session: Session | None) -> list[dict[str, Any]]:
    """The game's public record, each event with its index and whether it is in force
    (an undone or amended one is not), for the host's undo and fixes."""
    if session is None:
        return []
    record = session.record.to_dict(public=True)
    live = {i for i, _ in session.live_events()}
    return [dict(e, index=i, in_force=i in live) for i, e in enumerate(record["events"])]

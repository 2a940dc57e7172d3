"""The slate as text for a terminal (simulate, replay)."""

from __future__ import annotations

from companion.rules import Slate


def render(slate: Slate) -> str:
    lines = [f"{slate.title} — {slate.stage}"]
    if slate.finished:
        lines.append(f"Finished. Winner: {slate.winner or 'none'}")
    else:
        lines.append(slate.prompt)
    if slate.pot is not None:
        lines.append(f"Pot: {slate.pot}")
    label = {"points": "points", "dice": "dice", "winnings": "net"}.get(slate.scoring, "score")
    width = max(len(p.name) for p in slate.players)
    for p in slate.players:
        value = p.dice if slate.scoring == "dice" else p.score
        extra = f"  ({p.status})" if p.status else ""
        lines.append(f"  {p.name:<{width}}  {value if value is not None else '-':>4} {label}{extra}")
    return "\n".join(lines)

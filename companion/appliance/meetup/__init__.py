"""Meetup mode's wiring: the table's publisher and the leaderboard service (paho-mqtt).

`settings` parses the table's `[meetup]` section and the leaderboard's config file;
`publisher.TablePublisher` sends the table's public slate and finished games to the
broker; `leaderboard.LeaderboardService` subscribes, counts and serves the page. The
message formats, the outbox and the evening's board are pure, in `companion.meetup`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any


def start_publisher(config: Any, table: Any, data_dir: Path):
    """The table's publisher, started, when `[meetup]` is enabled; None for a table alone."""
    settings = getattr(config, "meetup", None)
    if settings is None or not settings.enabled:
        return None
    from companion.appliance.meetup.publisher import TablePublisher
    from companion.meetup import Outbox

    publisher = TablePublisher(table, Outbox.in_dir(data_dir, table.store), settings, title=config.table.name)
    publisher.start()
    return publisher

"""Which installed packages differ from a lock's pins (for this Python and machine).

    python scripts/moved.py requirements-dev.txt

Prints one line a package, "NAME: LOCKED -> INSTALLED" (or "not locked"), nothing when the
installed set is the locked one. scripts/test-newest runs it to say which release a
failure on the newest versions came with.
"""

from __future__ import annotations

import re
import sys
from importlib import metadata

from packaging.markers import Marker
from packaging.utils import canonicalize_name

PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s;\\]+)\s*(?:;\s*([^\\]+?))?\s*\\?$")


def pins(lock_text: str) -> dict[str, str]:
    """The lock's pins whose markers hold here: {canonical name: version}."""
    out = {}
    for line in lock_text.splitlines():
        m = PIN.match(line.strip())
        if m and (m.group(3) is None or Marker(m.group(3)).evaluate()):
            out[canonicalize_name(m.group(1))] = m.group(2)
    return out


def moved(locked: dict[str, str]) -> list[str]:
    """'name: locked -> installed' for each locked package installed at another version,
    and each installed package the lock does not name."""
    lines = []
    for dist in metadata.distributions():
        name = canonicalize_name(dist.metadata["Name"] or "")
        if not name or name in {"pip", "game-table-companion"}:
            continue
        if name not in locked:
            lines.append(f"{name}: not locked -> {dist.version}")
        elif locked[name] != dist.version:
            lines.append(f"{name}: {locked[name]} -> {dist.version}")
    return sorted(set(lines))


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python scripts/moved.py LOCKFILE", file=sys.stderr)
        return 2
    with open(argv[0], encoding="utf-8") as f:
        for line in moved(pins(f.read())):
            print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

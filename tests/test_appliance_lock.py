"""Issue 64: the lock of tested versions (requirements.txt, requirements-dev.txt) pins every
package pyproject.toml asks for, each with its files' hashes, the runtime lock agreeing
with the dev lock; scripts/moved.py names what a newer install moved."""

from __future__ import annotations

import re
import sys
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "scripts"))
import moved  # noqa: E402


def _entries(path: Path) -> list[tuple[str, str, list[str]]]:
    """(name, version, hashes) for each pin of a lock, markers ignored."""
    out, current = [], None
    for line in path.read_text().splitlines():
        pin = re.match(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==(\S+?)(?:\s*;.*?)?\s*\\?$", line)
        if pin:
            current = (canonicalize_name(pin.group(1)), pin.group(2), [])
            out.append(current)
        elif current and (h := re.match(r"^\s+--hash=sha256:([0-9a-f]{64})", line)):
            current[2].append(h.group(1))
    return out


def _wanted(*extras: str) -> set[str]:
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    reqs = list(project["dependencies"]) + [r for e in extras for r in project["optional-dependencies"][e]]
    return {canonicalize_name(Requirement(r).name) for r in reqs}


@pytest.mark.parametrize("lock, extras", [("requirements.txt", ("pi",)), ("requirements-dev.txt", ("pi", "dev"))])
def test_the_lock_pins_every_package_pyproject_asks_for_with_its_hashes(lock, extras):
    entries = _entries(REPO / lock)
    assert entries and all(hashes for _, _, hashes in entries), "every pin carries its files' hashes"
    pinned = {name for name, _, _ in entries}
    # lgpio comes from the OS (python3-lgpio, which install-pi.sh installs): no wheel for Trixie's 3.13
    assert _wanted(*extras) - {"lgpio"} <= pinned and "lgpio" not in pinned


def test_the_demo_and_the_pi_run_the_versions_the_tests_passed_with():
    dev = {(name, version) for name, version, _ in _entries(REPO / "requirements-dev.txt")}
    assert {(name, version) for name, version, _ in _entries(REPO / "requirements.txt")} <= dev


def test_moved_names_each_package_installed_at_another_version_than_locked():
    locked = moved.pins("pytest==0.0.1 \\\n    --hash=sha256:" + "0" * 64 + "\n"
                        "numpy==1.0 ; python_version < '3'\n")  # a marker that never holds here: no pin
    assert "numpy" not in locked
    lines = moved.moved(locked)
    assert any(line.startswith("pytest: 0.0.1 -> ") for line in lines)
    assert any(line.startswith("flask: not locked -> ") for line in lines)
